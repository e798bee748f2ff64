// Outputs under a closed pipe or a signal (tests/test_hostile_output.cpp: files that fail or are not
// plain): `--html -` is standard output, a closed pipe ends the command as the caller asked, and SIGINT,
// SIGTERM or SIGHUP during the writes leave no temporary and all old or all new files.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/inotify.h>
#endif

#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "hostile_run.h"
#include "run_cli.h"

TEST_CASE("hostile: --html - writes the page to standard output, as - does for the other outputs") {
  const std::string dir = temp_dir();
  const BoundedRun page = run_bounded("causal-mask --html -", "cd '" + dir + "' && ");
  CHECK(page.exit_code == 0);
  CHECK(page.out.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(page.out.find("In [") != std::string::npos);
  CHECK(names_in(dir).empty());  // no file named '-'
  // With a file output beside it, and --explain (the page holds the explanations).
  const BoundedRun both = run_bounded("causal-mask --html - --json c.json --explain", "cd '" + dir + "' && ");
  CHECK(both.exit_code == 0);
  CHECK(both.out.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(is_export(read_text_file(dir + "/c.json")));
  // The rules of an export on standard output.
  expect_clean_refusal("mha --html - --json -", "--html - and --json -: both would write to standard output");
  expect_clean_refusal("mha --py - --html -", "both would write to standard output");
  expect_clean_refusal("mha --html - --from 3", "--from: no effect with --html -");
  expect_clean_refusal("mha --html - --heatmap", "--heatmap: no effect with --html -");
  expect_clean_refusal("mha --html - --step", "--step: no effect with --html -");
  expect_clean_refusal("all --html ''", "--html '': the path is empty; give a file name, or - for standard output");
}

TEST_CASE("hostile: a closed pipe on standard output ends the command as the caller asked") {
  const std::string dir = temp_dir();
  for (const bool ignored : {false, true}) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"mha", "--color", "never", "--json", "a.json", "--html", "a.html"},
          std::vector<std::string>{"all", "--py", "-"}, std::vector<std::string>{"verify", "mha"},
          std::vector<std::string>{"kv-memory", "--json", "k.json"}}) {
      CAPTURE(ignored);
      CAPTURE(args.front());
      int pipe_fds[2];
      REQUIRE(pipe(pipe_fds) == 0);
      close(pipe_fds[0]);  // the reader is gone before anything is written (| head that has ended)
      const std::string err_path = dir + "/err";
      const int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      REQUIRE(err_fd >= 0);
      const pid_t pid =
          start_attn_tutor(args, dir, pipe_fds[1], err_fd, ignored ? std::vector<int>{SIGPIPE} : std::vector<int>{});
      close(pipe_fds[1]);
      close(err_fd);
      const int code = wait_exit_code(pid);
      const std::string err = read_text_file(err_path);
      unlink(err_path.c_str());
      CAPTURE(err);
      if (ignored) {  // trap '' PIPE: an error like any failed write, one line, exit 2
        CHECK(code == 2);
        CHECK(count_lines(err) == 1);
        CHECK(err.find("cannot write to standard output (Broken pipe)") != std::string::npos);
      } else {  // the default: ends of SIGPIPE, quietly, as any writer to a pipe does
        CHECK(code == 128 + SIGPIPE);
        CHECK(err.empty());
      }
      CHECK(names_in(dir).empty());  // neither the files nor their temporaries
    }
  }
}

#ifdef __linux__

