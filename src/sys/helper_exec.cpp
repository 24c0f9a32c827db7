#include "sys/helper_exec.hpp"

#include "sys/glibc_loader.hpp"
#include "sys/helper_group_guard.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <optional>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace gd {
namespace {

constexpr std::size_t k_reply_limit = 1024 * 1024;  // 64 GPUs with every proof line: ~200 KiB
constexpr std::size_t k_stream_limit = 64 * 1024;
constexpr int k_child_reply_fd = 3;                   // the helper is told `--reply-fd 3`
constexpr int k_child_image_fd = 4;                   // the memfd, run as /proc/self/fd/4
constexpr int k_child_error_fd = 5;                   // CLOEXEC: EOF means execve worked
constexpr int k_high_fd = 10;  // parent fds live here: the child's dup2 never clobbers one
constexpr unsigned k_mfd_exec = 0x10;  // MFD_EXEC (Linux 6.3); older headers lack it
constexpr long k_sys_close_range = 436;  // same number on x86_64 and aarch64
constexpr std::int64_t k_poll_slice_ms = 10;      // how often a running child is checked
constexpr std::int64_t k_drain_after_exit_ms = 200;  // grandchildren may hold the pipes
constexpr std::int64_t k_reap_grace_ms = 2000;    // after SIGKILL; then the child is abandoned

/// Removed by HelperRequest::clean_env: each can point libcuda somewhere else.
constexpr std::array<std::string_view, 3> k_clean_env_drop = {
    "LD_LIBRARY_PATH",       // a toolkit stubs/ or compat/ libcuda found first
    "LD_PRELOAD",            // interposers (profilers, fake GPUs)
    "CUDA_VISIBLE_DEVICES",  // "" or a bad index/UUID hides every GPU (cuInit 100)
};

std::int64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

/// Closes on scope exit (the parent's copies of pipes, the memfd).
class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : m_fd(fd) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }
  int get() const { return m_fd; }
  void reset(int fd = -1) {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
    m_fd = fd;
  }

 private:
  int m_fd;
};

/// Moves a CLOEXEC descriptor to k_high_fd or above (closing the original); -1 on failure.
int move_high(int fd) {
  if (fd < 0) {
    return -1;
  }
  int high = ::fcntl(fd, F_DUPFD_CLOEXEC, k_high_fd);
  int code = errno;
  ::close(fd);
  errno = code;
  return high;
}

// The errno of the last setup step that failed on this thread, for fd_limit_hint.
thread_local int t_setup_errno = 0;

std::string errno_text(std::string_view what, int error) {
  t_setup_errno = error;
  return std::string(what) + ": " + std::strerror(error);
}

/// What to do when a setup step failed for want of descriptors: EMFILE, or EINVAL from
/// F_DUPFD when RLIMIT_NOFILE is at or below k_high_fd (where our descriptors go); "" otherwise.
std::string fd_limit_hint(int error) {
  if (error == ENFILE) return "; the system's table of open files is full (sysctl fs.file-max)";
  if (error != EMFILE && error != EINVAL) return "";
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return "";
  // The helper's descriptors: the memfd, four pipes, /dev/null, all from k_high_fd up.
  constexpr rlim_t k_needed = k_high_fd + 10;
  if (error == EINVAL && limit.rlim_cur >= k_needed) return "";
  return "; fd limit " + std::to_string(static_cast<unsigned long long>(limit.rlim_cur)) +
         " too low for the helper: raise ulimit -n";
}

/// A memfd holding the helper image. MFD_EXEC first (kernels with vm.memfd_noexec); EINVAL
/// (kernel before 6.3) or EACCES (noexec enforced) retry without it: the loader only mmaps
/// the file, which a noexec memfd still allows.
int make_image_fd(std::span<const unsigned char> elf, std::string& error) {
  int fd = ::memfd_create("gpudoctor-cuda-helper", MFD_CLOEXEC | k_mfd_exec);
  if (fd < 0 && (errno == EINVAL || errno == EACCES)) {
    fd = ::memfd_create("gpudoctor-cuda-helper", MFD_CLOEXEC);
  }
  if (fd < 0) {
    error = errno_text("memfd_create", errno);
    return -1;
  }
  int high = move_high(fd);  // the memfd itself may come out of the last free descriptors
  if (high < 0) {
    error = errno_text("moving the helper's memfd to a high descriptor", errno);
    return -1;
  }
  fd = high;
  std::size_t done = 0;
  while (done < elf.size()) {
    ssize_t n = ::write(fd, elf.data() + done, elf.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      error = errno_text("writing the helper to its memfd", n < 0 ? errno : EIO);
      ::close(fd);
      return -1;
    }
    done += static_cast<std::size_t>(n);
  }
  return fd;
}

