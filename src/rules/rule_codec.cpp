#include "rules/rule_codec.hpp"

#include <cstdint>
#include <optional>

namespace gd {
namespace {

// gdrules2: scope and action after the area, confirmed_by after the condition.
constexpr std::string_view k_magic = "gdrules2";
constexpr int k_max_depth = 64;

class Writer {
 public:
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) m_out += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  void i64(std::int64_t value) {
    auto v = static_cast<std::uint64_t>(value);
    for (int i = 0; i < 8; ++i) m_out += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  void str(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    m_out += s;
  }
  void strs(const std::vector<std::string>& list) {
    u32(static_cast<std::uint32_t>(list.size()));
    for (const std::string& s : list) str(s);
  }
  void condition(const Condition& c) {
    u32(static_cast<std::uint32_t>(c.kind));
    u32(static_cast<std::uint32_t>(c.line));
    u32(static_cast<std::uint32_t>(c.children.size()));
    for (const Condition& child : c.children) condition(child);
    str(c.fact);
    u32(static_cast<std::uint32_t>(c.op));
    u32(static_cast<std::uint32_t>(c.operand.index()));
    std::visit(
        [this](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, bool>) {
            u32(value ? 1 : 0);
          } else if constexpr (std::is_same_v<T, std::int64_t>) {
            i64(value);
          } else if constexpr (std::is_same_v<T, std::string>) {
            str(value);
          } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
            u32(static_cast<std::uint32_t>(value.size()));
            for (std::int64_t v : value) i64(v);
          } else {
            strs(value);
          }
        },
        c.operand);
  }
  std::string take() { return std::move(m_out); }

 private:
  std::string m_out;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : m_in(in) {}

  bool failed() const { return m_failed; }
  bool at_end() const { return m_pos == m_in.size(); }

  std::uint32_t u32() {
    if (!need(4)) return 0;
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(m_in[m_pos + i])) << (8 * i);
    m_pos += 4;
    return v;
  }
  std::int64_t i64() {
    if (!need(8)) return 0;
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(m_in[m_pos + i])) << (8 * i);
    m_pos += 8;
    return static_cast<std::int64_t>(v);
  }
  std::string str() {
    std::uint32_t size = u32();
    if (!need(size)) return {};
    std::string s(m_in.substr(m_pos, size));
    m_pos += size;
    return s;
  }
  /// A count of items that each take at least `min_bytes`: bounded by what is left.
  std::uint32_t count(std::size_t min_bytes) {
    std::uint32_t n = u32();
    if (!m_failed && n > (m_in.size() - m_pos) / min_bytes) m_failed = true;
    return m_failed ? 0 : n;
  }
  std::vector<std::string> strs() {
    std::vector<std::string> out(count(4));
    for (std::string& s : out) s = str();
    return out;
  }
  void fail() { m_failed = true; }

 private:
  bool need(std::size_t n) {
    if (m_failed || n > m_in.size() - m_pos) {
      m_failed = true;
      return false;
    }
    return true;
  }

  std::string_view m_in;
  std::size_t m_pos = 0;
  bool m_failed = false;
};

bool read_condition(Reader& in, Condition& c, int depth) {
  if (depth > k_max_depth) return false;
  std::uint32_t kind = in.u32();
  if (kind > static_cast<std::uint32_t>(Condition::Kind::leaf)) return false;
  c.kind = static_cast<Condition::Kind>(kind);
  c.line = static_cast<int>(in.u32());
  c.children.resize(in.count(28));  // a child is at least seven u32s
  for (Condition& child : c.children) {
    if (!read_condition(in, child, depth + 1)) return false;
  }
  c.fact = in.str();
  std::uint32_t op = in.u32();
  if (op > static_cast<std::uint32_t>(Op::present)) return false;
  c.op = static_cast<Op>(op);
  switch (in.u32()) {
    case 0: c.operand = in.u32() != 0; break;
    case 1: c.operand = in.i64(); break;
    case 2: c.operand = in.str(); break;
    case 3: {
      std::vector<std::int64_t> values(in.count(8));
      for (std::int64_t& v : values) v = in.i64();
      c.operand = std::move(values);
      break;
    }
    case 4: c.operand = in.strs(); break;
    default: return false;
  }
  return !in.failed();
}

}  // namespace

