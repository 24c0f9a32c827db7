#include "sys/output_file.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <iterator>

#include "sys/host.hpp"

namespace gd {
namespace {

std::string folder_of(const std::string& path) {
  std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string errno_text(int code) { return IoError{code}.describe(); }

std::unexpected<std::string> failure(const std::string& path, const std::string& what) {
  return std::unexpected(path + ": " + what);
}

/// write(2) until all of `content` is out, or the errno of the first failure.
int write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

/// What a file that is not a regular one is, for the error line.
const char* kind_of(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

// The temporary file a signal must not leave behind. The handler reads only these (a fixed
// buffer and a lock-free flag) and calls only unlink, sigaction and raise: async-signal-safe.
char g_temp_path[PATH_MAX];
std::atomic<int> g_temp_armed{0};
constexpr int k_cleanup_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
struct sigaction g_previous[sizeof k_cleanup_signals / sizeof k_cleanup_signals[0]];
bool g_installed[sizeof k_cleanup_signals / sizeof k_cleanup_signals[0]];

void on_signal(int sig) {
  int saved = errno;
  if (g_temp_armed.load() != 0) ::unlink(g_temp_path);
  g_temp_armed.store(0);
  // The disposition from before the write, then the signal again: it stays blocked until this
  // handler returns, so the default action (or the caller's handler) then runs as it would have.
  for (std::size_t i = 0; i < sizeof k_cleanup_signals / sizeof k_cleanup_signals[0]; ++i) {
    if (k_cleanup_signals[i] == sig) ::sigaction(sig, &g_previous[i], nullptr);
  }
  ::raise(sig);
  errno = saved;
}

/// While it lives, SIGTERM, SIGINT, SIGHUP and SIGQUIT remove the armed temporary file before
/// they act (a signal the caller ignores, as nohup's SIGHUP, stays ignored), and SIGXFSZ is
/// ignored, so that a file size limit fails write(2) with EFBIG, an error that removes the file.
class SignalCleanup {
 public:
  SignalCleanup() {
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    for (int sig : k_cleanup_signals) sigaddset(&action.sa_mask, sig);
    for (std::size_t i = 0; i < std::size(k_cleanup_signals); ++i) {
      struct sigaction current {};
      g_installed[i] = ::sigaction(k_cleanup_signals[i], nullptr, &current) == 0 && current.sa_handler != SIG_IGN &&
                       ::sigaction(k_cleanup_signals[i], &action, &g_previous[i]) == 0;
    }
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    m_xfsz_set = ::sigaction(SIGXFSZ, nullptr, &m_xfsz) == 0 && m_xfsz.sa_handler == SIG_DFL &&
                 ::sigaction(SIGXFSZ, &ignore, nullptr) == 0;
  }
  SignalCleanup(const SignalCleanup&) = delete;
  SignalCleanup& operator=(const SignalCleanup&) = delete;
  ~SignalCleanup() {
    g_temp_armed.store(0);
    for (std::size_t i = 0; i < std::size(k_cleanup_signals); ++i) {
      if (g_installed[i]) ::sigaction(k_cleanup_signals[i], &g_previous[i], nullptr);
    }
    if (m_xfsz_set) ::sigaction(SIGXFSZ, &m_xfsz, nullptr);
  }

  /// Runs `step` with the cleanup signals blocked, so that arming or disarming the temporary
  /// path and the step it goes with (creating, renaming, removing the file) happen together.
  template <typename Step>
  auto blocked(Step step) {
    sigset_t set, previous;
    sigemptyset(&set);
    for (int sig : k_cleanup_signals) sigaddset(&set, sig);
    ::pthread_sigmask(SIG_BLOCK, &set, &previous);
    auto result = step();
    int saved = errno;
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    errno = saved;
    return result;
  }

 private:
  struct sigaction m_xfsz {};
  bool m_xfsz_set = false;
};

/// Six letters or digits for the temporary name, from getrandom (the clock where it fails).
std::string random_suffix() {
  static constexpr char k_letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  unsigned char bytes[6] = {};
  if (::getrandom(bytes, sizeof bytes, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof bytes)) {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    unsigned long mix = static_cast<unsigned long>(ts.tv_nsec) ^ (static_cast<unsigned long>(::getpid()) << 20) ^
                        static_cast<unsigned long>(ts.tv_sec);
    for (unsigned char& b : bytes) {
      b = static_cast<unsigned char>(mix);
      mix = mix * 6364136223846793005UL + 1442695040888963407UL;
      mix ^= mix >> 29;
    }
  }
  std::string out;
  for (unsigned char b : bytes) out += k_letters[b % (sizeof k_letters - 1)];
  return out;
}

}  // namespace

std::expected<void, std::string> check_output_path(const std::string& path) {
  if (path.empty() || base_of(path).empty()) return failure(path, "needs a file name");
  const std::string folder = folder_of(path);
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) {
    int code = errno;
    if (code == ENOENT) return failure(path, "the folder " + folder + " does not exist");
    return failure(path, "the folder " + folder + ": " + errno_text(code));
  }
  if (!S_ISDIR(st.st_mode)) return failure(path, folder + " is not a folder");
  // W_OK also fails with EROFS on a read-only file system, where root could not write either.
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    return failure(path, "cannot write in the folder " + folder + ": " + errno_text(errno));
  }
  // The rename would replace whatever is there: only a regular file may be (as root, a
  // --textfile /dev/null would otherwise replace the system's /dev/null), never followed.
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return failure(path, "is a folder, not a file");
    if (!S_ISREG(st.st_mode)) {
      return failure(path, std::string("not a regular file (") + kind_of(st.st_mode) +
                               "): --textfile replaces only a regular file");
    }
  } else if (errno != ENOENT) {
    return failure(path, errno_text(errno));
  }
  return {};
}