namespace {

// Microseconds since an arbitrary start.
long long now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

namespace {

// Waits up to `timeout_ms` for a name in the watched directory that starts with `prefix` to be
// created (IN_CREATE); true when one was.
bool wait_for_creation(int inotify_fd, const std::string& prefix, int timeout_ms) {
  const long long deadline = now_us() + timeout_ms * 1000LL;
  alignas(inotify_event) char buffer[8192];
  for (;;) {
    const long long left = (deadline - now_us()) / 1000;
    if (left <= 0) return false;
    pollfd p{inotify_fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    const ssize_t n = read(inotify_fd, buffer, sizeof buffer);
    for (ssize_t i = 0; i < n;) {
      const inotify_event* e = reinterpret_cast<const inotify_event*>(buffer + i);
      if ((e->mask & IN_CREATE) && e->len > 0 && std::string(e->name).rfind(prefix, 0) == 0) return true;
      i += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
    }
  }
}

}  // namespace

TEST_CASE("hostile: SIGINT, SIGTERM and SIGHUP during the writes leave no temporary and all old or all new files") {
  const std::string dir = temp_dir();
  const std::vector<std::string> files = {"a.json", "b.py", "c.ipynb", "d.html"};
  const std::vector<std::string> args = {"mha",     "--context-length", "4096",  "--color", "never",
                                         "--json",  "a.json",           "--py",  "b.py",    "--ipynb",
                                         "c.ipynb", "--html",           "d.html"};
  const int null_fd = open("/dev/null", O_WRONLY);
  REQUIRE(null_fd >= 0);
  // The new files, and how long a whole run and its writes take.
  const int watch = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  REQUIRE(watch >= 0);
  REQUIRE(inotify_add_watch(watch, dir.c_str(), IN_CREATE) >= 0);
  const long long start = now_us();
  const pid_t reference = start_attn_tutor(args, dir, null_fd, null_fd);
  REQUIRE(wait_for_creation(watch, ".attn-tutor-", 20000));
  const long long writes_begin = now_us();
  REQUIRE(wait_exit_code(reference) == 0);
  const long long run_us = now_us() - start, writes_us = std::max(1000LL, now_us() - writes_begin);
  std::vector<std::string> new_text;
  for (const std::string& f : files) new_text.push_back(read_text_file(dir + "/" + f));
  CHECK(is_export(new_text[0]));
  CHECK_FALSE(stray_temporaries_in(dir));
  MESSAGE("a run takes " << run_us / 1000 << " ms, its writes " << writes_us / 1000 << " ms");

  std::mt19937 rng(20);
  int all_old = 0, all_new = 0, mixed = 0, killed = 0;
  const int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
  const long long budget_end = now_us() + 90LL * 1000 * 1000;  // bounded however slow the machine
  for (int k = 0; k < 30 && now_us() < budget_end; ++k) {
    const int sig = kSignals[k % 3];
    CAPTURE(k);
    CAPTURE(sig);
    for (const std::string& f : files) write_file(dir, f, "old " + f + "\n");
    char drained[4096];
    while (read(watch, drained, sizeof drained) > 0) {
    }
    const long long began = now_us();
    const pid_t pid = start_attn_tutor(args, dir, null_fd, null_fd);
    long long delay_us;
    if (k % 2 == 0) {  // anywhere in the run
      delay_us = std::uniform_int_distribution<long long>(0, run_us * 11 / 10)(rng);
      const long long left = began + delay_us - now_us();
      if (left > 0) std::this_thread::sleep_for(std::chrono::microseconds(left));
    } else {  // in the writes: after the first temporary appeared
      wait_for_creation(watch, ".attn-tutor-", 20000);
      delay_us = std::uniform_int_distribution<long long>(0, writes_us * 3 / 2)(rng);
      std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
    }
    CAPTURE(delay_us);
    kill(pid, sig);
    const int code = wait_exit_code(pid);
    CHECK((code == 0 || code == 128 + sig));
    killed += code == 128 + sig;
    CHECK_FALSE(stray_temporaries_in(dir));
    int old_count = 0, new_count = 0;
    for (size_t i = 0; i < files.size(); ++i) {
      const std::string text = read_text_file(dir + "/" + files[i]);
      old_count += text == "old " + files[i] + "\n";
      new_count += text == new_text[i];
    }
    CHECK(old_count + new_count == 4);  // no third content: nothing half-written
    CHECK((old_count == 4 || new_count == 4));
    all_old += old_count == 4;
    all_new += new_count == 4;
    mixed += old_count != 4 && new_count != 4;
  }
  close(watch);
  close(null_fd);
  MESSAGE("kills: " << killed << " ended by the signal; all old " << all_old << ", all new " << all_new << ", mixed "
                    << mixed);
  CHECK(killed > 0);
  CHECK(names_in(dir) == "a.json b.py c.ipynb d.html");
}

TEST_CASE("hostile: a signal the caller ignores stays ignored during the writes") {
  // nohup ignores SIGHUP, a shell's background job SIGINT: the command does not start dying of them.
  const std::string dir = temp_dir();
  const int null_fd = open("/dev/null", O_WRONLY);
  const int watch = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  REQUIRE(watch >= 0);
  REQUIRE(inotify_add_watch(watch, dir.c_str(), IN_CREATE) >= 0);
  const pid_t pid = start_attn_tutor({"all", "--json", "a.json", "--html", "b.html", "--color", "never"}, dir, null_fd,
                                     null_fd, {SIGHUP, SIGINT});
  CHECK(wait_for_creation(watch, ".attn-tutor-", 20000));
  kill(pid, SIGHUP);
  kill(pid, SIGINT);
  CHECK(wait_exit_code(pid) == 0);
  CHECK(names_in(dir) == "a.json b.html");
  CHECK(is_export(read_text_file(dir + "/a.json")));
  close(watch);
  close(null_fd);
}
#endif
