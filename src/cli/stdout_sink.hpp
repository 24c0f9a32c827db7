#pragma once
// Everything gpudoctor prints on stdout goes through here, so that a failed write (a full disk
// behind `> report.txt`, /dev/full, a closed stdout) is an error (exit 2 with one line on
// stderr), never a silent exit 0 with a cut or empty report.

#include <string_view>

namespace gd {

/// Writes `text` on stdout and flushes it; the first failure's errno is kept for finish_stdout.
/// `what` names the text in the error line ("the report", "the rule list").
void write_stdout(std::string_view text, const char* what = "the report");

/// At the end of main: flushes stdout (also what CLI11 printed there for --help and --version)
/// and closes it. When a write failed, prints "gpudoctor: error: writing WHAT to stdout: ERRNO"
/// and returns 2; otherwise returns `exit_code`.
int finish_stdout(int exit_code);

}  // namespace gd
