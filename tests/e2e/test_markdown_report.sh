# --format markdown through a real Markdown parser (Debian's python3-markdown, tables and fenced
# code as on GitHub): the replay of every captured host, with and without --redact, and a host
# whose values hold Markdown and HTML syntax, each checked against the --json report of the same
# run by tests/e2e/check_markdown.py (verdict heading, one overview row per area, a heading per
# finding with its fix steps as code blocks and its evidence, every fact in its folded group,
# nothing read as HTML, under GitHub's 65,536 characters, what was left out named).
source "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3  # Debian's: pyenv's python3 on PATH lacks the module
if ! [ -x "$PY" ] || ! "$PY" -c 'import markdown' 2>/dev/null; then
  echo "SKIP: $PY has no markdown module (Debian's python3-markdown)"
  exit 125
fi

# check NAME CAPTURE [--redact] [--absent TEXT]: both reports of CAPTURE, checked together.
check() {
  local name=$1 capture=$2
  shift 2
  local redact=()
  [ "${1:-}" = --redact ] && { redact=(--redact); shift; }
  run_gd "$name.md" --format markdown "${redact[@]}" replay "$capture"
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || { fail "$name.md: exit $rc"; head -3 "$TMP/$name.md.err"; return; }
  local md_rc=$rc
  run_gd "$name.json" --json --no-capture "${redact[@]}" replay "$capture"
  checks=$((checks + 1))
  [ "$rc" = "$md_rc" ] || fail "$name: --format markdown exits $md_rc, --json $rc"
  checks=$((checks + 1))
  "$PY" "$SRC/tests/e2e/check_markdown.py" "$TMP/$name.md.out" "$TMP/$name.json.out" "$@" >"$TMP/$name.check" 2>&1 ||
    { fail "$name: the Markdown report does not hold"; sed 's/^/    /' "$TMP/$name.check" | head -20; }
  tail -1 "$TMP/$name.check"
}

for capture in "$HOSTS"/*.capture.json; do
  name=$(basename "$capture" .capture.json)
  check "$name" "$capture"
  host=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1])).get("uname", {}).get("nodename", ""))' "$capture")
  if [ "${#host}" -ge 2 ] && [ "$host" != localhost ]; then
    check "$name.redacted" "$capture" --redact --absent "$host"
    expect_out "$name.redacted.md" ' · host `<host>`'
  fi
done

# A host whose variables, name and driver file hold Markdown and HTML: table cells, code spans,
# code blocks and folded blocks must hold them as text.
hostile='|a|`b`*c*_d_~e~$f$<img src=x onerror=alert(1)></details>```'
"$PY" - "$HOSTS/h200-live-cvd99.capture.json" "$TMP/hostile.capture.json" "$hostile" <<'PYEOF'
import json, sys
src, dst, bad = sys.argv[1:4]
c = json.load(open(src))
c["env"]["LD_LIBRARY_PATH"] = "/usr/local/nvidia/lib64:/opt/" + bad
c["env"]["CUDA_VISIBLE_DEVICES"] = "99" + bad
c["uname"]["nodename"] = "gpu" + bad
json.dump(c, open(dst, "w"))
PYEOF
check hostile "$TMP/hostile.capture.json"
checks=$((checks + 1))
# The values did reach the report: otherwise the check above proves nothing about escaping.
grep -qF -- "/opt/|a|\`b\`" "$TMP/hostile.json.out" || fail "the hostile LD_LIBRARY_PATH is not in the report"
expect_out hostile.md '/opt/&#124;a&#124;\\`b\\`\\\*c\\\*\\_d\\_&#126;e&#126;&#36;f&#36;&lt;img src=x'
# Inside code spans and blocks the tag is text: check_markdown.py found no <img> element in the
# parsed document (it fails on any element the renderer never writes).
finish
