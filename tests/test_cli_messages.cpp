// The command line's own errors (issue 13): the option first, then the fix; unknown options with a
// suggestion from the command's own options; options before the lesson; options with no effect.
#include <doctest/doctest.h>

#include <string>

#include "run_cli.h"

namespace {

// Exit 2, nothing on stdout, and one stderr line that starts with "attn-tutor: error: " + `start`.
void expect_error_line(const std::string& args, const std::string& start, const std::string& also = "") {
  CAPTURE(args);
  const CliResult r = run_cli(args);
  CAPTURE(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.rfind("attn-tutor: error: " + start, 0) == 0);
  CHECK(r.err.find(also) != std::string::npos);
}

}  // namespace

TEST_CASE("cli messages: an unknown option comes first, with a suggestion from the command's own options") {
  expect_error_text("mha --num-head 4",
                    "attn-tutor: error: --num-head: unknown option for mha (did you mean --num-heads?); "
                    "run 'attn-tutor mha --help'\n");
  expect_error_line("mha --num-head=4", "--num-head: unknown option for mha (did you mean --num-heads?)");
  expect_error_line("trainable --seeed 3", "--seeed: unknown option for trainable (did you mean --seed?)");
  expect_error_line("bench --thread 2", "--thread: unknown option for bench (did you mean --threads?)",
                    "run 'attn-tutor bench --help'");
  expect_error_line("kv-memory --windw 3", "--windw: unknown option for kv-memory (did you mean --window?)");
  expect_error_line("check --colr never x.json", "--colr: unknown option for check (did you mean --color?)");
  expect_error_line("verify --lesson mha", "--lesson: unknown option for verify", "run 'attn-tutor verify --help'");
  // Far from every option: no guess.
  const CliResult far = run_cli("mha --zzzzzzzz");
  CHECK(far.err.find("did you mean") == std::string::npos);
  CHECK(far.err.rfind("attn-tutor: error: --zzzzzzzz: unknown option for mha", 0) == 0);
}

TEST_CASE("cli messages: a mistyped lesson comes first, with the nearest lesson or command") {
  expect_error_line("msha", "msha: no such lesson or command (did you mean mha?); run 'attn-tutor' to list them");
  expect_error_line("--lang zh msha", "msha：没有这个课程或命令（是不是想写 mha？）");
  expect_error_line("kv-memroy --window 3", "kv-memroy: no such lesson or command (did you mean kv-memory?)");
}

TEST_CASE("cli messages: an option of another lesson says which lessons take it") {
  expect_error_line("trainable --num-heads 4", "--num-heads: trainable does not take it, it would have no effect there",
                    "the lessons that take it: wrapper, mha, course-mha, d2l-mha");
  expect_error_line("wrapper --init randn", "--init: wrapper does not take it", "the lessons that take it: trainable");
  expect_error_line("causal-mask --context-length 9", "--context-length: causal-mask does not take it");
  expect_error_line("causal-mask --bernoulli mkl", "--bernoulli: causal-mask does not take it");
}

TEST_CASE("cli messages: every kind of bad value names the option first") {
  expect_error_line("mha --num-heads", "--num-heads: needs a value; write --num-heads N");  // missing value
  expect_error_line("mha --seed", "--seed: needs a value; write --seed N");
  expect_error_line("mha --num-heads 2 --num-heads 3", "--num-heads: given more than once");
  expect_error_line("mha --d-out 0", "--d-out 0: out of range; use a whole number from 1 to 4096");  // range
  expect_error_line("mha --d-out=5000", "--d-out 5000: out of range");
  expect_error_line("mha --d-out x", "--d-out x: not a whole number; use one from 1 to 4096");  // wrong type
  expect_error_line("mha --seed abc", "--seed abc: not an integer");
  expect_error_line("dropout --dropout 2", "--dropout 2: a dropout rate is a probability");
  expect_error_line("mha --num-heads 4x", "--num-heads 4x: not a whole number");
  expect_error_line("dropout --bernoulli intel", "--bernoulli intel: not one of default, mkl");  // choice
  expect_error_line("kv-memory --dtype fp64", "--dtype fp64: not one of fp32, bf16, fp16, fp8, int8");
  expect_error_line("bench --threads x", "--threads x: not a whole number");  // app/strict_integer.h
  expect_error_line("mha --qkv-bias=maybe", "--qkv-bias: a switch takes no value; write --qkv-bias alone");
  expect_error_line("mha --qkv-bias=false", "--qkv-bias: a switch takes no value");
  expect_error_line("mha stray", "stray: unexpected word after mha");
  expect_error_line("verify mha extra", "extra: unexpected word after verify");
  expect_error_line("check", "FILE: check needs it");
}

