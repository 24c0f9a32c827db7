#pragma once
// --redact for the account files a capture holds (/etc/passwd, /etc/group). What the probes need
// of them stays: uid and gid numbers, the shape of home folders, shells, the names of system
// accounts and groups (video, render: a refused device node names its group). What names people
// goes: the names of their accounts and groups, every real name (GECOS), every member list, and
// any password hash left in the files.

#include <string>
#include <string_view>
#include <vector>

namespace gd {

/// People's accounts in an /etc/passwd text: those with a uid from 1000 to 59999 (useradd's
/// UID_MIN and UID_MAX; system accounts and nobody lie outside), or none that parses.
struct PeopleAccounts {
  std::vector<std::string> names;
  /// Their home folders that end in the account's name, outside /home and /Users (which the
  /// redactor covers already): "/data/users/bob".
  std::vector<std::string> other_homes;
};

PeopleAccounts people_accounts(std::string_view passwd);

/// /etc/passwd text with people's names as "<user>" (in their home folders too), every GECOS
/// field empty and any password other than x, *, ! or !! as x. A line that is not seven fields
/// becomes "<redacted>" (it could hold anything; no probe reads it).
std::string redact_passwd(std::string_view passwd);

/// /etc/group text with every member list empty, the names of people's groups (a name in
/// `people`, or a gid from 1000 to 59999) as "<user>" or "<group>", and any password other than
/// x, *, ! or !! as x. A line that is not four fields becomes "<redacted>".
std::string redact_group(std::string_view group, const std::vector<std::string>& people);

}  // namespace gd
