// --scope node's pass over an evaluation (rules/node_scope): the environment's findings leave and
// are named, and a finding about how CUDA failed with the caller's variables leaves too when the
// helper's run without them worked.

#include <catch2/catch.hpp>

#include "core/fact_key.hpp"

#include "rules/node_scope.hpp"

namespace GD_UNITY_ID {

using namespace gd::fact_literals;  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

gd::Condition leaf(std::string fact) {
  gd::Condition c;
  c.kind = gd::Condition::Kind::leaf;
  c.fact = std::move(fact);
  c.op = gd::Op::equals;
  c.operand = std::int64_t{1};
  return c;
}

gd::Rule rule(std::string id, gd::Scope scope, std::string fact) {
  gd::Rule r;
  r.id = std::move(id);
  r.scope = scope;
  r.when = leaf(std::move(fact));
  return r;
}

gd::Finding finding(const gd::Rule& r) {
  gd::Finding f;
  f.id = r.id;
  f.scope = r.scope;
  return f;
}

gd::Inconclusive inconclusive(std::string id) {
  gd::Inconclusive item;
  item.id = std::move(id);
  return item;
}

std::vector<std::string> ids(const std::vector<gd::Finding>& findings) {
  std::vector<std::string> out;
  for (const gd::Finding& f : findings) out.push_back(f.id);
  return out;
}

// The helper's second run, without the caller's variables, initialised CUDA.
gd::FactSet clean_env_works() {
  gd::FactSet facts;
  facts.set("cuda.clean_env.status"_fact, std::string("ok"));
  facts.set("cuda.clean_env.init.result"_fact, std::int64_t{0});
  return facts;
}

const std::vector<gd::Rule> k_rules = {
    rule("node.uvm-missing", gd::Scope::node, "dev.nvidia_uvm.present"),
    rule("env.torch-cpu-only", gd::Scope::environment, "torch.cuda.available"),
    rule("node.stub-libcuda", gd::Scope::node, "cuda.libcuda.is_stub"),
    rule("env.visible-devices", gd::Scope::environment, "env.cuda_visible_devices"),
};

}  // namespace

TEST_CASE("node scope: the environment's findings leave, named in their order", "[rules][node_scope]") {
  gd::Evaluation evaluation;
  for (const gd::Rule& r : k_rules) evaluation.findings.push_back(finding(r));
  std::vector<std::string> left_out = gd::keep_node_scope(evaluation, k_rules, gd::FactSet{});
  CHECK(ids(evaluation.findings) == std::vector<std::string>{"node.uvm-missing", "node.stub-libcuda"});
  CHECK(left_out == std::vector<std::string>{"env.torch-cpu-only", "env.visible-devices"});
}

TEST_CASE("node scope: an environment rule's inconclusive leaves, an unknown id's stays", "[rules][node_scope]") {
  gd::Evaluation evaluation;
  evaluation.inconclusive = {inconclusive("env.torch-cpu-only"), inconclusive("node.uvm-missing"),
                             inconclusive("no.such-rule")};
  std::vector<std::string> left_out = gd::keep_node_scope(evaluation, k_rules, gd::FactSet{});
  CHECK(left_out.empty());  // only findings are named
  REQUIRE(evaluation.inconclusive.size() == 2);
  CHECK(evaluation.inconclusive[0].id == "node.uvm-missing");
  CHECK(evaluation.inconclusive[1].id == "no.such-rule");
}

TEST_CASE("node scope: a finding on the first run's failure leaves when CUDA works without the caller's variables",
          "[rules][node_scope]") {
  auto run = [](const gd::FactSet& facts) {
    gd::Evaluation evaluation;
    evaluation.findings = {finding(k_rules[0]), finding(k_rules[2])};
    std::vector<std::string> left_out = gd::keep_node_scope(evaluation, k_rules, facts);
    return std::pair{ids(evaluation.findings), left_out};
  };
  auto [kept, left_out] = run(clean_env_works());
  CHECK(kept == std::vector<std::string>{"node.uvm-missing"});
  CHECK(left_out == std::vector<std::string>{"node.stub-libcuda"});

  // Without that proof (no second run, or it failed too) the node's rule stays the node's.
  CHECK(run(gd::FactSet{}).first == std::vector<std::string>{"node.uvm-missing", "node.stub-libcuda"});
  gd::FactSet failed = clean_env_works();
  failed.set("cuda.clean_env.init.result"_fact, std::int64_t{100});
  CHECK(run(failed).first == std::vector<std::string>{"node.uvm-missing", "node.stub-libcuda"});
}

TEST_CASE("node scope: a rule confirmed by the first run's outcome rests on it too", "[rules][node_scope]") {
  std::vector<gd::Rule> rules = {rule("node.driver-mismatch", gd::Scope::node, "driver.userspace.version")};
  rules[0].confirmed_by = leaf("cuda.helper.status");
  gd::Evaluation evaluation;
  evaluation.findings = {finding(rules[0])};
  CHECK(gd::keep_node_scope(evaluation, rules, clean_env_works()) == std::vector<std::string>{"node.driver-mismatch"});
  CHECK(evaluation.findings.empty());
}

}  // namespace GD_UNITY_ID