/// Everything the child needs, prepared before fork: after it only async-signal-safe calls.
struct ChildPlan {
  std::vector<std::string> args;
  std::vector<std::string> env;
  std::vector<char*> argv;
  std::vector<char*> envp;
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1, reply_fd = -1, image_fd = -1, error_fd = -1;
  pid_t parent = 0;
  int max_fd = 1024;  ///< close() loop bound where close_range is missing
};

/// What a child reports on the error pipe before it gives up: which step, which errno.
struct ChildFailure {
  int step;  ///< 0 execve, 1 fd setup
  int error;
};

[[noreturn]] void child_fail(int fd, int step) {
  ChildFailure failure{step, errno};
  [[maybe_unused]] ssize_t n = ::write(fd, &failure, sizeof failure);
  ::_exit(127);
}

[[noreturn]] void run_child(const ChildPlan& plan) {
  ::setpgid(0, 0);  // its own group: a timeout kills libcuda's children too
  // Killed if gpudoctor dies. Linux ties this to the forking *thread*: callers run the helper
  // from a thread that outlives it (RealHost does so from the calling thread, synchronously).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != plan.parent) {
    ::_exit(127);  // the parent died before PDEATHSIG was armed
  }
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int sig = 1; sig < 65; ++sig) {  // our handlers must not run in the child
    ::sigaction(sig, &default_action, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);

  const std::array<std::pair<int, int>, 6> moves = {{{plan.stdin_fd, 0},
                                                     {plan.stdout_fd, 1},
                                                     {plan.stderr_fd, 2},
                                                     {plan.reply_fd, k_child_reply_fd},
                                                     {plan.image_fd, k_child_image_fd},
                                                     {plan.error_fd, k_child_error_fd}}};
  for (const auto& [from, to] : moves) {
    if (::dup2(from, to) < 0) {  // the sources are all >= k_high_fd, so none is overwritten
      child_fail(plan.error_fd, 1);
    }
  }
  ::fcntl(k_child_error_fd, F_SETFD, FD_CLOEXEC);
  if (::syscall(k_sys_close_range, k_child_error_fd + 1, ~0U, 0) != 0) {
    for (int fd = k_child_error_fd + 1; fd < plan.max_fd; ++fd) {
      ::close(fd);
    }
  }
  ::execve(plan.argv[0], plan.argv.data(), plan.envp.data());
  child_fail(k_child_error_fd, 0);
}

void build_plan(ChildPlan& plan, const std::string& loader, const HelperRequest& request) {
  plan.args = {loader, "/proc/self/fd/" + std::to_string(k_child_image_fd), "--reply-fd",
               std::to_string(k_child_reply_fd)};
  if (!request.libcuda_path.empty()) {
    plan.args.insert(plan.args.end(), {"--libcuda", request.libcuda_path});
  }
  if (!request.libnvml_path.empty()) {
    plan.args.insert(plan.args.end(), {"--libnvml", request.libnvml_path});
  }
  if (request.nvml_only) {
    plan.args.insert(plan.args.end(), {"--only", "nvml"});
  }
  if (request.check_inforom) {
    plan.args.insert(plan.args.end(), {"--inforom", "validate"});
  }
  if (request.p2p_bandwidth) {
    plan.args.insert(plan.args.end(), {"--p2p-bandwidth", "on"});
  }
  // The helper reports GPUs still unproven at its own deadline and completes its reply before
  // ours kills it: a stuck GPU then hides none of the others.
  plan.args.insert(plan.args.end(), {"--deadline-ms", std::to_string(helper_deadline_ms(request.timeout_ms))});
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    std::string_view name = text.substr(0, text.find('='));
    bool dropped = request.clean_env && std::find(k_clean_env_drop.begin(), k_clean_env_drop.end(),
                                                  name) != k_clean_env_drop.end();
    if (!dropped) {
      plan.env.emplace_back(text);
    }
  }
  for (std::string& arg : plan.args) {
    plan.argv.push_back(arg.data());
  }
  plan.argv.push_back(nullptr);
  for (std::string& var : plan.env) {
    plan.envp.push_back(var.data());
  }
  plan.envp.push_back(nullptr);
  plan.parent = ::getpid();
  long open_max = ::sysconf(_SC_OPEN_MAX);
  plan.max_fd = static_cast<int>(std::clamp(open_max, 1024L, 65536L));
}

