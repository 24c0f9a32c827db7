#pragma once
// Secrets of a documented shape (util/secret_scrub: scrub_known_secrets) removed from every
// string of a JSON document, object keys included: a capture embedded in a report, and the
// reports of other nodes that fleet and diff print again (another binary's, or one edited by hand).

#include <nlohmann/json.hpp>

namespace gd {

/// Every string and key of `document` through scrub_known_secrets. Iterative: a document nested
/// deeper than the stack allows is walked all the same.
void scrub_json_secrets(nlohmann::json& document);

}  // namespace gd
