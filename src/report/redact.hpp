#pragma once
// --redact: reports meant for public bug trackers. Removes what identifies the machine or its
// people while keeping what diagnoses it: the host name, GPU and MIG UUIDs, serial numbers (the
// kernel log prints them with an Xid, and for every USB device), user names in home folder paths,
// and the names of processes other than NVIDIA's daemons (captures list them), people's account
// names and real names in /etc/passwd and /etc/group. Binary files kept in a capture are redacted
// too, keeping their length so that they still replay.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/fact_set.hpp"

namespace gd {

struct Redactor {
  std::vector<std::string> host_names;     ///< replaced by "<host>" wherever they appear
  std::vector<std::string> account_names;  ///< people's accounts (/etc/passwd): their groups become "<user>"
  std::vector<std::string> other_homes;    ///< their home folders outside /home: the last part becomes "<user>"

  /// From the facts of a run: its host name (host.name).
  static Redactor for_facts(const FactSet& facts);
  /// Adds the people's accounts of a capture's /etc/passwd (report/redact_accounts).
  void add_accounts(const nlohmann::json& capture);

  /// `text` with every identifying piece replaced by a placeholder: <host>, GPU-<uuid>, <serial>,
  /// /home/<user>.
  std::string text(std::string_view text) const;
  /// Binary `bytes` with every identifying piece overwritten by as many 'x': same length, same offsets.
  std::string bytes(std::string_view bytes) const;
  /// Every string of `json`, object keys included (capture paths), redacted in place; "base64"
  /// values (binary files in a capture) decoded, redacted as bytes and encoded again; the
  /// contents of /proc/<pid>/comm captures other than NVIDIA's daemons are dropped; /etc/passwd
  /// and /etc/group lose people's names, real names and member lists (report/redact_accounts).
  void json(nlohmann::json& json) const;
};

}  // namespace gd
