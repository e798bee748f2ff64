// Hostile input files and values (issue 14): each ends quickly, in little memory, with one clean
// line on stderr and exit 2.
#include <doctest/doctest.h>

#include <fstream>
#include <stdexcept>
#include <string>

#include "core/inputs.h"
#include "core/safe_text.h"
#include "core/tensor.h"
#include "core/usage_error.h"
#include "features/check/learner_export.h"
#include "lessons/ui_text.h"
#include "hostile_run.h"
#include "run_cli.h"

namespace {

std::string write_bytes(const std::string& dir, const std::string& name, const std::string& bytes) {
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string export_with(const std::string& tensor) {
  return "{\"schema\": \"attn-tutor/1\", \"lesson\": \"mha\", \"tensors\": [" + tensor + "]}";
}

// The message parse_inputs throws for `text`, or "" when it parses.
std::string inputs_error(const std::string& text) {
  return usage_error_of([&] { attn::parse_inputs(text, "--inputs x.json"); });
}

}  // namespace

TEST_CASE("hostile: 3,000,000 nested brackets are refused without recursion") {
  const std::string dir = temp_dir();
  const std::string deep = write_bytes(dir, "deep.json", std::string(3000000, '['));
  expect_clean_refusal("check " + deep, "nested more than 64 levels deep at line 1, column 65");
  // --inputs files are smaller still: the size limit stops this one before parsing.
  expect_clean_refusal("mha --inputs " + deep, "larger than 1 MiB");
  const std::string deep_small = write_bytes(dir, "deep-small.json", std::string(900000, '['));
  expect_clean_refusal("mha --inputs " + deep_small, "nested more than 64 levels deep");
  const std::string objects = write_bytes(dir, "objects.json", [] {
    std::string s;
    for (int i = 0; i < 200000; ++i) s += "{\"a\":";
    return s;
  }());
  expect_clean_refusal("check " + objects, "nested more than 64 levels deep");
}

TEST_CASE("hostile: endless files are read only up to the size limit") {
  expect_clean_refusal("mha --inputs /dev/zero", "larger than 1 MiB, the limit for this file");
  expect_clean_refusal("check /dev/zero", "larger than 8 MiB, the limit for this file");
  const std::string dir = temp_dir();
  const std::string big = write_bytes(dir, "big.json", std::string(9 * 1024 * 1024, ' '));
  expect_clean_refusal("check " + big, "larger than 8 MiB");
  // A FIFO fed forever, and a FIFO whose writer never writes.
  expect_clean_refusal("mha --inputs " + dir + "/endless", "larger than 1 MiB",
                       "mkfifo " + dir + "/endless && { yes '[1, 2],' > " + dir + "/endless & } && ");
  expect_clean_refusal("check " + dir + "/silent", "did not reach its end within 10 s",
                       "mkfifo " + dir + "/silent && { sleep 30 > " + dir + "/silent & } && ");
}

TEST_CASE("hostile: a FIFO that ends is read like a file") {
  const std::string dir = temp_dir();
  const BoundedRun r = run_bounded("trainable --inputs " + dir + "/fifo --json -",
                                   "mkfifo " + dir + "/fifo && { printf '[[1, 2], [3, 4]]' > " + dir + "/fifo & } && ");
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("\"inputs\"") != std::string::npos);
}

TEST_CASE("hostile: shapes whose size overflows 64 bits") {
  const int64_t big = int64_t{1} << 62;
  CHECK_THROWS_AS(attn::numel_of({big, big, 4}), std::length_error);
  CHECK_THROWS_AS(attn::contiguous_strides({0, big, big}), std::length_error);
  CHECK_THROWS_AS(attn::Tensor({big, big, 4}, {}), std::length_error);
  CHECK_THROWS_AS(attn::numel_of({big, 2}), std::length_error);  // 2^63 is one more than int64_t holds
  CHECK(attn::numel_of({int64_t{1} << 31, int64_t{1} << 31}) == big);
  CHECK(attn::numel_of({big, 1, 0}) == 0);
  const std::string dir = temp_dir();
  expect_clean_refusal(
      "check " + write_file(dir, "shape.json",
                            export_with("{\"name\": \"a\", \"shape\": [4611686018427387904, 4611686018427387904, 4], "
                                        "\"data\": []}")),
      "is larger than any tensor of the lessons");
  expect_clean_refusal(
      "check " + write_file(dir, "shape0.json",
                            export_with("{\"name\": \"a\", \"shape\": [0, 4611686018427387904, 4611686018427387904], "
                                        "\"data\": []}")),
      "is larger than any tensor of the lessons");
  expect_clean_refusal(
      "check " + write_file(dir, "neg.json", export_with("{\"name\": \"a\", \"shape\": [-1, 2], \"data\": []}")),
      "does not match its data");
}

