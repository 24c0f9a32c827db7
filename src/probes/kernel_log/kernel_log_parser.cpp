#include "probes/kernel_log/kernel_log_parser.hpp"

#include "util/text_split.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace gd {
namespace {

constexpr std::size_t k_max_nvrm_lines = 20;    // newest NVRM lines kept as evidence
constexpr std::size_t k_max_entries = 32;       // entries per list (messages repeat in floods)
constexpr std::size_t k_max_xids = 64;          // distinct (code, GPU) pairs
constexpr std::size_t k_max_quote = 240;        // characters of a quoted message
constexpr std::size_t k_max_run = 64;           // NVRM lines joined before a run is analysed
constexpr std::size_t k_run_overlap = 8;        // lines carried over so a message is never cut in two

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

bool is_hex_or(char c, std::string_view extra) {
  return std::isxdigit(static_cast<unsigned char>(c)) || extra.find(c) != std::string_view::npos;
}

// "0000:01:00" (domain:bus:device, as Xid prints it) -> "0000:01:00.0"; "01:00" -> "0000:01:00.0".
std::string normalise_pci(std::string_view address) {
  std::string out;
  for (char c : address) {
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (out.empty() || !std::all_of(out.begin(), out.end(), [](char c) { return is_hex_or(c, ":."); })) {
    return out;
  }
  auto colons = std::count(out.begin(), out.end(), ':');
  if (colons == 1) {
    out = "0000:" + out;
  }
  if (out.find('.') == std::string::npos) {
    out += ".0";
  }
  return out;
}

// The bus id at the start of `text` ("0000:01:00.0: ..."), empty when there is none.
std::string leading_bus_id(std::string_view text) {
  std::size_t end = 0;
  while (end < text.size() && is_hex_or(text[end], ":.")) ++end;
  std::string_view id = text.substr(0, end);
  while (id.ends_with(':')) id.remove_suffix(1);
  if (std::count(id.begin(), id.end(), ':') < 1 || id.find('.') == std::string_view::npos) {
    return {};
  }
  return normalise_pci(id);
}

void add_distinct(std::vector<std::string>& list, std::string value) {
  if (list.size() < k_max_entries && std::find(list.begin(), list.end(), value) == list.end()) {
    list.push_back(std::move(value));
  }
}

std::string collapse_spaces(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == ' ' && !out.empty() && out.back() == ' ') {
      continue;
    }
    out += c;
  }
  std::string_view trimmed = trim_whitespace(out);
  std::string result(trimmed.substr(0, k_max_quote));
  return result;
}

// The sentence around `pos` in a joined run of NVRM lines: from "The NVIDIA ..." (or the
// previous sentence end) to the first '.' that ends a sentence ("nvidia.ko" does not).
std::string sentence_around(std::string_view text, std::size_t pos) {
  std::size_t start = 0;
  std::size_t the = text.rfind("The NVIDIA ", pos);
  if (the != std::string_view::npos && pos - the <= 160) {
    start = the;
  } else {
    std::size_t stop = text.rfind(". ", pos);
    start = stop == std::string_view::npos ? 0 : stop + 2;
  }
  std::size_t end = text.size();
  for (std::size_t i = pos; i < text.size(); ++i) {
    if (text[i] == '.' && (i + 1 == text.size() || text[i + 1] == ' ')) {
      end = i + 1;
      break;
    }
  }
  return collapse_spaces(text.substr(start, end - start));
}

// A word made of version characters at `pos` ("550.90.07" from "550.90.07.  Please").
std::string_view version_at(std::string_view text, std::size_t pos) {
  std::size_t end = pos;
  while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '.' || text[end] == '-')) {
    ++end;
  }
  std::string_view word = text.substr(pos, end - pos);
  while (word.ends_with('.')) word.remove_suffix(1);
  return word;
}

