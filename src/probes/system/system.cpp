#include "probes/system/system.hpp"

namespace gd {

void probe_system(Host& host, const ProbeOptions&, FactSet& facts) {
  Uname u = host.uname();
  if (u.machine.empty()) {
    facts.set_unknown("host.arch", "uname gave no machine", "uname");
  } else {
    facts.set("host.arch", u.machine, "uname");
  }
  if (u.release.empty()) {
    facts.set_unknown("host.kernel_release", "uname gave no release", "uname");
  } else {
    facts.set("host.kernel_release", u.release, "uname");
  }
  facts.set("host.uid", static_cast<std::int64_t>(host.identity().uid), "geteuid");
  if (u.nodename.empty()) {
    facts.set_absent("host.name", "uname");
  } else {
    facts.set("host.name", u.nodename, "uname");
  }
}

}  // namespace gd
