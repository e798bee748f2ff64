#include "features/check/process_run.h"

#if defined(__EMSCRIPTEN__)

namespace attn {

std::string find_program(const std::string&) { return ""; }

ProcessResult run_process(const ProcessSpec&) {
  ProcessResult r;
  r.outcome = ProcessResult::Outcome::Unsupported;
  return r;
}

}  // namespace attn

#else

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace attn {

namespace {

// ---- The guard: runs the program, then kills whatever it left ----

// What the guard tells us when it is done (one write, under PIPE_BUF).
struct GuardReport {
  enum Kind : int { Ended = 1, TimedOut = 2, Stopped = 3, CannotFork = 4 };
  int kind = 0;
  int status = 0;  // the program's wait status (Ended), errno (CannotFork)
};

// What a signal handler needs while the child runs, in fixed C storage (the handler allocates nothing).
char cleanup_path[PATH_MAX];
volatile sig_atomic_t control_fd = -1;  // our end of the pipe the guard watches
volatile sig_atomic_t guard_pid = 0;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void end_child_and_clean(int sig) {
  if (control_fd >= 0) ::close(control_fd);  // the guard sees the end of the pipe: it kills the program
  control_fd = -1;
  int st = 0;
  if (guard_pid > 0)
    while (::waitpid(guard_pid, &st, 0) < 0 && errno == EINTR) {
    }
  if (cleanup_path[0]) remove_tree(cleanup_path);
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(sig, &fallback, nullptr);
  ::raise(sig);
}

// The handler on SIGINT/SIGTERM/SIGHUP for one run (those ignored stay ignored), restored after it.
class SignalCleanup {
 public:
  explicit SignalCleanup(const std::string& dir) {
    cleanup_path[0] = 0;
    if (dir.size() < PATH_MAX) std::memcpy(cleanup_path, dir.c_str(), dir.size() + 1);
    struct sigaction handler {};
    handler.sa_handler = end_child_and_clean;
    sigemptyset(&handler.sa_mask);
    for (int i = 0; i < 3; ++i) {
      ::sigaction(kSignals[i], nullptr, &old_[i]);
      installed_[i] = old_[i].sa_handler != SIG_IGN;
      if (installed_[i]) ::sigaction(kSignals[i], &handler, nullptr);
    }
  }
  ~SignalCleanup() {
    for (int i = 0; i < 3; ++i)
      if (installed_[i]) ::sigaction(kSignals[i], &old_[i], nullptr);
    guard_pid = 0;
    control_fd = -1;
    cleanup_path[0] = 0;
  }

 private:
  struct sigaction old_[3]{};
  bool installed_[3] = {false, false, false};
};

// Everything the processes need, made before fork: after it they only call async-signal-safe functions.
struct Launch {
  const char* program = nullptr;
  const char* dir = nullptr;  // nullptr: ours
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  const char* cleanup = nullptr;  // nullptr: none
  double timeout = 60;
  sigset_t mask{};                      // our signal mask before fork
  int out = -1, err = -1, status = -1;  // write ends: the program's stdout, stderr, its exec errno
  int control = -1, report = -1;        // the guard's read end of the control pipe, write end of its report
};

double now_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void pause_ms(long ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000};
  ::nanosleep(&ts, nullptr);
}

// In the program's process: default signal handling, its own process group, /dev/null as stdin, then exec.
[[noreturn]] void exec_program(const Launch& l, pid_t guard) {
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);
  }
  pthread_sigmask(SIG_SETMASK, &l.mask, nullptr);
  ::setpgid(0, 0);
#if defined(__linux__)
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the guard killed: the program too
  if (::getppid() != guard) ::_exit(127);
#else
  (void)guard;
#endif
  const int null_in = ::open("/dev/null", O_RDONLY);
  if (null_in >= 0) ::dup2(null_in, 0);
  ::dup2(l.out, 1);
  ::dup2(l.err, 2);
  int e = 0;
  if (l.dir && ::chdir(l.dir) != 0) e = errno;
  if (e == 0) {
    ::execve(l.program, l.argv, l.envp);
    e = errno;
  }
  ssize_t ignored = ::write(l.status, &e, sizeof e);
  (void)ignored;
  ::_exit(127);
}

