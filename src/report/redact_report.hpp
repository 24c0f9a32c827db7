#pragma once
// --redact for renderers that escape what they print (Markdown): the report model itself is
// redacted before rendering, so that a placeholder such as <host> is escaped like any other
// text instead of being read as an HTML tag, and the size limit is measured on what is printed.

#include "report/redact.hpp"
#include "report/report.hpp"

namespace gd {

/// A copy of `report` with every string (run, overview, findings, checks that could not decide,
/// facts' values, reasons and sources, the capture) passed through `redactor`, and run.host
/// "<host>" whenever it is set (a name too short or common to be replaced wherever it appears).
Report redact_report(const Report& report, const Redactor& redactor);

}  // namespace gd
