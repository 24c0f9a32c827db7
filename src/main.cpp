// gpudoctor: why does CUDA not work on this host? Parse, run, exit (all logic is in cli/).
#include "cli/app.hpp"
#include "cli/stdout_sink.hpp"
#include "embedded/embedded_data.hpp"
#include "embedded/version.hpp"

int main(int argc, char** argv) {
  gd::EmbeddedData data{gd::embedded_cuda_helper(), gd::embedded_rule_sources(), gd::embedded_compiled_rules(),
                        gd::version_line()};
  return gd::finish_stdout(gd::run_cli(argc, argv, data));  // a failed write on stdout: exit 2
}
