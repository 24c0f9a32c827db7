#include "sys/capture.hpp"

#include "util/errno_names.hpp"
#include "util/text_codec.hpp"

namespace gd {
namespace {

using nlohmann::json;

// ---- writing ---------------------------------------------------------------------------

/// Text that reads well as lines: valid UTF-8 without control characters other than tab, CR
/// and newline. Anything else (binary files, NUL-filled ones) is kept as base64, which grows by a
/// third, where JSON would spell each control byte as six ("\u0000").
bool is_line_text(std::string_view text) {
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t' && c != '\n' && c != '\r') || u == 0x7f) {
      return false;
    }
  }
  return is_valid_utf8(text);
}

json text_to_json(std::string_view text) {
  if (is_line_text(text)) {
    return json{{"lines", split_lines_exact(text)}};
  }
  return json{{"base64", base64_encode(text)}};
}

json error_to_json(const IoError& error) { return json{{"error", errno_name(error.code)}}; }

std::string mode_text(std::uint32_t mode) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "%04o", mode & 07777);
  return buffer;
}

json stat_to_json(const IoResult<FileStat>& result) {
  if (!result) {
    return error_to_json(result.error());
  }
  const FileStat& st = *result;
  json out{{"type", std::string(to_string(st.kind))}, {"mode", mode_text(st.mode)}, {"uid", st.uid}, {"gid", st.gid}};
  if (st.kind == FileKind::char_device || st.kind == FileKind::block_device) {
    out["major"] = st.major;
    out["minor"] = st.minor;
  }
  if (st.kind == FileKind::regular) {
    out["size"] = st.size;
  }
  return out;
}

json path_to_json(const CapturedPath& path) {
  json out = json::object();
  if (path.read) {
    out["read"] = *path.read ? text_to_json(**path.read) : error_to_json(path.read->error());
  }
  if (!path.ranges.empty()) {
    json ranges = json::array();
    for (const auto& range : path.ranges) {
      json entry = range.data ? text_to_json(*range.data) : error_to_json(range.data.error());
      entry["offset"] = range.offset;
      ranges.push_back(entry);
    }
    out["ranges"] = ranges;
  }
  if (path.list) {
    out["list"] = *path.list ? json(**path.list) : error_to_json(path.list->error());
  }
  if (path.stat) {
    out["stat"] = stat_to_json(*path.stat);
  }
  if (path.lstat) {
    out["lstat"] = stat_to_json(*path.lstat);
  }
  if (path.link) {
    out["link"] = *path.link ? json(**path.link) : error_to_json(path.link->error());
  }
  if (path.open) {
    out["open"] = *path.open == 0 ? std::string("ok") : errno_name(*path.open);
  }
  return out;
}

json helper_run_to_json(const CapturedHelperRun& run) {
  const HelperOutcome& o = run.outcome;
  json out{{"mode", run.request.mode()},
           {"timeout_ms", run.request.timeout_ms},
           {"status", std::string(to_string(o.status))},
           {"exit_code", o.exit_code},
           {"signal", o.signal},
           {"duration_ms", o.duration_ms},
           {"loader", o.loader},
           {"error", o.error},
           {"output_cut", o.output_cut},
           {"reply", text_to_json(o.reply)},
           {"stdout", text_to_json(o.out)},
           {"stderr", text_to_json(o.err)}};
  if (!run.request.libcuda_path.empty()) {
    out["libcuda"] = run.request.libcuda_path;
  }
  if (!run.request.libnvml_path.empty()) {
    out["libnvml"] = run.request.libnvml_path;
  }
  return out;
}

// ---- reading ---------------------------------------------------------------------------
// Every accessor checks the JSON type and names the JSON path on failure, so a corrupt or
// hand-edited capture gives one clear line, never an exception from the JSON library.

class Reader {
 public:
  explicit Reader(std::string_view file) : m_file(file) {}

  std::unexpected<Error> bad(const std::string& where, const std::string& what) const {
    return fail(where + ": " + what, std::string(m_file));
  }

  Result<std::string> string_at(const json& j, const std::string& where) const {
    if (!j.is_string()) return bad(where, "expected a string");
    return j.get<std::string>();
  }

