// PEP 508 requirements, PEP 440 versions and specifiers, markers.
#include "fuzz_target.hpp"
#include "util/packaging/requirement.hpp"

GD_FUZZ_TEXT({
  if (auto requirement = gd::parse_requirement(text)) {
    (void)gd::specifiers_allow(requirement->specifiers, "2.11.0+cu130");
    gd::MarkerEnv env;
    env.sys_platform = "linux";
    env.platform_machine = "x86_64";
    env.python_version = "3.12";
    if (requirement->marker) (void)gd::marker_applies(*requirement->marker, env);
  }
  if (auto version = gd::parse_python_version(text)) (void)version->text();
  if (auto specifiers = gd::parse_specifiers(text)) (void)gd::specifiers_allow(*specifiers, "13.0.2");
})
