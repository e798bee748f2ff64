// Integer options are read strictly: decimal digits with an optional '-', nothing else. CLI11
// alone read "0x10" as 16 and "" as 0; strtoll took " 16" and "+16".
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lessons/lesson.h"
#include "run_cli.h"

namespace {

// Every integer option of every subcommand, with what it needs besides to reach its value.
std::vector<std::string> integer_options() {
  std::vector<std::string> out;
  for (const attn::OptionRow& row : attn::option_table()) {
    if (row.kind != attn::OptionKind::Integer) continue;
    for (const attn::LessonInfo& l : attn::lessons())
      if (row.common || l.takes(row)) {
        out.push_back(l.name + (row.flag == "--d-in" ? " --tokens 'a b' " : " ") + row.flag);
        break;
      }
  }
  for (const char* flag : {"--batch", "--tokens", "--d-model", "--num-heads", "--threads", "--repeats"})
    out.push_back(std::string("bench ") + flag);
  for (const char* flag : {"--emb-dim", "--num-heads", "--num-layers", "--context-length", "--num-kv-groups",
                           "--batch-size", "--window", "--latent-dim"})
    out.push_back(std::string("kv-memory ") + flag);
  return out;
}

}  // namespace

TEST_CASE("strict integers: every integer option refuses hex, octal prefixes, '+', spaces, empty and overflow") {
  const std::vector<std::string> options = integer_options();
  REQUIRE(options.size() >= 20);
  for (const std::string& option : options) {
    for (const char* bad : {"0x10", "0X10", "''", "' 16'", "'16 '", "+16", "1e3", "1_000", "0o17", "0b1", "16.0",
                            "99999999999999999999", "-99999999999999999999", "'1 6'", "١٦", "-", "--16"}) {
      expect_usage_error(option + " " + std::string(bad), "");
    }
  }
}

TEST_CASE("strict integers: the messages say what is wrong, in both languages") {
  expect_usage_error("kv-memory --context-length 0x10", "--context-length 0x10: not a whole number");
  expect_usage_error("kv-memory --context-length ''", "--context-length : not a whole number");
  expect_usage_error("bench --threads +1", "--threads +1: not a whole number");
  expect_usage_error("mha --d-out 0x10", "--d-out 0x10: not a whole number; use one from 1 to 4096");
  expect_usage_error("mha --d-out +4", "--d-out +4: not a whole number; use one from 1 to 4096");
  expect_usage_error("mha --num-heads ' 2'", "--num-heads  2: not a whole number");
  expect_usage_error("mha --context-length 99999999999999999999",
                     "--context-length 99999999999999999999: too many digits");
  expect_usage_error("kv-memory --batch-size -99999999999999999999",
                     "--batch-size -99999999999999999999: too many digits");
  expect_usage_error("mha --d-out 99999999999999999999",
                     "--d-out 99999999999999999999: out of range; use a whole number from 1 to 4096");
  expect_usage_error("mha --d-out -5", "--d-out -5: out of range");
  const CliResult zh = run_cli("kv-memory --context-length 0x10 --lang zh");
  CHECK(zh.exit_code == 2);
  CHECK(zh.err.find("不是整数") != std::string::npos);
  CHECK(run_cli("bench --repeats 99999999999999999999 --lang zh").err.find("位数太多") != std::string::npos);
}

TEST_CASE("strict integers: decimal digits still read as decimal") {
  // Leading zeros are decimal, as Python's int("016") reads them: the same estimate as 16.
  const CliResult zero = run_cli("kv-memory --context-length 016 --json -");
  const CliResult plain = run_cli("kv-memory --context-length 16 --json -");
  CHECK(zero.exit_code == 0);
  CHECK(zero.out == plain.out);
  CHECK(run_cli("kv-memory --context-length=16 --json -").out == plain.out);
  const CliResult lesson = run_cli("mha --d-out 04 --json -");
  CHECK(lesson.exit_code == 0);
  CHECK(lesson.out == run_cli("mha --d-out 4 --json -").out);
  CHECK(run_cli("mha --d-out 4 --num-heads 2 --context-length 6 --color never").exit_code == 0);
  CHECK(run_cli("mha --d-out 4 --num-heads 02 --context-length 010 --json -").out ==
        run_cli("mha --d-out 4 --num-heads 2 --context-length 10 --json -").out);
  CHECK(run_cli("bench --threads 01 --tokens 064 --d-model 064 --num-heads 02 --batch 01 --repeats 01 --json -")
            .exit_code == 0);
}