  Result<std::int64_t> int_at(const json& j, const std::string& where) const {
    if (!j.is_number_integer()) return bad(where, "expected an integer");
    return j.get<std::int64_t>();
  }

  Result<std::string> text_at(const json& j, const std::string& where) const {
    if (!j.is_object()) return bad(where, "expected {\"lines\": [...]} or {\"base64\": \"...\"}");
    if (auto it = j.find("lines"); it != j.end()) {
      if (!it->is_array()) return bad(where + ".lines", "expected an array of strings");
      std::vector<std::string> lines;
      for (std::size_t i = 0; i < it->size(); ++i) {
        if (!(*it)[i].is_string()) return bad(where + ".lines[" + std::to_string(i) + "]", "expected a string");
        lines.push_back((*it)[i].get<std::string>());
      }
      return join_lines(lines);
    }
    if (auto it = j.find("base64"); it != j.end()) {
      if (!it->is_string()) return bad(where + ".base64", "expected a string");
      auto decoded = base64_decode(it->get<std::string>());
      if (!decoded) return bad(where + ".base64", "not valid base64");
      return *decoded;
    }
    return bad(where, "expected \"lines\" or \"base64\"");
  }

  /// Some({"error": "ENOENT"}) → the errno; None when `j` is not an error object.
  Result<std::optional<int>> error_at(const json& j, const std::string& where) const {
    if (!j.is_object() || !j.contains("error")) return std::optional<int>{};
    auto name = string_at(j["error"], where + ".error");
    if (!name) return std::unexpected(name.error());
    auto code = errno_from_name(*name);
    if (!code) return bad(where + ".error", "unknown errno name '" + *name + "'");
    return std::optional<int>(*code);
  }

  Result<IoResult<FileStat>> stat_at(const json& j, const std::string& where) const {
    auto err = error_at(j, where);
    if (!err) return std::unexpected(err.error());
    if (*err) return IoResult<FileStat>(std::unexpected(IoError{**err}));
    if (!j.is_object()) return bad(where, "expected an object");
    FileStat st;
    auto type = j.contains("type") ? string_at(j["type"], where + ".type") : Result<std::string>(std::string("file"));
    if (!type) return std::unexpected(type.error());
    auto kind = file_kind_from_string(*type);
    if (!kind) return bad(where + ".type", "unknown file type '" + *type + "'");
    st.kind = *kind;
    if (j.contains("mode")) {
      auto mode = string_at(j["mode"], where + ".mode");
      if (!mode) return std::unexpected(mode.error());
      // Only octal digits: stoul alone would take "0999" as 0 and "-1" as 07777.
      if (mode->empty() || mode->size() > 6 || mode->find_first_not_of("01234567") != std::string::npos) {
        return bad(where + ".mode", "expected an octal string like \"0666\"");
      }
      st.mode = static_cast<std::uint32_t>(std::stoul(*mode, nullptr, 8)) & 07777;
    }
    for (auto [key, field] : {std::pair{"uid", &st.uid}, std::pair{"gid", &st.gid}, std::pair{"major", &st.major},
                              std::pair{"minor", &st.minor}}) {
      if (j.contains(key)) {
        auto v = int_at(j[key], where + "." + key);
        if (!v) return std::unexpected(v.error());
        if (*v < 0 || *v > 0xFFFFFFFFLL) return bad(where + "." + key, "out of range");
        *field = static_cast<std::uint32_t>(*v);
      }
    }
    if (j.contains("size")) {
      auto v = int_at(j["size"], where + ".size");
      if (!v) return std::unexpected(v.error());
      if (*v < 0) return bad(where + ".size", "out of range");
      st.size = static_cast<std::uint64_t>(*v);
    }
    return IoResult<FileStat>(st);
  }

