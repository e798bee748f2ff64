// Outputs that fail or are not plain files (issue 14): a failed write is an error, devices and
// symlinks survive as what they were, new files take the umask, and a failing command leaves none
// of its outputs behind.
#include <doctest/doctest.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/inotify.h>
#endif

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "hostile_run.h"
#include "run_cli.h"

namespace {

// Names in `dir` (without . and ..), sorted, one string.
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

struct stat lstat_of(const std::string& path) {
  struct stat st {};
  REQUIRE(lstat(path.c_str(), &st) == 0);
  return st;
}

std::string link_target(const std::string& path) {
  char buffer[4096];
  const ssize_t n = readlink(path.c_str(), buffer, sizeof buffer);
  return n < 0 ? "" : std::string(buffer, static_cast<size_t>(n));
}

bool is_export(const std::string& text) { return text.rfind("{\"schema\": \"attn-tutor/1\"", 0) == 0; }

}  // namespace

TEST_CASE("hostile: a failed write to standard output is an error") {
  for (const std::string& args : {std::string("mha --json -"), std::string("all --color never"),
                                  std::string("verify mha"), std::string("mha --help"), std::string("")}) {
    CAPTURE(args);
    const BoundedRun full = run_bounded(args, "", 20, "/dev/full");
    CAPTURE(full.err);
    CHECK(full.exit_code == 2);
    CHECK(count_lines(full.err) == 1);
    CHECK(full.err.find("cannot write to standard output (No space left on device)") != std::string::npos);
  }
  const BoundedRun closed = run_bounded("all --color never", "", 20, "&-");
  CAPTURE(closed.err);
  CHECK(closed.exit_code == 2);
  CHECK(closed.err.find("cannot write to standard output") != std::string::npos);
  // With a file output too: the file is not left behind when the text cannot be written.
  const std::string dir = temp_dir();
  const BoundedRun both = run_bounded("mha --json " + dir + "/out.json", "", 20, "/dev/full");
  CHECK(both.exit_code == 2);
  CHECK(names_in(dir).empty());
}

TEST_CASE("hostile: device nodes given as outputs are written, never replaced") {
  if (!is_root()) {
    MESSAGE("skipped: replacing /dev/full or /dev/null needs root, so only root can show it no longer happens");
    return;
  }
  const struct stat full_before = lstat_of("/dev/full"), null_before = lstat_of("/dev/null");
  expect_clean_refusal("mha --json /dev/full", "--json /dev/full: cannot write it (No space left on device)");
  expect_clean_refusal("mha --html /dev/full", "--html /dev/full: cannot write it");
  const BoundedRun to_null = run_bounded("mha --json /dev/null --html /dev/null --color never");
  CHECK(to_null.exit_code == 0);
  const BoundedRun bench = run_bounded(
      "bench --json /dev/null --batch 1 --tokens 4 --d-model 8 --num-heads 2 "
      "--repeats 1 --threads 1");
  CHECK(bench.exit_code == 0);
  for (const auto& device : {std::pair{"/dev/full", full_before}, std::pair{"/dev/null", null_before}}) {
    const char* path = device.first;  // not a structured binding: clang 14 cannot capture one in CAPTURE
    const struct stat& before = device.second;
    CAPTURE(path);
    const struct stat after = lstat_of(path);
    CHECK(S_ISCHR(after.st_mode));
    CHECK(after.st_rdev == before.st_rdev);
    CHECK(after.st_ino == before.st_ino);
  }
  CHECK_FALSE(stray_temporaries_in("/dev"));
}

TEST_CASE("hostile: a FIFO given as an output is written, never replaced") {
  const std::string dir = temp_dir();
  const std::string fifo = dir + "/fifo";
  // Nobody reads it: refused at once instead of blocking.
  expect_clean_refusal("mha --json " + fifo, "no program is reading this FIFO", "mkfifo " + fifo + " && ");
  CHECK(S_ISFIFO(lstat_of(fifo).st_mode));
  // A reader (this test, holding the FIFO open before the command starts, so no head start is
  // needed): it gets the whole export, and the FIFO stays a FIFO.
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  std::string got;
  std::thread drain([&] {
    char buf[65536];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      const ssize_t n = read(reader, buf, sizeof buf);
      if (n > 0)
        got.append(buf, static_cast<size_t>(n));
      else if (n == 0 && !got.empty())
        break;  // the writer has closed it
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(5));  // no writer yet, or no data yet
    }
  });
  const BoundedRun r = run_bounded("mha --json " + fifo + " --color never");
  drain.join();
  close(reader);
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(S_ISFIFO(lstat_of(fifo).st_mode));
  CHECK(is_export(got));
  CHECK_FALSE(stray_temporaries_in(dir));
}

