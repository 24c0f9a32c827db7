// --redact (report/redact): any text, and any binary file a capture keeps. Binary redaction must
// keep the length, or the capture would no longer replay (ld.so.cache offsets): checked here.
#include <cstdlib>

#include "fuzz_target.hpp"
#include "report/redact.hpp"

GD_FUZZ_TEXT({
  gd::Redactor redactor;
  redactor.host_names.push_back("dgx01");
  redactor.host_names.push_back("gpu-node-17");
  (void)redactor.text(text);
  if (redactor.bytes(text).size() != text.size()) std::abort();
})
