// --lang: every annotation and title exists in English and Chinese, every cell has a note, and
// --explain adds a longer explanation to every cell.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "lessons/lesson.h"
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

TEST_CASE("language: every lesson's notes and titles exist in both languages and every cell has one") {
  int checked = 0;
  for (const LessonInfo& lesson : lessons()) {
    CHECK_FALSE(lesson.title_zh.empty());
    CHECK_FALSE(lesson.summary_zh.empty());
    for (LessonOptions opt : variants()) {
      CAPTURE(lesson.name);
      CAPTURE(opt.config_json().dump());
      opt.explain = true;
      for (Lang lang : {Lang::En, Lang::Zh}) {
        opt.lang = lang;
        std::optional<Notebook> nb;
        try {
          nb = lesson.run(opt);
        } catch (const std::exception&) {
          continue;  // a combination this lesson rejects
        }
        CHECK(nb->untranslated() == 0);
        CHECK(nb->cells_without_note().empty());
        CHECK(nb->cells_without_explanation().empty());
        ++checked;
      }
    }
  }
  CHECK(checked >= static_cast<int>(lessons().size()) * 2);
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
