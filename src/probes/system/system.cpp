#include "probes/system/system.hpp"
#include "core/fact_key.hpp"

namespace gd {

void probe_system(Host& host, const ProbeOptions&, FactSet& facts) {
  Uname u = host.uname();
  if (u.machine.empty()) {
    facts.set_unknown("host.arch"_fact, "uname gave no machine", "uname");
  } else {
    facts.set("host.arch"_fact, u.machine, "uname");
  }
  if (u.release.empty()) {
    facts.set_unknown("host.kernel_release"_fact, "uname gave no release", "uname");
  } else {
    facts.set("host.kernel_release"_fact, u.release, "uname");
  }
  facts.set("host.uid"_fact, static_cast<std::int64_t>(host.identity().uid), "geteuid");
  if (u.nodename.empty()) {
    facts.set_absent("host.name"_fact, "uname");
  } else {
    facts.set("host.name"_fact, u.nodename, "uname");
  }
}

}  // namespace gd