// osapi.c RmCheckVersion: "API mismatch: the client has the version %s, but this kernel module
// has the version %s." (<= 560) or "the client '%s' (pid %u) has the version %s, ..." (later).
void find_api_mismatches(std::string_view text, KernelLogFindings& out) {
  constexpr std::string_view k_tag = "API mismatch: the client";
  constexpr std::string_view k_client = "has the version ";
  constexpr std::string_view k_module = "kernel module has the version ";
  for (std::size_t pos = text.find(k_tag); pos != std::string_view::npos; pos = text.find(k_tag, pos + 1)) {
    std::size_t client = text.find(k_client, pos);
    if (client == std::string_view::npos || client - pos > 200) {
      continue;
    }
    std::size_t module = text.find(k_module, client);
    if (module == std::string_view::npos || module - client > 200) {
      continue;
    }
    ApiMismatch found;
    std::string_view client_text = text.substr(client + k_client.size());
    found.client_version = std::string(client_text.substr(0, client_text.find_first_of(", ")));
    found.module_version = std::string(version_at(text, module + k_module.size()));
    std::size_t end = module + k_module.size() + found.module_version.size();
    if (end < text.size() && text[end] == '.') {
      ++end;
    }
    found.message = collapse_spaces(text.substr(pos, end - pos));
    bool known = std::any_of(out.api_mismatches.begin(), out.api_mismatches.end(), [&](const ApiMismatch& m) {
      return m.client_version == found.client_version && m.module_version == found.module_version;
    });
    if (!known && out.api_mismatches.size() < k_max_entries) {
      out.api_mismatches.push_back(std::move(found));
    }
  }
}

// Messages the driver spreads over several "NVRM:" lines, read from one joined run of them.
void analyse_nvrm_run(std::string_view text, KernelLogFindings& out) {
  // osapi.c rm_is_supported_device / print_unsupported; the proprietary module's legacy notice
  // ("... is supported through the NVIDIA 580.xx Legacy drivers ... will ignore this GPU");
  // osinit.c of 515-52x ("Open nvidia.ko is only ready for use on Data Center GPUs").
  constexpr std::string_view k_unsupported[] = {
      "not supported by open nvidia.ko",
      "in this system is not supported by the",
      "Legacy drivers",
      "is only ready for use on Data Center GPUs",
  };
  for (std::string_view phrase : k_unsupported) {
    for (std::size_t pos = text.find(phrase); pos != std::string_view::npos; pos = text.find(phrase, pos + 1)) {
      add_distinct(out.gpu_not_supported, sentence_around(text, pos));
    }
  }
  find_api_mismatches(text, out);
  // osapi.c: "The NVIDIA GPU %04x:%02x:%02x.%x (PCI ID: %04x:%04x) installed in this system has
  // fallen off the bus and is not responding to commands."
  constexpr std::string_view k_fallen = "has fallen off the bus";
  constexpr std::string_view k_gpu = "The NVIDIA GPU ";
  for (std::size_t pos = text.find(k_fallen); pos != std::string_view::npos; pos = text.find(k_fallen, pos + 1)) {
    std::size_t gpu = text.rfind(k_gpu, pos);
    if (gpu != std::string_view::npos && pos - gpu <= 120) {
      std::string id = leading_bus_id(text.substr(gpu + k_gpu.size()));
      if (!id.empty()) {
        add_distinct(out.fallen_off_bus_gpus, id);
      }
    }
  }
}

void record_xid(XidEvent xid, KernelLogFindings& out) {
  ++out.xid_total;
  if (std::find(out.xid_codes.begin(), out.xid_codes.end(), xid.code) == out.xid_codes.end()) {
    out.xid_codes.push_back(xid.code);
  }
  if (xid.code == 79) {  // ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS (nverror.h)
    out.fallen_off_bus = true;
    add_distinct(out.fallen_off_bus_gpus, xid.pci);
  }
  if (xid.code == 119) {  // GSP_RPC_TIMEOUT
    out.gsp_timeout = true;
  }
  for (std::size_t i = 0; i < out.xids.size(); ++i) {
    if (out.xids[i].code == xid.code && out.xids[i].pci == xid.pci) {
      out.xids[i].text = std::move(xid.text);  // the newest wording
      ++out.xid_repeats[i];
      return;
    }
  }
  if (out.xids.size() < k_max_xids) {
    out.xids.push_back(std::move(xid));
    out.xid_repeats.push_back(1);
  }
}

