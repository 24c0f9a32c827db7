#include "rules/condition_parser.hpp"

#include <array>

#include "core/fact_catalog.hpp"
#include "rules/operators.hpp"

namespace gd::rules_detail {
namespace {

constexpr std::array<std::string_view, 3> k_branch_keys = {"all", "any", "not"};

std::vector<std::string_view> leaf_keys() {
  std::vector<std::string_view> keys = {"fact", "all", "any", "not"};
  for (const OpSpec& spec : operator_table()) {
    keys.push_back(spec.name);
  }
  return keys;
}

// Spellings from other rule languages, with the operator meant.
constexpr std::array<std::pair<std::string_view, std::string_view>, 9> k_operator_aliases = {{
    {"eq", "equals"},
    {"ne", "not_equals"},
    {"neq", "not_equals"},
    {"gte", "ge"},
    {"lte", "le"},
    {"exists", "present"},
    {"prefix", "starts_with"},
    {"startswith", "starts_with"},
    {"has", "contains"},
}};

std::string unknown_key_hint(std::string_view name) {
  for (const auto& [alias, op] : k_operator_aliases) {
    if (alias == name) {
      return " (did you mean '" + std::string(op) + "'?)";
    }
  }
  return did_you_mean(name, leaf_keys());
}

std::string operator_list() {
  std::string out;
  for (const OpSpec& spec : operator_table()) {
    out += (out.empty() ? "" : ", ") + std::string(spec.name);
  }
  return out;
}

// TOML value -> Operand. Arrays must be all integers or all strings; an empty array takes the
// element type the fact needs.
std::optional<Operand> read_operand(const toml::node& node, FactType fact_type, LoadContext& ctx) {
  if (auto* b = node.as_boolean()) {
    return Operand(b->get());
  }
  if (auto* i = node.as_integer()) {
    return Operand(static_cast<std::int64_t>(i->get()));
  }
  if (auto* s = node.as_string()) {
    return Operand(s->get());
  }
  if (auto* array = node.as_array()) {
    if (array->empty()) {
      return fact_type == FactType::integer ? Operand(std::vector<std::int64_t>{})
                                            : Operand(std::vector<std::string>{});
    }
    if (array->is_homogeneous(toml::node_type::integer)) {
      std::vector<std::int64_t> out;
      for (const toml::node& element : *array) {
        out.push_back(element.as_integer()->get());
      }
      return Operand(std::move(out));
    }
    if (array->is_homogeneous(toml::node_type::string)) {
      std::vector<std::string> out;
      for (const toml::node& element : *array) {
        out.push_back(element.as_string()->get());
      }
      return Operand(std::move(out));
    }
    ctx.error(line_of(node), "an array operand must hold only integers or only strings");
    return std::nullopt;
  }
  ctx.error(line_of(node),
            "an operand must be a boolean, integer, string or array, not a " + std::string(type_name(node)));
  return std::nullopt;
}

std::optional<Condition> parse_leaf(const toml::table& table, int line, LoadContext& ctx) {
  Condition leaf;
  leaf.kind = Condition::Kind::leaf;
  leaf.line = line;
  const toml::node* fact_node = nullptr;
  const toml::node* operand_node = nullptr;
  std::string op_name;
  bool ok = true;
  for (auto&& [key, value] : table) {
    std::string_view name = key.str();
    if (name == "fact") {
      fact_node = &value;
      continue;
    }
    std::optional<Op> op = find_op(name);
    if (!op) {
      ctx.error(line_of(key), "unknown key '" + std::string(name) + "' in a condition" + unknown_key_hint(name) +
                                  "; operators are " + operator_list());
      ok = false;
    } else if (operand_node) {
      ctx.error(line_of(key), "a condition has one operator; this one has '" + op_name + "' and '" +
                                  std::string(name) + "' (combine tests with all = [...])");
      ok = false;
    } else {
      leaf.op = *op;
      op_name = std::string(name);
      operand_node = &value;
    }
  }
  if (!fact_node) {
    ctx.error(line, "a condition needs one of 'all', 'any', 'not' or 'fact'");
    return std::nullopt;
  }
  auto* fact_name = fact_node->as_string();
  if (!fact_name) {
    ctx.error(line_of(*fact_node), "'fact' must be a string, not a " + std::string(type_name(*fact_node)));
    return std::nullopt;
  }
  leaf.fact = fact_name->get();
  std::optional<FactSpec> spec = find_fact_spec(leaf.fact);
  if (!spec) {
    ctx.error(line_of(*fact_node), "unknown fact '" + leaf.fact + "'" + fact_suggestion(leaf.fact));
    ok = false;
  }
  if (!operand_node) {
    if (ok) {
      ctx.error(line, "the condition on '" + leaf.fact + "' needs an operator: one of " + operator_list());
    }
    return std::nullopt;
  }
  if (!ok) {
    return std::nullopt;
  }
  std::optional<Operand> operand = read_operand(*operand_node, spec->type, ctx);
  if (!operand) {
    return std::nullopt;
  }
  if (std::string problem = check_operand(leaf.op, spec->type, *operand); !problem.empty()) {
    ctx.error(line_of(*operand_node), "fact '" + leaf.fact + "': " + problem + ", got " + operand_text(*operand));
    return std::nullopt;
  }
  leaf.operand = std::move(*operand);
  return leaf;
}

std::optional<Condition> parse_branch(std::string_view key, const toml::node& value, int line, LoadContext& ctx) {
  Condition branch;
  branch.line = line;
  if (key == "not") {
    branch.kind = Condition::Kind::negation;
    if (!value.is_table()) {
      ctx.error(line_of(value), "'not' takes one condition table ({ fact = ..., equals = ... }), not a " +
                                    std::string(type_name(value)));
      return std::nullopt;
    }
    std::optional<Condition> child = parse_condition(value, ctx);
    if (!child) {
      return std::nullopt;
    }
    branch.children.push_back(std::move(*child));
    return branch;
  }
  branch.kind = key == "all" ? Condition::Kind::all : Condition::Kind::any;
  auto* array = value.as_array();
  if (!array) {
    ctx.error(line_of(value), "'" + std::string(key) + "' takes an array of conditions, not a " +
                                  std::string(type_name(value)));
    return std::nullopt;
  }
  if (array->empty()) {
    ctx.error(line_of(value), "'" + std::string(key) + "' needs at least one condition");
    return std::nullopt;
  }
  bool ok = true;
  for (const toml::node& element : *array) {
    std::optional<Condition> child = parse_condition(element, ctx);
    if (child) {
      branch.children.push_back(std::move(*child));
    } else {
      ok = false;
    }
  }
  if (!ok) {
    return std::nullopt;
  }
  return branch;
}

}  // namespace

std::string fact_suggestion(std::string_view name) {
  if (name.find('*') != std::string_view::npos) {
    return "; '*' patterns cannot be tested, name one device (e.g. 0 for *)";
  }
  std::string_view close = closest_fact_name(name);
  return close.empty() ? std::string() : " (did you mean '" + std::string(close) + "'?)";
}

std::optional<Condition> parse_condition(const toml::node& node, LoadContext& ctx) {
  int line = line_of(node);
  const toml::table* table = node.as_table();
  if (!table) {
    ctx.error(line, "a condition must be a table ({ fact = \"...\", equals = ... } or { all = [...] }), not a " +
                        std::string(type_name(node)));
    return std::nullopt;
  }
  std::vector<std::string_view> branches;
  for (auto&& [key, value] : *table) {
    for (std::string_view branch : k_branch_keys) {
      if (key.str() == branch) {
        branches.push_back(branch);
      }
    }
  }
  if (branches.empty()) {
    return parse_leaf(*table, line, ctx);
  }
  if (table->size() != 1) {
    std::string keys;
    for (auto&& [key, value] : *table) {
      keys += (keys.empty() ? "'" : ", '") + std::string(key.str()) + "'";
    }
    ctx.error(line, "a condition holds exactly one of 'all', 'any', 'not' or a fact test; this one has " + keys +
                        " (nest them inside all = [...])");
    return std::nullopt;
  }
  const toml::node* value = table->get(branches.front());
  return parse_branch(branches.front(), *value, line, ctx);
}

}  // namespace gd::rules_detail
