# Memory bounds on every parser of a file an attacker can write (issue 24 item 6): a crafted
# /etc/ld.so.cache under --root, and replay and diff of 200 MB of nested or wide JSON. Each run
# stays under the hostile-hosts test's 256 MiB of peak memory (GNU time's %M) and a generous
# wall-time bound (a hang guard, not a benchmark), and ends as a report with a fact saying what
# was not read (the cache) or as exit 2 with one line naming the file and the bound (replay,
# diff). The inputs are made here (tests/e2e/make_memory_bombs.py), never committed.
source "$(dirname "$0")/lib.sh"

limit_s=60
max_rss_kib=$((256 * 1024))
[ -x /usr/bin/time ] || { skip "no /usr/bin/time (GNU time) to measure peak memory"; finish; }
bombs=$SRC/tests/e2e/make_memory_bombs.py

# bounded NAME ARGS...: runs gpudoctor under a timeout and GNU time; exit in $rc. Outside the
# sanitizer build the address space is capped too (4 GiB), so that a reader that does blow up
# fails fast here instead of taking the machine's memory (ASan reserves terabytes of it).
bounded() {
  local name=$1; shift
  (
    [ "${GD_SANITIZED:-0}" = 1 ] || ulimit -v $((4 * 1024 * 1024))
    exec timeout "$limit_s" /usr/bin/time -f '%M %e' -o "$TMP/$name.time" "$GD" "$@"
  ) >"$TMP/$name.out" 2>"$TMP/$name.err"
  rc=$?
  sanitizer_clean "$name"
  checks=$((checks + 1))
  [ "$rc" != 124 ] || fail "$name: still running after ${limit_s}s"
  local rss wall
  read -r rss wall < <(tail -n 1 "$TMP/$name.time" 2>/dev/null)
  checks=$((checks + 1))
  if [[ "${rss:-}" =~ ^[0-9]+$ ]]; then
    echo "$name: exit $rc, peak RSS $rss KiB, $wall s"
    [ "${GD_SANITIZED:-0}" = 1 ] || [ "$rss" -le "$max_rss_kib" ] || fail "$name: peak memory $rss KiB (bound $max_rss_kib)"
  else
    fail "$name: /usr/bin/time wrote no peak memory (exit $rc): $(tail -c 300 "$TMP/$name.err")"
  fi
}

refused() {  # NAME PATTERN FILE: the run NAME exited 2 with one line naming FILE and PATTERN
  expect_rc "$1" 2
  expect_err_lines "$1" 1
  expect_err "$1" "^gpudoctor: error: $3: $2"
}

# 1. /etc/ld.so.cache, 16 MiB (the most the probe reads): 698,878 entries, each libcuda.so.1
#    => one 4 KiB path. Copied per entry and per listing: 9 GB and still growing at 20 s.
root=$TMP/cache-count
mkdir -p "$root/etc" "$root/proc" "$root/usr/lib/x86_64-linux-gnu"
python3 "$bombs" ld-cache "$root/etc/ld.so.cache" $((16 << 20))
bounded cache_count --root "$root" --json
case $rc in 0 | 1) ;; *) checks=$((checks + 1)); fail "cache_count: exit $rc: $(head -3 "$TMP/cache_count.err")" ;; esac
expect_json cache_count 'r["facts"]["lib.ldcache.readable"]["state"]' unknown
expect_json cache_count '"698878 entries (at most 262144 are read" in r["facts"]["lib.ldcache.readable"]["reason"]' True
# What the loader finds is then unknown, never guessed from a part of the table.
expect_json cache_count 'r["facts"]["lib.libcuda.resolved_via"]["state"]' unknown

# 2. The same shape in 6 MiB: 262,000 entries, under the entry cap; their strings are 1 GB.
root=$TMP/cache-strings
mkdir -p "$root/etc" "$root/proc"
python3 "$bombs" ld-cache "$root/etc/ld.so.cache" $((6 << 20))
bounded cache_strings --root "$root" --json
case $rc in 0 | 1) ;; *) checks=$((checks + 1)); fail "cache_strings: exit $rc: $(head -3 "$TMP/cache_strings.err")" ;; esac
expect_json cache_strings '"its strings take more than" in r["facts"]["lib.ldcache.readable"]["reason"]' True
bounded cache_strings_text --root "$root"
expect_out cache_strings_text 'ld\.so\.cache|libcuda'

