// The one Catch2 main for every unit test file.
//   gpudoctor_tests [catch2 options]               the cases, as Catch2 runs them
//   gpudoctor_tests --needs NAME [catch2 options]  first checks that this machine has what the
//                                                  [needs-NAME] cases run (host_tools.hpp): if not,
//                                                  prints "SKIP: ..." and exits 125 (ctest: Skipped)
// Catch2 2.x exits with the number of failed assertions; 125 of them would read as a skip, so any
// count is reported as at most 124 (and a failure is never 0).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <vector>

#include "host_tools.hpp"

int main(int argc, char* argv[]) {
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && std::strcmp(argv[i], "--needs") == 0) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "gpudoctor_tests: --needs takes a name\n");
        return 2;
      }
      const char* name = argv[++i];
      const gd::test::HostTool* tool = gd::test::find_host_tool(name);
      if (!tool) {
        std::fprintf(stderr, "gpudoctor_tests: --needs %s: no such entry in tests/unit/support/host_tools.hpp\n", name);
        return 2;
      }
      if (!tool->present()) {
        std::printf("SKIP: the [needs-%s] cases: %s\n", name, tool->missing);
        return 125;
      }
      continue;
    }
    args.push_back(argv[i]);
  }
  int rc = Catch::Session().run(static_cast<int>(args.size()), args.data());
  return rc >= 125 ? 124 : rc;
}
