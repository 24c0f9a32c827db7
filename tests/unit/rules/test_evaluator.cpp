// Tri-state evaluation, operators, placeholders, supersession and ordering.

#include <catch2/catch.hpp>

#include "rules/evaluator.hpp"
#include "rules/operators.hpp"
#include "rules/placeholders.hpp"
#include "core/fact_key.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

namespace {

using gd::Condition;
using gd::Op;
using gd::Truth;

Condition leaf(std::string fact, Op op, gd::Operand operand) {
  Condition c;
  c.kind = Condition::Kind::leaf;
  c.fact = std::move(fact);
  c.op = op;
  c.operand = std::move(operand);
  return c;
}

Condition branch(Condition::Kind kind, std::vector<Condition> children) {
  Condition c;
  c.kind = kind;
  c.children = std::move(children);
  return c;
}

// cuda.init.result = 0 (present), nvml.init.result unknown, env.cuda_visible_devices absent.
gd::FactSet base_facts() {
  gd::FactSet facts;
  facts.set("cuda.init.result"_fact, std::int64_t{0}, "helper:cuInit");
  facts.set_unknown("nvml.init.result"_fact, "helper timed out", "helper:nvmlInit");
  facts.set_absent("env.cuda_visible_devices"_fact, "env:CUDA_VISIBLE_DEVICES");
  return facts;
}

const Condition k_yes = leaf("cuda.init.result"_fact, Op::equals, std::int64_t{0});
const Condition k_no = leaf("cuda.init.result"_fact, Op::equals, std::int64_t{1});
const Condition k_unknown = leaf("nvml.init.result"_fact, Op::equals, std::int64_t{0});

Condition of(Truth truth) { return truth == Truth::yes ? k_yes : truth == Truth::no ? k_no : k_unknown; }

gd::Rule rule(std::string id, gd::Severity severity, Condition when, std::vector<std::string> superseded_by = {}) {
  gd::Rule r;
  r.id = std::move(id);
  r.severity = severity;
  r.area = "cuda";
  r.title = r.id;
  r.message = "m";
  r.when = std::move(when);
  for (std::string& s : superseded_by) {
    r.superseded_by.push_back(gd::RuleRef{std::move(s), 1});
  }
  return r;
}

std::vector<std::string> ids(const std::vector<gd::Finding>& findings) {
  std::vector<std::string> out;
  for (const gd::Finding& f : findings) {
    out.push_back(f.id);
  }
  return out;
}

}  // namespace

TEST_CASE("all/any/not follow Kleene logic", "[rules][evaluator]") {
  gd::FactSet facts = base_facts();
  const Truth values[] = {Truth::no, Truth::unknown, Truth::yes};
  // Expected results indexed [a][b] in the order no, unknown, yes.
  const Truth all_table[3][3] = {{Truth::no, Truth::no, Truth::no},
                                 {Truth::no, Truth::unknown, Truth::unknown},
                                 {Truth::no, Truth::unknown, Truth::yes}};
  const Truth any_table[3][3] = {{Truth::no, Truth::unknown, Truth::yes},
                                 {Truth::unknown, Truth::unknown, Truth::yes},
                                 {Truth::yes, Truth::yes, Truth::yes}};
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      CAPTURE(gd::to_string(values[a]), gd::to_string(values[b]));
      Condition all = branch(Condition::Kind::all, {of(values[a]), of(values[b])});
      Condition any = branch(Condition::Kind::any, {of(values[a]), of(values[b])});
      CHECK(gd::evaluate_condition(all, facts) == all_table[a][b]);
      CHECK(gd::evaluate_condition(any, facts) == any_table[a][b]);
    }
  }
  CHECK(gd::evaluate_condition(branch(Condition::Kind::negation, {k_yes}), facts) == Truth::no);
  CHECK(gd::evaluate_condition(branch(Condition::Kind::negation, {k_no}), facts) == Truth::yes);
  CHECK(gd::evaluate_condition(branch(Condition::Kind::negation, {k_unknown}), facts) == Truth::unknown);
}