TEST_CASE("hostile: a symlink given as an output keeps being a symlink") {
  const std::string dir = temp_dir();
  write_file(dir, "real.json", "old");
  REQUIRE(symlink("real.json", (dir + "/link.json").c_str()) == 0);
  CHECK(run_cli("mha --json " + dir + "/link.json --color never").exit_code == 0);
  CHECK(S_ISLNK(lstat_of(dir + "/link.json").st_mode));
  CHECK(link_target(dir + "/link.json") == "real.json");
  CHECK(is_export(read_text_file(dir + "/real.json")));
  // A dangling link: its target is created, the link kept.
  REQUIRE(symlink("sub/new.html", (dir + "/dangling.html").c_str()) == 0);
  REQUIRE(mkdir((dir + "/sub").c_str(), 0755) == 0);
  CHECK(run_cli("causal-mask --html " + dir + "/dangling.html --color never").exit_code == 0);
  CHECK(S_ISLNK(lstat_of(dir + "/dangling.html").st_mode));
  CHECK(read_text_file(dir + "/sub/new.html").rfind("<!DOCTYPE html>", 0) == 0);
  // A link to a device: written through, the link kept.
  REQUIRE(symlink("/dev/null", (dir + "/null.json").c_str()) == 0);
  CHECK(run_cli("mha --json " + dir + "/null.json --color never").exit_code == 0);
  CHECK(link_target(dir + "/null.json") == "/dev/null");
  CHECK(names_in(dir) == "dangling.html link.json null.json real.json sub");
}

TEST_CASE("hostile: new outputs take the umask, replaced ones keep their mode") {
  const std::string dir = temp_dir();
  CHECK(run_bounded("mha --json " + dir + "/a.json --html " + dir + "/a.html", "umask 077 && ").exit_code == 0);
  CHECK((lstat_of(dir + "/a.json").st_mode & 0777) == 0600);
  CHECK((lstat_of(dir + "/a.html").st_mode & 0777) == 0600);
  CHECK(run_bounded("mha --json " + dir + "/b.json", "umask 022 && ").exit_code == 0);
  CHECK((lstat_of(dir + "/b.json").st_mode & 0777) == 0644);
  REQUIRE(chmod((dir + "/b.json").c_str(), 0640) == 0);
  CHECK(run_bounded("trainable --json " + dir + "/b.json", "umask 000 && ").exit_code == 0);
  CHECK((lstat_of(dir + "/b.json").st_mode & 0777) == 0640);
  CHECK(read_text_file(dir + "/b.json").find("\"lesson\": \"trainable\"") != std::string::npos);
}

TEST_CASE("hostile: when one output fails, none of the others is left behind") {
  const std::string dir = temp_dir();
  expect_clean_refusal("mha --json " + dir + "/a.json --html " + dir + "/bad/dir/x.html",
                       "--html " + dir + "/bad/dir/x.html: cannot create a file in its directory");
  expect_clean_refusal("mha --html " + dir + "/a.html --json " + dir + "/bad/dir/x.json", "--json");
  expect_clean_refusal("mha --json " + dir + "/same --html " + dir + "/same", "is the same file as --html");
  expect_clean_refusal("mha --json " + dir + "/a.json --html " + dir, "is a directory");
  if (is_root()) {
    expect_clean_refusal("mha --json " + dir + "/a.json --html /dev/full", "--html /dev/full: cannot write it");
  }
  CHECK(names_in(dir).empty());
  // An existing file is kept as it was.
  write_file(dir, "keep.json", "mine");
  expect_clean_refusal("mha --json " + dir + "/keep.json --html " + dir + "/bad/x.html", "--html");
  CHECK(read_text_file(dir + "/keep.json") == "mine");
  CHECK(names_in(dir) == "keep.json");
}

TEST_CASE("hostile: an empty output path is an error, not no output") {
  expect_clean_refusal("mha --json ''", "--json '': the path is empty; give a file name, or - for standard output");
  expect_clean_refusal("all --html ''", "--html '': the path is empty; give a file name");
  expect_clean_refusal("causal-mask --html '' --json -", "--html '': the path is empty");
  expect_clean_refusal("bench --json '' --batch 1 --tokens 4 --d-model 8 --num-heads 2 --repeats 1", "--json ''");
}

