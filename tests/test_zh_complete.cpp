// --lang zh: every command speaks Chinese. No English prose line (tests/english_prose.h gives the
// rule) in verify, check, bench, kv-memory, or any lesson with --explain (--heatmap apart: its
// legends are tested with the heatmaps). The step-mode prompt: tests/step_mode_tmux.sh.
#include <doctest/doctest.h>

#include <dirent.h>

#include <algorithm>
#include <string>
#include <vector>

#include "english_prose.h"
#include "lessons/lesson.h"
#include "lessons/ui_text.h"
#include "run_cli.h"

using namespace attn;

namespace {

void expect_chinese(const std::string& args, const CliResult& r, bool lesson = false) {
  CAPTURE(args);
  CHECK(r.exit_code <= 1);
  CHECK(!r.out.empty());
  for (const std::string& line : english_prose_lines(r.out + r.err, lesson)) {
    CAPTURE(line);
    CHECK_MESSAGE(false, "an English line under --lang zh");
  }
}

std::vector<std::string> fixtures() {
  std::vector<std::string> out;
  const std::string dir = std::string(ATTN_TEST_FIXTURE_DIR) + "/mistakes";
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > 5 && name.substr(name.size() - 5) == ".json") out.push_back(dir + "/" + name);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("zh: the English-prose rule flags prose and spares code, tensors and names") {
  for (const char* prose : {"First difference: context_vecs (the first in the order the lesson computes them)",
                            "Recomputed with this mistake, the lesson gives exactly your numbers:",
                            "  Fix: call module.train() before running it", "这一行 and then some English 在中间",
                            "No known mistake gives your numbers. Compare your code",
                            "--dropout 2: a dropout rate is a probability; use a number from 0 (keep all) to 1"}) {
    CAPTURE(prose);
    CHECK(english_prose_lines(prose).size() == 1);
  }
  for (const char* code :
       {">>> return torch.cat([head(x) for head in self.heads], dim=-1)", "...     for head in self.heads:",
        "            return torch.cat([head(x) for head in self.heads], dim=-1)", "tensor([[0.4419, 0.6515]])",
        "✓ trainable  W_query  (3, 2)  最大|差| 0  [3.4.1 节，一位读者在 Intel/Windows 上的运行，--init randn --seed 42]",
        "# 课程的 dropout 率 0.1 与 Transformer 的 softmax 一样", "In [3]:", "  ✓ batch         (2, 6, 3)  = In [1]",
        "# 词元 \"Your journey starts\" 的嵌入", "用 `if mask is None: return x` 跳过", "torch.Size([2, 6, 4])",
        "# [B, T, T] @ [B, T, head_size] = (b, N, N)", "RuntimeError: The size of tensor a (7) must match the size",
        "    context_length = batch.shape[1]  # the number of tokens",
        "导出的张量（--json，默认选项）：attn_weights, example, batch, keys, queries, values, context_vecs"}) {
    CAPTURE(code);
    CHECK(english_prose_lines(code).empty());
  }
  // A quote a note carries over to its next line; in a lesson only notes and headings are prose.
  CHECK(english_prose_lines("# 报错 \"The size of\n# tensor a must match the size\" 之后").empty());
  CHECK(english_prose_lines("# 报错 “The size of\n# tensor a must match the size” 之后").empty());
  CHECK(english_prose_lines("96 bytes for 3 tokens; without the window: 192", true).empty());
  CHECK(english_prose_lines("# a note that is still written in English", true).size() == 1);
  CHECK(english_prose_lines("== 3.5.1  Hiding the future words", true).size() == 1);
}

TEST_CASE("zh: verify, check, bench and kv-memory print no English prose") {
  for (const std::string args : {"verify --lang zh", "verify mha --lang zh", "kv-memory --lang zh",
                                 "kv-memory --lang zh --window 1024 --swa-ratio 5:1 --latent-dim 512",
                                 "bench --batch 1 --tokens 32 --d-model 64 --num-heads 2 --repeats 1 --lang zh"})
    expect_chinese(args, run_cli(args));
  const std::vector<std::string> files = fixtures();
  REQUIRE(files.size() >= 20);
  for (const std::string& f : files) {
    const std::string args = "check '" + f + "' --color never --lang zh";
    expect_chinese(args, run_cli(args));
  }
}

TEST_CASE("zh: every lesson with --explain prints no English prose") {
  for (const LessonInfo& lesson : lessons()) {
    const std::string args = lesson.name + " --lang zh --explain --color never";
    expect_chinese(args, run_cli(args), true);
  }
  for (const std::string args : {"dropout --lang zh --explain --bernoulli mkl --dropout 0.3 --color never",
                                 "wrapper --lang zh --explain --no-reseed --color never",
                                 "trainable --lang zh --explain --init randn --seed 42 --color never",
                                 "course-mha --lang zh --explain --preset post --color never"})
    expect_chinese(args, run_cli(args), true);
  expect_chinese("--lang zh", run_cli("--lang zh"));
}

TEST_CASE("zh: the command line's own errors are Chinese") {
  for (const std::string args :
       {"verify nope", "mha --dropout 2", "mha --seed x", "trainable --d-in 4", "mha --num-heads 65",
        "causal-mask --context-length 3", "causal-mask --context-length 5000", "bench --threads 0",
        "bench --kernels foo", "mha --tokens 'a b' --inputs x.json", "mha --num-head 4", "nope"}) {
    const CliResult r = run_cli(args + " --lang zh");
    CAPTURE(args);
    CAPTURE(r.err);
    CHECK(r.exit_code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(english_prose_lines(r.err).empty());
  }
}

TEST_CASE("zh: every command's --help is Chinese") {
  std::vector<std::string> commands = {"", "all", "verify", "check", "bench", "kv-memory"};
  for (const LessonInfo& lesson : lessons()) commands.push_back(lesson.name);
  for (const std::string& c : commands) {
    const std::string args = c + " --help --lang zh";
    const CliResult r = run_cli(args);
    expect_chinese(args, r);
    CAPTURE(args);
    CHECK(r.out.find("用法") != std::string::npos);
    CHECK(r.out.find("Options:") == std::string::npos);
  }
}

TEST_CASE("zh: every command's text table has both languages and no key twice") {
  std::vector<std::string> keys;
  for (const TextTable* t : ui_tables()) {
    CAPTURE(t->origin());
    CHECK(t->incomplete().empty());
    for (const std::string& k : t->keys()) {
      CAPTURE(k);
      CHECK(std::find(keys.begin(), keys.end(), k) == keys.end());
      keys.push_back(k);
    }
  }
  CHECK(keys.size() > 100);
}
