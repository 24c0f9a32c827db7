#include "cli/app.hpp"

#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <sstream>

#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/preflight.hpp"
#include "cli/stdout_sink.hpp"
#include "core/exit_code.hpp"
#include "report/render_formats.hpp"
#include "sys/output_file.hpp"

namespace gd {
namespace {

constexpr int k_max_cuda_timeout_s = 3600;

// --help and --version: printed through write_stdout, so that a failed write is an error too.
// --format's words, in the rows' order (report/render_formats).
std::vector<std::string> format_names() {
  std::vector<std::string> names;
  for (const RenderFormat& format : render_formats()) names.emplace_back(format.name);
  return names;
}

int print_exit(const CLI::App& app, const CLI::Error& e, const char* what) {
  std::ostringstream out;
  int code = app.exit(e, out);
  write_stdout(out.str(), what);
  return code;
}

}  // namespace

int run_cli(int argc, char** argv, const EmbeddedData& data) {
  CLI::App app{"gpudoctor: finds out why CUDA does not work on this host, and says how to fix it."};
  app.set_version_flag("--version", data.version_line.empty() ? std::string("gpudoctor " GD_VERSION) : data.version_line);
  app.fallthrough();  // options may follow a subcommand: `gpudoctor replay x.json --json`
  app.require_subcommand(0, 1);

  Options options;
  // The options only a diagnosis (check, replay) reads: fleet and diff refuse them.
  std::vector<const CLI::Option*> diagnosis_only;
  auto diagnosis = [&](CLI::Option* option) {
    diagnosis_only.push_back(option);
    return option;
  };
  int cuda_timeout_s = 30;
  std::string fail_on = "error";
  std::string color = "auto";
  bool json = false;
  std::string format;
  std::string scope = "all";
  app.add_flag("--json", json, "print the report as JSON (schema in README.md); short for --format json");
  app.add_option("--format", format,
                 "text (default), json, npd (one line for node-problem-detector and health checks: exit 0 ok, "
                 "1 problem, 2 gpudoctor failed), prometheus (metrics in the text exposition format), or markdown (for a "
                 "bug tracker: fits one GitHub comment)")
      ->check(CLI::IsMember(format_names()));
  app.add_option("--textfile", options.textfile,
                 "also write the Prometheus metrics to this file, atomically (node_exporter's textfile collector "
                 "reads *.prom); stdout then stays empty unless --format or --json asks for a format");
  app.add_option("--scope", scope,
                 "all (default), or node: only what belongs to the node, for health checks (leaves out the "
                 "invoking user's Python environment, toolkit and variables)")
      ->check(CLI::IsMember({"all", "node"}));
  diagnosis(app.add_flag("--no-capture", [&](std::int64_t) { options.capture = false; },
               "leave what was read (the capture) out of --json"));
  app.add_flag("-v,--verbose", options.verbose, "show every fact");
  diagnosis(app.add_flag("--redact", options.redact,
               "leave out the host name, GPU UUIDs, user names in paths and process names (for public bug reports)"));
  diagnosis(app.add_option("--root", options.root, "inspect the filesystem under DIR instead of / (the CUDA helper is not run)"));
  CLI::Option* rules_option = app.add_option("--rules", options.rule_paths, "extra rule file or folder of *.toml (repeatable)");
  diagnosis(app.add_flag("--no-cuda", [&](std::int64_t) { options.probe.run_cuda_helper = false; },
               "do not load libcuda/NVML (skips the CUDA helper)"));
  diagnosis(app.add_option("--cuda-timeout", cuda_timeout_s, "seconds before a hanging cuInit is killed (default 30)"))
      ->check(CLI::Range(1, k_max_cuda_timeout_s));
  diagnosis(app.add_option("--libcuda", options.probe.libcuda_path, "load this libcuda file instead of the loader's libcuda.so.1"));
  diagnosis(app.add_option("--libnvml", options.probe.libnvml_path, "load this libnvidia-ml file instead of libnvidia-ml.so.1"));
  diagnosis(app.add_flag("--check-inforom", options.probe.check_inforom,
               "also validate each GPU's InfoROM (reads it from flash: about 70 ms per GPU)"));
  diagnosis(app.add_flag("--p2p-bandwidth", options.probe.p2p_bandwidth,
               "also time copies of 8 MiB between each pair of GPUs the copy-verify proof proved, one pair at a "
               "time (at most about 0.1 s a pair and 2 s in all): GB/s per pair"));
  diagnosis(app.add_option("--python", options.probe.python_path,
                 "check this Python interpreter or environment folder instead of the python3 on PATH (in a "
                 "pre-flight, a path inside the image)"));
  diagnosis(app.add_option("--extension", options.probe.extension_paths,
                 "also list the GPU architectures compiled into this CUDA library, e.g. flash-attn's .so (repeatable)"));
  std::string target_gpu, target_driver;
  diagnosis(app.add_option("--target-gpu", target_gpu,
                 "pre-flight with --root IMAGE: check the image for this GPU (a PCI id 10de:2bb5, a product name such "
                 "as H200, or a compute capability such as sm_120)"));
  diagnosis(app.add_option("--target-driver", target_driver,
                 "pre-flight with --root IMAGE: check the image for this driver version (580.95.05)"));
  diagnosis(app.add_option("--image-config", options.image_config,
                 "pre-flight: the image's OCI configuration (config.json) for its variables; found beside IMAGE when "
                 "it is a runtime bundle's rootfs"));
  diagnosis(app.add_option("--fail-on", fail_on, "lowest severity that makes the exit code 1: error (default) or warning"))
      ->check(CLI::IsMember({"error", "warning"}));
  app.add_option("--color", color, "auto (default: only on a terminal), always, never; NO_COLOR always wins")
      ->check(CLI::IsMember({"auto", "always", "never"}));

  // The subcommands, each registered by its own file (the order is --help's).
  std::string replay_file;
  CLI::App* replay = add_replay_command(app, replay_file);
  CLI::App* rules = add_rules_command(app);
  std::string explain_id;
  CLI::App* explain = add_explain_command(app, explain_id);
  add_check_command(app);
  FleetOptions fleet_options;
  CLI::App* fleet = add_fleet_command(app, fleet_options);
  DiffOptions diff_options;
  CLI::App* diff = add_diff_command(app, diff_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return print_exit(app, e, "the help");
  } catch (const CLI::CallForAllHelp& e) {
    return print_exit(app, e, "the help");
  } catch (const CLI::CallForVersion& e) {
    return print_exit(app, e, "the version");
  } catch (const CLI::ParseError& e) {
    return usage_error(std::string(e.what()) + " (see gpudoctor --help)");
  }
  if (json && !format.empty() && format != "json") {
    return usage_error("--json and --format " + format + " ask for two formats (see gpudoctor --help)");
  }
  options.format = json ? "json" : format.empty() ? "text" : format;
  // fleet and diff read reports: what only a diagnosis uses is refused, never silently ignored.
  for (CLI::App* reader : {fleet, diff}) {
    if (!reader->parsed()) continue;
    std::vector<const CLI::Option*> refused = diagnosis_only;
    if (reader == fleet) refused.push_back(rules_option);  // fleet evaluates no rule: it reads their findings
    for (const CLI::Option* option : refused) {
      if (option->count() > 0) {
        return usage_error(option->get_name() + " is an option of check and replay: " + reader->get_name() +
                           " reads reports, it does not diagnose a host (see gpudoctor --help)");
      }
    }
  }
  options.print_stdout = options.textfile.empty() || json || !format.empty();
  if (!options.textfile.empty()) {
    // Before the run: a typo in the path fails at once, not after a 30 s CUDA timeout.
    if (auto writable = check_output_path(options.textfile); !writable) {
      return usage_error("--textfile " + writable.error());
    }
  }
  if (!target_gpu.empty() || !target_driver.empty() || !options.image_config.empty()) {
    auto target = parse_target_options(target_gpu, target_driver, options, app.count("--root") > 0);
    if (!target) {
      return usage_error(target.error());
    }
    options.probe.target = std::move(*target);
  }
  options.scope = parse_run_scope(scope).value_or(RunScope::all);  // CLI11 let only its words through
  options.probe.cuda_timeout_ms = cuda_timeout_s * 1000;
  options.fail_on = fail_on == "warning" ? Severity::warning : Severity::error;
  options.color = color == "always" ? ColorMode::always : color == "never" ? ColorMode::never : ColorMode::automatic;

  fleet_options.format = diff_options.format = options.format;
  fleet_options.verbose = diff_options.verbose = options.verbose;
  fleet_options.scope = diff_options.scope = options.scope;
  fleet_options.textfile = diff_options.textfile = options.textfile;

  try {
    if (fleet->parsed()) {
      return run_fleet(fleet_options);  // reads reports only: no rules to load
    }
    auto loaded = load_all_rules(data, options);
    if (!loaded) {
      return usage_error(loaded.error().describe());
    }
    if (replay->parsed()) {
      return run_replay(replay_file, options, *loaded);
    }
    if (rules->parsed()) {
      return run_rules_list(*loaded);
    }
    if (explain->parsed()) {
      return run_explain(explain_id, *loaded);
    }
    if (diff->parsed()) {
      return run_diff(diff_options, *loaded);
    }
    return run_check(options, data, *loaded);
  } catch (const std::exception& e) {
    // Programmer errors only: collection never throws for anything the host does.
    return usage_error(std::string("internal error: ") + e.what());
  }
}

}  // namespace gd
