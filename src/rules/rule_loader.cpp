#include "rules/rule_loader.hpp"
#include "rules/toml_guard.hpp"

#include <algorithm>
#include <system_error>
#include <thread>
#include <array>
#include <map>

#include "core/fact_catalog.hpp"
#include "core/layer.hpp"
#include "rules/condition_parser.hpp"
#include "rules/defaults.hpp"
#include "rules/load_context.hpp"
#include "rules/placeholders.hpp"

namespace gd {
namespace {

using rules_detail::did_you_mean;
using rules_detail::LoadContext;
using rules_detail::line_of;
using rules_detail::type_name;

constexpr std::array<std::string_view, 17> k_rule_keys = {
    "spec", "id",         "severity", "area",          "title",    "message", "why",   "fix",
    "references", "tags", "superseded_by", "evidence", "when",    "rank",    "scope", "action",
    "confirmed_by",
};

enum class Required { yes, no };

// Typed access to the top-level table, reporting a located error for each problem.
class RuleReader {
 public:
  RuleReader(const toml::table& table, LoadContext& ctx) : m_table(table), m_ctx(ctx) {}

  const toml::node* get(std::string_view key, Required required) {
    const toml::node* node = m_table.get(key);
    if (!node && required == Required::yes) {
      m_ctx.error(1, "missing required key '" + std::string(key) + "'");
    }
    return node;
  }

  /// A string; empty ones are errors too. nullptr when missing or wrong.
  const toml::node* string(std::string_view key, std::string& out, Required required) {
    const toml::node* node = get(key, required);
    if (!node) {
      return nullptr;
    }
    auto* value = node->as_string();
    if (!value) {
      m_ctx.error(line_of(*node), "'" + std::string(key) + "' must be a string, not a " + std::string(type_name(*node)));
      return nullptr;
    }
    if (value->get().empty()) {
      m_ctx.error(line_of(*node), "'" + std::string(key) + "' must not be empty");
      return nullptr;
    }
    out = value->get();
    return node;
  }

  /// An array of non-empty strings; element nodes are returned for line lookups.
  std::vector<const toml::node*> strings(std::string_view key, std::vector<std::string>& out, Required required) {
    std::vector<const toml::node*> nodes;
    const toml::node* node = get(key, required);
    if (!node) {
      return nodes;
    }
    auto* array = node->as_array();
    if (!array) {
      m_ctx.error(line_of(*node), "'" + std::string(key) + "' must be an array of strings, not a " +
                                      std::string(type_name(*node)));
      return nodes;
    }
    for (const toml::node& element : *array) {
      auto* value = element.as_string();
      if (!value || value->get().empty()) {
        m_ctx.error(line_of(element), "'" + std::string(key) + "' must hold non-empty strings only");
        continue;
      }
      out.push_back(value->get());
      nodes.push_back(&element);
    }
    if (required == Required::yes && array->empty()) {
      m_ctx.error(line_of(*node), "'" + std::string(key) + "' needs at least one entry");
    }
    return nodes;
  }

