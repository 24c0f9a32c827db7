# Nothing secret leaves the host: secret variables are never read, tokens pasted into allowed
# variables are replaced, and --redact removes what identifies the machine. Checked in the text
# report, -v, --json and its capture, and a replay of that capture.
source "$(dirname "$0")/lib.sh"

aws=AKIAIOSFODNN7EXAMPLE
aws_secret=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY0123
hf=hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345
wandb=0123456789abcdef0123456789abcdef01234567
gh=ghp_0123456789abcdefghijABCDEFGHIJklmnop
nv=nvapi-Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp
secrets="$aws $aws_secret $hf $wandb $gh $nv hunter2"

planted() {  # runs gpudoctor with the secrets in its environment
  env AWS_ACCESS_KEY_ID=$aws AWS_SECRET_ACCESS_KEY=$aws_secret HF_TOKEN=$hf HUGGING_FACE_HUB_TOKEN=$hf \
    WANDB_API_KEY=$wandb GITHUB_TOKEN=$gh NVIDIA_API_KEY=$nv CUDA_AUTH=$gh \
    LD_LIBRARY_PATH=/opt/$hf/lib:/usr/local/nvidia/lib64 CUDA_CACHE_PATH=/tmp/$gh/cache \
    PIP_INDEX_URL=https://user:hunter2@pypi.example.com/simple PYTHONPATH=/srv/$wandb \
    NVIDIA_VISIBLE_DEVICES=all "$GD" "$@"
}

# A run that crashed or printed nothing would leak nothing either: each run must finish its report.
finished() {  # NAME: exit 0 or 1 (this machine's findings) and a whole report on stdout
  sanitizer_clean "$1"
  checks=$((checks + 1))
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "$1: exit $rc: $(head -3 "$TMP/$1.err")"
  checks=$((checks + 1))
  grep -qE '^(No problems found\.|No problem confirmed;|Found [0-9]+ errors? and [0-9]+ warnings?\.)|^  "schema_version": 1,' "$TMP/$1.out" ||
    fail "$1: no finished report on stdout: $(head -c 300 "$TMP/$1.out")"
}

for args in "--no-cuda" "--no-cuda -v" "--no-cuda --json" "--no-cuda --json --redact"; do
  name=run$((checks))
  planted $args >"$TMP/$name.out" 2>"$TMP/$name.err"
  rc=$?
  finished "$name"
  for secret in $secrets; do
    checks=$((checks + 1))
    ! grep -qF -- "$secret" "$TMP/$name.out" "$TMP/$name.err" || fail "gpudoctor $args: the output contains $secret"
  done
done

# The allowed variables are still there, with the token cut out, so the diagnosis keeps them.
planted --no-cuda -v >"$TMP/v.out" 2>"$TMP/v.err"
rc=$?
finished v
checks=$((checks + 1))
grep -qF "env.ld_library_path = /opt/<secret>/lib:/usr/local/nvidia/lib64" "$TMP/v.out" ||
  fail "LD_LIBRARY_PATH was not kept with the token replaced: $(grep env.ld_library_path "$TMP/v.out")"

# A capture replays with the same (clean) values.
planted --no-cuda --json >"$TMP/capture.out" 2>"$TMP/capture.err"
rc=$?
finished capture
cp "$TMP/capture.out" "$TMP/capture.json"
run_gd replay replay "$TMP/capture.json" -v
finished replay
for secret in $secrets; do
  checks=$((checks + 1))
  ! grep -qF -- "$secret" "$TMP/replay.out" || fail "replay shows $secret"
done

# --redact: no host name, no GPU UUID, no user name from a home folder.
host=$(uname -n)
env CUDA_VISIBLE_DEVICES=GPU-48a35ae5-26cc-b221-0dfe-8d39c03f25ad LD_LIBRARY_PATH=/home/alice/lib \
  "$GD" --no-cuda --json --redact >"$TMP/redacted.out" 2>"$TMP/redacted.err"
rc=$?
finished redacted
cp "$TMP/redacted.out" "$TMP/redacted.json"
for word in 48a35ae5-26cc-b221-0dfe-8d39c03f25ad alice; do
  checks=$((checks + 1))
  ! grep -qF -- "$word" "$TMP/redacted.json" || fail "--redact left $word in the report"
