#include "probes/cuda/helper_reply.hpp"

#include <algorithm>
#include <charconv>
#include <variant>

namespace gd {
namespace {

constexpr std::string_view k_header_key = "gpudoctor-helper";
constexpr int k_supported_major = 1;
constexpr std::string_view k_error_file = "helper reply";

/// Where one key's value goes; monostate for keys this version does not know.
using Field = std::variant<std::monostate, std::optional<std::string>*, std::optional<int>*,
                           std::optional<std::int64_t>*, std::optional<bool>*>;

bool consume_prefix(std::string_view& text, std::string_view prefix) {
  if (!text.starts_with(prefix)) {
    return false;
  }
  text.remove_prefix(prefix.size());
  return true;
}

template <typename Int>
std::optional<Int> parse_int(std::string_view text) {
  Int value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return value;
}

/// Undoes the helper's escaping: `\\`, `\t`, `\n`; nothing else may follow a backslash.
std::optional<std::string> unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    if (++i == text.size()) {
      return std::nullopt;
    }
    switch (text[i]) {
      case '\\': out += '\\'; break;
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      default: return std::nullopt;
    }
  }
  return out;
}

/// A short, printable excerpt of a bad line for error messages.
std::string excerpt(std::string_view line) {
  std::string out;
  for (char c : line.substr(0, 60)) {
    out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  }
  return line.size() > 60 ? out + "..." : out;
}

Field call_field(HelperCall& call, std::string_view sub) {
  if (sub == "result") {
    return &call.result;
  }
  if (sub == "name") {
    return &call.name;
  }
  if (sub == "text") {
    return &call.text;
  }
  if (sub == "error") {
    return &call.error;
  }
  return {};
}

/// Finds (or adds) the entry for `index` in a per-device vector.
template <typename Device>
Device& device_at(std::vector<Device>& devices, int index) {
  auto it = std::find_if(devices.begin(), devices.end(),
                         [index](const Device& d) { return d.index == index; });
  if (it != devices.end()) {
    return *it;
  }
  devices.push_back(Device{});
  devices.back().index = index;
  return devices.back();
}

/// "N.rest" → N and "rest"; nullopt for a non-number or an index beyond the bound.
std::optional<int> take_index(std::string_view& key) {
  std::size_t dot = key.find('.');
  std::optional<int> index = parse_int<int>(key.substr(0, dot));
  if (!index || *index < 0 || *index > k_helper_max_device_index || dot == std::string_view::npos) {
    return std::nullopt;
  }
  key.remove_prefix(dot + 1);
  return index;
}

Field cuda_device_field(HelperReply& reply, std::string_view key) {
  std::optional<int> index = take_index(key);
  if (!index) {
    return {};
  }
  HelperCudaDevice& device = device_at(reply.cuda_devices, *index);
  if (key == "name") { return &device.name; }
  if (key == "uuid") { return &device.uuid; }
  if (key == "pci_bus_id") { return &device.pci_bus_id; }
  if (key == "cc_major") { return &device.cc_major; }
  if (key == "cc_minor") { return &device.cc_minor; }
  if (key == "total_memory_bytes") { return &device.total_memory_bytes; }
  if (key == "module.duration_us") { return &device.module_duration_us; }
  if (key == "module.jit_us") { return &device.module_jit_us; }
  if (key == "module.log") { return &device.module_log; }
  if (key == "sync.duration_us") { return &device.sync_duration_us; }
  if (key == "check") { return &device.check; }
  if (key == "check.index") { return &device.check_index; }
  if (key == "check.value") { return &device.check_value; }
  if (key == "check.expected") { return &device.check_expected; }
  if (key == "stuck") { return &device.stuck; }
  if (key == "crashed") { return &device.crashed; }
  static constexpr std::pair<std::string_view, HelperCall HelperCudaDevice::*> k_calls[] = {
      {"context.", &HelperCudaDevice::context}, {"alloc.", &HelperCudaDevice::alloc},
      {"module.", &HelperCudaDevice::module},   {"function.", &HelperCudaDevice::function},
      {"launch.", &HelperCudaDevice::launch},   {"sync.", &HelperCudaDevice::sync},
      {"copy.", &HelperCudaDevice::copy},
  };
  for (const auto& [prefix, member] : k_calls) {
    std::string_view rest = key;
    if (consume_prefix(rest, prefix)) {
      return call_field(device.*member, rest);
    }
  }
  return {};
}