TEST_CASE("hostile: a read-only file is not replaced behind its owner's back") {
  if (is_root()) {
    MESSAGE("skipped: root may write any file, so read-only means nothing to it");
    return;
  }
  const std::string dir = temp_dir();
  write_file(dir, "ro.json", "mine");
  REQUIRE(chmod((dir + "/ro.json").c_str(), 0444) == 0);
  expect_clean_refusal("mha --json " + dir + "/ro.json", "is read-only");
  CHECK(read_text_file(dir + "/ro.json") == "mine");
}

// outputs compared by identity with each other and with the inputs, `-` for every output,
// SIGPIPE when the caller ignores it, and signals during the writes.

namespace {

const char* const kSmallInputs = "[[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64]]\n";

// Runs `args` in `dir` (a shell line after cd): the exit code and stderr, checked as one clean refusal.
void expect_refusal_in(const std::string& dir, const std::string& args, const std::vector<std::string>& mentions) {
  CAPTURE(args);
  const BoundedRun r = run_bounded(args, "cd '" + dir + "' && ");
  CAPTURE(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.rfind("attn-tutor: error: ", 0) == 0);
  CHECK(free_of_control_characters(r.err));
  for (const std::string& m : mentions) CHECK(r.err.find(m) != std::string::npos);
}

}  // namespace

TEST_CASE("hostile: an output that is the --inputs file is refused, however it is spelled") {
  const std::string dir = temp_dir();
  REQUIRE(mkdir((dir + "/sub").c_str(), 0755) == 0);
  write_file(dir, "in.json", kSmallInputs);
  REQUIRE(symlink("in.json", (dir + "/link.json").c_str()) == 0);
  REQUIRE(link((dir + "/in.json").c_str(), (dir + "/hard.json").c_str()) == 0);
  const std::string before = names_in(dir);
  for (const std::string output : {"--json", "--py", "--html", "--ipynb"})
    for (const std::string& spelling :
         {std::string("in.json"), std::string("./in.json"), dir + "/in.json", std::string("sub/../in.json"),
          std::string("link.json"), std::string("hard.json")}) {
      expect_refusal_in(dir, "mha --inputs in.json " + output + " " + spelling,
                        {output + " " + spelling + ": is the file that --inputs in.json reads"});
      CHECK(read_text_file(dir + "/in.json") == kSmallInputs);
    }
  // The input named through a link, the output plainly; `all` too; and the other outputs not written.
  expect_refusal_in(dir, "all --inputs link.json --json out.json --html in.json",
                    {"--html in.json", "--inputs link.json"});
  expect_refusal_in(dir, "trainable --inputs hard.json --py in.json", {"--py in.json", "--inputs hard.json"});
  CHECK(names_in(dir) == before);
  CHECK(read_text_file(dir + "/in.json") == kSmallInputs);
  // A different file with the same content is no conflict.
  write_file(dir, "copy.json", kSmallInputs);
  CHECK(run_bounded("mha --inputs in.json --json copy.json", "cd '" + dir + "' && ").exit_code == 0);
  CHECK(is_export(read_text_file(dir + "/copy.json")));
  CHECK(read_text_file(dir + "/in.json") == kSmallInputs);
}

