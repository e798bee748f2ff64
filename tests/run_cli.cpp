#include "run_cli.h"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string source_file(const std::string& path) {
  std::ifstream in(std::string(ATTN_SOURCE_DIR) + "/" + path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string temp_dir() {
  std::string templ = "/tmp/attn-tests-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  const char* dir = mkdtemp(buf.data());
  return dir ? dir : "/tmp";
}

namespace {

// Runs the executable with `env` assignments in front (after a neutral locale, so a learner's
// LANG=zh_CN on the test machine does not change the expected English text; an exported COLUMNS does
// not change the text's layout: without it output is 80 columns wide).
CliResult run_with_env(const std::string& env, const std::string& args, const std::string& stdin_text) {
  static const std::string dir = temp_dir();
  static int counter = 0;
  const std::string base = dir + "/run" + std::to_string(counter++);
  const std::string in = base + ".in", out = base + ".out", err = base + ".err";
  std::ofstream(in) << stdin_text;
  const std::string cmd = "LC_ALL= LC_MESSAGES= LANG=C.UTF-8 COLUMNS= LINES= " + env + " '" +
                          std::string(ATTN_TUTOR_EXE) + "' " + args + " <" + in + " >" + out + " 2>" + err;
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text_file(out);
  r.err = read_text_file(err);
  return r;
}

}  // namespace

CliResult run_cli(const std::string& args, const std::string& stdin_text) { return run_with_env("", args, stdin_text); }

CliResult run_cli_env(const std::string& env, const std::string& args) { return run_with_env(env, args, ""); }

CliResult run_cli_wide(const std::string& args) { return run_with_env("COLUMNS=1000", args, ""); }

std::string write_file(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

void expect_usage_error(const std::string& args, const std::string& mentions) {
  CAPTURE(args);
  const CliResult r = run_cli(args);
  CAPTURE(r.err);
  CHECK(r.exit_code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.rfind("attn-tutor: error: ", 0) == 0);
  CHECK(r.err.find(mentions) != std::string::npos);
  CHECK(r.out.empty());
}

void expect_error_text(const std::string& args, const std::string& err) {
  CAPTURE(args);
  const CliResult r = run_cli(args);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == err);
}

void check_contains(const std::string& text, const std::vector<std::string>& pieces) {
  for (const std::string& piece : pieces) CHECK_MESSAGE(text.find(piece) != std::string::npos, "missing: " << piece);
}

void check_lacks(const std::string& text, const std::vector<std::string>& pieces) {
  for (const std::string& piece : pieces) CHECK_MESSAGE(text.find(piece) == std::string::npos, "present: " << piece);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    out.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}
