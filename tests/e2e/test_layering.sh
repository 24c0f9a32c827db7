# The dependency direction of README.md's architecture section, checked on the includes:
# util ← core ← sys ← probes; core ← rules ← report ← fleet; nothing includes cli/; rules/,
# report/ and fleet/ never include sys/ or probes/ (evaluation stays pure); only sys/ makes host
# calls (fleet/ and diff read the user's report files through sys/input_files). Inside
# probes/, each layer's folder includes only itself, shared/ and probe.hpp: a probe reads what
# earlier layers found from the FactSet, never their parsers' internals.
source "$(dirname "$0")/lib.sh"
cd "$SRC/src" || exit 1

forbid() {  # FOLDER PATTERN WHY [ALLOWED]: ALLOWED (grep -E on "file:line:") names files exempted
  checks=$((checks + 1))
  local hits
  hits=$(grep -rnE "$2" "$1" --include='*.cpp' --include='*.hpp' --include='*.c' --include='*.h' || true)
  [ -z "${4:-}" ] || hits=$(grep -vE "$4" <<<"$hits" || true)
  [ -z "$hits" ] || fail "$1 $3:"$'\n'"$hits"
}

forbid util '#include "(core|sys|probes|rules|report|cli)/' "must not include project layers above it"
# A layer's folder holds, besides its probe, two headers that are core's level: its catalogue
# section (probes/<layer>/*_facts.hpp, constant data) and its overview line builder's declaration
# (probes/<layer>/*_overview.hpp). core/all_layers.hpp includes them, so that one row names them;
# they include core/ only (checked below), so the arrows still point one way, file by file: core ->
# those headers -> core's own value types, never a probe, sys/, rules/ or report/.
forbid core '#include "(sys|probes|rules|report|cli)/' "must not include layers above it" \
  '^core/all_layers\.hpp:[0-9]+:#include "probes/[a-z0-9_]+/[a-z0-9_]+_(facts|overview)\.hpp"$'
checks=$((checks + 1))
hits=$(grep -nE '#include "' probes/*/*_facts.hpp probes/*/*_overview.hpp | grep -vE '#include "core/(fact_catalog|overview)\.hpp"' || true)
[ -z "$hits" ] || fail "a layer's catalogue section and overview header include only core/fact_catalog.hpp or core/overview.hpp:"$'\n'"$hits"
checks=$((checks + 1))
hits=$(grep -rnE '#include "probes/' core --include='*.cpp' --include='*.hpp' | grep -v '^core/all_layers\.hpp:' || true)
[ -z "$hits" ] || fail "only core/all_layers.hpp includes a layer's headers:"$'\n'"$hits"
forbid sys '#include "(probes|rules|report|cli)/' "must not include layers above it"
forbid probes '#include "(rules|report|cli)/' "must not include rules, report or cli"
forbid rules '#include "(sys|probes|report|cli)/' "must stay pure (no sys/ or probes/)"
forbid report '#include "(sys|probes|cli)/' "must stay pure (no sys/ or probes/)"
forbid fleet '#include "(sys|probes|rules|cli)/' "must stay pure (fleet and diff logic: text in, groups and diffs out)"
# Host access (open/read/stat of paths, std::filesystem, file streams, getenv, fork/exec) lives in
# sys/ only. Two kinds of files are read elsewhere, and both are inputs the user names, never the
# host under diagnosis: cli/ reads the files named on its command line (through
# sys/input_files: captures, reports, an --image-config file) and checks isatty/NO_COLOR for
# output styling; rules/ reads the rule files
# of --rules PATH, and rulec the rules/ folder at build time, in exactly two places:
# rules/rule_files.cpp (the loader: regular files, bounded size, errors naming the file) and
# rules/tool/ (rulec, a build tool with its own main that also writes its output). Everything
# else in rules/ (parsing, validation, evaluation) stays pure: text in, rules and findings out.
host_calls='(::open|fopen|opendir|::stat\(|getenv|fork\(|exec[lv]p?e?\()'
file_io='([io]?fstream|<fstream>|std::filesystem|<filesystem>)'
for layer in util core probes rules report fleet; do
  forbid $layer "$host_calls" "must not touch the host (sys/ does, through Host&)"
done
for layer in util core probes report fleet; do
  forbid $layer "$file_io" "must not read or list files (sys/ does, through Host&)"
done
forbid rules "$file_io" "must not read or list files but the rule files (rules/rule_files.cpp, rules/tool/)" \
  '^rules/(rule_files\.cpp|tool/[a-z_]+\.cpp):'
# `fleet`, `diff` and `replay` read the reports and captures the user names only through sys/input_files (bounded,
# regular files only, never blocking on a FIFO).
checks=$((checks + 1))
direct='(^|[^A-Za-z0-9_])::(open|openat|read|pread|stat|lstat)\(|fopen|opendir|getenv'
hits=$(grep -nE "$direct|$file_io" cli/fleet*.cpp cli/diff*.cpp cli/replay*.cpp 2>/dev/null || true)
[ -z "$hits" ] || fail "cli's fleet, diff and replay must read files through sys/input_files:"$'\n'"$hits"

# probes/<layer>/ includes no sibling layer (shared/ holds the readers and tables that several
# layers use: ELF headers and sections, library files, the driver's per-GPU information file,
# the driver branch -> CUDA version table); shared/ includes no layer.
for dir in probes/*/; do
  layer=$(basename "$dir")
  allowed="$layer|shared"
  [ "$layer" = shared ] && allowed=shared
  checks=$((checks + 1))
  hits=$(grep -rnE '#include "probes/[a-z_]+/' "$dir" --include='*.cpp' --include='*.hpp' |
         grep -vE "#include \"probes/($allowed)/" || true)
  [ -z "$hits" ] || fail "$dir must read other layers through facts, not include them:"$'\n'"$hits"
done

# The folder list reads as the pipeline: only the probe interface and the registry at the top.
checks=$((checks + 1))
top=$(find probes -maxdepth 1 -type f | sort)
[ "$(echo "$top" | wc -l)" -le 4 ] || fail "probes/ has more than 4 files at its top:"$'\n'"$top"

# Small files, one concept each: no source file over 600 lines.
checks=$((checks + 1))
long=$(find . -name '*.cpp' -o -name '*.hpp' -o -name '*.c' -o -name '*.h' | xargs wc -l | grep -v ' total$' |
       awk '$1 > 600 {print}')
[ -z "$long" ] || fail "source files over 600 lines:"$'\n'"$long"
finish