TEST_CASE("hostile: two outputs that are one file are refused, however they are spelled") {
  const std::string dir = temp_dir();
  REQUIRE(mkdir((dir + "/sub").c_str(), 0755) == 0);
  // Not created yet: the directory's identity and the name.
  for (const std::string& other : {std::string("./s.py"), dir + "/s.py", std::string("sub/../s.py")}) {
    expect_refusal_in(dir, "mha --py s.py --ipynb " + other,
                      {"--ipynb " + other + ": is the same file as --py s.py; give each output its own file"});
    CHECK(names_in(dir) == "sub");
  }
  // A dangling symlink to the other output (a new file), a symlink through a linked directory.
  REQUIRE(symlink("s.py", (dir + "/dangling").c_str()) == 0);
  expect_refusal_in(dir, "mha --py s.py --html dangling", {"--html dangling", "--py s.py", "is the same file as"});
  REQUIRE(symlink(".", (dir + "/here").c_str()) == 0);
  expect_refusal_in(dir, "mha --json here/s.py --py s.py", {"--py s.py", "--json here/s.py", "is the same file as"});
  expect_refusal_in(dir, "mha --json dangling --ipynb here/dangling", {"--ipynb here/dangling", "--json dangling"});
  CHECK(names_in(dir) == "dangling here sub");
  // Existing files: the device and inode, through a symlink or a hard link.
  write_file(dir, "s.py", "mine");
  REQUIRE(link((dir + "/s.py").c_str(), (dir + "/hard.py").c_str()) == 0);
  expect_refusal_in(dir, "mha --py s.py --ipynb hard.py", {"--ipynb hard.py: is the same file as --py s.py"});
  expect_refusal_in(dir, "mha --py dangling --json " + dir + "/hard.py",
                    {"--py dangling", "--json " + dir + "/hard.py"});
  expect_refusal_in(dir, "all --html s.py --py ./s.py", {"--py ./s.py", "--html s.py", "is the same file as"});
  CHECK(read_text_file(dir + "/s.py") == "mine");
  CHECK(names_in(dir) == "dangling hard.py here s.py sub");
  // Devices may be shared: /dev/null twice is fine.
  CHECK(run_bounded("mha --py /dev/null --ipynb /dev/null --color never").exit_code == 0);
}

TEST_CASE("hostile: outputs that are directories, special files or unwritable get one clean line") {
  const std::string dir = temp_dir();
  expect_clean_refusal("mha --html " + dir, "is a directory");
  expect_clean_refusal("mha --py /proc/self/mem", "--py /proc/self/mem: cannot create a file in its directory");
  expect_clean_refusal("mha --json /proc/version", "--json /proc/version: ");
  expect_clean_refusal("kv-memory --json /proc/self/mem", "--json /proc/self/mem: ");
  expect_clean_refusal("kv-memory --json ''", "--json '': the path is empty");
  if (!is_root())
    expect_clean_refusal("mha --ipynb /etc/attn-tutor-test.ipynb", "--ipynb /etc/attn-tutor-test.ipynb: ");
  // /dev/stdin: here standard input is /dev/null, a device written where it is.
  CHECK(run_bounded("mha --json /dev/stdin --color never").exit_code == 0);
  CHECK(names_in(dir).empty());
}

TEST_CASE("hostile: an output that is the file or pipe of standard input, output or error is refused") {
  // run_cli gives the command files for all three: replacing one would lose the text or the input.
  for (const std::pair<std::string, std::string>& c : std::vector<std::pair<std::string, std::string>>{
           {"mha --json /dev/stdin", "--json /dev/stdin: is the file or pipe on standard input"},
           {"mha --py /dev/stdout", "--py /dev/stdout: is the file or pipe that standard output goes to"},
           {"mha --html /proc/self/fd/1", "--html /proc/self/fd/1: is the file or pipe that standard output goes to"},
           {"mha --ipynb /dev/stderr", "--ipynb /dev/stderr: is the file or pipe that standard error goes to"},
           {"kv-memory --json /dev/stdout", "--json /dev/stdout: is the file or pipe that standard output goes to"}}) {
    const std::string& args = c.first;  // not a structured binding: clang 14 cannot capture one in CAPTURE
    const std::string& mentions = c.second;
    CAPTURE(args);
    const CliResult r = run_cli(args, "keep me\n");
    CAPTURE(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find(mentions) != std::string::npos);
  }
  // A pipe on standard output (| cat): refused too, not interleaved with the text.
  const std::string dir = temp_dir();
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  const int err_fd = open((dir + "/err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  const pid_t pid = start_attn_tutor({"mha", "--json", "/dev/stdout"}, dir, pipe_fds[1], err_fd);
  close(pipe_fds[1]);
  close(err_fd);
  std::string piped;
  char buffer[65536];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) piped.append(buffer, static_cast<size_t>(n));
  close(pipe_fds[0]);
  CHECK(wait_exit_code(pid) == 2);
  CHECK(piped.empty());
  CHECK(read_text_file(dir + "/err").find("--json /dev/stdout: is the file or pipe that standard output goes to") !=
        std::string::npos);
  // A terminal or /dev/null there is a device: written where it is, as before.
  CHECK(run_bounded("mha --json /dev/stdout --color never", "", 20, "/dev/null").exit_code == 0);
}

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