TEST_CASE("absent, unknown and missing facts differ", "[rules][evaluator]") {
  gd::FactSet facts = base_facts();
  SECTION("absent: only present = false holds") {
    CHECK(gd::evaluate_leaf(leaf("env.cuda_visible_devices"_fact, Op::present, false), facts) == Truth::yes);
    CHECK(gd::evaluate_leaf(leaf("env.cuda_visible_devices"_fact, Op::present, true), facts) == Truth::no);
    CHECK(gd::evaluate_leaf(leaf("env.cuda_visible_devices"_fact, Op::equals, std::string("")), facts) == Truth::no);
    CHECK(gd::evaluate_leaf(leaf("env.cuda_visible_devices"_fact, Op::not_equals, std::string("0")), facts) == Truth::no);
  }
  SECTION("unknown: every operator is unknown") {
    CHECK(gd::evaluate_leaf(leaf("nvml.init.result"_fact, Op::present, true), facts) == Truth::unknown);
    CHECK(gd::evaluate_leaf(leaf("nvml.init.result"_fact, Op::present, false), facts) == Truth::unknown);
    CHECK(gd::evaluate_leaf(leaf("nvml.init.result"_fact, Op::not_equals, std::int64_t{0}), facts) == Truth::unknown);
  }
  SECTION("missing (never collected) behaves as unknown") {
    CHECK(gd::evaluate_leaf(leaf("nvml.device_count"_fact, Op::present, false), facts) == Truth::unknown);
    CHECK(gd::evaluate_leaf(leaf("nvml.device_count"_fact, Op::gt, std::int64_t{0}), facts) == Truth::unknown);
  }
  SECTION("present") {
    CHECK(gd::evaluate_leaf(leaf("cuda.init.result"_fact, Op::present, true), facts) == Truth::yes);
    CHECK(gd::evaluate_leaf(leaf("cuda.init.result"_fact, Op::present, false), facts) == Truth::no);
  }
}

