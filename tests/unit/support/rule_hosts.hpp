#pragma once
// Rule hosts: whole captured hosts for each rule's positive and negative case (GUIDE 4.5), kept
// as a real capture from tests/hosts/ plus the few things that differ, so that a reader sees at
// once what makes the rule fire. The format is described in tests/rules/README.md.

#include <algorithm>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "host_captures.hpp"

namespace gd::test {

namespace rule_host_detail {

/// Sets `key` to `value` in a helper reply (lines "key\tvalue"); a null value removes the line.
/// A key the reply lacks is added before its closing "end" line, so the reply stays well formed.
inline void set_reply_line(nlohmann::json& lines, const std::string& key, const nlohmann::json& value) {
  nlohmann::json out = nlohmann::json::array();
  bool done = false;
  std::string replacement = value.is_null() ? std::string() : key + "\t" + value.get<std::string>();
  for (const nlohmann::json& line : lines) {
    const std::string text = line.get<std::string>();
    bool same_key = text.rfind(key + "\t", 0) == 0;
    if (same_key) {
      if (!value.is_null() && !done) {
        out.push_back(replacement);
      }
      done = true;
      continue;
    }
    if (!done && !value.is_null() && text.rfind("end\t", 0) == 0) {
      out.push_back(replacement);
      done = true;
    }
    out.push_back(text);
  }
  if (!done && !value.is_null()) {
    out.push_back(replacement);
  }
  lines = std::move(out);
}

/// The lines of a path's whole-file read in the capture; throws when the base did not read it.
inline nlohmann::json& read_lines(nlohmann::json& capture, const std::string& path, const std::string& name) {
  nlohmann::json& paths = capture["paths"];
  if (!paths.contains(path) || !paths[path].contains("read") || !paths[path]["read"].contains("lines")) {
    throw std::runtime_error(name + ": the base capture holds no text read of " + path);
  }
  return paths[path]["read"]["lines"];
}

/// Replaces exact lines of a read (a null replacement removes the line). A line the base lacks
/// is an error: the case would otherwise silently stop testing what it says.
inline void replace_lines(nlohmann::json& lines, const nlohmann::json& edits, const std::string& where) {
  for (const auto& [old_line, new_line] : edits.items()) {
    auto found = std::find(lines.begin(), lines.end(), old_line);
    if (found == lines.end()) {
      throw std::runtime_error(where + ": no line \"" + old_line + "\" to replace");
    }
    if (new_line.is_null()) {
      lines.erase(found);
    } else {
      *found = new_line;
    }
  }
}

/// Adds lines at the end of a read, before the "" that stands for the final newline.
inline void append_lines(nlohmann::json& lines, const nlohmann::json& added) {
  bool trailing_newline = !lines.empty() && lines.back() == "";
  if (trailing_newline) {
    lines.erase(lines.end() - 1);
  }
  for (const nlohmann::json& line : added) {
    lines.push_back(line);
  }
  lines.push_back("");
}

}  // namespace rule_host_detail

/// The capture a rule host describes: its base capture with `created_by` replaced when given,
/// `env`, `identity` and `uname` merged in, each entry of `paths` replacing the base's (null removes it), `helper_runs` replacing the
/// base's when given, `replace_lines` ({path: {old line: new line or null}}) and `append_lines`
/// ({path: [lines]}) editing files the base read, and `helper_reply` ({mode: {key: value}})
/// editing lines of the helper's replies.
inline nlohmann::json compose_rule_host(const nlohmann::json& host, const std::string& name) {
  if (!host.is_object() || !host.contains("base") || !host["base"].is_string()) {
    throw std::runtime_error(name + ": a rule host needs \"base\", the name of a capture in tests/hosts/");
  }
  if (!host.contains("about") || !host["about"].is_string()) {
    throw std::runtime_error(name + ": a rule host needs \"about\", what this host is and why the rule fires or not");
  }
  nlohmann::json capture = host_capture_json(host["base"].get<std::string>());
  if (host.contains("created_by")) {
    capture["created_by"] = host["created_by"];
  }
  for (const char* section : {"env", "identity", "uname"}) {
    if (host.contains(section)) {
      for (const auto& [key, value] : host[section].items()) {
        capture[section][key] = value;
      }
    }
  }
  if (host.contains("paths")) {
    for (const auto& [path, entry] : host["paths"].items()) {
      if (entry.is_null()) {
        capture["paths"].erase(path);
      } else {
        capture["paths"][path] = entry;
      }
    }
  }
  if (host.contains("replace_lines")) {
    for (const auto& [path, edits] : host["replace_lines"].items()) {
      rule_host_detail::replace_lines(rule_host_detail::read_lines(capture, path, name), edits, name + ": " + path);
    }
  }
  if (host.contains("append_lines")) {
    for (const auto& [path, added] : host["append_lines"].items()) {
      rule_host_detail::append_lines(rule_host_detail::read_lines(capture, path, name), added);
    }
  }
  if (host.contains("options")) {
    capture["options"] = host["options"];
  }
  if (host.contains("helper_runs")) {
    capture["helper_runs"] = host["helper_runs"];
  }
  if (host.contains("helper_reply")) {
    for (const auto& [mode, edits] : host["helper_reply"].items()) {
      bool found = false;
      for (nlohmann::json& run : capture["helper_runs"]) {
        if (run.value("mode", "") != mode) {
          continue;
        }
        found = true;
        for (const auto& [key, value] : edits.items()) {
          rule_host_detail::set_reply_line(run["reply"]["lines"], key, value);
        }
      }
      if (!found) {
        throw std::runtime_error(name + ": helper_reply names mode \"" + mode + "\", which the base has no run of");
      }
    }
  }
  return capture;
}

}  // namespace gd::test