/// Finds (or adds) the entry of the ordered pair; nullptr beyond the bound.
template <typename Pair>
Pair* pair_at(std::vector<Pair>& pairs, int source, int destination) {
  auto it = std::find_if(pairs.begin(), pairs.end(), [&](const Pair& p) {
    return p.source == source && p.destination == destination;
  });
  if (it != pairs.end()) return &*it;
  if (pairs.size() >= k_helper_max_peer_pairs) return nullptr;  // bounded
  pairs.push_back(Pair{});
  pairs.back().source = source;
  pairs.back().destination = destination;
  return &pairs.back();
}

/// `cuda.peer.…` after the prefix: the scope, a source's lines, a pair's lines.
Field cuda_peer_field(HelperReply& reply, std::string_view key) {
  if (key == "scope") return &reply.peer_scope;
  if (key == "gpus") return &reply.peer_gpus;
  if (key == "bandwidth_bytes") return &reply.peer_bandwidth_bytes;
  if (key == "bandwidth_copies") return &reply.peer_bandwidth_copies;
  std::optional<int> source = take_index(key);
  if (!source) return {};
  if (key == "stuck") return &device_at(reply.peer_sources, *source).stuck;
  if (key == "crashed") return &device_at(reply.peer_sources, *source).crashed;
  std::string_view rest = key;
  if (consume_prefix(rest, "slots.")) return call_field(device_at(reply.peer_sources, *source).slots, rest);
  rest = key;
  if (consume_prefix(rest, "bandwidth_buffer.")) return call_field(device_at(reply.peer_sources, *source).bandwidth_buffer, rest);
  std::optional<int> destination = take_index(key);
  if (!destination) {
    // "N.M" alone has no dot after M: take_index needs one, and no key of a pair is bare.
    return {};
  }
  HelperPeerPair* pair = pair_at(reply.peer_pairs, *source, *destination);
  if (pair == nullptr) return {};
  if (key == "can_access") return &pair->can_access;
  if (key == "not_tested") return &pair->not_tested;
  if (key == "wait_us") return &pair->wait_us;
  if (key == "check") return &pair->check;
  if (key == "check.index") return &pair->check_index;
  if (key == "check.value") return &pair->check_value;
  if (key == "check.expected") return &pair->check_expected;
  if (key == "duration_us") return &pair->duration_us;
  if (key == "bandwidth.copies") return &pair->bandwidth_copies;
  if (key == "bandwidth.elapsed_ns") return &pair->bandwidth_elapsed_ns;
  if (key == "bandwidth.skipped") return &pair->bandwidth_skipped;
  if (key == "bandwidth.call") return &pair->bandwidth_call;
  static constexpr std::pair<std::string_view, HelperCall HelperPeerPair::*> k_calls[] = {
      {"can_access.", &HelperPeerPair::can_access_call}, {"enable.", &HelperPeerPair::enable},
      {"copy.", &HelperPeerPair::copy},                  {"sync.", &HelperPeerPair::sync},
      {"readback.", &HelperPeerPair::readback},          {"bandwidth.", &HelperPeerPair::bandwidth},
  };
  for (const auto& [prefix, member] : k_calls) {
    rest = key;
    if (consume_prefix(rest, prefix)) return call_field(pair->*member, rest);
  }
  return {};
}

/// `nvml.peer.A.B.…`: NVML's P2P status and common ancestor of a pair.
Field nvml_peer_field(HelperReply& reply, std::string_view key) {
  std::optional<int> source = take_index(key);
  std::optional<int> destination = source ? take_index(key) : std::nullopt;
  if (!destination) return {};
  HelperNvmlPeerPair* pair = pair_at(reply.nvml_peer_pairs, *source, *destination);
  if (pair == nullptr) return {};
  static constexpr struct {
    std::string_view name;
    std::optional<int> HelperNvmlPeerPair::*value;
    HelperCall HelperNvmlPeerPair::*call;
  } k_queries[] = {
      {"read", &HelperNvmlPeerPair::read, &HelperNvmlPeerPair::read_call},
      {"write", &HelperNvmlPeerPair::write, &HelperNvmlPeerPair::write_call},
      {"nvlink", &HelperNvmlPeerPair::nvlink, &HelperNvmlPeerPair::nvlink_call},
      {"topology", &HelperNvmlPeerPair::topology, &HelperNvmlPeerPair::topology_call},
  };
  for (const auto& query : k_queries) {
    if (key == query.name) return &(pair->*query.value);
    std::string_view rest = key;
    if (consume_prefix(rest, query.name) && consume_prefix(rest, ".")) return call_field(pair->*query.call, rest);
  }
  return {};
}

