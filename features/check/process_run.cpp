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

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace attn {

namespace {

// What a signal handler needs while the child runs: its process group and the paths to remove, in
// fixed C strings (the handler allocates nothing).
constexpr int kMaxCleanup = 4;
char cleanup_paths[kMaxCleanup][PATH_MAX];
volatile sig_atomic_t cleanup_count = 0;
volatile sig_atomic_t child_group = 0;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void end_child_and_clean(int sig) {
  if (child_group > 0) ::kill(-child_group, SIGKILL);
  for (int i = 0; i < cleanup_count; ++i) {
    if (::unlink(cleanup_paths[i]) != 0) ::rmdir(cleanup_paths[i]);
  }
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(sig, &fallback, nullptr);
  ::raise(sig);
}

// The handler on SIGINT/SIGTERM/SIGHUP for one run (those ignored stay ignored), restored after it.
class SignalCleanup {
 public:
  explicit SignalCleanup(const std::vector<std::string>& paths) {
    cleanup_count = 0;
    for (const std::string& p : paths)
      if (cleanup_count < kMaxCleanup && p.size() < PATH_MAX) {
        std::memcpy(cleanup_paths[cleanup_count], p.c_str(), p.size() + 1);
        cleanup_count = cleanup_count + 1;
      }
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
    child_group = 0;
    cleanup_count = 0;
  }

 private:
  struct sigaction old_[3]{};
  bool installed_[3] = {false, false, false};
};

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

ProcessResult run_process(const ProcessSpec& spec) {
  using Outcome = ProcessResult::Outcome;
  ProcessResult r;
  r.program = spec.argv.empty() ? "" : find_program(spec.argv[0]);
  if (r.program.empty()) {
    r.outcome = Outcome::NotFound;
    return r;
  }
  // Everything the child needs, made before fork: it only calls async-signal-safe functions.
  std::vector<char*> argv;
  for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_text;
  for (const auto& [k, v] : spec.env) env_text.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (char** e = environ; e && *e; ++e) {
    bool replaced = false;
    for (const auto& [k, v] : spec.env)
      replaced = replaced || (std::strncmp(*e, k.c_str(), k.size()) == 0 && (*e)[k.size()] == '=');
    if (!replaced) envp.push_back(*e);
  }
  for (std::string& e : env_text) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  int out[2] = {-1, -1}, err[2] = {-1, -1}, status[2] = {-1, -1};
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 || ::pipe2(status, O_CLOEXEC) != 0) {
    r.error = errno;
    for (int* p : {out, err, status}) close_fd(p[0]), close_fd(p[1]);
    return r;
  }
  const SignalCleanup cleanup(spec.remove_on_signal);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);  // the child starts with our handlers reset, no signal in between
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (int sig = 1; sig < NSIG; ++sig) {
      struct sigaction dfl {};
      dfl.sa_handler = SIG_DFL;
      if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    ::setpgid(0, 0);
    const int null_in = ::open("/dev/null", O_RDONLY);
    if (null_in >= 0) ::dup2(null_in, 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    int e = 0;
    if (!spec.dir.empty() && ::chdir(spec.dir.c_str()) != 0) e = errno;
    if (e == 0) {
      ::execve(r.program.c_str(), argv.data(), envp.data());
      e = errno;
    }
    ssize_t ignored = ::write(status[1], &e, sizeof e);
    (void)ignored;
    ::_exit(127);
  }
  if (pid > 0) {
    ::setpgid(pid, pid);  // whichever of us comes first
    child_group = pid;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  close_fd(out[1]);
  close_fd(err[1]);
  close_fd(status[1]);
  if (pid < 0) {
    r.error = errno;
    close_fd(out[0]), close_fd(err[0]), close_fd(status[0]);
    return r;
  }
  int exec_errno = 0;
  if (::read(status[0], &exec_errno, sizeof exec_errno) == static_cast<ssize_t>(sizeof exec_errno)) {
    close_fd(status[0]);
    close_fd(out[0]), close_fd(err[0]);
    int st = 0;
    ::waitpid(pid, &st, 0);
    r.error = exec_errno;
    r.outcome = Outcome::CannotStart;
    return r;
  }
  close_fd(status[0]);

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(spec.timeout_seconds);
  size_t total = 0;
  bool exited = false;
  int st = 0;
  char buf[65536];
  for (;;) {
    if (!exited) {
      const pid_t w = ::waitpid(pid, &st, WNOHANG);
      exited = w == pid;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!exited && now >= deadline) {
      r.outcome = Outcome::TimedOut;
      break;
    }
    if (out[0] < 0 && err[0] < 0) {
      if (exited) break;
      ::usleep(10000);  // the pipes closed, the child still runs: wait for it
      continue;
    }
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    const int wait_ms =
        exited ? 0
               : static_cast<int>(std::min<long long>(
                     50, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1));
    const int n = ::poll(fds, 2, wait_ms);
    if (n < 0 && errno != EINTR) break;
    bool read_any = false;
    for (int k = 0; k < 2; ++k) {
      int& fd = k == 0 ? out[0] : err[0];
      if (fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t got = ::read(fd, buf, sizeof buf);
      if (got <= 0) {
        if (got == 0 || (errno != EINTR && errno != EAGAIN)) close_fd(fd);
        continue;
      }
      read_any = true;
      total += static_cast<size_t>(got);
      std::string& keep = k == 0 ? r.out : r.err;
      if (k == 0) {  // stdout: its start
        const size_t room = spec.keep_bytes > keep.size() ? spec.keep_bytes - keep.size() : 0;
        keep.append(buf, std::min(room, static_cast<size_t>(got)));
        if (static_cast<size_t>(got) > room) r.out_cut = true;
      } else {  // stderr: its end (where a traceback ends)
        keep.append(buf, static_cast<size_t>(got));
        if (keep.size() > 2 * spec.keep_bytes) {
          keep.erase(0, keep.size() - spec.keep_bytes);
          r.err_cut = true;
        }
      }
    }
    if (total > spec.flood_bytes) {
      r.outcome = Outcome::Flooded;
      break;
    }
    if (exited && !read_any) break;  // the child is gone and nothing more is waiting
  }
  if (r.err.size() > spec.keep_bytes) {
    r.err.erase(0, r.err.size() - spec.keep_bytes);
    r.err_cut = true;
  }
  ::kill(-pid, SIGKILL);  // what is left of its group (a timeout, a flood, a child it left behind)
  if (!exited) {
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
  }
  close_fd(out[0]);
  close_fd(err[0]);
  if (r.outcome == Outcome::TimedOut || r.outcome == Outcome::Flooded) return r;
  if (WIFEXITED(st)) {
    r.outcome = Outcome::Exited;
    r.code = WEXITSTATUS(st);
  } else {
    r.outcome = Outcome::Signalled;
    r.code = WIFSIGNALED(st) ? WTERMSIG(st) : -1;
  }
  return r;
}

}  // namespace attn

#endif