TEST_CASE("operators compare values of each type", "[rules][operators]") {
  gd::FactSet facts;
  facts.set("cuda.init.result"_fact, std::int64_t{100});
  facts.set("nvml.driver_version"_fact, std::string("580.159.04"));
  facts.set("cuda.init.name"_fact, std::string("CUDA_ERROR_NO_DEVICE"));
  facts.set("cuda.context.failures"_fact, std::vector<std::string>{"0: context 46 CUDA_ERROR_DEVICE_UNAVAILABLE", "1: alloc 2"});
  facts.set("cuda.libcuda.is_stub"_fact, false);
  auto eval = [&](std::string_view fact, Op op, gd::Operand operand) { return gd::evaluate_leaf(leaf(std::string(fact), op, operand), facts); };

  CHECK(eval("cuda.init.result"_fact, Op::in, std::vector<std::int64_t>{34, 100}) == Truth::yes);
  CHECK(eval("cuda.init.result"_fact, Op::not_in, std::vector<std::int64_t>{34, 100}) == Truth::no);
  CHECK(eval("cuda.init.result"_fact, Op::ge, std::int64_t{100}) == Truth::yes);
  CHECK(eval("cuda.init.result"_fact, Op::gt, std::int64_t{100}) == Truth::no);
  CHECK(eval("cuda.init.result"_fact, Op::le, std::int64_t{100}) == Truth::yes);
  CHECK(eval("cuda.init.result"_fact, Op::lt, std::int64_t{101}) == Truth::yes);
  // Versions compare numerically, segment by segment: 159 > 65.
  CHECK(eval("nvml.driver_version"_fact, Op::gt, std::string("580.65.06")) == Truth::yes);
  CHECK(eval("nvml.driver_version"_fact, Op::lt, std::string("580.65.06")) == Truth::no);
  CHECK(eval("nvml.driver_version"_fact, Op::equals, std::string("580.159.4")) == Truth::yes);
  CHECK(eval("nvml.driver_version"_fact, Op::in, std::vector<std::string>{"570.1", "580.159.04.0"}) == Truth::yes);
  CHECK(eval("nvml.driver_version"_fact, Op::starts_with, std::string("580.")) == Truth::yes);
  CHECK(eval("cuda.init.name"_fact, Op::contains, std::string("NO_DEVICE")) == Truth::yes);
  CHECK(eval("cuda.init.name"_fact, Op::starts_with, std::string("CUDA_SUCCESS")) == Truth::no);
  CHECK(eval("cuda.init.name"_fact, Op::not_in, std::vector<std::string>{"CUDA_SUCCESS"}) == Truth::yes);
  // Lists: contains = has that element; starts_with = some element starts with it.
  CHECK(eval("cuda.context.failures"_fact, Op::contains, std::string("1: alloc 2")) == Truth::yes);
  CHECK(eval("cuda.context.failures"_fact, Op::contains, std::string("alloc")) == Truth::no);
  CHECK(eval("cuda.context.failures"_fact, Op::starts_with, std::string("0: context")) == Truth::yes);
  CHECK(eval("cuda.libcuda.is_stub"_fact, Op::equals, false) == Truth::yes);
  CHECK(eval("cuda.libcuda.is_stub"_fact, Op::not_equals, false) == Truth::no);

  facts.set("kmod.nvidia.version"_fact, std::string("not-a-version"));
  CHECK(eval("kmod.nvidia.version"_fact, Op::ge, std::string("580")) == Truth::unknown);

  CHECK(gd::compare_versions("13.0", "13") == 0);
  CHECK(gd::compare_versions("580.159.04", "580.65.06") == 1);
  CHECK(gd::compare_versions("9.0", "12.8") == -1);
  CHECK(gd::compare_versions("99999999999999999999.1", "99999999999999999999.2") == -1);
  CHECK_FALSE(gd::compare_versions("1..2", "1"));
  CHECK_FALSE(gd::is_version("580.65."));
  CHECK(gd::is_version("580"));
}

TEST_CASE("placeholders are filled from facts", "[rules][placeholders]") {
  gd::FactSet facts = base_facts();
  facts.set("cuda.context.failures"_fact, std::vector<std::string>{"0: context 46", "1: alloc 2"});
  CHECK(gd::fill_placeholders("cuInit returned {cuda.init.result}.", facts) == "cuInit returned 0.");
  CHECK(gd::fill_placeholders("{cuda.context.failures}", facts) == "[0: context 46, 1: alloc 2]");
  CHECK(gd::fill_placeholders("CVD={env.cuda_visible_devices}", facts) == "CVD=absent");
  CHECK(gd::fill_placeholders("{nvml.init.result}", facts) == "unknown (helper timed out)");
  CHECK(gd::fill_placeholders("{nvml.device_count}", facts) == "unknown (not collected)");
  // Shell braces and malformed names are literal.
  const std::string shell = "awk '{print $1}' ${LD_LIBRARY_PATH} {x} {Cuda.init} {cuda..x} {cuda.init.result";
  CHECK(gd::fill_placeholders(shell, facts) == shell);
  auto found = gd::find_placeholders("a {cuda.device.0.name} b {cuda.init.result}");
  REQUIRE(found.size() == 2);
  CHECK(found[0].fact == "cuda.device.0.name");
  CHECK(found[0].offset == 2);
  CHECK(found[1].fact == "cuda.init.result");
}