 private:
  const toml::table& m_table;
  LoadContext& m_ctx;
};

bool is_valid_id(std::string_view id) {
  bool dotted = false;
  bool segment_start = true;
  for (char c : id) {
    bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (c == '.') {
      if (segment_start) {
        return false;
      }
      dotted = true;
      segment_start = true;
    } else if (alnum || (!segment_start && (c == '-' || c == '_'))) {
      segment_start = false;
    } else {
      return false;
    }
  }
  return dotted && !segment_start;
}

void check_id_matches_path(const RuleSource& source, const std::string& id, int line, LoadContext& ctx) {
  std::string id_path = id;
  std::replace(id_path.begin(), id_path.end(), '.', '/');
  id_path += ".toml";
  if (!source.relative_path.empty()) {
    std::string expected = rule_id_for_path(source.relative_path);
    if (expected != id) {
      ctx.error(line, "id '" + id + "' does not match the file path '" + source.relative_path + "' (expected id '" +
                          expected + "', or move the file to '" + id_path + "')");
    }
    return;
  }
  std::string_view path = source.path;
  bool matches = path.ends_with(id_path) &&
                 (path.size() == id_path.size() || path[path.size() - id_path.size() - 1] == '/');
  if (!matches) {
    ctx.error(line, "id '" + id + "' does not match the file path '" + source.path + "' (a rule with this id lives at '" +
                        id_path + "')");
  }
}

// The line of `needle` inside a (possibly multi-line) string node, from the source text.
int locate(const LoadContext& ctx, const toml::node& node, std::string_view needle) {
  int begin = line_of(node);
  int end = static_cast<int>(node.source().end.line);
  std::size_t start = 0;
  for (int line = 1; start <= ctx.text.size(); ++line) {
    std::size_t stop = ctx.text.find('\n', start);
    std::string_view text = ctx.text.substr(start, stop == std::string_view::npos ? std::string_view::npos : stop - start);
    if (line >= begin && line <= std::max(begin, end) && text.find(needle) != std::string_view::npos) {
      return line;
    }
    if (stop == std::string_view::npos || line > end) {
      break;
    }
    start = stop + 1;
  }
  return begin;
}

void check_placeholders(std::string_view field, const std::string& text, const toml::node* node, LoadContext& ctx) {
  if (!node) {
    return;
  }
  for (const Placeholder& placeholder : find_placeholders(text)) {
    if (!find_fact_spec(placeholder.fact)) {
      std::string written = "{" + placeholder.fact + "}";
      ctx.error(locate(ctx, *node, written), "placeholder '" + written + "' in " + std::string(field) +
                                                 " names an unknown fact" +
                                                 rules_detail::fact_suggestion(placeholder.fact));
    }
  }
}

// Every layer's areas, for the message of an unknown one.
std::string area_list() {
  std::string list;
  for (std::string_view area : layer_areas()) list += (list.empty() ? "" : ", ") + std::string(area);
  return list;
}

// scope and action: the folder's default unless the file names one of the documented values.
void read_scope_action(RuleReader& reader, Rule& rule, LoadContext& ctx) {
  ScopeAction defaults = default_scope_action(rule.id);
  rule.scope = defaults.scope;
  rule.action = defaults.action;
  std::string scope;
  if (const toml::node* node = reader.string("scope", scope, Required::no); node && !parse_scope(scope, rule.scope)) {
    ctx.error(line_of(*node), "bad scope '" + scope + "' (use node or environment)" +
                                  did_you_mean(scope, {"node", "environment"}));
  }
  std::string action;
  if (const toml::node* node = reader.string("action", action, Required::no); node && !parse_action(action, rule.action)) {
    std::vector<std::string> names(action_names().begin(), action_names().end());
    std::string list;
    for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
    ctx.error(line_of(*node), "bad action '" + action + "' (use one of " + list + ")" + did_you_mean(action, names));
  }
}

std::optional<Rule> read_rule(const RuleSource& source, const toml::table& table, LoadContext& ctx) {
  Rule rule;
  rule.file = source.path;
  RuleReader reader(table, ctx);

  for (auto&& [key, value] : table) {
    if (std::find(k_rule_keys.begin(), k_rule_keys.end(), key.str()) == k_rule_keys.end()) {
      ctx.error(line_of(key), "unknown key '" + std::string(key.str()) + "'" + did_you_mean(key.str(), k_rule_keys));
    }
  }

  std::string spec;
  if (const toml::node* node = reader.string("spec", spec, Required::yes); node && spec != k_rule_spec) {
    ctx.error(line_of(*node), "unsupported spec '" + spec + "' (this gpudoctor reads '" + std::string(k_rule_spec) + "')");
  }
  if (const toml::node* node = reader.string("id", rule.id, Required::yes)) {
    rule.line = line_of(*node);
    if (!is_valid_id(rule.id)) {
      ctx.error(rule.line, "id '" + rule.id + "' must be dotted lower-case segments like 'cuda.stub-libcuda'");
    } else {
      check_id_matches_path(source, rule.id, rule.line, ctx);
    }
  }
  std::string severity;
  if (const toml::node* node = reader.string("severity", severity, Required::yes);
      node && !parse_severity(severity, rule.severity)) {
    ctx.error(line_of(*node), "bad severity '" + severity + "' (use error, warning or info)" +
                                  did_you_mean(severity, {"error", "warning", "info"}));
  }
  // The area decides which overview line a finding marks: one no layer answers for is a typo.
  if (const toml::node* node = reader.string("area", rule.area, Required::yes); node && !layer_of_area(rule.area)) {
    ctx.error(line_of(*node), "area '" + rule.area + "' is no layer's (use one of " + area_list() + ")" +
                                  did_you_mean(rule.area, layer_areas()));
  }
  read_scope_action(reader, rule, ctx);
  check_placeholders("title", rule.title, reader.string("title", rule.title, Required::yes), ctx);
  check_placeholders("message", rule.message, reader.string("message", rule.message, Required::yes), ctx);
  check_placeholders("why", rule.why, reader.string("why", rule.why, Required::yes), ctx);

  // fix may be left out only by info rules: an error or warning must say what to do.
  Required fix_required = rule.severity == Severity::info ? Required::no : Required::yes;
  std::vector<const toml::node*> fix_nodes = reader.strings("fix", rule.fix, fix_required);
  for (std::size_t i = 0; i < fix_nodes.size(); ++i) {
    check_placeholders("fix", rule.fix[i], fix_nodes[i], ctx);
  }
  reader.strings("references", rule.references, Required::yes);
  reader.strings("tags", rule.tags, Required::no);

  std::vector<std::string> superseded_by;
  std::vector<const toml::node*> superseded_nodes = reader.strings("superseded_by", superseded_by, Required::no);
  for (std::size_t i = 0; i < superseded_by.size(); ++i) {
    int line = line_of(*superseded_nodes[i]);
    if (superseded_by[i] == rule.id) {
      ctx.error(line, "a rule cannot be superseded by itself");
    }
    rule.superseded_by.push_back(RuleRef{superseded_by[i], line});
  }

  std::vector<const toml::node*> evidence_nodes = reader.strings("evidence", rule.evidence, Required::no);
  for (std::size_t i = 0; i < rule.evidence.size(); ++i) {
    if (!find_fact_spec(rule.evidence[i])) {
      ctx.error(line_of(*evidence_nodes[i]), "evidence names unknown fact '" + rule.evidence[i] + "'" +
                                                 rules_detail::fact_suggestion(rule.evidence[i]));
    }
  }

  if (const toml::node* node = reader.get("rank", Required::no)) {
    const auto* value = node->as_integer();
    if (!value || value->get() < 1 || value->get() > 100) {
      ctx.error(line_of(*node), "rank must be an integer from 1 (listed first) to 100");
    } else {
      rule.rank = static_cast<int>(value->get());
    }
  }

  if (const toml::node* when = reader.get("when", Required::yes)) {
    if (std::optional<Condition> condition = rules_detail::parse_condition(*when, ctx)) {
      rule.when = std::move(*condition);
    }
  }
  if (const toml::node* confirm = reader.get("confirmed_by", Required::no)) {
    if (std::optional<Condition> condition = rules_detail::parse_condition(*confirm, ctx)) {
      rule.confirmed_by = std::move(*condition);
    }
  }
  if (ctx.failed) {
    return std::nullopt;
  }
  return rule;
}

// Whether following superseded_by from `at` leads back to `start`; `path` gets the chain.
bool find_cycle(const std::map<std::string, const Rule*>& by_id, const std::string& start, const std::string& at,
                std::vector<std::string>& path) {
  auto it = by_id.find(at);
  if (it == by_id.end()) {
    return false;
  }
  for (const RuleRef& ref : it->second->superseded_by) {
    if (ref.id == start) {
      path.push_back(ref.id);
      return true;
    }
    if (std::find(path.begin(), path.end(), ref.id) != path.end()) {
      continue;
    }
    path.push_back(ref.id);
    if (find_cycle(by_id, start, ref.id, path)) {
      return true;
    }
    path.pop_back();
  }
  return false;
}

std::optional<Rule> load_one(const RuleSource& source, std::vector<Error>& errors) {
  LoadContext ctx{source.path, source.text, &errors};
  if (TomlGuardProblem problem = find_unparseable_toml(source.text); problem.line != 0) {
    ctx.error(problem.line, "TOML syntax error: " + problem.message);
    return std::nullopt;
  }
  try {
#if TOML_EXCEPTIONS
    toml::table table = toml::parse(source.text, source.path);
#else
    toml::parse_result parsed = toml::parse(source.text, source.path);
    if (!parsed) {
      ctx.error(static_cast<int>(parsed.error().source().begin.line),
                "TOML syntax error: " + std::string(parsed.error().description()));
      return std::nullopt;
    }
    toml::table table = std::move(parsed).table();
#endif
    return read_rule(source, table, ctx);
#if TOML_EXCEPTIONS
  } catch (const toml::parse_error& error) {
    ctx.error(static_cast<int>(error.source().begin.line), "TOML syntax error: " + std::string(error.description()));
#endif
  } catch (const std::exception& error) {
    ctx.error(0, std::string("cannot read rule: ") + error.what());
  }
  return std::nullopt;
}

}  // namespace

std::string rule_id_for_path(std::string_view relative_path) {
  std::string id(relative_path);
  if (id.ends_with(".toml")) {
    id.resize(id.size() - 5);
  }
  while (id.starts_with("./")) {
    id.erase(0, 2);
  }
  std::replace(id.begin(), id.end(), '/', '.');
  return id;
}

std::optional<Rule> load_rule(const RuleSource& source, std::vector<Error>& errors) {
  // Report this file's problems in line order, whichever check found them first.
  std::size_t first = errors.size();
  std::optional<Rule> rule = load_one(source, errors);
  std::stable_sort(errors.begin() + static_cast<std::ptrdiff_t>(first), errors.end(),
                   [](const Error& a, const Error& b) { return a.line < b.line; });
  return rule;
}

RuleLoadResult load_rules(std::span<const RuleSource> sources) {
  RuleLoadResult result;
  // Parsing the TOML is most of a run's CPU time (every start loads the embedded rules), and
  // the files are independent: parse them on a few threads, then merge in source order.
  std::vector<std::optional<Rule>> parsed(sources.size());
  std::vector<std::vector<Error>> parse_errors(sources.size());
  auto parse_range = [&](std::size_t first, std::size_t step) {
    for (std::size_t i = first; i < sources.size(); i += step) {
      parsed[i] = load_rule(sources[i], parse_errors[i]);
    }
  };
  std::size_t workers = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
  workers = std::min(workers, (sources.size() + 7) / 8);  // a handful of files is not worth a thread
  std::vector<std::thread> threads;
  try {
    for (std::size_t w = 1; w < workers; ++w) {
      threads.emplace_back(parse_range, w, workers);
    }
  } catch (const std::system_error&) {
    // No more threads to be had: this thread takes the shares nobody started below.
  }
  parse_range(0, workers);
  for (std::size_t w = threads.size() + 1; w < workers; ++w) {
    parse_range(w, workers);
  }
  for (auto& thread : threads) {
    thread.join();
  }

  // Ids of every file, loaded or not, so a broken rule does not make others' references fail too.
  std::vector<std::string> known_ids;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    result.errors.insert(result.errors.end(), parse_errors[i].begin(), parse_errors[i].end());
    if (parsed[i]) {
      result.rules.push_back(std::move(*parsed[i]));
    }
    if (!sources[i].relative_path.empty()) {
      known_ids.push_back(rule_id_for_path(sources[i].relative_path));
    }
  }

  std::map<std::string, const Rule*> by_id;
  for (const Rule& rule : result.rules) {
    auto [it, inserted] = by_id.emplace(rule.id, &rule);
    if (!inserted) {
      result.errors.push_back(Error{"duplicate rule id '" + rule.id + "' (first defined in " + it->second->file + ")",
                                    rule.file, rule.line});
    }
    known_ids.push_back(rule.id);
  }
  for (const Rule& rule : result.rules) {
    for (const RuleRef& ref : rule.superseded_by) {
      if (std::find(known_ids.begin(), known_ids.end(), ref.id) == known_ids.end()) {
        result.errors.push_back(Error{"superseded_by names unknown rule '" + ref.id + "'" +
                                          did_you_mean(ref.id, known_ids),
                                      rule.file, ref.line});
      }
    }
    std::vector<std::string> path = {rule.id};
    if (find_cycle(by_id, rule.id, rule.id, path)) {
      std::string chain;
      for (const std::string& id : path) {
        chain += (chain.empty() ? "" : " -> ") + id;
      }
      result.errors.push_back(Error{"superseded_by forms a cycle: " + chain, rule.file, rule.line});
    }
  }
  return result;
}

}  // namespace gd