TEST_CASE("hostile: JSON errors are told in our words with line and column") {
  CHECK(inputs_error("[[1, 1e309], [2, 3]]").find("line 1, column 6: the number '1e309' is too large") !=
        std::string::npos);
  CHECK(inputs_error("[[1, 2],\n [3, 4],]").find("line 2, column 9: unexpected ']'") != std::string::npos);
  CHECK(inputs_error("[[1, 2],\n [3, 4],]").find("no comma before ]") != std::string::npos);
  CHECK(inputs_error("[[1, True], [2, 3]]").find("'True' is not a JSON value") != std::string::npos);
  CHECK(inputs_error("[[1, -Infinity], [2, 3]]").find("'-Infinity' is not a finite number") != std::string::npos);
  CHECK(inputs_error("[[1, 2]] x").find("more text after the end") != std::string::npos);
  CHECK(inputs_error("[\"a").find("no closing quote") != std::string::npos);
  CHECK(inputs_error("[\"a\\q\"]").find("invalid escape") != std::string::npos);
  CHECK(inputs_error("  \n").find("the file is empty") != std::string::npos);
  for (const std::string& text : {std::string("[[1, 1e309]]"), std::string("[[\"\xff\"]]"), std::string("[[1,"),
                                  std::string("{\"a\" 1}"), std::string("[01]"), std::string("[[1, nan]]")}) {
    CAPTURE(text);
    const std::string e = inputs_error(text);
    CHECK(e.find("not valid JSON at line ") != std::string::npos);
    CHECK(e.find("json.exception") == std::string::npos);
    CHECK(e.find("parse error") == std::string::npos);
  }
  const std::string dir = temp_dir();
  expect_clean_refusal("mha --inputs " + write_file(dir, "huge.json", "[[1, 1e309], [2, 3]]"),
                       "the number '1e309' is too large for a float");
  expect_clean_refusal("check " + write_file(dir, "huge.json", export_with("{\"name\": \"a\", \"data\": [1e309]}")),
                       "\"inf\", \"-inf\" and \"nan\"");
  expect_clean_refusal(
      "mha --inputs " + write_bytes(dir, "utf8.json", "{\"tokens\": [\"a\xff\", \"b\"], \"inputs\": [[1], [2]]}"),
      "line 1, column 15: a string holds bytes that are not UTF-8; save the file as UTF-8");
  expect_clean_refusal("check " + write_bytes(dir, "utf8.json", export_with("{\"name\": \"\xc3\x28\", \"data\": [1]}")),
                       "not UTF-8");
}