  Result<CapturedPath> path_at(const json& j, const std::string& where) const {
    if (!j.is_object()) return bad(where, "expected an object");
    CapturedPath out;
    for (const auto& [key, value] : j.items()) {
      std::string at = where + "." + key;
      if (key == "read") {
        auto err = error_at(value, at);
        if (!err) return std::unexpected(err.error());
        if (*err) {
          out.read = std::unexpected(IoError{**err});
        } else {
          auto text = text_at(value, at);
          if (!text) return std::unexpected(text.error());
          out.read = *text;
        }
      } else if (key == "ranges") {
        if (!value.is_array()) return bad(at, "expected an array of {\"offset\": N, \"lines\"|\"base64\"|\"error\": ...}");
        for (std::size_t i = 0; i < value.size(); ++i) {
          std::string item_at = at + "[" + std::to_string(i) + "]";
          const json& item = value[i];
          if (!item.is_object()) return bad(item_at, "expected an object");
          auto offset = int_at(item.value("offset", json()), item_at + ".offset");
          if (!offset) return std::unexpected(offset.error());
          if (*offset < 0) return bad(item_at + ".offset", "out of range");
          CapturedRange range;
          range.offset = static_cast<std::uint64_t>(*offset);
          auto err = error_at(item, item_at);
          if (!err) return std::unexpected(err.error());
          if (*err) {
            range.data = std::unexpected(IoError{**err});
          } else {
            json content = item;
            content.erase("offset");
            auto text = text_at(content, item_at);
            if (!text) return std::unexpected(text.error());
            range.data = *text;
          }
          out.ranges.push_back(std::move(range));
        }
      } else if (key == "list") {
        auto err = error_at(value, at);
        if (!err) return std::unexpected(err.error());
        if (*err) {
          out.list = std::unexpected(IoError{**err});
        } else {
          if (!value.is_array()) return bad(at, "expected an array of names");
          std::vector<std::string> names;
          for (const auto& name : value) {
            if (!name.is_string()) return bad(at, "expected an array of names");
            names.push_back(name.get<std::string>());
          }
          out.list = names;
        }
      } else if (key == "stat" || key == "lstat") {
        auto st = stat_at(value, at);
        if (!st) return std::unexpected(st.error());
        (key == "stat" ? out.stat : out.lstat) = *st;
      } else if (key == "link") {
        auto err = error_at(value, at);
        if (!err) return std::unexpected(err.error());
        if (*err) {
          out.link = std::unexpected(IoError{**err});
        } else {
          auto target = string_at(value, at);
          if (!target) return std::unexpected(target.error());
          out.link = *target;
        }
      } else if (key == "open") {
        auto text = string_at(value, at);
        if (!text) return std::unexpected(text.error());
        if (*text == "ok") {
          out.open = 0;
        } else {
          auto code = errno_from_name(*text);
          if (!code) return bad(at, "expected \"ok\" or an errno name, got '" + *text + "'");
          out.open = *code;
        }
      } else {
        return bad(at, "unknown key (expected read, ranges, list, stat, lstat, link, open)");
      }
    }
    return out;
  }

  Result<CapturedHelperRun> helper_run_at(const json& j, const std::string& where) const {
    if (!j.is_object()) return bad(where, "expected an object");
    CapturedHelperRun run;
    auto mode = string_at(j.value("mode", json("user-env")), where + ".mode");
    if (!mode) return std::unexpected(mode.error());
    if (*mode != "user-env" && *mode != "clean-env" && *mode != "nvml-only") {
      return bad(where + ".mode", "expected user-env, clean-env or nvml-only");
    }
    run.request.clean_env = (*mode == "clean-env");
    run.request.nvml_only = (*mode == "nvml-only");
    auto status_text = string_at(j.value("status", json()), where + ".status");
    if (!status_text) return std::unexpected(status_text.error());
    auto status = helper_status_from_string(*status_text);
    if (!status) return bad(where + ".status", "unknown helper status '" + *status_text + "'");
    run.outcome.status = *status;
    struct IntField {
      const char* key;
      std::int64_t* target;
    };
    std::int64_t timeout = run.request.timeout_ms, exit_code = 0, signal = 0;
    for (auto field : {IntField{"timeout_ms", &timeout}, IntField{"exit_code", &exit_code},
                       IntField{"signal", &signal}, IntField{"duration_ms", &run.outcome.duration_ms}}) {
      if (j.contains(field.key)) {
        auto v = int_at(j[field.key], where + "." + field.key);
        if (!v) return std::unexpected(v.error());
        *field.target = *v;
      }
    }
    run.request.timeout_ms = static_cast<int>(timeout);
    run.outcome.timeout_ms = run.request.timeout_ms;
    run.outcome.exit_code = static_cast<int>(exit_code);
    run.outcome.signal = static_cast<int>(signal);
    for (auto [key, target] : {std::pair{"loader", &run.outcome.loader}, std::pair{"error", &run.outcome.error},
                               std::pair{"libcuda", &run.request.libcuda_path},
                               std::pair{"libnvml", &run.request.libnvml_path}}) {
      if (j.contains(key)) {
        auto v = string_at(j[key], where + "." + key);
        if (!v) return std::unexpected(v.error());
        *target = *v;
      }
    }
    if (j.contains("output_cut")) {
      if (!j["output_cut"].is_boolean()) return bad(where + ".output_cut", "expected true or false");
      run.outcome.output_cut = j["output_cut"].get<bool>();
    }
    for (auto [key, target] : {std::pair{"reply", &run.outcome.reply}, std::pair{"stdout", &run.outcome.out},
                               std::pair{"stderr", &run.outcome.err}}) {
      if (j.contains(key)) {
        auto v = text_at(j[key], where + "." + key);
        if (!v) return std::unexpected(v.error());
        *target = *v;
      }
    }
    return run;
  }