std::string encode_rules(std::span<const Rule> rules) {
  Writer out;
  out.u32(static_cast<std::uint32_t>(k_magic.size()));
  for (char c : k_magic) out.u32(static_cast<unsigned char>(c));
  out.u32(static_cast<std::uint32_t>(rules.size()));
  for (const Rule& rule : rules) {
    out.str(rule.id);
    out.u32(static_cast<std::uint32_t>(rule.severity));
    out.str(rule.area);
    out.u32(static_cast<std::uint32_t>(rule.scope));
    out.u32(static_cast<std::uint32_t>(rule.action));
    out.str(rule.title);
    out.str(rule.message);
    out.str(rule.why);
    out.strs(rule.fix);
    out.strs(rule.references);
    out.strs(rule.tags);
    out.u32(static_cast<std::uint32_t>(rule.superseded_by.size()));
    for (const RuleRef& ref : rule.superseded_by) {
      out.str(ref.id);
      out.u32(static_cast<std::uint32_t>(ref.line));
    }
    out.strs(rule.evidence);
    out.condition(rule.when);
    out.u32(rule.confirmed_by ? 1 : 0);
    if (rule.confirmed_by) out.condition(*rule.confirmed_by);
    out.u32(static_cast<std::uint32_t>(rule.rank));
    out.str(rule.file);
    out.u32(static_cast<std::uint32_t>(rule.line));
  }
  return out.take();
}

Result<std::vector<Rule>> decode_rules(std::string_view bytes) {
  Reader in(bytes);
  std::uint32_t magic_size = in.u32();
  bool magic_ok = magic_size == k_magic.size();
  for (std::uint32_t i = 0; magic_ok && i < magic_size; ++i) magic_ok = in.u32() == static_cast<unsigned char>(k_magic[i]);
  if (!magic_ok || in.failed()) return fail("compiled rules: not a gpudoctor rule blob (" + std::string(k_magic) + ")");
  std::vector<Rule> rules(in.count(64));
  for (Rule& rule : rules) {
    rule.id = in.str();
    std::uint32_t severity = in.u32();
    if (severity > static_cast<std::uint32_t>(Severity::error)) in.fail();
    rule.severity = static_cast<Severity>(severity);
    rule.area = in.str();
    std::uint32_t scope = in.u32();
    std::uint32_t action = in.u32();
    if (scope > static_cast<std::uint32_t>(Scope::environment) || action >= action_names().size()) in.fail();
    rule.scope = static_cast<Scope>(scope);
    rule.action = static_cast<Action>(action);
    rule.title = in.str();
    rule.message = in.str();
    rule.why = in.str();
    rule.fix = in.strs();
    rule.references = in.strs();
    rule.tags = in.strs();
    rule.superseded_by.resize(in.count(8));
    for (RuleRef& ref : rule.superseded_by) {
      ref.id = in.str();
      ref.line = static_cast<int>(in.u32());
    }
    rule.evidence = in.strs();
    if (!read_condition(in, rule.when, 0)) in.fail();
    std::uint32_t has_confirm = in.u32();
    if (has_confirm > 1) in.fail();
    if (has_confirm == 1) {
      rule.confirmed_by.emplace();
      if (!read_condition(in, *rule.confirmed_by, 0)) in.fail();
    }
    rule.rank = static_cast<int>(in.u32());
    rule.file = in.str();
    rule.line = static_cast<int>(in.u32());
    if (in.failed()) return fail("compiled rules: cut short or damaged at rule '" + rule.id + "'");
  }
  if (in.failed() || !in.at_end()) return fail("compiled rules: cut short, or bytes after the last rule");
  return rules;
}

}  // namespace gd