done
if [ ${#host} -ge 4 ] && [ "$host" != localhost ]; then
  checks=$((checks + 1))
  ! grep -qwF -- "$host" "$TMP/redacted.json" || fail "--redact left the host name $host in the report"
fi
checks=$((checks + 1))
grep -qF 'GPU-<uuid>' "$TMP/redacted.json" || fail "--redact did not keep the shape of the UUID"

# --redact on a capture that names the machine everywhere: host name, a GPU that fell off the bus
# (the container's own, so that the Xid counts) with its UUID and board serial (as NVRM prints them), a USB serial, and a home folder inside the
# binary ld.so.cache (kept as base64). None may remain, not even inside a decoded base64 blob; the
# Xid 79 diagnosis must, and the redacted capture must replay to the same findings. The Xid names
# the capture's own GPU (0000:00:06.0): in a container the Xid rules count only those.
python3 - "$HOSTS/h200-live-full.capture.json" "$TMP/planted.capture.json" <<'PY'
import base64, json, sys
capture = json.load(open(sys.argv[1]))
capture["uname"]["nodename"] = "gpu-node-17"
capture["paths"]["/dev/kmsg"]["read"]["lines"][-1:-1] = [
    "4,90000,4254197800,-;NVRM: GPU at PCI:0000:00:06: GPU-8e3a4b1a-0b1c-4d2e-9f00-112233445566",
    "4,90001,4254197854,-;NVRM: GPU Board Serial Number: 1653923026510",
    "4,90002,4254197860,-;NVRM: Xid (PCI:0000:00:06): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
    "3,90003,4254197878,-;NVRM: GPU 0000:00:06.0: GPU serial number is 1653923026510.",
    "6,90004,4254197900,-;usb 1-1: SerialNumber: USBSERIAL0042 on gpu-node-17",
]
cache = capture["paths"]["/etc/ld.so.cache"]["read"]
raw = base64.b64decode(cache["base64"])
assert b"/usr/local/nvidia/lib64/" in raw
cache["base64"] = base64.b64encode(raw.replace(b"/usr/local/nvidia/lib64/", b"/home/alice/nvidia/lib6/")).decode()
json.dump(capture, open(sys.argv[2], "w"))
PY
run_gd planted replay "$TMP/planted.capture.json" --json
finished planted
cp "$TMP/planted.out" "$TMP/planted.json"
run_gd planted-redacted replay "$TMP/planted.capture.json" --json --redact
finished planted-redacted
cp "$TMP/planted-redacted.out" "$TMP/planted-redacted.json"
decoded_strings "$TMP/planted-redacted.json" >"$TMP/planted-redacted.decoded"
checks=$((checks + 1))
[ -s "$TMP/planted-redacted.decoded" ] || fail "--redact of the planted capture gave no readable JSON: $(head -c 300 "$TMP/planted-redacted.err")"
for word in gpu-node-17 8e3a4b1a-0b1c-4d2e-9f00-112233445566 1653923026510 USBSERIAL0042 alice; do
  checks=$((checks + 1))
  ! grep -qF -- "$word" "$TMP/planted-redacted.decoded" || fail "--redact left $word in the planted capture: $(grep -F -- "$word" "$TMP/planted-redacted.decoded" | head -c 300)"
done
checks=$((checks + 1))
grep -qF 'GPU Board Serial Number: <serial>' "$TMP/planted-redacted.decoded" || fail "--redact did not keep the serial line's shape"
finding_ids() { python3 -c 'import json,sys; print(" ".join(sorted(f["id"] for f in json.load(open(sys.argv[1]))["findings"])))' "$1"; }
checks=$((checks + 1))
case " $(finding_ids "$TMP/planted-redacted.json") " in
  *" xid.fallen-off-bus "*) ;;
  *) fail "--redact lost the Xid 79 finding: $(finding_ids "$TMP/planted-redacted.json")" ;;
esac
run_gd replayed-redacted replay "$TMP/planted-redacted.json" --json
finished replayed-redacted
cp "$TMP/replayed-redacted.out" "$TMP/replayed-redacted.json"
checks=$((checks + 1))
[ "$(finding_ids "$TMP/replayed-redacted.json")" = "$(finding_ids "$TMP/planted.json")" ] ||
  fail "the redacted capture replays to other findings: $(finding_ids "$TMP/replayed-redacted.json") vs $(finding_ids "$TMP/planted.json")"
finish
