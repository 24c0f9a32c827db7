#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/pipeline.hpp"
#include "core/exit_code.hpp"
#include "sys/capture.hpp"
#include "sys/replay_host.hpp"
#include "sys/input_files.hpp"
#include "cli/replay.hpp"

namespace gd {
CLI::App* add_replay_command(CLI::App& app, std::string& file) {
  CLI::App* replay = app.add_subcommand("replay", "re-run the diagnosis from a capture or a --json report");
  replay->add_option("FILE", file, "capture or report file")->required();
  return replay;
}

int run_replay(const std::string& file, const Options& options, const std::vector<Rule>& rules) {
  // Read in chunks within sys/input_files' JSON bounds: a hostile file is refused at the first
  // bound it passes (depth, values, string bytes, size), before it costs memory.
  auto parsed = read_json_input(file);
  if (!parsed) {
    std::string hint = parsed.error().starts_with("not valid JSON") ? "; a gpudoctor capture or --json report was expected" : "";
    return usage_error(file + ": " + parsed.error() + hint);
  }
  nlohmann::json json = std::move(*parsed);
  // A --json report carries its capture under "capture"; a capture file is one itself.
  if (json.is_object() && json.contains("schema_version") && !json.contains("capture")) {
    return usage_error(file + ": this report was made with --no-capture, so it cannot be replayed");
  }
  auto report = replay_capture_json(json, file, options, rules);
  if (!report) {
    return usage_error(report.error().describe());
  }
  if (!print_report(*report, options)) return static_cast<int>(ExitCode::usage_error);
  return exit_code_for(*report, options.fail_on);
}

Result<Report> replay_capture_json(const nlohmann::json& json, const std::string& file, const Options& options,
                                   const std::vector<Rule>& rules) {
  const nlohmann::json& capture_json = json.is_object() && json.contains("capture") ? json["capture"] : json;
  auto capture = capture_from_json(capture_json, file);
  if (!capture) {
    return std::unexpected(capture.error());
  }
  ReplayHost host(std::move(*capture));
  Options replay_options = options;
  replay_options.root = host.capture().root;
  // What was looked at is what the capture holds: the run's own --python and --extension.
  if (replay_options.probe.python_path.empty()) replay_options.probe.python_path = host.capture().python_option;
  if (replay_options.probe.extension_paths.empty()) replay_options.probe.extension_paths = host.capture().extension_options;
  // A pre-flight's capture is judged for the same target again.
  if (!host.capture().target_gpu_option.empty() && !replay_options.probe.target) {
    auto gpu = parse_target_gpu(host.capture().target_gpu_option);
    auto driver = parse_target_driver(host.capture().target_driver_option);
    if (!gpu || !driver) {
      return std::unexpected(Error{"options.target_gpu/target_driver: " + (!gpu ? gpu.error() : driver.error()), file, 0});
    }
    replay_options.probe.target = TargetHost{std::move(*gpu), std::move(*driver), host.capture().target_image_config};
  }
  RunInfo run;
  run.gpudoctor_version = GD_VERSION;
  run.mode = RunMode::replay;
  run.source = file;
  return run_pipeline(host, replay_options, rules, run);
}

}  // namespace gd