TEST_CASE("findings carry filled texts and evidence", "[rules][evaluator]") {
  gd::FactSet facts = base_facts();
  facts.set("cuda.helper.stderr"_fact, std::string("boom"), "helper:stderr");
  gd::Rule r = rule("cuda.a", gd::Severity::error,
                    branch(Condition::Kind::all, {k_yes, leaf("env.cuda_visible_devices"_fact, Op::present, false)}));
  r.title = "init {cuda.init.result}";
  r.message = "CVD {env.cuda_visible_devices}, NVML {nvml.init.result}, count {nvml.device_count}";
  r.why = "why {cuda.init.result}";
  r.fix = {"fix {cuda.init.result}", "echo ${HOME}"};
  r.references = {"https://example.com"};
  r.evidence = {"cuda.helper.stderr"_fact, "cuda.helper.stage"_fact};

  gd::Evaluation evaluation = gd::evaluate(std::vector<gd::Rule>{r}, facts);
  REQUIRE(evaluation.findings.size() == 1);
  CHECK(evaluation.inconclusive.empty());
  const gd::Finding& f = evaluation.findings[0];
  CHECK(f.id == "cuda.a");
  CHECK(f.severity == gd::Severity::error);
  CHECK(f.area == "cuda");
  CHECK(f.title == "init 0");
  CHECK(f.message == "CVD absent, NVML unknown (helper timed out), count unknown (not collected)");
  CHECK(f.why == "why 0");
  CHECK(f.fix == std::vector<std::string>{"fix 0", "echo ${HOME}"});
  CHECK(f.references == r.references);
  // Condition facts first, then collected facts named by texts and `evidence`; uncollected ones skipped.
  REQUIRE(f.evidence.size() == 4);
  CHECK(f.evidence[0].fact == "cuda.init.result");
  CHECK(f.evidence[0].value == "0");
  CHECK(f.evidence[0].source == "helper:cuInit");
  CHECK(f.evidence[1].fact == "env.cuda_visible_devices");
  CHECK(f.evidence[1].value == "absent");
  CHECK(f.evidence[1].source == "env:CUDA_VISIBLE_DEVICES");
  CHECK(f.evidence[2].fact == "nvml.init.result");
  CHECK(f.evidence[2].value == "unknown (helper timed out)");
  CHECK(f.evidence[3].fact == "cuda.helper.stderr");
  CHECK(f.evidence[3].value == "boom");
}

TEST_CASE("an undecided rule is inconclusive and lists its unknown facts", "[rules][evaluator]") {
  gd::FactSet facts = base_facts();
  gd::Rule r = rule("cuda.u", gd::Severity::error,
                    branch(Condition::Kind::all, {k_yes, k_unknown, leaf("nvml.device_count"_fact, Op::gt, std::int64_t{0})}));
  gd::Evaluation evaluation = gd::evaluate(std::vector<gd::Rule>{r}, facts);
  CHECK(evaluation.findings.empty());
  REQUIRE(evaluation.inconclusive.size() == 1);
  const gd::Inconclusive& i = evaluation.inconclusive[0];
  CHECK(i.id == "cuda.u");
  REQUIRE(i.unknown_facts.size() == 2);
  CHECK(i.unknown_facts[0].fact == "nvml.init.result");
  CHECK(i.unknown_facts[0].value == "unknown (helper timed out)");
  CHECK(i.unknown_facts[1].fact == "nvml.device_count");
  CHECK(i.unknown_facts[1].value == "unknown (not collected)");

  // A definite false is silent.
  gd::Rule quiet = rule("cuda.q", gd::Severity::error, branch(Condition::Kind::all, {k_no, k_unknown}));
  evaluation = gd::evaluate(std::vector<gd::Rule>{quiet}, facts);
  CHECK(evaluation.findings.empty());
  CHECK(evaluation.inconclusive.empty());
}