 private:
  std::string_view m_file;
};

}  // namespace

nlohmann::json capture_to_json(const Capture& capture) {
  json out{{"format", "gpudoctor-capture"}, {"version", k_capture_version}, {"created_by", capture.created_by},
           {"root", capture.root}};
  if (capture.identity) {
    out["identity"] = {{"uid", capture.identity->uid}, {"gid", capture.identity->gid}, {"groups", capture.identity->groups}};
  }
  if (capture.uname) {
    const Uname& u = *capture.uname;
    out["uname"] = {{"sysname", u.sysname}, {"nodename", u.nodename}, {"release", u.release},
                    {"version", u.version}, {"machine", u.machine}};
  }
  if (!capture.python_option.empty() || !capture.extension_options.empty() || !capture.target_gpu_option.empty()) {
    out["options"] = {{"python", capture.python_option}, {"extensions", capture.extension_options}};
    if (!capture.target_gpu_option.empty()) {
      out["options"]["target_gpu"] = capture.target_gpu_option;
      out["options"]["target_driver"] = capture.target_driver_option;
      if (!capture.target_image_config.empty()) out["options"]["image_config"] = capture.target_image_config;
    }
  }
  if (capture.working_dir_asked || capture.working_dir) {
    out["cwd"] = capture.working_dir ? json(*capture.working_dir) : json(nullptr);
  }
  json env = json::object();
  for (const auto& [name, value] : capture.env) {
    env[name] = value ? json(*value) : json(nullptr);
  }
  out["env"] = env;
  json paths = json::object();
  for (const auto& [path, observed] : capture.paths) {
    paths[path] = path_to_json(observed);
  }
  out["paths"] = paths;
  json runs = json::array();
  for (const auto& run : capture.helper_runs) {
    runs.push_back(helper_run_to_json(run));
  }
  out["helper_runs"] = runs;
  return out;
}

