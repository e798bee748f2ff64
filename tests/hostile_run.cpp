#include "hostile_run.h"

#include <dirent.h>
#include <doctest/doctest.h>
#include <fcntl.h>
#if defined(__linux__)
#include <malloc.h>  // malloc_trim
#endif
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "core/usage_error.h"
#include "lessons/ui_text.h"
#include "run_cli.h"

BoundedRun run_bounded(const std::string& args, const std::string& before, int limit_seconds,
                       const std::string& stdout_to) {
  static const std::string dir = temp_dir();
  static int counter = 0;
  const std::string base = dir + "/bounded" + std::to_string(counter++);
  const std::string out = base + ".out", err = base + ".err";
  const std::string cmd = before + "LC_ALL= LC_MESSAGES= LANG=C.UTF-8 exec '" + std::string(ATTN_TUTOR_EXE) + "' " +
                          args + " </dev/null >" + (stdout_to.empty() ? out : stdout_to) + " 2>" + err;
  BoundedRun r;
  const auto start = std::chrono::steady_clock::now();
#ifdef __GLIBC__
  malloc_trim(0);  // a forked child's peak memory counts the pages of this process it starts with
#endif
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);  // one process group: the command and whatever `before` started
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  REQUIRE(pid > 0);
  setpgid(pid, pid);
  int status = 0;
  rusage usage{};
  for (;;) {
    const pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(limit_seconds)) {
      r.timed_out = true;
      kill(-pid, SIGKILL);
      wait4(pid, &status, 0, &usage);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(-pid, SIGKILL);  // a background writer of `before` that is still blocked
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.max_rss_kb = usage.ru_maxrss;
  r.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                  static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text_file(out);
  r.err = read_text_file(err);
  return r;
}

bool free_of_control_characters(const std::string& line) {
  for (size_t i = 0; i < line.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if ((c < 0x20 && !(c == '\n' && i + 1 == line.size())) || c == 0x7F) return false;
  }
  return true;
}

void expect_clean_refusal(const std::string& args, const std::string& mentions, const std::string& before) {
  CAPTURE(args);
  const BoundedRun r = run_bounded(args, before);
  CAPTURE(r.err);
  CAPTURE(r.seconds);
  CAPTURE(r.max_rss_kb);
  CHECK_FALSE(r.timed_out);
  CHECK(r.exit_code == 2);
  CHECK(r.seconds < 15.0);
  CHECK(r.max_rss_kb < 1024L * 1024L);
  CHECK(r.out.empty());
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.rfind("attn-tutor: error: ", 0) == 0);
  CHECK(r.err.size() < 600);
  CHECK(free_of_control_characters(r.err));
  CHECK(r.err.find(mentions) != std::string::npos);
}

bool is_root() { return geteuid() == 0; }

pid_t start_attn_tutor(const std::vector<std::string>& args, const std::string& dir, int stdout_fd, int stderr_fd,
                       const std::vector<int>& ignored) {
  std::vector<std::string> words = {ATTN_TUTOR_EXE};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
#ifdef __GLIBC__
  malloc_trim(0);  // a forked child's peak memory counts the pages of this process it starts with
#endif
  const pid_t pid = fork();
  if (pid == 0) {
    const int in = open("/dev/null", O_RDONLY);
    if (in < 0 || dup2(in, 0) < 0 || dup2(stdout_fd, 1) < 0 || dup2(stderr_fd, 2) < 0 || chdir(dir.c_str()) != 0)
      _exit(127);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) signal(sig, SIG_DFL);  // whatever ran the tests set
    for (int sig : ignored) signal(sig, SIG_IGN);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    setenv("LANG", "C.UTF-8", 1);
    unsetenv("LC_ALL");
    unsetenv("LC_MESSAGES");
    execv(argv[0], argv.data());
    _exit(127);
  }
  REQUIRE(pid > 0);
  return pid;
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string names_in(const std::string& dir) {
  std::string names;
  if (DIR* d = opendir(dir.c_str())) {
    std::vector<std::string> all;
    while (dirent* e = readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") all.push_back(e->d_name);
    closedir(d);
    std::sort(all.begin(), all.end());
    for (const std::string& n : all) names += (names.empty() ? "" : " ") + n;
  }
  return names;
}

bool stray_temporaries_in(const std::string& dir) { return names_in(dir).find(".attn-tutor-") != std::string::npos; }

bool is_export(const std::string& text) { return text.rfind("{\"schema\": \"attn-tutor/1\"", 0) == 0; }

std::string usage_error_of(const std::function<void()>& run) {
  try {
    run();
  } catch (const attn::UsageError& e) {
    return attn::error_message(e, attn::Lang::En);
  }
  return "";
}
