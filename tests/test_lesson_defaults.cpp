// A lesson's defaults are stated once, in its registry row (else the option table): the lesson computes
// with them, its --help shows them, and giving the stated value changes nothing.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "lessons/lesson.h"
#include "lessons/options.h"
#include "run_cli.h"

using namespace attn;

namespace {

// The tensors of `attn-tutor ARGS --json -`.
nlohmann::json tensors(const std::string& args) {
  const CliResult r = run_cli(args + " --json -");
  REQUIRE_MESSAGE(r.exit_code == 0, args << ": " << r.err);
  return nlohmann::json::parse(r.out).at("tensors");
}

}  // namespace

TEST_CASE("defaults: giving a lesson's stated default changes none of its tensors") {
  int checked = 0;
  for (const LessonInfo& lesson : lessons())
    for (const OptionRow& row : option_table()) {
      if (!lesson.takes(row) || row.flag == "--d-in") continue;  // --d-in: below, with --tokens
      const std::string value = lesson.default_value(row.flag);
      if (value.empty()) continue;
      // d2l.ai's module keeps its 0.5 in eval(): --dropout switches it to train() (its help says so).
      if (lesson.name == "d2l-mha" && row.flag == "--dropout") continue;
      CAPTURE(lesson.name);
      CAPTURE(row.flag);
      CHECK(tensors(lesson.name) == tensors(lesson.name + " " + row.flag + " " + value));
      ++checked;
    }
  CHECK(checked >= 20);
  CHECK(tensors("mha --tokens 'a b c'") ==
        tensors("mha --tokens 'a b c' --d-in " + option_row("--d-in").default_value));
}

TEST_CASE("defaults: a value other than the stated default changes the tensors (the test above can fail)") {
  CHECK(tensors("gqa") != tensors("gqa --d-out 4"));
  CHECK(tensors("dropout") != tensors("dropout --dropout 0.25"));
  CHECK(tensors("d2l-mha") != tensors("d2l-mha --num-heads 4"));
}

TEST_CASE("defaults: each lesson's --help states its own defaults, in English and in Chinese") {
  for (const LessonInfo& lesson : lessons()) {
    CAPTURE(lesson.name);
    const std::string en = run_cli(lesson.name + " --help --lang en").out;
    const std::string zh = run_cli(lesson.name + " --help --lang zh").out;
    for (const OptionRow& row : option_table()) {
      const std::string value = lesson.default_value(row.flag);
      if (!lesson.takes(row) || value.empty()) continue;
      CAPTURE(row.flag);
      CHECK(en.find(row.flag) != std::string::npos);
      CHECK(en.find("(default " + value + ")") != std::string::npos);
      CHECK(zh.find("（默认 " + value + "）") != std::string::npos);
    }
  }
  // The bonus lessons' own sizes, not the chapter's.
  const std::string gqa = run_cli("gqa --help --lang en").out;
  CHECK(gqa.find("per head in wrapper (default 8)") != std::string::npos);
  CHECK(gqa.find("Number of attention heads (default 4)") != std::string::npos);
  CHECK(run_cli("course-mha --help --lang en").out.find("8 with --preset post)") != std::string::npos);
  // The bonus lessons' one-line summaries quote the same values ({1}, {2}, ... of lesson.summary).
  for (const char* name : {"kv-cache", "gqa", "mla", "swa"}) {
    const LessonInfo& lesson = *find_lesson(name);
    CAPTURE(lesson.name);
    const std::string quoted =
        "(default d_out " + lesson.default_value("--d-out") + ", " + lesson.default_value("--num-heads") + " heads";
    CHECK(lesson.summary(Lang::En).find(quoted) != std::string::npos);
    CHECK(lesson.summary(Lang::Zh).find("（默认 d_out " + lesson.default_value("--d-out") + "、") != std::string::npos);
  }
  // all: the chapter lessons' defaults, each named where they differ.
  CHECK(run_cli("all --help --lang en").out.find("(default: dropout 0.5, wrapper 0.0, mha 0.0)") != std::string::npos);
}

TEST_CASE("defaults: course-mha and d2l-mha, which have no d_out, do not take --d-out") {
  for (const char* lesson : {"course-mha", "d2l-mha", "naive-scores", "softmax"}) {
    CAPTURE(lesson);
    const CliResult r = run_cli(std::string(lesson) + " --d-out 4");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--d-out: " + std::string(lesson) + " does not take it") != std::string::npos);
    CHECK(run_cli(std::string(lesson) + " --help").out.find("--d-out") == std::string::npos);
  }
}