Result<Capture> capture_from_json(const nlohmann::json& j, std::string_view file) {
  Reader r(file);
  if (!j.is_object()) return r.bad("capture", "expected a JSON object");
  if (j.value("format", json()) != json("gpudoctor-capture")) {
    return r.bad("format", "not a gpudoctor capture (expected \"format\": \"gpudoctor-capture\")");
  }
  auto version = r.int_at(j.value("version", json()), "version");
  if (!version) return std::unexpected(version.error());
  if (*version != k_capture_version) {
    return r.bad("version", "capture version " + std::to_string(*version) + " is not supported (this gpudoctor reads " +
                                std::to_string(k_capture_version) + ")");
  }
  Capture capture;
  if (j.contains("created_by")) {
    auto v = r.string_at(j["created_by"], "created_by");
    if (!v) return std::unexpected(v.error());
    capture.created_by = *v;
  }
  if (j.contains("root")) {
    auto v = r.string_at(j["root"], "root");
    if (!v) return std::unexpected(v.error());
    capture.root = *v;
  }
  if (j.contains("identity")) {
    const json& id = j["identity"];
    if (!id.is_object()) return r.bad("identity", "expected an object");
    Identity identity;
    for (auto [key, target] : {std::pair{"uid", &identity.uid}, std::pair{"gid", &identity.gid}}) {
      auto v = r.int_at(id.value(key, json(0)), std::string("identity.") + key);
      if (!v) return std::unexpected(v.error());
      if (*v < 0 || *v > 0xFFFFFFFFLL) return r.bad(std::string("identity.") + key, "out of range");
      *target = static_cast<std::uint32_t>(*v);
    }
    if (id.contains("groups")) {
      if (!id["groups"].is_array()) return r.bad("identity.groups", "expected an array of numbers");
      for (std::size_t i = 0; i < id["groups"].size(); ++i) {
        std::string where = "identity.groups[" + std::to_string(i) + "]";
        auto v = r.int_at(id["groups"][i], where);
        if (!v) return std::unexpected(v.error());
        if (*v < 0 || *v > 0xFFFFFFFFLL) return r.bad(where, "out of range");
        identity.groups.push_back(static_cast<std::uint32_t>(*v));
      }
    }
    capture.identity = identity;
  }
  if (j.contains("uname")) {
    const json& u = j["uname"];
    if (!u.is_object()) return r.bad("uname", "expected an object");
    Uname uname;
    for (auto [key, target] : {std::pair{"sysname", &uname.sysname}, std::pair{"nodename", &uname.nodename},
                               std::pair{"release", &uname.release}, std::pair{"version", &uname.version},
                               std::pair{"machine", &uname.machine}}) {
      auto v = r.string_at(u.value(key, json("")), std::string("uname.") + key);
      if (!v) return std::unexpected(v.error());
      *target = *v;
    }
    capture.uname = uname;
  }
  if (j.contains("options")) {
    const json& o = j["options"];
    if (!o.is_object()) return r.bad("options", "expected an object");
    if (o.contains("python")) {
      auto v = r.string_at(o["python"], "options.python");
      if (!v) return std::unexpected(v.error());
      capture.python_option = *v;
    }
    for (auto [key, target] : {std::pair{"target_gpu", &capture.target_gpu_option},
                               std::pair{"target_driver", &capture.target_driver_option},
                               std::pair{"image_config", &capture.target_image_config}}) {
      if (!o.contains(key)) continue;
      auto v = r.string_at(o[key], std::string("options.") + key);
      if (!v) return std::unexpected(v.error());
      *target = *v;
    }
    if (o.contains("extensions")) {
      if (!o["extensions"].is_array()) return r.bad("options.extensions", "expected an array of paths");
      for (std::size_t i = 0; i < o["extensions"].size(); ++i) {
        auto v = r.string_at(o["extensions"][i], "options.extensions[" + std::to_string(i) + "]");
        if (!v) return std::unexpected(v.error());
        capture.extension_options.push_back(*v);
      }
    }
  }
  if (j.contains("cwd") && !j["cwd"].is_null()) {
    auto v = r.string_at(j["cwd"], "cwd");
    if (!v) return std::unexpected(v.error());
    capture.working_dir = *v;
    capture.working_dir_asked = true;
  }
  if (j.contains("env")) {
    if (!j["env"].is_object()) return r.bad("env", "expected an object of NAME: value-or-null");
    for (const auto& [name, value] : j["env"].items()) {
      if (value.is_null()) {
        capture.env[name] = std::nullopt;
      } else {
        auto v = r.string_at(value, "env." + name);
        if (!v) return std::unexpected(v.error());
        capture.env[name] = *v;
      }
    }
  }
  if (j.contains("paths")) {
    if (!j["paths"].is_object()) return r.bad("paths", "expected an object keyed by absolute path");
    for (const auto& [path, value] : j["paths"].items()) {
      if (path.empty() || path[0] != '/') return r.bad("paths", "'" + path + "' is not an absolute path");
      auto observed = r.path_at(value, "paths." + path);
      if (!observed) return std::unexpected(observed.error());
      capture.paths[path] = *observed;
    }
  }
  if (j.contains("helper_runs")) {
    if (!j["helper_runs"].is_array()) return r.bad("helper_runs", "expected an array");
    for (std::size_t i = 0; i < j["helper_runs"].size(); ++i) {
      auto run = r.helper_run_at(j["helper_runs"][i], "helper_runs[" + std::to_string(i) + "]");
      if (!run) return std::unexpected(run.error());
      capture.helper_runs.push_back(*run);
    }
  }
  return capture;
}

}  // namespace gd