/// One pipe from the child; bytes beyond `limit` are read and dropped.
struct Stream {
  int fd;
  std::string* sink;
  std::size_t limit;
  bool* cut;
};

/// Reads what is there now; false once the stream reached EOF or failed.
bool drain(Stream& stream) {
  std::array<char, 16384> buffer;  // small: this may run on a thread with a musl-sized stack
  for (;;) {
    ssize_t n = ::read(stream.fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0 && errno == EAGAIN) {
      return true;
    }
    if (n <= 0) {
      return false;
    }
    std::size_t room = stream.limit - std::min(stream.limit, stream.sink->size());
    std::size_t keep = std::min(room, static_cast<std::size_t>(n));
    stream.sink->append(buffer.data(), keep);
    if (keep < static_cast<std::size_t>(n) && stream.cut != nullptr) {
      *stream.cut = true;
    }
  }
}

/// A CLOEXEC pipe, both ends moved to k_high_fd or above.
struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

bool make_pipe(Pipe& pipe, std::string& error) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    error = errno_text("pipe2", errno);
    return false;
  }
  pipe.read.reset(move_high(fds[0]));
  int code = errno;
  pipe.write.reset(move_high(fds[1]));
  if (pipe.read.get() >= 0) code = errno;
  if (pipe.read.get() < 0 || pipe.write.get() < 0) {
    error = errno_text("moving a pipe to a high descriptor", code);
    return false;
  }
  if (::fcntl(pipe.read.get(), F_SETFL, O_NONBLOCK) != 0) {
    error = errno_text("making a pipe non-blocking", errno);
    return false;
  }
  return true;
}

/// How the child ended, as far as the supervisor saw it.
struct Supervision {
  bool replied = false;  ///< the reply's `end` line arrived: its work is done, its exit not waited for
  bool reaped = false;
  bool status_lost = false;  ///< waitpid said ECHILD: someone set SIGCHLD to SIG_IGN
  int wait_status = 0;
  bool timed_out = false;
  bool abandoned = false;  ///< not reaped within k_reap_grace_ms of SIGKILL
  std::int64_t end_ms = 0;
};

/// True once the reply holds its closing `end<TAB>...` line (searched from `from` on).
bool has_end_line(const std::string& reply, std::size_t& from) {
  std::size_t at = reply.find("\nend\t", from > 0 ? from - 1 : 0);
  if (at == std::string::npos) {
    from = reply.size();
    return false;
  }
  return reply.find('\n', at + 1) != std::string::npos;  // the whole line
}

/// Reads the streams until the reply's end line arrives, or until the child is gone and they
/// are closed, killing its process group at the deadline. After the end line the helper only
/// exits (libcuda's teardown can take tens of ms): what stdout and stderr hold is taken and the
/// exit is not waited for. Does not allocate (the sinks were reserved), so nothing throws while
/// the child runs.
Supervision supervise(pid_t pid, std::array<Stream, 4>& streams, std::int64_t deadline) {
  Supervision s;
  std::array<bool, 4> open = {true, true, true, true};
  std::int64_t kill_time = 0;
  std::size_t end_search = 0;
  for (;;) {
    if (!s.replied && !s.timed_out && has_end_line(*streams[0].sink, end_search)) {
      s.replied = true;
      s.end_ms = now_ms();
      for (std::size_t i = 1; i < streams.size(); ++i) {
        if (open[i]) drain(streams[i]);  // what libcuda printed, as far as it is there now
      }
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        s.reaped = true;
        s.wait_status = status;
      }
      return s;
    }
    if (!s.reaped) {
      int status = 0;
      pid_t r = ::waitpid(pid, &status, WNOHANG);
      if (r == pid || (r < 0 && errno == ECHILD)) {
        s.reaped = true;
        s.status_lost = r != pid;
        s.wait_status = status;
        s.end_ms = now_ms();
      }
    }
    std::array<pollfd, 4> fds{};
    std::array<std::size_t, 4> which{};
    nfds_t count = 0;
    for (std::size_t i = 0; i < streams.size(); ++i) {
      if (open[i]) {
        fds[count] = pollfd{streams[i].fd, POLLIN, 0};
        which[count++] = i;
      }
    }
    std::int64_t now = now_ms();
    if (s.reaped && (count == 0 || now >= s.end_ms + k_drain_after_exit_ms)) {
      if (count != 0 && !s.timed_out) {
        ::kill(-pid, SIGKILL);  // something it started still holds the pipes
      }
      return s;
    }
    if (!s.reaped && !s.timed_out && now >= deadline) {
      s.timed_out = true;
      kill_time = now;
      ::kill(-pid, SIGKILL);  // the helper and whatever libcuda started
      ::kill(pid, SIGKILL);
    }
    if (s.timed_out && !s.reaped && now >= kill_time + k_reap_grace_ms) {
      s.abandoned = true;
      s.end_ms = now;
      return s;
    }
    std::int64_t wait = k_poll_slice_ms;
    if (!s.timed_out && !s.reaped) {
      wait = std::min(wait, deadline - now);
    }
    if (s.reaped) {
      wait = std::min(wait, s.end_ms + k_drain_after_exit_ms - now);
    }
    if (::poll(fds.data(), count, static_cast<int>(std::max<std::int64_t>(wait, 0))) <= 0) {
      continue;
    }
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].revents != 0 && ((fds[i].revents & POLLNVAL) || !drain(streams[which[i]]))) {
        open[which[i]] = false;
      }
    }
  }
}