TEST_CASE("hostile: a syntax error in a file that mentions inf is not reported as inf") {
  const std::string dir = temp_dir();
  const std::string path =
      write_file(dir, "info.json", "{\"tokens\": [\"info\", \"infinity\"], \"inputs\": [[1], [2],]}");
  const CliResult r = run_cli("mha --inputs " + path);
  CAPTURE(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unexpected ']'") != std::string::npos);
  CHECK(r.err.find("not a finite number") == std::string::npos);
  CHECK(r.err.find("contains inf") == std::string::npos);
}

TEST_CASE("hostile: control characters and long values are escaped and shortened in messages") {
  CHECK(attn::echo("a\x1b[31mb\n") == "a\\e[31mb\\n");
  CHECK(attn::echo("\xc2\x9b"
                   "x") == "\\u009bx");
  CHECK(attn::echo(std::string(100, '7')) == std::string(20, '7') + "\u2026" + std::string(19, '7'));
  CHECK(attn::echo("\xe4\xb8\xad\xe6\x96\x87") == "\xe4\xb8\xad\xe6\x96\x87");  // UTF-8 stays as it is
  CHECK(attn::echo("a\xff") == "a\\xff");
  // The bidi controls that reorder the rest of a line are shown as escapes; Arabic and Hebrew letters
  // and the zero-width joiner of an emoji stay; a token may hold them (every display escapes them).
  CHECK(attn::echo("a\xe2\x80\xae"
                   "b\xe2\x81\xa7"
                   "c\xe2\x80\x8f"
                   "d\xd8\x9c") == "a\\u202eb\\u2067c\\u200fd\\u061c");
  CHECK(attn::echo("\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d \xe2\x80\x8d") == "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d \xe2\x80\x8d");
  CHECK(attn::clean_message("--json a\xe2\x80\xae"
                            "b") == "--json a\\u202eb");
  CHECK(
      attn::is_printable_utf8("a\xe2\x80\xae"
                              "b"));
  // An 8 MiB value is shown as a short one is: its escaped ends around "…" (echo cuts it to its ends first).
  const std::string huge = "\x1b" + std::string(8 << 20, 'a') + "\xe4\xb8\xad";
  CHECK(attn::echo(huge) == "\\e" + std::string(19, 'a') + "\u2026" + std::string(18, 'a') + "\xe4\xb8\xad");
  CHECK(attn::echo(std::string(1000, 'b') + "\xff", 10) ==
        std::string(5, 'b') + "\u2026" + std::string(3, 'b') + "\\xff");
  CHECK(attn::clean_message("x " + std::string(100000, '9') + " y").size() < 120);
  CHECK(attn::clean_message(std::string(5000, 'a') + " b").find("\u2026") != std::string::npos);
  // Chinese puts no space after a path: its characters end a word, so the path is kept whole.
  const std::string path = "/tmp/" + std::string(50, 'd') + "/out.json";
  std::string chinese;
  for (int i = 0; i < 30; ++i) chinese += "无法写入";
  CHECK(attn::clean_message("--json " + path + "：" + chinese) == "--json " + path + "：" + chinese);
  CHECK(attn::is_printable_utf8("Your journey"));
  CHECK_FALSE(attn::is_printable_utf8("a\tb"));

  const std::string dir = temp_dir();
  std::ofstream(dir + "/bad\x1b[31mname\n.json") << "[[1, 2],";
  expect_clean_refusal("mha --inputs \"$f\"", "bad\\e[31mname\\n.json",
                       "f=\"$(printf '" + dir + "/bad\\033[31mname\\n.json')\" && ");
  const CliResult seed = run_cli("mha --seed " + std::string(100000, '1'));
  CAPTURE(seed.err);
  CHECK(seed.exit_code == 2);
  CHECK(count_lines(seed.err) == 1);
  CHECK(seed.err.size() < 400);
  CHECK(seed.err.find("\u2026") != std::string::npos);
  expect_clean_refusal("mha --tokens \"$t\"", "the word \"a\\e[2J\" holds a control character",
                       "t=\"$(printf 'a\\033[2J b')\" && ");
  expect_clean_refusal("check " + write_file(dir, "tok.json",
                                             "{\"schema\": \"attn-tutor/1\", \"lesson\": \"mha\", "
                                             "\"tokens\": [\"a\\u001b[2J\"], \"tensors\": [{\"name\": "
                                             "\"a\", \"data\": [1]}]}"),
                       "holds a control character");
}

TEST_CASE("hostile: out of memory is one line naming memory and a fix, never an abort") {
  if (kSanitized) {
    MESSAGE("skipped: AddressSanitizer reserves terabytes of address space, so no ulimit -v lets it start");
    return;
  }
  if (kEmulated) {
    MESSAGE("skipped: under qemu-user ulimit -v limits the emulator, which cannot map its own code buffer");
    return;
  }
  // From the smallest address space the loader maps the program in (below it the loader itself refuses,
  // exit 127) up: static tables, the command line's setup, the lessons and check's parse run out in turn.
  int refused = 0;
  for (int kb = 8000; kb <= 20000; kb += 500) {
    for (const std::string& args : {std::string("mha"), std::string("--lang zh all"), std::string("--version")}) {
      CAPTURE(kb);
      CAPTURE(args);
      const BoundedRun r = run_bounded(args, "ulimit -v " + std::to_string(kb) + " && ");
      CAPTURE(r.err);
      CHECK(r.exit_code != 134);  // SIGABRT: an uncaught std::bad_alloc
      CHECK((r.exit_code == 0 || r.exit_code == 2 || r.exit_code == 127));
      if (r.exit_code == 2) {
        ++refused;
        CHECK(count_lines(r.err) == 1);
        CHECK((r.err.find("out of memory") != std::string::npos || r.err.find("内存不足") != std::string::npos));
        CHECK(r.err.find("ulimit -v unlimited") != std::string::npos);
        CHECK(r.err.find("bad_alloc") == std::string::npos);
      }
    }
  }
  CHECK(refused > 0);
  const std::string dir = temp_dir();
  std::string text = "{\"schema\": \"attn-tutor-trace/1\", \"status\": \"ok\", \"events\": [";
  for (int i = 0; i < 2000000; ++i) text += "0,";
  const std::string path = write_bytes(dir, "values.json", text + "0]}");
  text.clear();
  text.shrink_to_fit();
  const BoundedRun check = run_bounded("check " + path, "ulimit -v 60000 && ");
  CAPTURE(check.err);
  CHECK(check.exit_code == 2);
  CHECK(check.err.find("out of memory: the system gave attn-tutor no more") != std::string::npos);
}
