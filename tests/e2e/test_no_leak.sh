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

for args in "--no-cuda" "--no-cuda -v" "--no-cuda --json" "--no-cuda --json --redact"; do
  name=run$((checks))
  planted $args >"$TMP/$name.out" 2>"$TMP/$name.err"
  for secret in $secrets; do
    checks=$((checks + 1))
    ! grep -qF -- "$secret" "$TMP/$name.out" "$TMP/$name.err" || fail "gpudoctor $args: the output contains $secret"
  done
done

# The allowed variables are still there, with the token cut out, so the diagnosis keeps them.
planted --no-cuda -v >"$TMP/v.out" 2>&1
checks=$((checks + 1))
grep -qF "env.ld_library_path = /opt/<secret>/lib:/usr/local/nvidia/lib64" "$TMP/v.out" ||
  fail "LD_LIBRARY_PATH was not kept with the token replaced: $(grep env.ld_library_path "$TMP/v.out")"

# A capture replays with the same (clean) values.
planted --no-cuda --json >"$TMP/capture.json" 2>/dev/null
"$GD" replay "$TMP/capture.json" -v >"$TMP/replay.out" 2>&1
for secret in $secrets; do
  checks=$((checks + 1))
  ! grep -qF -- "$secret" "$TMP/replay.out" || fail "replay shows $secret"
done

# --redact: no host name, no GPU UUID, no user name from a home folder.
host=$(uname -n)
env CUDA_VISIBLE_DEVICES=GPU-48a35ae5-26cc-b221-0dfe-8d39c03f25ad LD_LIBRARY_PATH=/home/alice/lib \
  "$GD" --no-cuda --json --redact >"$TMP/redacted.json" 2>/dev/null
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
finish
