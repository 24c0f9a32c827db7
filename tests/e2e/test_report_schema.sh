# docs/report.schema.json (JSON Schema 2020-12) against real reports: the replay of every
# captured host, with its capture, with --no-capture, with --redact and with --scope node,
# validated with Debian's python3-jsonschema (Draft202012Validator). The validator also checks
# that the schema is strict: renamed, retyped and dropped fields must fail
# (tests/e2e/validate_report_schema.py).
source "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3  # Debian's: pyenv's python3 on PATH lacks the module
if ! [ -x "$PY" ] || ! "$PY" -c 'import jsonschema' 2>/dev/null; then
  echo "SKIP: $PY has no jsonschema module (Debian's python3-jsonschema)"
  exit 125
fi

reports=()
for capture in "$HOSTS"/*.capture.json; do
  name=$(basename "$capture" .capture.json)
  for variant in full no-capture redact node; do
    case $variant in
      full) args=(--json) ;;
      no-capture) args=(--json --no-capture) ;;
      redact) args=(--json --redact) ;;
      node) args=(--json --no-capture --scope node) ;;
    esac
    run_gd "$name.$variant" "${args[@]}" replay "$capture"
    checks=$((checks + 1))
    # 0 or 1: a report was printed; 2 would be an error line, not a report.
    [ "$rc" = 0 ] || [ "$rc" = 1 ] || { fail "$name.$variant: exit $rc"; head -3 "$TMP/$name.$variant.err"; continue; }
    reports+=("$TMP/$name.$variant.out")
  done
done
checks=$((checks + 1))
[ "${#reports[@]}" -ge 40 ] || fail "only ${#reports[@]} reports were made"
checks=$((checks + 1))
grep -l '"left_out": \[$' "${reports[@]}" >/dev/null || fail "no report has a non-empty summary.left_out (--scope node)"

checks=$((checks + 1))
"$PY" "$SRC/tests/e2e/validate_report_schema.py" "$SRC/docs/report.schema.json" "${reports[@]}" >"$TMP/validate.txt" 2>&1
status=$?
cat "$TMP/validate.txt" | tail -20
[ "$status" = 0 ] || fail "validation against docs/report.schema.json (exit $status)"
finish