/// `<thread>.stage` and `<thread>.stage.at_us` lines of a GPU's thread or NVML's; false for other keys.
bool take_step_line(HelperReply& reply, std::string_view key, const std::string& value) {
  HelperSteps* steps = nullptr;
  std::string_view rest = key;
  if (consume_prefix(rest, "cuda.peer.")) {
    std::optional<int> index = take_index(rest);
    if (!index || (rest != "stage" && rest != "stage.at_us")) return false;
    steps = &device_at(reply.peer_sources, *index).steps;
  } else if (consume_prefix(rest, "nvml.")) {
    steps = &reply.nvml_steps;
  } else if (consume_prefix(rest, "cuda.device.")) {
    std::optional<int> index = take_index(rest);
    if (!index || (rest != "stage" && rest != "stage.at_us")) return false;
    steps = &device_at(reply.cuda_devices, *index).steps;
  }
  if (steps == nullptr) return false;
  if (rest == "stage") {
    steps->last = value;
    return true;
  }
  if (rest == "stage.at_us") {
    auto at = parse_int<std::int64_t>(value);
    if (at && steps->starts.size() < k_helper_max_stage_times) {
      steps->starts.emplace_back(steps->last, *at);
    }
    return true;
  }
  return false;
}

Field nvml_device_field(HelperReply& reply, std::string_view key) {
  std::optional<int> index = take_index(key);
  if (!index) {
    return {};
  }
  HelperNvmlDevice& device = device_at(reply.nvml_devices, *index);
  if (key == "name") { return &device.name; }
  if (key == "uuid") { return &device.uuid; }
  if (key == "pci_bus_id") { return &device.pci_bus_id; }
  return {};
}

/// `nvml.device.N.<health key>` (anything but name, uuid, pci_bus_id and the failed-value
/// keys of those): kept as text for probes/cuda/nvml_health. False for other keys.
bool take_nvml_health_line(HelperReply& reply, std::string_view key, const std::string& value) {
  if (!consume_prefix(key, "nvml.device.")) return false;
  std::optional<int> index = take_index(key);
  if (!index) return false;
  for (std::string_view plain : {"name", "uuid", "pci_bus_id", "result", "error"}) {
    if (key == plain || (key.starts_with(plain) && key.size() > plain.size() && key[plain.size()] == '.' &&
                         plain != "result" && plain != "error")) {
      return false;  // the identity values and their failures keep their own fields
    }
  }
  HelperNvmlDevice& device = device_at(reply.nvml_devices, *index);
  if (consume_prefix(key, "nvlink.")) {
    if (device.nvlink.size() < k_helper_max_nvlink_keys || device.nvlink.contains(key)) {
      device.nvlink[std::string(key)] = value.substr(0, 1024);
    }
    return true;  // bounded like the health lines
  }
  if (device.health.size() >= k_helper_max_health_keys && device.health.find(key) == device.health.end()) {
    return true;  // bounded: a reply cannot grow memory without limit
  }
  device.health[std::string(key)] = value.substr(0, 1024);
  return true;
}

/// `cuda.device.N.*` / `nvml.device.N.*` with N not a number in 0..k_helper_max_device_index.
bool is_out_of_bound_device(std::string_view key) {
  if (consume_prefix(key, "cuda.peer.") || consume_prefix(key, "nvml.peer.")) {
    if (key == "scope" || key == "gpus" || key == "bandwidth_bytes" || key == "bandwidth_copies") return false;
    if (!take_index(key)) return true;  // the source
    bool pair_key = !key.empty() && key[0] >= '0' && key[0] <= '9';
    return pair_key && !take_index(key);  // the destination of `A.B.…`
  }
  if (!consume_prefix(key, "cuda.device.") && !consume_prefix(key, "nvml.device.")) {
    return false;
  }
  return !take_index(key);
}