#if defined(__linux__)
// The parent process id in /proc/PID/stat (after the command's closing parenthesis), -1 if unreadable.
long parent_of(const char* pid) {
  char path[64] = "/proc/";
  const size_t n = std::strlen(pid);
  if (n > 20) return -1;
  std::memcpy(path + 6, pid, n);
  std::memcpy(path + 6 + n, "/stat", 6);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[512];
  const ssize_t got = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (got <= 0) return -1;
  buf[got] = 0;
  const char* p = std::strrchr(buf, ')');
  if (!p || p[1] != ' ' || !p[2] || p[3] != ' ') return -1;
  long ppid = 0;
  for (p += 4; *p >= '0' && *p <= '9'; ++p) ppid = ppid * 10 + (*p - '0');
  return ppid;
}

// SIGKILL to every living child of ours (the orphans of the program come to us: we are their subreaper).
void kill_children() {
  const int proc = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc < 0) return;
  const long me = ::getpid();
  each_entry(proc, [&](const char* name) {
    if (name[0] < '1' || name[0] > '9' || parent_of(name) != me) return;
    long pid = 0;
    for (const char* c = name; *c >= '0' && *c <= '9'; ++c) pid = pid * 10 + (*c - '0');
    ::kill(static_cast<pid_t>(pid), SIGKILL);
  });
  ::close(proc);
}
#endif

// Kills the program's group and every process left of it, reaping them until none is left (at most 5 s).
// The program's wait status goes to *status when it is reaped here.
void kill_all(pid_t program, bool& reaped, int* status) {
  const double give_up = now_seconds() + 5;
  for (;;) {
    ::kill(-program, SIGKILL);
    if (!reaped) ::kill(program, SIGKILL);
#if defined(__linux__)
    kill_children();
#endif
    int st = 0;
    pid_t w;
    while ((w = ::waitpid(-1, &st, WNOHANG)) > 0)
      if (w == program) reaped = true, *status = st;
    if (w < 0 && errno == ECHILD) return;
    if (now_seconds() > give_up) return;
    pause_ms(2);
  }
}

// Waits for the program to end, its time to pass or the control pipe to end; false when the pipe ended.
bool watch(const Launch& l, pid_t program, int& status, bool& reaped, bool& timed_out) {
  const double deadline = now_seconds() + l.timeout;
  for (;;) {
    int st = 0;
    pid_t w;
    while ((w = ::waitpid(-1, &st, WNOHANG)) > 0)  // the program, or an orphan of it that ended
      if (w == program) reaped = true, status = st;
    if (reaped) return true;
    const double left = deadline - now_seconds();
    if (left <= 0) {
      timed_out = true;
      return true;
    }
    pollfd fd{l.control, POLLIN, 0};
    if (::poll(&fd, 1, static_cast<int>(std::min(20.0, left * 1000 + 1))) > 0) {
      char c;
      const ssize_t got = ::read(l.control, &c, 1);
      if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) return false;
    }
  }
}

// The guard: a subreaper in its own process group that starts the program, then kills all that is
// left of it; when the control pipe ended (we died or asked it to stop) it also removes the cleanup folder.
[[noreturn]] void run_guard(const Launch& l) {
  ::setpgid(0, 0);  // a kill of our process group leaves it to clean up
  for (int sig : {SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU}) {
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    ::sigaction(sig, &ign, nullptr);
  }
  for (int sig : {SIGTERM, SIGCHLD}) {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ::sigaction(sig, &dfl, nullptr);
  }
#if defined(__linux__)
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
  const pid_t me = ::getpid();
  const pid_t program = ::fork();
  if (program == 0) exec_program(l, me);
  const int fork_errno = errno;
  ::close(l.out);
  ::close(l.err);
  ::close(l.status);
  sigset_t none;
  sigemptyset(&none);
  pthread_sigmask(SIG_SETMASK, &none, nullptr);
  GuardReport rep;
  if (program < 0) {
    rep.kind = GuardReport::CannotFork;
    rep.status = fork_errno;
  } else {
    ::setpgid(program, program);
    bool reaped = false, timed_out = false;
    int status = 0;
    const bool watched = watch(l, program, status, reaped, timed_out);
    kill_all(program, reaped, &status);
    rep.kind = !watched ? GuardReport::Stopped : timed_out ? GuardReport::TimedOut : GuardReport::Ended;
    rep.status = status;
    if (!watched && l.cleanup) remove_tree(l.cleanup);
  }
  ssize_t ignored = ::write(l.report, &rep, sizeof rep);
  (void)ignored;
  ::_exit(0);
}

bool executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

std::string find_program(const std::string& name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return executable_file(name) ? name : "";
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (size_t from = 0; from <= dirs.size();) {
    size_t end = dirs.find(':', from);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > from ? dirs.substr(from, end - from) : ".";
    if (executable_file(dir + "/" + name)) return dir + "/" + name;
    from = end + 1;
  }
  return "";
}

