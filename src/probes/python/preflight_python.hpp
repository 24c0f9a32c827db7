#pragma once
// Which Python a pre-flight checks (issue 23): an image unpacked with `docker export` has no
// configuration, so its PATH is unknown, and even a known PATH may reach no ML package while a
// virtualenv under /opt, run by its full path, holds torch. The image is searched where images
// put Python (python_envs: search_image_python), one environment is chosen, and whatever holds ML
// packages and was not checked is said in py.not_checked with the option that checks it.

#include "core/fact_set.hpp"
#include "probes/probe.hpp"
#include "probes/python/python_envs.hpp"

namespace gd {

/// Chooses the environment a pre-flight checks (--python's, else PATH's when it holds an ML
/// package, else the first one found with torch, then with any ML package), puts it first in
/// `found`, and sets py.not_checked.
void preflight_python(Host& host, const ProbeOptions& options, PythonDiscovery& found, FactSet& facts);

}  // namespace gd
