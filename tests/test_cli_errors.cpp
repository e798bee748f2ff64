// Bad input: one clear line on stderr, exit code 2, no crash and no partial output file.
#include <doctest/doctest.h>

#include <dirent.h>
#include <string>

#include "run_cli.h"

namespace {

int files_in(const std::string& dir) {
  int n = 0;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) n += std::string(e->d_name) != "." && std::string(e->d_name) != "..";
    closedir(d);
  }
  return n;
}

}  // namespace

TEST_CASE("errors: unknown subcommand and unknown option") {
  expect_usage_error("nosuch", "nosuch");
  expect_usage_error("trainable --bogus", "--bogus");
  expect_usage_error("wrapper --init randn", "--init");
}

TEST_CASE("errors: seeds torch would reject") {
  expect_usage_error("trainable --seed abc", "--seed abc");
  expect_usage_error("trainable --seed 18446744073709551616", "18446744073709551616");
  expect_usage_error("trainable --seed -9223372036854775809", "-9223372036854775809");
  expect_usage_error("trainable --seed 1.5", "--seed 1.5");
}

TEST_CASE("errors: seeds at the ends of torch's range are accepted") {
  CHECK(run_cli("trainable --seed 18446744073709551615").exit_code == 0);
  CHECK(run_cli("trainable --seed -9223372036854775808").exit_code == 0);
  CHECK(run_cli("trainable --seed -1").exit_code == 0);
}

TEST_CASE("errors: bad inputs files") {
  const std::string dir = temp_dir();
  expect_usage_error("trainable --inputs " + dir + "/missing.json", "cannot open");
  expect_usage_error("trainable --inputs " + write_file(dir, "malformed.json", "[[1, 2],"), "not valid JSON");
  expect_usage_error("trainable --inputs " + write_file(dir, "ragged.json", "[[1, 2], [3]]"), "row 2 has 1 numbers");
  expect_usage_error("trainable --inputs " + write_file(dir, "nan.json", "[[1, NaN], [2, 3]]"), "NaN");
  expect_usage_error("trainable --inputs " + write_file(dir, "inf.json", "[[1, Infinity], [2, 3]]"), "Infinity");
  expect_usage_error("trainable --inputs " + write_file(dir, "huge.json", "[[1, 1e39], [2, 3]]"),
                     "not a finite float32");
  expect_usage_error("trainable --inputs " + write_file(dir, "one.json", "[[1, 2]]"), "at least 2 tokens");
  expect_usage_error("trainable --inputs " + write_file(dir, "text.json", "[[1, \"a\"], [2, 3]]"), "not a number");
  expect_usage_error(
      "trainable --inputs " + write_file(dir, "tokens.json", "{\"tokens\": [\"a\"], \"inputs\": [[1], [2]]}"),
      "one token label per row");
  expect_usage_error("trainable --inputs " + write_file(dir, "empty.json", ""), "not valid JSON");
  expect_usage_error("trainable --inputs " + dir, "is a directory");
}

TEST_CASE("errors: --tokens needs at least two words and excludes --inputs") {
  expect_usage_error("trainable --tokens ''", "no words");
  expect_usage_error("trainable --tokens '   '", "no words");
  expect_usage_error("trainable --tokens hello", "only one word");
  expect_usage_error("trainable --tokens 'a b c d e f g h i j k l m n o p q'", "at most 16 tokens");
  expect_usage_error("trainable --tokens 'a b' --d-in 0", "--d-in");
  expect_usage_error("trainable --d-in 4", "--d-in 4: has no effect without --tokens");
  expect_usage_error("mha --context-length 0", "--context-length 0");
  expect_usage_error("mha --num-heads -9223372036854775808", "--num-heads -9223372036854775808");
  expect_usage_error("mha --num-heads 4x", "--num-heads 4x");
  const std::string dir = temp_dir();
  expect_usage_error("trainable --tokens 'a b' --inputs " + write_file(dir, "in.json", "[[1], [2]]"),
                     "use one of them");
}

TEST_CASE("tokens: a sentence runs every lesson and its words label the output") {
  for (const char* lesson : {"naive-scores", "softmax", "trainable", "causal-mask", "dropout", "wrapper", "mha"}) {
    CAPTURE(lesson);
    const CliResult r = run_cli(std::string(lesson) + " --tokens 'the cat sat on the mat' --d-in 4");
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("the cat sat on the mat") != std::string::npos);
  }
  const CliResult r = run_cli("trainable --tokens 'the cat sat on the mat' --json -");
  CHECK(r.out.find("\"tokens\": [\"the\",\"cat\",\"sat\",\"on\",\"the\",\"mat\"]") != std::string::npos);
  CHECK(run_cli("trainable --tokens 'the cat sat'").out.find("x_2 is \"cat\"") != std::string::npos);
}

