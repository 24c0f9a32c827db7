# The dependency direction of README.md's architecture section, checked on the includes:
# util ← core ← sys ← probes; core ← rules ← report; nothing includes cli/; rules/ and report/
# never include sys/ or probes/ (evaluation stays pure); only sys/ makes host calls.
source "$(dirname "$0")/lib.sh"
cd "$SRC/src" || exit 1

forbid() {  # FOLDER PATTERN WHY
  checks=$((checks + 1))
  local hits
  hits=$(grep -rnE "$2" "$1" --include='*.cpp' --include='*.hpp' || true)
  [ -z "$hits" ] || fail "$1 $3:"$'\n'"$hits"
}

forbid util '#include "(core|sys|probes|rules|report|cli)/' "must not include project layers above it"
forbid core '#include "(sys|probes|rules|report|cli)/' "must not include layers above it"
forbid sys '#include "(probes|rules|report|cli)/' "must not include layers above it"
forbid probes '#include "(rules|report|cli)/' "must not include rules, report or cli"
forbid rules '#include "(sys|probes|report|cli)/' "must stay pure (no sys/ or probes/)"
forbid report '#include "(sys|probes|cli)/' "must stay pure (no sys/ or probes/)"
# Host access (open/read/stat of paths, getenv, fork/exec) lives in sys/ only. cli/ may read the
# files the user names (util/input_file) and check isatty/NO_COLOR for output styling.
forbid probes '(::open|fopen|ifstream|opendir|::stat\(|getenv|fork\(|exec[lv]p?e?\()' "must read the host through Host&"
forbid rules '(::open|fopen|opendir|getenv|fork\(|exec[lv]p?e?\()' "must not touch the host"
forbid report '(::open|fopen|ifstream|opendir|::stat\(|getenv|fork\(|exec[lv]p?e?\()' "must not touch the host"
finish
