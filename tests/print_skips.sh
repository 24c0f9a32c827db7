#!/usr/bin/env bash
# print_skips.sh BUILD_DIR: after ctest, names every test that skipped all or part of its checks,
# with the reason it printed ("SKIP: ..." lines: unit/main.cpp --needs, e2e/lib.sh skip). ctest
# itself lists skipped tests without their output, and never shows a partial skip.
log=$1/Testing/Temporary/LastTest.log
[ -f "$log" ] || exit 0
awk '
  /^[0-9]+\/[0-9]+ Test: / { name = $3 }
  /^SKIP: / { sub(/^SKIP: /, ""); print "  " name ": " $0; n++ }
  END { if (n) print n " skip(s) in " FILENAME " (above): those checks did not run here" }
' "$log" | sed "s|$log|$(basename "$1")|"
