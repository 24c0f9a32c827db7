# Exit codes and one-line errors for bad input; rules and explain.
source "$(dirname "$0")/lib.sh"

run_gd version --version
expect_rc version 0
expect_out version "^gpudoctor [0-9]+\.[0-9]+\.[0-9]+"

run_gd help --help
expect_rc help 0
expect_out help "replay"

run_gd badflag --no-such-flag
expect_rc badflag 2
expect_err badflag "^gpudoctor: error: .*--no-such-flag"
expect_err_lines badflag 1

run_gd badtimeout --cuda-timeout 0
expect_rc badtimeout 2
expect_err_lines badtimeout 1

run_gd noroot --root "$TMP/does-not-exist" --no-cuda
expect_rc noroot 2
expect_err noroot "does-not-exist"
expect_err_lines noroot 1

touch "$TMP/afile"
run_gd rootfile --root "$TMP/afile"
expect_rc rootfile 2
expect_err_lines rootfile 1

run_gd rules rules
expect_rc rules 0
expect_out rules "cuda.stub-libcuda"
expect_out rules "^[0-9]+ rules$"

run_gd explain explain cuda.stub-libcuda
expect_rc explain 0
expect_out explain "^Fix:"
expect_out explain "References:"

run_gd explain_typo explain cuda.stub-libcud
expect_rc explain_typo 2
expect_err explain_typo "did you mean 'cuda.stub-libcuda'"

# Corrupt captures: one line naming the file, exit 2.
echo '{"format": "gpudoctor-capture", "version": 1, "paths": {"/x": {"read": {"lines": 5}}}}' >"$TMP/bad.json"
run_gd badcapture replay "$TMP/bad.json"
expect_rc badcapture 2
expect_err badcapture "bad.json.*paths./x.read.lines"
expect_err_lines badcapture 1

printf '{"format": "gpudoctor-capture", "version": 1, "paths": {' >"$TMP/truncated.json"
run_gd truncated replay "$TMP/truncated.json"
expect_rc truncated 2
expect_err truncated "truncated.json: not valid JSON"
expect_err_lines truncated 1

echo '{"format": "gpudoctor-capture", "version": 99}' >"$TMP/future.json"
run_gd future replay "$TMP/future.json"
expect_rc future 2
expect_err future "version 99 is not supported"

head -c 4096 /dev/urandom >"$TMP/garbage.bin"
run_gd garbage replay "$TMP/garbage.bin"
expect_rc garbage 2
expect_err_lines garbage 1

run_gd missing replay "$TMP/nope.json"
expect_rc missing 2
expect_err_lines missing 1

# A broken --rules file: file and line, exit 2.
mkdir -p "$TMP/rules/local"
cat >"$TMP/rules/local/broken.toml" <<'TOML'
spec = "gpudoctor-rule/1"
id = "local.broken"
severity = "error"
area = "cuda"
title = "t"
message = "m"
why = "w"
fix = ["f"]
references = ["r"]
[when]
fact = "cuda.init.reslt"
equals = 3
TOML
run_gd brokenrule --rules "$TMP/rules" --no-cuda
expect_rc brokenrule 2
expect_err brokenrule "broken.toml:1[0-9]: .*cuda.init.reslt"
expect_err_lines brokenrule 1

printf 'spec = "gpudoctor-rule/1"\nid = [unclosed\n' >"$TMP/rules/local/broken.toml"
run_gd syntax --rules "$TMP/rules" --no-cuda
expect_rc syntax 2
expect_err syntax "broken.toml:2"

# A valid extra rule is used.
cat >"$TMP/rules/local/broken.toml" <<'TOML'
spec = "gpudoctor-rule/1"
id = "local.broken"
severity = "warning"
area = "driver"
title = "Local test rule fired"
message = "module loaded: {kmod.nvidia.loaded}"
why = "w"
fix = ["f"]
references = ["local"]
[when]
fact = "kmod.nvidia.loaded"
present = true
TOML
run_gd extrarule --rules "$TMP/rules" replay "$HOSTS/h200-container-580.159.04.capture.json"
expect_rc extrarule 0
expect_out extrarule "warning \[local.broken\] Local test rule fired"
run_gd failonwarning --rules "$TMP/rules" --fail-on warning replay "$HOSTS/h200-container-580.159.04.capture.json"
expect_rc failonwarning 1
finish