/// The typed field for a key, or monostate when this version has none for it.
Field typed_field(HelperReply& reply, std::string_view key) {
  // Plain values first: "cuda.driver_version" is a value, "cuda.driver_version.result" a call.
  if (key == "cuda.dlopen") { return &reply.cuda_dlopen_ok; }
  if (key == "cuda.dlerror") { return &reply.cuda_dlerror; }
  if (key == "cuda.path") { return &reply.cuda_path; }
  if (key == "cuda.driver_version") { return &reply.cuda_driver_version; }
  if (key == "cuda.init.duration_us") { return &reply.cuda_init_duration_us; }
  if (key == "cuda.device_count") { return &reply.cuda_device_count; }
  if (key == "nvml.dlopen") { return &reply.nvml_dlopen_ok; }
  if (key == "nvml.dlerror") { return &reply.nvml_dlerror; }
  if (key == "nvml.path") { return &reply.nvml_path; }
  if (key == "nvml.driver_version") { return &reply.nvml_driver_version; }
  if (key == "nvml.device_count") { return &reply.nvml_device_count; }
  if (key == "cuda.devices_not_started") { return &reply.cuda_devices_not_started; }
  if (key == "nvml.stuck") { return &reply.nvml_stuck; }
  if (key == "nvml.crashed") { return &reply.nvml_crashed; }

  static constexpr std::pair<std::string_view, HelperCall HelperReply::*> k_calls[] = {
      {"cuda.driver_version.", &HelperReply::cuda_driver_version_call},
      {"cuda.init.", &HelperReply::cuda_init},
      {"cuda.device_count.", &HelperReply::cuda_device_count_call},
      {"nvml.init.", &HelperReply::nvml_init},
      {"nvml.device_count.", &HelperReply::nvml_device_count_call},
  };
  for (const auto& [prefix, member] : k_calls) {
    std::string_view rest = key;
    if (consume_prefix(rest, prefix)) {
      return call_field(reply.*member, rest);
    }
  }
  std::string_view rest = key;
  if (consume_prefix(rest, "cuda.device.")) {
    return cuda_device_field(reply, rest);
  }
  if (consume_prefix(rest, "nvml.device.")) {
    return nvml_device_field(reply, rest);
  }
  rest = key;
  if (consume_prefix(rest, "cuda.peer.")) return cuda_peer_field(reply, rest);
  rest = key;
  if (consume_prefix(rest, "nvml.peer.")) return nvml_peer_field(reply, rest);
  return {};
}

/// `<value key>.result` / `.error` lines of failed value lookups; monostate for other keys.
Field failed_value_field(HelperReply& reply, std::string_view key) {
  for (std::string_view suffix : {std::string_view(".result"), std::string_view(".error")}) {
    if (key.ends_with(suffix) && key.size() > suffix.size()) {
      std::string_view owner = key.substr(0, key.size() - suffix.size());
      auto it = reply.failed_values.find(owner);
      if (it == reply.failed_values.end()) {
        it = reply.failed_values.emplace(std::string(owner), HelperCall{}).first;
      }
      return call_field(it->second, suffix.substr(1));
    }
  }
  return {};
}

/// Stores `value` into `field`; an error text when it does not fit the field's type.
std::optional<std::string> assign(const Field& field, std::string value) {
  if (auto* text = std::get_if<std::optional<std::string>*>(&field)) {
    **text = std::move(value);
  } else if (auto* number = std::get_if<std::optional<int>*>(&field)) {
    **number = parse_int<int>(value);
    if (!**number) {
      return "expected an integer, got '" + excerpt(value) + "'";
    }
  } else if (auto* big = std::get_if<std::optional<std::int64_t>*>(&field)) {
    **big = parse_int<std::int64_t>(value);
    if (!**big) {
      return "expected an integer, got '" + excerpt(value) + "'";
    }
  } else if (auto* flag = std::get_if<std::optional<bool>*>(&field)) {
    if (value != "ok" && value != "fail") {
      return "expected 'ok' or 'fail', got '" + excerpt(value) + "'";
    }
    **flag = value == "ok";
  }
  return std::nullopt;
}

/// "1.1" → 1; "1" → 0.
int minor_version(std::string_view value) {
  std::size_t dot = value.find('.');
  if (dot == std::string_view::npos) return 0;
  return parse_int<int>(value.substr(dot + 1)).value_or(0);
}