namespace {

// Appends what one read of the program's stdout (k 0: its start kept) or stderr (k 1: its end) gave.
void keep_output(int k, const char* buf, size_t got, const ProcessSpec& spec, ProcessResult& r) {
  std::string& keep = k == 0 ? r.out : r.err;
  if (k == 0) {
    const size_t room = spec.keep_bytes > keep.size() ? spec.keep_bytes - keep.size() : 0;
    keep.append(buf, std::min(room, got));
    if (got > room) r.out_cut = true;
  } else {
    keep.append(buf, got);
    if (keep.size() > 2 * spec.keep_bytes) {
      keep.erase(0, keep.size() - spec.keep_bytes);
      r.err_cut = true;
    }
  }
}

// Reads the program's output and the guard's report until both are done. On a flood (or when the guard
// has not reported well after the time limit) the control pipe is closed: the guard stops the program.
void collect(int (&fds)[3], const ProcessSpec& spec, ProcessResult& r, GuardReport& rep, bool& flooded) {
  using clock = std::chrono::steady_clock;
  const auto give_up = clock::now() + std::chrono::duration<double>(spec.timeout_seconds + 10);
  auto drain_until = clock::time_point::max();  // after the report: output still held open elsewhere
  size_t total = 0;
  char buf[65536];
  while (fds[0] >= 0 || fds[1] >= 0 || fds[2] >= 0) {
    const auto now = clock::now();
    if (now > drain_until) break;
    if (now > give_up && control_fd >= 0) {  // the guard did not stop the program in time: stop it now
      ::close(control_fd);
      control_fd = -1;
    }
    if (now > give_up + std::chrono::seconds(10)) break;
    pollfd p[3] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}, {fds[2], POLLIN, 0}};
    const int n = ::poll(p, 3, 50);
    if (n < 0 && errno != EINTR) break;
    for (int k = 0; k < 3; ++k) {
      if (fds[k] < 0 || !(p[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char* into = k == 2 ? reinterpret_cast<char*>(&rep) : buf;
      const ssize_t got = ::read(fds[k], into, k == 2 ? sizeof rep : sizeof buf);
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (got <= 0 || k == 2) {
        close_fd(fds[k]);
        if (k == 2) drain_until = clock::now() + std::chrono::milliseconds(500);
        continue;
      }
      total += static_cast<size_t>(got);
      keep_output(k, buf, static_cast<size_t>(got), spec, r);
    }
    if (total > spec.flood_bytes && !flooded) {
      flooded = true;
      if (control_fd >= 0) ::close(control_fd);
      control_fd = -1;
    }
  }
  if (r.err.size() > spec.keep_bytes) {
    r.err.erase(0, r.err.size() - spec.keep_bytes);
    r.err_cut = true;
  }
}

// The outcome the guard's report (and the guard's own end) gives.
void set_outcome(const GuardReport& rep, bool flooded, int guard_status, ProcessResult& r) {
  using Outcome = ProcessResult::Outcome;
  if (flooded) {
    r.outcome = Outcome::Flooded;
  } else if (rep.kind == GuardReport::TimedOut || rep.kind == GuardReport::Stopped) {
    r.outcome = Outcome::TimedOut;
  } else if (rep.kind == GuardReport::CannotFork) {
    r.outcome = Outcome::CannotStart;
    r.error = rep.status;
  } else if (rep.kind != GuardReport::Ended) {  // the guard itself was killed: say how
    r.outcome = Outcome::Signalled;
    r.code = WIFSIGNALED(guard_status) ? WTERMSIG(guard_status) : -1;
  } else if (WIFEXITED(rep.status)) {
    r.outcome = Outcome::Exited;
    r.code = WEXITSTATUS(rep.status);
  } else {
    r.outcome = Outcome::Signalled;
    r.code = WIFSIGNALED(rep.status) ? WTERMSIG(rep.status) : -1;
  }
}

}  // namespace

namespace {

// The program's argv and environment (spec.env replacing our variables of the same names), as execve takes them.
struct ExecText {
  std::vector<std::string> env_text;
  std::vector<char*> argv, envp;
};

void fill_exec_text(const ProcessSpec& spec, ExecText& x) {
  for (const std::string& a : spec.argv) x.argv.push_back(const_cast<char*>(a.c_str()));
  x.argv.push_back(nullptr);
  for (const auto& [k, v] : spec.env) x.env_text.push_back(k + "=" + v);
  for (char** e = environ; e && *e; ++e) {
    bool replaced = false;
    for (const auto& [k, v] : spec.env)
      replaced = replaced || (std::strncmp(*e, k.c_str(), k.size()) == 0 && (*e)[k.size()] == '=');
    if (!replaced) x.envp.push_back(*e);
  }
  for (std::string& e : x.env_text) x.envp.push_back(const_cast<char*>(e.c_str()));
  x.envp.push_back(nullptr);
}

// The pipes between us, the guard and the program, each [read end, write end].
struct Pipes {
  int out[2] = {-1, -1}, err[2] = {-1, -1}, status[2] = {-1, -1}, control[2] = {-1, -1}, report[2] = {-1, -1};
};

// All five close-on-exec; false (errno's value in `error`, none left open) when one cannot be made.
bool open_pipes(Pipes& p, int& error) {
  for (int* f : {p.out, p.err, p.status, p.control, p.report})
    if (::pipe2(f, O_CLOEXEC) != 0) {
      error = errno;
      for (int* q : {p.out, p.err, p.status, p.control, p.report}) close_fd(q[0]), close_fd(q[1]);
      return false;
    }
  return true;
}

// The guard forked with every signal blocked (it starts with our handlers replaced, no signal between),
// our ends of the pipes kept and theirs closed; -1 (errno's value in `error`, every end closed) when the
// fork fails.
pid_t fork_guard(Launch& l, Pipes& p, int& error) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &l.mask);
  const pid_t guard = ::fork();
  if (guard == 0) {
    ::close(p.control[1]);
    ::close(p.report[0]);
    ::close(p.out[0]), ::close(p.err[0]), ::close(p.status[0]);
    run_guard(l);
  }
  const int fork_errno = errno;
  if (guard > 0) {
    ::setpgid(guard, guard);  // whichever of us comes first
    guard_pid = guard;
    control_fd = p.control[1];
  }
  pthread_sigmask(SIG_SETMASK, &l.mask, nullptr);
  for (int* fd : {&p.out[1], &p.err[1], &p.status[1], &p.control[0], &p.report[1]}) close_fd(*fd);
  if (guard < 0) {
    error = fork_errno;
    for (int* fd : {&p.out[0], &p.err[0], &p.status[0], &p.control[1], &p.report[0]}) close_fd(*fd);
    control_fd = -1;
  }
  return guard;
}