// Xid reports before "NVRM: loading NVIDIA UNIX ..." concern the module that was unloaded: the
// module was reloaded since (the GPUs were initialised again), so they no longer describe them.
void start_module_load(KernelLogFindings& out) {
  std::vector<std::string> old = xid_entry_list(out);
  for (std::string& entry : old) {
    if (out.xids_before_module_load.size() < k_max_xids) out.xids_before_module_load.push_back(std::move(entry));
  }
  out.xids.clear();
  out.xid_repeats.clear();
  out.xid_codes.clear();
  out.xid_total = 0;
  out.fallen_off_bus = false;
  out.fallen_off_bus_gpus.clear();
  out.gsp_timeout = false;
  out.gsp_timeout_message = false;
  ++out.module_loads;
}

void analyse_signature(std::string_view text, KernelLogFindings& out) {
  // kernel/module/signing.c: "Loading of %s is rejected" (unsigned module, module with
  // unavailable key, module with unsupported crypto) when signatures are enforced (Secure Boot);
  // security/lockdown: "... unsigned module loading is restricted"; modprobe's strerror of
  // EKEYREJECTED is "Key was rejected by service".
  bool rejected = (contains(text, "Loading of ") && contains(text, " is rejected")) ||
                  contains(text, "unsigned module loading is restricted") || contains(text, "Key was rejected by service");
  // Not refusals by themselves: with enforcement off the module loads and taints the kernel.
  bool noted = contains(text, "PKCS#7 signature not signed with a trusted key") ||
               contains(text, "module verification failed: signature and/or required key missing");
  if (rejected) {
    out.module_signature_rejected = true;
  }
  if (rejected || noted) {
    add_distinct(out.module_signature_messages, collapse_spaces(text));
  }
}

void analyse_line(std::string_view text, bool nvrm, KernelLogFindings& out) {
  if (auto xid = parse_xid_line(text)) {
    record_xid(std::move(*xid), out);
  }
  // osinit.c RmInitAdapter: "RmInitAdapter failed! (0x%x:0x%x:%d)" = RM_INIT_* : NV_STATUS : line.
  constexpr std::string_view k_rm_init = "RmInitAdapter failed! (";
  if (std::size_t pos = text.find(k_rm_init); pos != std::string_view::npos) {
    std::string_view code = text.substr(pos + k_rm_init.size());
    std::size_t close = code.find(')');
    if (close != std::string_view::npos && close < 40) {
      std::string lower;
      for (char c : code.substr(0, close)) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      add_distinct(out.rm_init_adapter, lower);
    }
  }
  // drivers/base/firmware_loader/main.c: "Direct firmware load for %s failed with error %d".
  constexpr std::string_view k_firmware = "Direct firmware load for ";
  constexpr std::string_view k_failed = " failed with error ";
  if (std::size_t pos = text.find(k_firmware); pos != std::string_view::npos) {
    std::string_view rest = text.substr(pos + k_firmware.size());
    std::size_t failed = rest.find(k_failed);
    if (failed != std::string_view::npos && rest.starts_with("nvidia/")) {
      std::string_view error = trim_whitespace(rest.substr(failed + k_failed.size()));
      add_distinct(out.firmware_load_failures, std::string(rest.substr(0, failed)) + " " + std::string(error));
    }
  }
  bool is_xid = text.find("NVRM: Xid (") != std::string_view::npos;
  if (nvrm && !is_xid && contains(text, "fallen off the bus")) {  // an Xid 79 counts in record_xid
    out.fallen_off_bus = true;
    // NV_DEV_PRINTF form: "NVRM: GPU 0000:01:00.0: GPU has fallen off the bus."
    constexpr std::string_view k_dev = "NVRM: GPU ";
    if (text.starts_with(k_dev)) {
      std::string id = leading_bus_id(text.substr(k_dev.size()));
      if (!id.empty()) {
        add_distinct(out.fallen_off_bus_gpus, id);
      }
    }
  }
  // kernel_gsp.c: "Timeout waiting for RPC from GSP%d!" (<= 545) or "Timeout after %llus of
  // waiting for RPC response from GPU%d GSP!" (550+).
  if (nvrm && !is_xid && (contains(text, "Timeout waiting for RPC from GSP") ||
               (contains(text, "waiting for RPC response from GPU") && contains(text, "GSP")))) {
    out.gsp_timeout = true;
    out.gsp_timeout_message = true;
  }
  if (nvrm && contains(text, "WPR2 already up")) {  // kernel_gsp.c _kgspBootGspRm
    out.gsp_wpr2_up = true;
  }
  if (nvrm && contains(text, "Fatal Error while attempting to resize PCIe BARs")) {  // nv-pci.c
    out.bar_resize_failed = true;
  }
  constexpr std::string_view k_probe = "The NVIDIA probe routine was not called for";  // nv.c
  if (std::size_t pos = text.find(k_probe); nvrm && pos != std::string_view::npos && out.probe_not_called.empty()) {
    out.probe_not_called = collapse_spaces(text.substr(pos));
  }
  if (text.starts_with("nouveau ") && !leading_bus_id(text.substr(8)).empty()) {
    out.nouveau_seen = true;  // "nouveau 0000:01:00.0: ..." (dev_printk of the nouveau driver)
  }
  analyse_signature(text, out);
  if ((text.starts_with("nvidia-uvm:") || text.starts_with("nvidia_uvm:")) &&
      (contains(text, "fail") || contains(text, "error") || contains(text, " err ") || contains(text, "Unknown symbol") ||
       contains(text, "disagrees about version"))) {
    add_distinct(out.uvm_messages, collapse_spaces(text));
  }
  // kernel/power/suspend.c "PM: suspend entry (%s)" / "PM: suspend exit";
  // drivers/acpi/sleep.c "ACPI: PM: Waking up from system sleep state S%d".
  if (contains(text, "PM: suspend entry") || contains(text, "PM: suspend exit") ||
      contains(text, "Waking up from system sleep state")) {
    out.resume_seen = true;
  }
}