TEST_CASE("cli messages: options go after the lesson, in English and Chinese") {
  expect_error_line(
      "--seed 7 mha",
      "--seed: options go after the lesson: write 'attn-tutor mha --seed 7', not 'attn-tutor --seed 7 mha'");
  expect_error_line("--heatmap --seed 7 mha --explain",
                    "--heatmap: options go after the lesson: write 'attn-tutor mha --heatmap --seed 7 --explain'");
  expect_error_line("--seed 7", "--seed: options go after the lesson, e.g. 'attn-tutor mha --seed ...'");
  expect_error_line("--lang zh --seed 7 mha", "--seed：选项要写在课程名之后：应写 'attn-tutor --lang zh mha --seed 7'");
  expect_error_line("--bogus", "--bogus: unknown option for attn-tutor");
  // The program's own --lang still goes before the lesson.
  const CliResult zh = run_cli("--lang zh naive-scores --color never");
  CHECK(zh.exit_code == 0);
  CHECK(zh.out == run_cli("naive-scores --lang zh --color never").out);
  const CliResult help = run_cli("--help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("Options go after the lesson: 'attn-tutor mha --seed 7', not 'attn-tutor --seed 7 mha'") !=
        std::string::npos);
  CHECK(run_cli("--lang zh --help").out.find("选项要写在课程名之后") != std::string::npos);
}

TEST_CASE("cli messages: the errors are Chinese under --lang zh") {
  expect_error_line("mha --num-head 4 --lang zh", "--num-head：mha 没有这个选项（是不是想写 --num-heads？）",
                    "运行 'attn-tutor mha --help' 查看选项");
  expect_error_line("mha --d-out 0 --lang zh", "--d-out 0：超出范围");
  expect_error_line("naive-scores --qkv-bias --lang zh", "--qkv-bias：在 naive-scores 中不起作用");
  expect_error_line("dropout --from 99 --lang zh", "--from 99：dropout 没有这一节或这个单元格");
}

TEST_CASE("cli messages: options with no effect in the combination given are errors naming why") {
  for (const char* lesson : {"naive-scores", "softmax"}) {
    CAPTURE(lesson);
    const std::string l = lesson;
    expect_error_line(l + " --d-out 3", "--d-out: " + l + " does not take it, it would have no effect there");
    expect_error_line(l + " --qkv-bias", "--qkv-bias: no effect in " + l);
    expect_error_line(l + " --seed 5", "--seed: no effect in " + l + ", which draws no random numbers");
    CHECK(run_cli(l + " --seed 5 --tokens 'a b c'").exit_code == 0);  // the seed draws the embeddings
  }
  // The course's and d2l.ai's classes have no d_out: their width is --d-model or --num-hiddens.
  expect_error_line("course-mha --d-out 4", "--d-out: course-mha does not take it, it would have no effect there");
  expect_error_line("d2l-mha --d-out 4", "--d-out: d2l-mha does not take it, it would have no effect there");
  CHECK(run_cli("course-mha --preset post --d-model 64 --color never").exit_code == 0);
  CHECK(run_cli("d2l-mha --num-hiddens 10 --color never").exit_code == 0);
  // --bernoulli where no dropout mask is drawn.
  expect_error_line("wrapper --bernoulli mkl", "--bernoulli: no effect in wrapper at this dropout rate");
  expect_error_line("mha --bernoulli mkl --gpt2", "--bernoulli: no effect in mha");
  expect_error_line("d2l-mha --bernoulli mkl", "--bernoulli: no effect in d2l-mha");
  expect_error_line("course-mha --dropout 0 --bernoulli mkl", "--bernoulli: no effect in course-mha");
  expect_error_line("dropout --dropout 1 --bernoulli default", "--bernoulli: no effect in dropout");
  expect_error_line("all --dropout 0 --bernoulli mkl", "--bernoulli: no effect in all");
  expect_error_line("trainable --d-in 4", "--d-in 4: has no effect without --tokens");
  expect_error_line("mha --from 3 --json -", "--from: no effect with --json -");
  for (const char* to_stdout : {"--json", "--py", "--ipynb"}) {
    const std::string o = to_stdout;
    expect_error_line("mha --from 3 " + o + " -", "--from: no effect with " + o + " -");
    for (const std::string option : {"--heatmap", "--step"})
      expect_error_line("mha " + o + " - " + option, option + ": no effect with " + o + " -, which writes its export");
  }
  expect_error_line("mha --json - --explain", "--explain: no effect with --json -");
  const std::string file = temp_dir() + "/out.json";  // a JSON file leaves the text on stdout
  for (const std::string& args : std::vector<std::string>{"mha --py - --explain", "mha --ipynb - --explain",
                                                          "mha --heatmap --from 3 --json " + file}) {
    CAPTURE(args);  // the script and the notebook hold the explanations
    CHECK(run_cli(args + " --color never").exit_code == 0);
  }
  expect_error_line("kv-memory --swa-ratio 5:1", "--swa-ratio: no effect without --window");
  CHECK(run_cli("kv-memory --swa-ratio 5:1 --window 1024").exit_code == 0);
  // The same options where they change something run.
  for (const char* args :
       {"dropout --bernoulli mkl", "wrapper --bernoulli mkl --dropout 0.5", "mha --dropout 0.2 --bernoulli mkl",
        "course-mha --bernoulli mkl", "d2l-mha --dropout 0.3 --bernoulli mkl", "all --bernoulli mkl",
        "trainable --d-out 3 --qkv-bias --seed 5", "causal-mask --seed 1"}) {
    CAPTURE(args);
    CHECK(run_cli(std::string(args) + " --color never").exit_code == 0);
  }
}