# 3. replay and diff of 200 MB of JSON: 100 million arrays inside each other, then 25 million
#    small objects in one array.
big=$((200 * 1000 * 1000))
python3 "$bombs" nested "$TMP/nested.json" "$big"
python3 "$bombs" wide "$TMP/wide.json" "$big"
"$GD" replay "$HOSTS/h200-container-580.159.04.capture.json" --json --no-capture >"$TMP/good.json" 2>/dev/null
checks=$((checks + 1))
grep -q '"schema_version"' "$TMP/good.json" || fail "no report of the healthy capture to diff against"

bounded replay_nested replay "$TMP/nested.json"
refused replay_nested "nested more than 64 levels deep at byte 65: not read" "$TMP/nested.json"
bounded replay_wide replay "$TMP/wide.json"
refused replay_wide "more than 1000000 values at byte [0-9]+: not read" "$TMP/wide.json"
bounded diff_nested diff "$TMP/good.json" "$TMP/nested.json"
refused diff_nested "nested more than 64 levels deep" "$TMP/nested.json"
bounded diff_wide diff "$TMP/wide.json" "$TMP/good.json"
refused diff_wide "more than 1000000 values" "$TMP/wide.json"
rm -f "$TMP/nested.json" "$TMP/wide.json"

# 4. One string of 40 MB (past the 32 MiB a string may have), and a number of 1 MB.
python3 -c 'import sys; open(sys.argv[1], "w").write("{\"format\": \"" + "a" * 40000000 + "\"}")' "$TMP/string.json"
bounded replay_string replay "$TMP/string.json"
refused replay_string "a string longer than 32 MiB at byte [0-9]+: not read" "$TMP/string.json"
python3 -c 'import sys; open(sys.argv[1], "w").write("[" + "1" * 1000000 + "]")' "$TMP/number.json"
bounded diff_number diff "$TMP/number.json" "$TMP/good.json"
refused diff_number "a number or literal longer than 4096 bytes at byte 4097: not read" "$TMP/number.json"

# 5. Invalid JSON names the byte and the last token, escaped: an ESC or a bidi override in the
#    file never reaches the terminal.
printf '{"format": "gpudoctor-capture", "version": 1, "x": \033]0;owned\007\342\200\256}' >"$TMP/escape.json"
bounded replay_escape replay "$TMP/escape.json"
refused replay_escape "not valid JSON at byte [0-9]+ \(last read: '.*'\); a gpudoctor capture or --json report was expected" "$TMP/escape.json"
checks=$((checks + 1))
! grep -q $'\033\|\007\|\342\200\256' "$TMP/replay_escape.err" || fail "replay_escape: control bytes reached stderr: $(od -c "$TMP/replay_escape.err" | head -5)"
bounded diff_escape diff "$TMP/escape.json" "$TMP/good.json"
refused diff_escape "not valid JSON at byte [0-9]+ \(last read: '.*'\)" "$TMP/escape.json"

# 6. A real capture and a real report still replay and diff, in bounded memory.
bounded replay_real replay "$HOSTS/h200-live-ml.capture.json"
case $rc in 0 | 1) ;; *) checks=$((checks + 1)); fail "replay_real: exit $rc: $(head -3 "$TMP/replay_real.err")" ;; esac
expect_out replay_real '^(Found [0-9]+ errors? and [0-9]+ warnings?|No problems found|No problem confirmed;)'
bounded diff_real diff "$TMP/good.json" "$HOSTS/h200-live-ml.capture.json"
case $rc in 0 | 1) ;; *) checks=$((checks + 1)); fail "diff_real: exit $rc: $(head -3 "$TMP/diff_real.err")" ;; esac

finish