// "NVRM: text" / "NVRM text" -> "text".
std::string_view strip_nvrm(std::string_view text) {
  text.remove_prefix(4);
  if (text.starts_with(':')) {
    text.remove_prefix(1);
  }
  return trim_whitespace(text);
}

std::string join_run(const std::vector<std::string_view>& run) {
  std::string joined;
  for (std::string_view part : run) {
    if (!joined.empty()) {
      joined += ' ';
    }
    joined += part;
  }
  return joined;
}

}  // namespace

std::optional<XidEvent> parse_xid_line(std::string_view line) {
  constexpr std::string_view k_tag = "NVRM: Xid (";
  std::size_t at = line.find(k_tag);
  if (at == std::string_view::npos) {
    return std::nullopt;
  }
  std::string_view rest = line.substr(at + k_tag.size());
  if (rest.starts_with("PCI:")) {
    rest.remove_prefix(4);
  }
  std::size_t address_end = rest.find_first_of(" )");
  std::size_t close = rest.find("): ");
  if (address_end == std::string_view::npos || close == std::string_view::npos || address_end > close) {
    return std::nullopt;
  }
  XidEvent xid;
  xid.pci = normalise_pci(rest.substr(0, address_end));
  rest = rest.substr(close + 3);
  std::size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
  if (digits == 0 || digits > 4 ||
      std::from_chars(rest.data(), rest.data() + digits, xid.code).ec != std::errc()) {
    return std::nullopt;
  }
  rest.remove_prefix(digits);
  if (rest.starts_with(',')) {
    rest.remove_prefix(1);
  }
  rest = trim_whitespace(rest);
  // "pid=1234, name=python3, " or "pid='<unknown>', name=<unknown>, " precede the message.
  while (rest.starts_with("pid=") || rest.starts_with("name=")) {
    std::size_t comma = rest.find(", ");
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 2);
  }
  xid.text = collapse_spaces(rest);
  return xid;
}