TEST_CASE("a fired rule supersedes the rules that name it", "[rules][evaluator]") {
  gd::FactSet facts = base_facts();
  std::vector<gd::Rule> rules = {
      rule("cuda.generic", gd::Severity::error, k_yes, {"cuda.specific", "cuda.other"}),
      rule("cuda.specific", gd::Severity::error, k_yes),
      rule("cuda.other", gd::Severity::error, k_no),
      rule("cuda.undecided", gd::Severity::warning, k_unknown, {"cuda.specific"}),
  };
  gd::Evaluation evaluation = gd::evaluate(rules, facts);
  CHECK(ids(evaluation.findings) == std::vector<std::string>{"cuda.specific"});
  CHECK(evaluation.findings[0].consequences == std::vector<std::string>{"cuda.generic"});
  CHECK(evaluation.inconclusive.empty());

  // When the specific rule does not fire, the generic one stands.
  rules[1].when = k_no;
  evaluation = gd::evaluate(rules, facts);
  CHECK(ids(evaluation.findings) == std::vector<std::string>{"cuda.generic"});
  CHECK(evaluation.findings[0].consequences.empty());
  REQUIRE(evaluation.inconclusive.size() == 1);
  CHECK(evaluation.inconclusive[0].id == "cuda.undecided");

  // Supersession chains: the reported finding explains everything dropped on the way.
  std::vector<gd::Rule> chain = {
      rule("x.a", gd::Severity::error, k_yes, {"x.b"}),
      rule("x.b", gd::Severity::error, k_yes, {"x.c"}),
      rule("x.c", gd::Severity::warning, k_yes),
  };
  gd::Evaluation chained = gd::evaluate(chain, facts);
  CHECK(ids(chained.findings) == std::vector<std::string>{"x.c"});
  CHECK(chained.findings[0].consequences == std::vector<std::string>{"x.b", "x.a"});

  // An undecided superseding rule does not suppress anything.
  rules[1].when = k_unknown;
  evaluation = gd::evaluate(rules, facts);
  CHECK(ids(evaluation.findings) == std::vector<std::string>{"cuda.generic"});
}

TEST_CASE("findings are ordered error, warning, info, then by rule order", "[rules][evaluator]") {
  gd::FactSet facts = base_facts();
  std::vector<gd::Rule> rules = {
      rule("x.info1", gd::Severity::info, k_yes),     rule("x.warning1", gd::Severity::warning, k_yes),
      rule("x.error1", gd::Severity::error, k_yes),   rule("x.info2", gd::Severity::info, k_yes),
      rule("x.error2", gd::Severity::error, k_yes),   rule("x.warning2", gd::Severity::warning, k_yes),
  };
  gd::Evaluation evaluation = gd::evaluate(rules, facts);
  CHECK(ids(evaluation.findings) ==
        std::vector<std::string>{"x.error1", "x.error2", "x.warning1", "x.warning2", "x.info1", "x.info2"});

  // A lower rank goes first within its severity, never ahead of a worse severity.
  rules[4].rank = 10;  // x.error2
  rules[0].rank = 1;   // x.info1
  CHECK(ids(gd::evaluate(rules, facts).findings) ==
        std::vector<std::string>{"x.error2", "x.error1", "x.warning1", "x.warning2", "x.info1", "x.info2"});
}

TEST_CASE("within a severity, a confirmed finding comes before one that CUDA did not confirm", "[rules][evaluator]") {
  // Offline (--root, --no-cuda): the missing node a GPU's driver support explains must not rank
  // above the GPU the version tables show unsupported (issue 23).
  gd::FactSet facts = base_facts();
  std::vector<gd::Rule> rules = {rule("devices.consequence", gd::Severity::error, k_yes),
                                 rule("hardware.root-cause", gd::Severity::error, k_yes)};
  rules[0].rank = 10;
  rules[0].confirmed_by = k_unknown;  // CUDA not run: reported, not confirmed
  gd::Evaluation evaluation = gd::evaluate(rules, facts);
  CHECK(ids(evaluation.findings) == std::vector<std::string>{"hardware.root-cause", "devices.consequence"});
  CHECK_FALSE(evaluation.findings[1].confirmed);
  // Severity still comes first: an unconfirmed error before a confirmed warning.
  rules[1].severity = gd::Severity::warning;
  CHECK(ids(gd::evaluate(rules, facts).findings) == std::vector<std::string>{"devices.consequence", "hardware.root-cause"});
}

}  // namespace GD_UNITY_ID