TEST_CASE("errors: out-of-range numbers") {
  expect_usage_error("trainable --d-out 0", "--d-out");
  expect_usage_error("trainable --d-out x", "--d-out");
  expect_usage_error("mha --num-heads 0", "--num-heads 0");
  expect_usage_error("wrapper --num-heads 0", "--num-heads 0");
  expect_usage_error("mha --d-out 3 --num-heads 2", "--d-out 3: must be divisible by --num-heads 2");
  expect_usage_error("dropout --dropout 1.5", "--dropout 1.5");
  expect_usage_error("dropout --dropout -0.1", "--dropout -0.1");
  expect_usage_error("mha --dropout nan", "--dropout nan");
  // strtod would read these; the rate is written as plain decimal digits
  for (const char* odd : {"' 0.5'", "'0.5 '", "0x.8", "inf", "0.5x", "1e", "e1", ".", "+", "'1,5'"})
    expect_usage_error(std::string("mha --dropout ") + odd, "not a plain decimal number");
  expect_usage_error("mha --context-length 3", "smaller than the 6 input tokens");
  expect_usage_error("dropout --bernoulli intel", "--bernoulli");
  expect_usage_error("verify nosuch", "no such lesson");
}

TEST_CASE("errors: an unwritable --json path leaves no file behind") {
  const std::string dir = temp_dir();
  expect_usage_error("trainable --json " + dir + "/no/such/dir/out.json", "--json");
  expect_usage_error("trainable --json " + dir, "--json");  // a directory
  CHECK(files_in(dir) == 0);
  // An error before the lesson runs writes nothing either.
  expect_usage_error("trainable --d-out 0 --json " + dir + "/out.json", "--d-out");
  CHECK(files_in(dir) == 0);
}

TEST_CASE("json: --json FILE writes the whole document and prints the notebook") {
  const std::string dir = temp_dir();
  const CliResult r = run_cli("trainable --json " + dir + "/out.json");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("In [1]:") != std::string::npos);
  const std::string json = read_text_file(dir + "/out.json");
  CHECK(json.rfind("{\"schema\": \"attn-tutor/1\"", 0) == 0);
  CHECK(json.find("\"name\": \"query_2\"") != std::string::npos);
  CHECK(files_in(dir) == 1);  // no temporary file left
}

TEST_CASE("cli: no subcommand lists the lessons, --version and --help work") {
  const CliResult list = run_cli("");
  CHECK(list.exit_code == 0);
  for (const char* name : {"naive-scores", "softmax", "trainable", "causal-mask", "dropout", "wrapper", "mha"})
    CHECK(list.out.find(name) != std::string::npos);
  const CliResult version = run_cli("--version");
  CHECK(version.exit_code == 0);
  CHECK(version.out.find("attn-tutor") != std::string::npos);
  for (const char* name : {"naive-scores", "softmax", "trainable", "causal-mask", "dropout", "wrapper", "mha"}) {
    const CliResult help = run_cli(std::string(name) + " --help");
    CAPTURE(name);
    CHECK(help.exit_code == 0);
    CHECK(help.out.find("Replays \xC2\xA7"
                        "3.") != std::string::npos);
    CHECK(help.out.find("--seed") != std::string::npos);
  }
}

TEST_CASE("cli: no escape codes into a pipe unless --color always") {
  const CliResult piped = run_cli("trainable");
  CHECK(piped.out.find('\x1b') == std::string::npos);
  const CliResult forced = run_cli("trainable --color always");
  CHECK(forced.out.find('\x1b') != std::string::npos);
  const CliResult no_color = run_cli("trainable --color never");
  CHECK(no_color.out.find('\x1b') == std::string::npos);
}

TEST_CASE("errors: a mistyped subcommand suggests the nearest one") {
  expect_usage_error("msha", "did you mean mha?");
  expect_usage_error("trainble", "did you mean trainable?");
  expect_usage_error("mah", "did you mean mha?");  // two neighbouring letters swapped: one edit
  expect_usage_error("casual-mask", "did you mean causal-mask?");
  expect_usage_error("mha --num-haeds 2", "did you mean --num-heads?");
  const CliResult far = run_cli("zzzzzz");
  CHECK(far.exit_code == 2);
  CHECK(far.err.find("did you mean") == std::string::npos);
}
