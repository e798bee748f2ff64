// Outputs that fail or are not plain files (issue 14): a failed write is an error, devices and
// symlinks survive as what they were, new files take the umask, and a failing command leaves none
// of its outputs behind.
#include <doctest/doctest.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
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
  const BoundedRun bench = run_bounded("bench --json /dev/null --batch 1 --tokens 4 --d-model 8 --num-heads 2 "
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
      if (n > 0) got.append(buf, static_cast<size_t>(n));
      else if (n == 0 && !got.empty()) break;  // the writer has closed it
      else std::this_thread::sleep_for(std::chrono::milliseconds(5));  // no writer yet, or no data yet
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