Result<int> parse_header(std::string_view key, std::string_view value) {
  if (key != k_header_key) {
    return fail("not a gpudoctor helper reply: the first line is '" + excerpt(key) +
                    "', expected '" + std::string(k_header_key) + "<TAB>version'",
                std::string(k_error_file), 1);
  }
  std::optional<int> major = parse_int<int>(value.substr(0, value.find('.')));
  if (!major) {
    return fail("bad helper protocol version '" + excerpt(value) + "'",
                std::string(k_error_file), 1);
  }
  if (*major != k_supported_major) {
    return fail("unsupported helper protocol version " + std::to_string(*major) +
                    " (this gpudoctor reads version " + std::to_string(k_supported_major) + ")",
                std::string(k_error_file), 1);
  }
  return *major;
}

}  // namespace

Result<HelperReply> parse_helper_reply(std::string_view text) {
  HelperReply reply;
  int line_number = 0;
  while (!text.empty()) {
    std::size_t newline = text.find('\n');
    if (newline == std::string_view::npos) {
      break;  // a line cut short (bounded pipe, crash mid-write): ignore, `complete` stays false
    }
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline + 1);
    ++line_number;

    std::size_t tab = line.find('\t');
    if (tab == std::string_view::npos || tab == 0) {
      if (line_number == 1) {
        return fail("not a gpudoctor helper reply: no '" + std::string(k_header_key) +
                        "<TAB>version' header (got '" + excerpt(line) + "')",
                    std::string(k_error_file), 1);
      }
      return fail("malformed line (expected key<TAB>value): '" + excerpt(line) + "'",
                  std::string(k_error_file), line_number);
    }
    std::string_view key = line.substr(0, tab);
    std::optional<std::string> value = unescape(line.substr(tab + 1));
    if (!value) {
      return fail("malformed line: bad backslash escape in the value of '" + excerpt(key) + "'",
                  std::string(k_error_file), line_number);
    }

    if (line_number == 1) {
      Result<int> version = parse_header(key, *value);
      if (!version) {
        return std::unexpected(version.error());
      }
      reply.protocol_version = *version;
      reply.protocol_minor = minor_version(*value);
      continue;
    }
    if (key == "end") {
      reply.complete = true;
      break;  // whatever follows the end marker is not part of this reply
    }
    if (key == "stage") {
      reply.last_stage = std::move(*value);
      continue;
    }
    if (key == "stage.at_us") {
      auto at = parse_int<std::int64_t>(*value);
      if (at && reply.stage_starts.size() < k_helper_max_stage_times) {
        reply.stage_starts.emplace_back(reply.last_stage, *at);
      }
      continue;
    }
    if (is_out_of_bound_device(key)) {
      continue;  // bounded: no entries for absurd indices
    }
    if (take_step_line(reply, key, *value) || take_nvml_health_line(reply, key, *value)) {
      continue;
    }
    Field field = typed_field(reply, key);
    if (std::holds_alternative<std::monostate>(field)) {
      if (key.ends_with(".result") && !parse_int<int>(*value)) {
        continue;  // not one of ours: tolerate it, as any unknown key
      }
      field = failed_value_field(reply, key);
    }
    if (std::optional<std::string> problem = assign(field, std::move(*value))) {
      return fail("malformed line: " + std::string(key) + ": " + *problem,
                  std::string(k_error_file), line_number);
    }
  }
  if (line_number == 0) {
    return fail("empty helper reply: no header line", std::string(k_error_file), 1);
  }

  auto by_index = [](const auto& a, const auto& b) { return a.index < b.index; };
  std::sort(reply.cuda_devices.begin(), reply.cuda_devices.end(), by_index);
  std::sort(reply.nvml_devices.begin(), reply.nvml_devices.end(), by_index);
  std::sort(reply.peer_sources.begin(), reply.peer_sources.end(), by_index);
  auto by_pair = [](const auto& a, const auto& b) {
    return a.source != b.source ? a.source < b.source : a.destination < b.destination;
  };
  std::sort(reply.peer_pairs.begin(), reply.peer_pairs.end(), by_pair);
  std::sort(reply.nvml_peer_pairs.begin(), reply.nvml_peer_pairs.end(), by_pair);
  return reply;
}

}  // namespace gd