KernelLogFindings analyse_kernel_log(const std::vector<std::string>& lines) {
  KernelLogFindings out;
  out.line_count = lines.size();
  std::vector<std::string_view> run;  // consecutive NVRM lines, prefix removed
  for (const std::string& line : lines) {
    std::string_view text = line;
    bool nvrm = text.starts_with("NVRM");
    // osapi.c nvidia_init_module: "NVRM: loading NVIDIA UNIX [Open Kernel Module for ]x86_64 ...".
    if (nvrm && contains(text, "NVRM: loading NVIDIA UNIX")) {
      if (!run.empty()) {
        analyse_nvrm_run(join_run(run), out);  // what came before belongs to the old module
        run.clear();
      }
      start_module_load(out);
    }
    if (nvrm) {
      if (out.nvrm_lines.size() == k_max_nvrm_lines) {
        out.nvrm_lines.erase(out.nvrm_lines.begin());
      }
      out.nvrm_lines.push_back(collapse_spaces(text));
      run.push_back(strip_nvrm(text));
      if (run.size() >= k_max_run) {
        analyse_nvrm_run(join_run(run), out);
        run.erase(run.begin(), run.end() - k_run_overlap);
      }
    } else if (!run.empty()) {
      analyse_nvrm_run(join_run(run), out);
      run.clear();
    }
    analyse_line(text, nvrm, out);
  }
  if (!run.empty()) {
    analyse_nvrm_run(join_run(run), out);
  }
  return out;
}

std::vector<std::string> xid_code_list(const KernelLogFindings& findings) {
  std::vector<int> codes = findings.xid_codes;
  std::sort(codes.begin(), codes.end());
  std::vector<std::string> out;
  for (int code : codes) {
    out.push_back(std::to_string(code));
  }
  return out;
}

namespace {

std::string xid_entry(const KernelLogFindings& findings, std::size_t i) {
  const XidEvent& xid = findings.xids[i];
  std::string entry = std::to_string(xid.code) + " " + xid.pci;
  if (!xid.text.empty()) {
    entry += " " + xid.text;
  }
  if (findings.xid_repeats[i] > 1) {
    entry += " (logged " + std::to_string(findings.xid_repeats[i]) + " times)";
  }
  return entry;
}

}  // namespace

std::vector<std::string> xid_entry_list(const KernelLogFindings& findings) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < findings.xids.size(); ++i) {
    out.push_back(xid_entry(findings, i));
  }
  return out;
}

std::vector<std::string> xid_entries_of(const KernelLogFindings& findings, int code) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < findings.xids.size(); ++i) {
    if (findings.xids[i].code == code) out.push_back(xid_entry(findings, i));
  }
  return out;
}

std::vector<std::string> keep_xids_of(KernelLogFindings& findings, const std::vector<std::string>& bus_ids) {
  std::vector<std::string> wanted;
  for (const std::string& id : bus_ids) wanted.push_back(normalise_pci(id));
  auto given = [&](const std::string& pci) {
    return std::find(wanted.begin(), wanted.end(), normalise_pci(pci)) != wanted.end();
  };
  std::vector<std::string> removed;
  KernelLogFindings kept_only;
  for (std::size_t i = 0; i < findings.xids.size(); ++i) {
    if (given(findings.xids[i].pci)) {
      kept_only.xids.push_back(findings.xids[i]);
      kept_only.xid_repeats.push_back(findings.xid_repeats[i]);
    } else {
      removed.push_back(xid_entry(findings, i));
    }
  }
  if (removed.empty()) {
    return removed;
  }
  findings.xids = std::move(kept_only.xids);
  findings.xid_repeats = std::move(kept_only.xid_repeats);
  findings.xid_codes.clear();
  findings.xid_total = 0;
  bool xid_gsp_timeout = false;
  for (std::size_t i = 0; i < findings.xids.size(); ++i) {
    int code = findings.xids[i].code;
    if (std::find(findings.xid_codes.begin(), findings.xid_codes.end(), code) == findings.xid_codes.end()) {
      findings.xid_codes.push_back(code);
    }
    findings.xid_total += findings.xid_repeats[i];
    xid_gsp_timeout = xid_gsp_timeout || code == 119;
  }
  // A GPU named as fallen off the bus counts only if it is given; when the log named none, the
  // unnamed message stands. A GSP timeout message names no bus id: only the Xid 119s are sorted.
  if (!findings.fallen_off_bus_gpus.empty()) {
    std::erase_if(findings.fallen_off_bus_gpus, [&](const std::string& pci) { return !given(pci); });
    findings.fallen_off_bus = !findings.fallen_off_bus_gpus.empty();
  }
  findings.gsp_timeout = xid_gsp_timeout || findings.gsp_timeout_message;
  return removed;
}

}  // namespace gd
