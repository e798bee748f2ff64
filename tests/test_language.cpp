// --lang: every annotation and title exists in English and Chinese, every cell has a note, and
// --explain adds a longer explanation to every cell.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "lessons/lesson.h"
#include "notebook/prose.h"
#include "notebook/notebook_text.h"
#include "run_cli.h"

using namespace attn;

namespace {

// Variants that reach the cells only some options produce.
std::vector<LessonOptions> variants() {
  std::vector<LessonOptions> all;
  LessonOptions book;
  all.push_back(book);
  LessonOptions bias = book;
  bias.qkv_bias = true;
  all.push_back(bias);
  LessonOptions randn = book;
  randn.init = Init::Randn;
  randn.seed = 42;
  randn.seed_text = "42";
  all.push_back(randn);
  LessonOptions mkl = book;
  mkl.bernoulli = BernoulliPath::Mkl;
  mkl.no_reseed = true;
  mkl.dropout = 0.5;
  all.push_back(mkl);
  for (double p : {0.0, 1.0}) {
    LessonOptions d = book;
    d.dropout = p;
    all.push_back(d);
  }
  LessonOptions gpt2 = book;
  gpt2.gpt2 = true;
  all.push_back(gpt2);
  LessonOptions post = book;
  post.preset = "post";
  all.push_back(post);
  return all;
}

bool has_cjk(const std::string& s) {
  for (size_t i = 0; i + 2 < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0xE4 && c <= 0xE9) return true;  // U+4E00..U+9FFF start with these bytes in UTF-8
  }
  return false;
}

}  // namespace

TEST_CASE("language: every text table has English and Chinese for every key") {
  for (const LessonInfo& lesson : lessons()) {
    CAPTURE(lesson.name);
    const std::vector<std::string> missing = lesson_text(lesson.name).incomplete();
    CHECK_MESSAGE(missing.empty(), missing.front());
    CHECK_FALSE(lesson_text(lesson.name).keys().empty());
  }
  CHECK(lesson_text("common").incomplete().empty());
}

TEST_CASE("language: a notebook recorded once renders in both languages, every key found, every cell noted") {
  int checked = 0;
  for (const LessonInfo& lesson : lessons()) {
    for (const LessonOptions& opt : variants()) {
      CAPTURE(lesson.name);
      CAPTURE(opt.config_json().dump());
      std::optional<Notebook> nb;
      try {
        nb = lesson.run(opt);
      } catch (const std::exception&) {
        continue;  // a combination this lesson rejects
      }
      TextOptions en, zh;
      en.explain = zh.explain = true;
      zh.lang = Lang::Zh;
      const std::string en_text = render_text(*nb, en), zh_text = render_text(*nb, zh);
      CHECK(en_text.find("[no text:") == std::string::npos);
      CHECK(zh_text.find("[no text:") == std::string::npos);
      CHECK(has_cjk(zh_text));
      CHECK(en_text != zh_text);
      // The tensors are the recorded ones, whatever the language: only prose differs.
      TextOptions en_plain;
      CHECK(render_text(*nb, en_plain).size() < en_text.size());
      CHECK_MESSAGE(nb->cells_without_note().empty(), "give every cell of " << lesson.name << " a nb.note(KEY)");
      CHECK_MESSAGE(nb->cells_without_explanation().empty(),
                    "give every cell of " << lesson.name << " a nb.explain(KEY) (--explain)");
      ++checked;
    }
  }
  CHECK(checked >= static_cast<int>(lessons().size()));
}

TEST_CASE("language: --lang zh prints Chinese notes and --lang en none") {
  for (const LessonInfo& lesson : lessons()) {
    CAPTURE(lesson.name);
    const CliResult zh = run_cli(lesson.name + " --lang zh --color never");
    CHECK(zh.exit_code == 0);
    CHECK(has_cjk(zh.out));
    const CliResult en = run_cli(lesson.name + " --lang en --color never");
    CHECK(en.exit_code == 0);
    // English notes: the only CJK text allowed is none at all.
    CHECK_FALSE(has_cjk(en.out));
  }
  CHECK(run_cli("causal-mask --lang zh").out.find("因果注意力") != std::string::npos);
}

TEST_CASE("language: --explain adds text, and LANG picks the default") {
  const CliResult plain = run_cli("trainable --lang en");
  const CliResult explained = run_cli("trainable --lang en --explain");
  CHECK(explained.out.size() > plain.out.size());
  const CliResult env = run_cli_env("LANG=zh_CN.UTF-8", "trainable");
  CHECK(has_cjk(env.out));
  const CliResult env_en = run_cli_env("LANG=C.UTF-8 LC_ALL=", "trainable");
  CHECK_FALSE(has_cjk(env_en.out));
  CHECK(has_cjk(run_cli("trainable --lang zh --help").out));
}
