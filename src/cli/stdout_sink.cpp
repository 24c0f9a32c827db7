#include "cli/stdout_sink.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>
#include <string>

#include "core/exit_code.hpp"
#include "sys/host.hpp"

namespace gd {
namespace {

int g_error = 0;                  // the first write's errno, 0 while every write worked
const char* g_what = "the output";  // what that write was
bool g_wrote = false;             // something was written through write_stdout

void remember(int code, const char* what) {
  if (g_error != 0) return;
  g_error = code != 0 ? code : EIO;
  g_what = what;
}

}  // namespace

void write_stdout(std::string_view text, const char* what) {
  if (text.empty()) return;
  g_wrote = true;
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) remember(errno, what);
  errno = 0;
  if (std::fflush(stdout) != 0) remember(errno, what);
}

int finish_stdout(int exit_code) {
  std::cout.flush();
  errno = 0;
  if (std::fflush(stdout) != 0) remember(errno, g_what);
  if (std::ferror(stdout) != 0) remember(EIO, g_what);  // a failure whose errno is gone (CLI11's output)
  // Some file systems (NFS) report a failed write only when the file is closed. A stdout that
  // was never written to is left alone: it may be closed on purpose (`--textfile` from cron).
  if (g_wrote && g_error == 0 && ::close(STDOUT_FILENO) != 0 && errno != EINTR) remember(errno, g_what);
  if (g_error == 0) return exit_code;
  std::fprintf(stderr, "gpudoctor: error: writing %s to stdout: %s\n", g_what, IoError{g_error}.describe().c_str());
  return static_cast<int>(ExitCode::usage_error);
}

}  // namespace gd
