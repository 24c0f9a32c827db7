# The --json report: versioned keys, capture on/off, and replay of a report giving the same
# findings and facts. Every run's exit code is checked: the diffs below compare outputs, and two
# empty outputs of two failed runs compare equal.
source "$(dirname "$0")/lib.sh"

run_gd json --json replay "$HOSTS/h200-live-cvd99.capture.json"
expect_rc json 1
for key in '"schema_version": 1' '"gpudoctor_version": "' '"facts": \{' '"findings": \[' '"capture": \{' \
           '"summary": \{' '"areas": \[' '"id": "cuda.visible-devices-hides-gpus"' '"severity": "error"' \
           '"fix": \[' '"evidence": \['; do
  expect_out json "$key"
done

run_gd nocapture --json --no-capture replay "$HOSTS/h200-live-cvd99.capture.json"
expect_rc nocapture 1
expect_out nocapture '"schema_version": 1'
expect_no_out nocapture '"capture":'

# Replaying a --json report reproduces its facts and findings (all but the run metadata).
cp "$TMP/json.out" "$TMP/report.json"
run_gd again --json replay "$TMP/report.json"
expect_rc again 1
expect_out again '"id": "cuda.visible-devices-hides-gpus"'
checks=$((checks + 1))
strip() { grep -vE '"(duration_ms|started|source|mode)":' "$1" | sed -n '/"facts"/,$p'; }
diff <(strip "$TMP/json.out") <(strip "$TMP/again.out") >"$TMP/diff.txt" || { fail "replay of a report differs"; head -30 "$TMP/diff.txt"; }
checks=$((checks + 1))
diff <(sed -n '/"findings"/,/"inconclusive"/p' "$TMP/json.out") <(sed -n '/"findings"/,/"inconclusive"/p' "$TMP/again.out") \
  >/dev/null || fail "findings differ after replaying the report"

# A report made with --no-capture cannot be replayed, and says so.
cp "$TMP/nocapture.out" "$TMP/nocap.json"
run_gd nocapreplay replay "$TMP/nocap.json"
expect_rc nocapreplay 2
expect_err nocapreplay "no-capture"

# Text output has no colour when not on a terminal; --color always adds it unless NO_COLOR.
run_gd plain replay "$HOSTS/h200-live-cvd99.capture.json"
expect_rc plain 1
expect_out plain '^error \[cuda.visible-devices-hides-gpus\]'
expect_no_out plain $'\033\['
run_gd color --color always replay "$HOSTS/h200-live-cvd99.capture.json"
expect_rc color 1
expect_out color $'\033\['
NO_COLOR=1 run_gd nocolor --color always replay "$HOSTS/h200-live-cvd99.capture.json"
expect_rc nocolor 1
expect_out nocolor 'cuda.visible-devices-hides-gpus'
expect_no_out nocolor $'\033\['

# -v lists every fact.
run_gd verbose -v replay "$HOSTS/h200-container-580.159.04.capture.json"
expect_rc verbose 0
expect_out verbose "^  cuda.device.0.name = NVIDIA H200"
expect_out verbose "^  kmod.nvidia.version = 580.159.04"
finish
