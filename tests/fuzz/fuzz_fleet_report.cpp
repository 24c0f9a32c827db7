// Streams of reports given to `gpudoctor fleet`: cut into documents (fleet/report_splitter), fed
// whole and again in small chunks (the pieces must be the same), and each document reduced to its
// digest (fleet/report_digest, through fleet/json_scan) with the curated fact selection, as
// `gpudoctor fleet -` does. The reader's verdict must be nlohmann's strict one (json::accept):
// a document it accepts and nlohmann refuses, or the other way round, aborts the run. And the
// fleet's shortcut for a file (cli/fleet_work: a file of one report is read once, not cut first)
// must give exactly what cutting it gives.
#include <cstdlib>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/fleet_work.hpp"
#include "fleet/fleet_facts.hpp"
#include "fleet/json_scan.hpp"
#include "fleet/report_digest.hpp"
#include "fleet/report_splitter.hpp"
#include "fuzz_target.hpp"

namespace {

struct Piece {
  bool document;
  std::int64_t line;
  std::string text;  // the document, or the problem's reason
  bool operator==(const Piece&) const = default;
};

std::vector<Piece> split(std::string_view text, std::size_t chunk) {
  gd::ReportSplitter splitter(16u << 10);  // small enough that the fuzzer reaches the bound
  std::vector<Piece> pieces;
  auto sink = [&](const gd::StreamPiece& p) {
    bool document = p.kind == gd::StreamPiece::Kind::document;
    pieces.push_back({document, p.line, document ? std::string(p.text) : p.reason});
  };
  for (std::size_t at = 0; at < text.size(); at += chunk) splitter.feed(text.substr(at, chunk), sink);
  splitter.finish(sink);
  return pieces;
}

// A report or problem as the fleet's tally would see it, as one line.
std::string seen(bool report, std::int64_t line, const std::expected<gd::ReportDigest, std::string>* digest,
                 const std::vector<std::optional<std::string>>& values, const std::string& text) {
  std::string out = (report ? "R" : "P") + std::to_string(line) + ":";
  if (digest == nullptr) return out + text;
  if (!*digest) return out + digest->error();
  out += (*digest)->host + "|" + (*digest)->started + "|" + (*digest)->scope + "|";
  for (const gd::DigestFinding& f : (*digest)->findings) out += f.id + "," + f.severity + "," + f.first_fix + ";";
  for (const auto& value : values) out += value ? *value + ";" : "-;";
  return out;
}

// What `gpudoctor fleet` makes of a file with `text`: through do_work (the shortcut when it applies).
std::vector<std::string> fleet_events(std::string_view text, const gd::FleetFactSelection& selection) {
  gd::FleetUnit unit;
  unit.work = gd::FleetUnit::Work::whole_input;
  unit.text = std::string(text);
  gd::do_work(unit, selection);
  std::vector<std::string> out;
  for (const gd::FleetEvent& e : unit.events) {
    if (e.kind == gd::FleetEvent::Kind::report) {
      std::expected<gd::ReportDigest, std::string> digest =
          e.digest ? std::expected<gd::ReportDigest, std::string>(*e.digest) : std::unexpected(e.text);
      out.push_back(seen(true, e.line, &digest, e.values, ""));
    } else if (e.kind == gd::FleetEvent::Kind::problem) {
      out.push_back(seen(false, e.line, nullptr, {}, e.text));
    }
  }
  return out;
}

// The same, cut by the splitter first, always.
std::vector<std::string> split_events(std::string_view text, const gd::FleetFactSelection& selection) {
  gd::ReportSplitter splitter(gd::k_fleet_max_report_bytes);
  std::vector<std::string> out;
  auto sink = [&](const gd::StreamPiece& p) {
    if (p.kind == gd::StreamPiece::Kind::problem) {
      out.push_back(seen(false, p.line, nullptr, {}, p.reason));
      return;
    }
    auto digest = gd::digest_report(p.text, &selection);
    std::vector<std::optional<std::string>> values;
    if (digest) values = selection.node_values(digest->facts);
    out.push_back(seen(true, p.line, &digest, values, ""));
  };
  splitter.feed(text, sink);
  splitter.finish(sink);
  return out;
}

struct Accepting {  // reads every value, keeps nothing: only the verdict
  bool open(bool) { return true; }
  void close() {}
  void key(std::string_view) {}
  void string(std::string_view) {}
  void number(std::string_view, bool) {}
  void boolean(bool) {}
  void null() {}
};

}  // namespace

GD_FUZZ_TEXT({
  static const gd::FleetFactSelection selection = gd::FleetFactSelection::curated();
  std::vector<Piece> whole = split(text, text.size() + 1);
  std::size_t chunk = text.empty() ? 1 : 1 + static_cast<unsigned char>(text[0]) % 13;
  if (split(text, chunk) != whole) std::abort();  // the cut must not depend on how the bytes arrive
  for (const Piece& piece : whole) {
    if (!piece.document) continue;
    auto digest = gd::digest_report(piece.text, &selection);
    if (digest) (void)selection.node_values(digest->facts);
    // nlohmann ends a text at a NUL outside a string (fleet/json_scan.hpp): no oracle there.
    if (piece.text.find('\0') != std::string::npos) continue;
    Accepting accepting;
    gd::JsonScanError error;
    bool accepted = gd::scan_json(piece.text, accepting, error) == gd::JsonScanEnd::complete;
    if (accepted != nlohmann::json::accept(piece.text)) std::abort();
    if (!accepted && error.message.empty()) std::abort();
  }
  if (fleet_events(text, selection) != split_events(text, selection)) std::abort();
  // The reader on the raw bytes too (not cut first): a BOM, text after the document.
  if (text.find('\0') == std::string_view::npos) {
    Accepting accepting;
    gd::JsonScanError error;
    if ((gd::scan_json(text, accepting, error) == gd::JsonScanEnd::complete) != nlohmann::json::accept(text)) {
      std::abort();
    }
  }
})
