#include "probes/toolkit/cuda_version_file.hpp"

#include <nlohmann/json.hpp>

#include <cctype>

#include "util/text_split.hpp"

namespace gd {
namespace {

/// json[key]["version"] when it is a string, else "".
std::string component_version(const nlohmann::json& json, const char* key) {
  auto it = json.find(key);
  if (it == json.end() || !it->is_object()) {
    return {};
  }
  auto version = it->find("version");
  return version != it->end() && version->is_string() ? version->get<std::string>() : std::string();
}

}  // namespace

bool is_dotted_number(std::string_view text) {
  if (text.empty() || text.front() == '.' || text.back() == '.') {
    return false;
  }
  char previous = 0;
  for (char c : text) {
    bool digit = std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (!digit && (c != '.' || previous == '.')) {
      return false;
    }
    previous = c;
  }
  return true;
}

std::expected<CudaVersionJson, std::string> parse_cuda_version_json(std::string_view text) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return std::unexpected("not a JSON object");
  }
  CudaVersionJson out{component_version(json, "cuda"), component_version(json, "cuda_nvcc")};
  if (out.toolkit.empty() && out.nvcc.empty()) {
    return std::unexpected("no \"cuda\" or \"cuda_nvcc\" version in it");
  }
  return out;
}

std::optional<std::string> parse_cuda_version_txt(std::string_view text) {
  constexpr std::string_view prefix = "CUDA Version ";
  std::string_view line = trim_whitespace(text);
  if (!line.starts_with(prefix)) {
    return std::nullopt;
  }
  std::string_view version = trim_whitespace(line.substr(prefix.size()));
  return is_dotted_number(version) ? std::optional<std::string>(version) : std::nullopt;
}

std::optional<std::string> conda_nvcc_version(std::string_view record_file_name) {
  constexpr std::string_view prefix = "cuda-nvcc-";
  constexpr std::string_view suffix = ".json";
  if (!record_file_name.starts_with(prefix) || !record_file_name.ends_with(suffix)) {
    return std::nullopt;
  }
  std::string_view rest = record_file_name.substr(prefix.size());
  rest.remove_suffix(suffix.size());
  // Conda versions cannot hold a '-', so the first one ends the version; "tools-12.4..." is
  // another package and fails the number check.
  std::string_view version = rest.substr(0, rest.find('-'));
  return is_dotted_number(version) ? std::optional<std::string>(version) : std::nullopt;
}

std::optional<std::string> wheel_nvcc_version(std::string_view dist_info_name) {
  constexpr std::string_view prefix = "nvidia_cuda_nvcc";
  constexpr std::string_view suffix = ".dist-info";
  if (!dist_info_name.starts_with(prefix) || !dist_info_name.ends_with(suffix)) {
    return std::nullopt;
  }
  std::string_view rest = dist_info_name.substr(prefix.size());
  rest.remove_suffix(suffix.size());
  if (rest.starts_with("_cu")) {  // the CUDA 12 wheels carry the major in the name: _cu12
    std::size_t dash = rest.find('-');
    if (dash == std::string_view::npos || !is_dotted_number(rest.substr(3, dash - 3))) {
      return std::nullopt;
    }
    rest.remove_prefix(dash);
  }
  if (!rest.starts_with('-')) {
    return std::nullopt;
  }
  rest.remove_prefix(1);
  return is_dotted_number(rest) ? std::optional<std::string>(rest) : std::nullopt;
}

std::optional<std::string> cuda_h_version(std::string_view text) {
  for (std::string_view line : split_nonempty_lines(text)) {
    std::vector<std::string_view> words = split_words(line);
    if (words.size() >= 3 && words[0] == "#define" && words[1] == "CUDA_VERSION" &&
        words[2].find_first_not_of("0123456789") == std::string_view::npos && words[2].size() <= 7) {
      int value = std::stoi(std::string(words[2]));  // 1000 * major + 10 * minor
      return std::to_string(value / 1000) + "." + std::to_string(value % 1000 / 10);
    }
  }
  return std::nullopt;
}

}  // namespace gd
