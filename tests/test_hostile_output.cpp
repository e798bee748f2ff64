// Outputs that fail or are not plain files: a failed write is an error, devices and symlinks survive
// as what they were, new files take the umask, a failing command leaves none of its outputs behind, and
// an output that is an input, another output or a standard stream is refused.
// tests/test_hostile_output_signals.cpp: standard output as the page, closed pipes and signals.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "hostile_run.h"
#include "run_cli.h"

namespace {

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

// Outputs compared by identity with each other, with the inputs and with the standard streams.

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

TEST_CASE("hostile: an output past the shell's file-size limit is one line, no temporary, nothing replaced") {
  const std::string dir = temp_dir();
  write_file(dir, "keep.json", "mine");
  // ulimit -f counts 512-byte blocks in sh: 10 KiB, less than any of these outputs.
  const std::string limit = "ulimit -f 20 && ";
  for (const std::string& out :
       {std::string("--json ") + dir + "/keep.json", std::string("--json ") + dir + "/new.json",
        std::string("--html ") + dir + "/new.html", std::string("--py ") + dir + "/new.py"}) {
    CAPTURE(out);
    const BoundedRun r = run_bounded("all " + out, limit);
    CAPTURE(r.err);
    CHECK(r.exit_code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find("(File too large); the output is larger than this shell lets a file grow (ulimit -f)") !=
          std::string::npos);
    CHECK(r.err.find("ulimit -f unlimited") != std::string::npos);
  }
  CHECK(names_in(dir) == "keep.json");
  CHECK(read_text_file(dir + "/keep.json") == "mine");
  // Standard output, as the export and as the text.
  for (const std::string& args : {std::string("all --json -"), std::string("all --color never")}) {
    const BoundedRun r = run_bounded(args, limit, 20, dir + "/stdout.txt");
    CAPTURE(r.err);
    CHECK(r.exit_code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find("cannot write to standard output (File too large): the output is larger") != std::string::npos);
  }
}

TEST_CASE("hostile: an output on a read-only file system says so, not chmod") {
  // A read-only tmpfs in a mount namespace of its own (the machine's mounts are untouched).
  const std::string dir = temp_dir();
  REQUIRE(mkdir((dir + "/ro").c_str(), 0755) == 0);
  const std::string mount = "mount -t tmpfs none " + dir + "/ro && echo mine > " + dir +
                            "/ro/keep.json && mount -o remount,ro " + dir + "/ro && ";
  const std::string probe = "unshare -rm sh -c '" + mount + "touch " + dir + "/ro/x' 2>&1";
  const std::string said = [&] {
    std::string text;
    if (FILE* p = popen(probe.c_str(), "r")) {
      char buffer[512];
      while (fgets(buffer, sizeof buffer, p)) text += buffer;
      pclose(p);
    }
    return text;
  }();
  if (said.find("Read-only file system") == std::string::npos) {
    MESSAGE("skipped: no read-only mount can be made here (unshare -rm: " << said << ")");
    return;
  }
  for (const char* name : {"keep.json", "new.json"}) {
    CAPTURE(name);
    const std::string line = "unshare -rm sh -c '" + mount + "exec \"" + std::string(ATTN_TUTOR_EXE) +
                             "\" mha --json " + dir + "/ro/" + name + "' 2>&1";
    std::string err;
    int status = -1;
    if (FILE* p = popen(line.c_str(), "r")) {
      char buffer[1024];
      while (fgets(buffer, sizeof buffer, p)) err += buffer;
      status = pclose(p);
    }
    CAPTURE(err);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 2);
    CHECK(count_lines(err) == 1);
    CHECK(err.find("ead-only file system") != std::string::npos);  // the reason, or the problem itself
    CHECK(err.find("chmod") == std::string::npos);
    CHECK(err.find("choose a path on a file system mounted writable") != std::string::npos);
  }
}