std::expected<void, std::string> write_file_atomically(const std::string& path, std::string_view content,
                                                       unsigned mode) {
  if (auto ok = check_output_path(path); !ok) return ok;
  const std::string folder = folder_of(path);
  SignalCleanup cleanup;
  std::string temp;
  int fd = -1;
  int open_error = 0;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    temp = folder + "/." + base_of(path) + "." + random_suffix();
    if (temp.size() >= sizeof g_temp_path) return failure(path, "the path is too long");
    fd = cleanup.blocked([&] {
      int opened = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (opened >= 0) {
        std::memcpy(g_temp_path, temp.c_str(), temp.size() + 1);
        g_temp_armed.store(1);
      }
      return opened;
    });
    open_error = errno;
    if (fd < 0 && open_error != EEXIST) break;
  }
  if (fd < 0) return failure(path, "cannot create a temporary file in " + folder + ": " + errno_text(open_error));
  auto remove_temp = [&] {
    cleanup.blocked([&] {
      g_temp_armed.store(0);
      return ::unlink(temp.c_str());
    });
  };
  auto abandon = [&](const std::string& what, int code) {
    ::close(fd);
    remove_temp();
    return failure(path, what + ": " + errno_text(code));
  };
  // The umask may have taken bits away; the collector (often another user) must read it.
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0) return abandon("cannot set the mode of " + temp, errno);
  if (int code = write_all(fd, content)) return abandon("cannot write " + temp, code);
  if (::fsync(fd) != 0) return abandon("cannot flush " + temp, errno);
  if (::close(fd) != 0) {
    int code = errno;
    remove_temp();
    return failure(path, "cannot close " + temp + ": " + errno_text(code));
  }
  // Checked again just before: the target may have changed since the check before the run.
  if (auto still = check_output_path(path); !still) {
    remove_temp();
    return still;
  }
  int renamed = cleanup.blocked([&] {
    int r = ::rename(temp.c_str(), path.c_str());
    g_temp_armed.store(0);
    return r;
  });
  if (renamed != 0) {
    int code = errno;
    ::unlink(temp.c_str());
    return failure(path, "cannot rename " + temp + " to it: " + errno_text(code));
  }
  // The rename itself reaches the disk with the folder (best effort: some file systems refuse).
  int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return {};
}

}  // namespace gd
