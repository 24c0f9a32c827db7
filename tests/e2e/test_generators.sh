# The generated test inputs are current and hermetic: each generator of tests/hosts/ is run again
# into a temporary folder, from a folder with a ./.venv and with an environment full of what a
# developer's shell holds (CUDA_HOME, LD_LIBRARY_PATH, CUDA_VISIBLE_DEVICES, ...), and must write
# exactly the committed files, byte for byte. The ML scenarios are not committed: the ctest fixture
# test.inputs writes them into the build tree, and the rerun here must write the same bytes. A capture made by running gpudoctor (the kmod
# scenarios, the musl host) is current only if this binary's probes read what it holds: a probe
# that reads something new fails here until the generator is rerun (and the rule host cases built
# on that capture are checked again: build/tests/gpudoctor_tests '[hosts]').
source "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || { echo "SKIP: no python3 to run the generators"; exit 125; }

work=$TMP/cwd
mkdir -p "$work/.venv/bin" "$TMP/out"
printf 'home = /usr/bin\nversion = 3.12.3\n' >"$work/.venv/pyvenv.cfg"
polluted() {  # runs "$@" from $work with the caller's kind of environment, plus more
  (cd "$work" && env CUDA_HOME=/usr/local/cuda CUDA_PATH=/usr/local/cuda CUDA_VISIBLE_DEVICES=3 \
    LD_LIBRARY_PATH=/usr/local/cuda/lib64:/opt/elsewhere LD_PRELOAD= NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=all VIRTUAL_ENV="$work/.venv" PYTHONPATH=/opt/py CC=/opt/gcc/bin/gcc \
    PATH="/usr/local/cuda/bin:$work/.venv/bin:$PATH" "$@")
}

# generated NAME REFERENCE COMMAND...: runs a generator writing under $TMP/out/NAME (the
# repository's layout) and compares every file it wrote with the one under REFERENCE (the
# repository, or the fixture's folder for what is made at test time). Exit 125 of a generator: it
# cannot run here (the reason on stderr), a skip.
generated() {
  local name=$1 reference=$2; shift 2
  local out=$TMP/out/$name
  mkdir -p "$out"
  polluted "$@" --out "$out" >"$TMP/$name.log" 2>&1
  local status=$?
  if [ "$status" = 125 ]; then
    skip "$name: $(tail -n 1 "$TMP/$name.log")"
    return
  fi
  checks=$((checks + 1))
  [ "$status" = 0 ] || { fail "$name: the generator failed (exit $status): $(tail -n 5 "$TMP/$name.log")"; return; }
  local files
  files=$(cd "$out" && find . -type f | sort)
  checks=$((checks + 1))
  [ -n "$files" ] || { fail "$name: the generator wrote nothing"; return; }
  local file differ=0
  for file in $files; do
    checks=$((checks + 1))
    if [ ! -f "$reference/$file" ]; then
      fail "$name: wrote ${file#./}, which is not in $reference"; differ=$((differ + 1))
    elif ! cmp -s "$out/$file" "$reference/$file"; then
      fail "$name: ${file#./} is not what the generator writes now (rerun it: $*):"$'\n'"$(diff "$reference/$file" "$out/$file" | head -20)"
      differ=$((differ + 1))
    fi
  done
  echo "$name: $(echo "$files" | wc -l) files written, $differ differ from the reference"
}

# $HOSTS is <generated>/tests/hosts (e2e/lib.sh); the generators themselves are in the sources.
generators=$SRC/tests/hosts
generated ml-scenarios "$(dirname "$(dirname "$HOSTS")")" python3 "$generators/make_ml_scenarios.py"
if [ -d "$SRC/../shared/fixtures/real/h200-container-580.159.04" ]; then
  generated h200-container "$SRC" python3 "$generators/make_h200_container_capture.py"
else
  skip "h200-container: its source, shared/fixtures/real/h200-container-580.159.04 beside the repository, is not here"
fi
if [ "$(id -u)" = 0 ]; then
  generated kmod-scenarios "$SRC" python3 "$generators/make_kmod_scenarios.py" "$GD"
else
  skip "kmod-scenarios: the generator needs root (mknod)"
fi
generated musl-host "$SRC" python3 "$generators/make_musl_capture.py" "$GD" --no-download
finish