// Until the guard ends: the program's start (or why it could not), its output, the guard's report; then
// the guard reaped and the outcome set.
void follow_guard(pid_t guard, Pipes& p, const ProcessSpec& spec, ProcessResult& r) {
  int exec_errno = 0;  // the end of the status pipe: the program started (or the guard could not fork it)
  const bool failed = ::read(p.status[0], &exec_errno, sizeof exec_errno) == static_cast<ssize_t>(sizeof exec_errno);
  close_fd(p.status[0]);
  int fds[3] = {p.out[0], p.err[0], p.report[0]};
  GuardReport rep;
  bool flooded = false;
  if (failed) close_fd(fds[0]), close_fd(fds[1]);
  collect(fds, spec, r, rep, flooded);
  for (int& fd : fds) close_fd(fd);
  if (control_fd >= 0) ::close(control_fd);
  control_fd = -1;
  if (rep.kind == 0) ::kill(guard, SIGKILL);  // no report: it died, or is stuck past every limit
  int guard_status = 0;
  while (::waitpid(guard, &guard_status, 0) < 0 && errno == EINTR) {
  }
  guard_pid = 0;
  if (failed) {
    r.error = exec_errno;
    r.outcome = ProcessResult::Outcome::CannotStart;
    return;
  }
  set_outcome(rep, flooded, guard_status, r);
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec) {
  ProcessResult r;
  r.program = spec.argv.empty() ? "" : find_program(spec.argv[0]);
  if (r.program.empty()) {
    r.outcome = ProcessResult::Outcome::NotFound;
    return r;
  }
  ExecText x;
  fill_exec_text(spec, x);
  Pipes p;
  if (!open_pipes(p, r.error)) return r;
  Launch l;
  l.program = r.program.c_str();
  l.dir = spec.dir.empty() ? nullptr : spec.dir.c_str();
  l.argv = x.argv.data();
  l.envp = x.envp.data();
  l.cleanup = spec.cleanup_dir.empty() ? nullptr : spec.cleanup_dir.c_str();
  l.timeout = spec.timeout_seconds;
  l.out = p.out[1], l.err = p.err[1], l.status = p.status[1], l.control = p.control[0], l.report = p.report[1];
  const SignalCleanup cleanup(spec.cleanup_dir);
  const pid_t guard = fork_guard(l, p, r.error);
  if (guard > 0) follow_guard(guard, p, spec, r);
  return r;
}

}  // namespace attn

#endif
