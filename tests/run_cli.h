#pragma once
// Runs the built attn-tutor and captures what it prints (tests only).
#include <string>
#include <vector>

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `args` is appended to the executable path as shell words (the tests quote what needs quoting).
CliResult run_cli(const std::string& args, const std::string& stdin_text = "");
// The same with environment assignments before the command, e.g. "LANG=zh_CN.UTF-8".
CliResult run_cli_env(const std::string& env, const std::string& args);
// `check`'s report on a page no line fills (COLUMNS=1000): each tensor's verdict on its line, for tests of what
// a report says rather than of how it fits 80 columns (tests/test_output_width.cpp tests that).
CliResult run_cli_wide(const std::string& args);
std::string read_text_file(const std::string& path);
// A file of the source tree (`path` relative to it); the test stops when it cannot be read.
std::string source_file(const std::string& path);
std::string temp_dir();  // a fresh directory for this test run
std::string write_file(const std::string& dir, const std::string& name, const std::string& text);  // its path
int count_lines(const std::string& s);
std::vector<std::string> lines_of(const std::string& text);  // its lines, without their '\n'

// Runs args, expects exit 2, an empty stdout and exactly one stderr line containing `mentions`.
void expect_usage_error(const std::string& args, const std::string& mentions);
// Runs args, expects exit 2, an empty stdout and exactly `err` on stderr.
void expect_error_text(const std::string& args, const std::string& err);
// CHECKs that `text` holds every one of `pieces`, naming each one it lacks.
void check_contains(const std::string& text, const std::vector<std::string>& pieces);
// CHECKs that `text` holds none of `pieces`, naming each one it holds.
void check_lacks(const std::string& text, const std::vector<std::string>& pieces);
