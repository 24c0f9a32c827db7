#include "rules/rule_files.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

namespace gd {
namespace {

namespace fs = std::filesystem;

// The file's text, or an error naming it; refuses non-regular and oversized files.
bool read_text(const fs::path& path, std::string& out, std::vector<Error>& errors) {
  std::string name = path.string();
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec) {
    errors.push_back(Error{"cannot read rule file: " + ec.message(), name, 0});
    return false;
  }
  if (!fs::is_regular_file(status)) {
    errors.push_back(Error{"not a regular file", name, 0});
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    errors.push_back(Error{std::string("cannot open rule file: ") + std::strerror(errno), name, 0});
    return false;
  }
  // Read at most one byte past the limit, so a file that grows meanwhile is still bounded.
  std::string text(k_max_rule_file_size + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) {
    errors.push_back(Error{"cannot read rule file", name, 0});
    return false;
  }
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > k_max_rule_file_size) {
    errors.push_back(Error{"rule file is larger than " + std::to_string(k_max_rule_file_size) + " bytes", name, 0});
    return false;
  }
  out = std::move(text);
  return true;
}

void read_folder(const fs::path& root, RuleSourceList& list) {
  std::error_code ec;
  std::vector<fs::path> files;
  fs::recursive_directory_iterator it(root, fs::directory_options::follow_directory_symlink, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code type_ec;
    if (it->path().extension() == ".toml" && !it->is_directory(type_ec)) {
      files.push_back(it->path());
    }
  }
  if (ec) {
    list.errors.push_back(Error{"cannot list rule folder: " + ec.message(), root.string(), 0});
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    RuleSource source;
    source.path = file.string();
    source.relative_path = file.lexically_relative(root).generic_string();
    if (read_text(file, source.text, list.errors)) {
      list.sources.push_back(std::move(source));
    }
  }
  if (files.empty() && !ec) {
    list.errors.push_back(Error{"no *.toml rule files in this folder", root.string(), 0});
  }
}

}  // namespace

RuleSourceList read_rule_sources(const std::string& path) {
  RuleSourceList list;
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec) {
    list.errors.push_back(Error{"cannot read rules: " + ec.message(), path, 0});
    return list;
  }
  if (fs::is_directory(status)) {
    read_folder(path, list);
    return list;
  }
  RuleSource source;
  source.path = path;
  if (read_text(path, source.text, list.errors)) {
    list.sources.push_back(std::move(source));
  }
  return list;
}

RuleLoadResult load_rules_from_path(const std::string& path) {
  RuleSourceList list = read_rule_sources(path);
  RuleLoadResult result = load_rules(list.sources);
  result.errors.insert(result.errors.begin(), std::make_move_iterator(list.errors.begin()),
                       std::make_move_iterator(list.errors.end()));
  return result;
}

}  // namespace gd