std::string first_line(std::string_view text) {
  return std::string(text.substr(0, std::min<std::size_t>(text.find('\n'), 200)));
}

}  // namespace

/// A helper process between its start and its reply (helper_exec.hpp).
struct HelperRun {
  HelperRequest request;
  HelperOutcome outcome;
  pid_t pid = -1;
  std::int64_t start_ms = 0;
  Pipe reply, out, err, failure;
  std::string failure_bytes;
  bool started = false;  ///< forked: finish() has a child to supervise

  HelperRun() = default;
  HelperRun(const HelperRun&) = delete;
  HelperRun& operator=(const HelperRun&) = delete;
  ~HelperRun() {
    if (started && pid > 0) {
      ::kill(-pid, SIGKILL);  // started but never collected: nothing may outlive the run
    }
    if (pid > 0) unregister_helper_group(pid);
  }
};

namespace {

void start_helper(std::span<const unsigned char> elf, HelperRun& run) {
  using Status = HelperOutcome::Status;
  HelperOutcome& outcome = run.outcome;
  const HelperRequest& request = run.request;
  outcome.timeout_ms = request.timeout_ms;
  outcome.loader = find_glibc_loader(elf);
  if (outcome.loader.empty()) {
    outcome.status = Status::no_loader;
    outcome.error = "no glibc dynamic loader for the helper on this host (musl-only system?)";
    return;
  }
  outcome.status = Status::exec_failed;  // until the child is running
  t_setup_errno = 0;
  UniqueFd image(make_image_fd(elf, outcome.error));
  if (image.get() < 0 || !make_pipe(run.reply, outcome.error) || !make_pipe(run.out, outcome.error) ||
      !make_pipe(run.err, outcome.error) || !make_pipe(run.failure, outcome.error)) {
    outcome.error += fd_limit_hint(t_setup_errno);
    return;
  }
  UniqueFd null_fd(move_high(::open("/dev/null", O_RDONLY | O_CLOEXEC)));
  if (null_fd.get() < 0) {
    outcome.error = errno_text("opening /dev/null", errno);
    outcome.error += fd_limit_hint(t_setup_errno);
    return;
  }
  ChildPlan plan;
  build_plan(plan, outcome.loader, request);
  plan.stdin_fd = null_fd.get();
  plan.stdout_fd = run.out.write.get();
  plan.stderr_fd = run.err.write.get();
  plan.reply_fd = run.reply.write.get();
  plan.image_fd = image.get();
  plan.error_fd = run.failure.write.get();
  outcome.reply.reserve(k_reply_limit);
  outcome.out.reserve(k_stream_limit);
  outcome.err.reserve(k_stream_limit);
  run.failure_bytes.reserve(sizeof(ChildFailure));

  // All signals blocked across fork: no handler of ours may run in the child before it resets
  // them to SIG_DFL.
  sigset_t all, previous;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &previous);
  run.start_ms = now_ms();
  pid_t pid = ::fork();
  if (pid == 0) {
    run_child(plan);
  }
  int fork_error = errno;
  if (pid > 0) {
    ::setpgid(pid, pid);  // also here: the group must exist before we might kill it
    register_helper_group(pid);  // still blocked: no stop signal can come between fork and this
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (pid < 0) {
    outcome.error = errno_text("fork", fork_error);
    return;
  }
  for (UniqueFd* child_end : {&run.reply.write, &run.out.write, &run.err.write, &run.failure.write}) {
    child_end->reset();  // only the child holds them now: EOF comes when it is gone
  }
  run.pid = pid;
  run.started = true;
}

void finish_helper(HelperRun& run) {
  using Status = HelperOutcome::Status;
  HelperOutcome& outcome = run.outcome;
  if (!run.started) {
    return;  // the outcome already says why it could not start
  }
  run.started = false;
  const pid_t pid = run.pid;
  bool* cut = &outcome.output_cut;
  std::array<Stream, 4> streams = {{
      {run.reply.read.get(), &outcome.reply, k_reply_limit, cut},
      {run.out.read.get(), &outcome.out, k_stream_limit, cut},
      {run.err.read.get(), &outcome.err, k_stream_limit, cut},
      {run.failure.read.get(), &run.failure_bytes, sizeof(ChildFailure), nullptr},
  }};
  std::int64_t deadline = run.start_ms + std::max(run.request.timeout_ms, 0);
  Supervision s = supervise(pid, streams, deadline);
  if (s.reaped) unregister_helper_group(pid);  // an unreaped one keeps its id, and stays killable
  outcome.duration_ms = s.end_ms - run.start_ms;
  for (std::string* text : {&outcome.reply, &outcome.out, &outcome.err}) {
    text->shrink_to_fit();  // the reservations were only for the no-allocation window
  }

  if (run.failure_bytes.size() == sizeof(ChildFailure)) {
    ChildFailure child{};
    std::memcpy(&child, run.failure_bytes.data(), sizeof child);
    outcome.error = child.step == 0
                        ? errno_text("execve " + outcome.loader, child.error)
                        : errno_text("setting up the helper's descriptors", child.error);
    return;  // status stays exec_failed
  }
  if (s.replied) {
    // The reply is complete: the helper's own exit (code 0 after `end`) is not waited for.
    outcome.status = Status::finished;
    outcome.exit_code = s.reaped && WIFEXITED(s.wait_status) ? WEXITSTATUS(s.wait_status) : 0;
  } else if (s.timed_out) {
    outcome.status = Status::timed_out;
    if (s.abandoned) {
      outcome.error = "the helper (pid " + std::to_string(pid) + ") did not exit within " +
                      std::to_string(k_reap_grace_ms) +
                      " ms of SIGKILL (stuck in the kernel, D state?); abandoned";
    }
  } else if (s.status_lost) {
    outcome.status = Status::finished;
    outcome.exit_code = -1;
    outcome.error = "exit status lost: SIGCHLD is ignored in this process";
  } else if (WIFSIGNALED(s.wait_status)) {
    outcome.status = Status::crashed;
    outcome.signal = WTERMSIG(s.wait_status);
  } else {
    outcome.exit_code = WEXITSTATUS(s.wait_status);
    outcome.status = Status::finished;
    if (outcome.exit_code == 127 && outcome.reply.empty()) {
      // The loader ran but could not start the helper (no /proc, glibc older than 2.17, ...).
      outcome.status = Status::exec_failed;
      outcome.error =
          "the loader could not start the helper (exit 127): " + first_line(outcome.err);
    }
  }
}

template <typename Step>
void guarded(HelperRun& run, Step step) {
  try {
    step();
  } catch (const std::exception& e) {  // only before fork or after the reply: nothing is left waiting
    run.outcome.status = HelperOutcome::Status::exec_failed;
    run.outcome.error = std::string("internal error: ") + e.what();
  } catch (...) {
    run.outcome.status = HelperOutcome::Status::exec_failed;
    run.outcome.error = "internal error";
  }
}

}  // namespace

void HelperRunDeleter::operator()(HelperRun* run) const { delete run; }

HelperRunHandle start_cuda_helper(std::span<const unsigned char> helper_elf, const HelperRequest& request) {
  HelperRunHandle run(new HelperRun);
  run->request = request;
  guarded(*run, [&] { start_helper(helper_elf, *run); });
  return run;
}

const HelperRequest& started_request(const HelperRun& run) { return run.request; }

HelperOutcome finish_cuda_helper(HelperRun& run) {
  guarded(run, [&] { finish_helper(run); });
  return std::move(run.outcome);
}

HelperOutcome exec_cuda_helper(std::span<const unsigned char> helper_elf,
                               const HelperRequest& request) {
  HelperRunHandle run = start_cuda_helper(helper_elf, request);
  return finish_cuda_helper(*run);
}

}  // namespace gd
