// The option table end to end: each row that sets a field is bound once (lessons/option_fields.cpp), and
// the command line, the JSON config and `check`'s replay of it agree; a lesson's option rules are facts
// of its row, not branches on its name.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "features/check/replay.h"
#include "lessons/lesson.h"
#include "lessons/option_fields.h"
#include "lessons/options.h"
#include "run_cli.h"

using namespace attn;

TEST_CASE("option fields: every row that changes a lesson, or how it is written, is bound once") {
  for (const OptionRow& row : option_table()) {
    CAPTURE(row.flag);
    const long bound = std::count_if(option_fields().begin(), option_fields().end(),
                                     [&](const OptionField& f) { return f.row == &row; });
    const bool inputs =
        row.flag == "--seed" || row.flag == "--inputs" || row.flag == "--tokens" || row.flag == "--d-in";
    CHECK(bound == (row.display || inputs ? 0 : 1));
  }
}

TEST_CASE("option fields: a value set through the binding is the value the config writes, and replays") {
  const std::vector<std::pair<std::string, nlohmann::json>> values = {
      {"--d-out", 5},       {"--qkv-bias", true},    {"--init", "randn"},    {"--num-heads", 3},
      {"--dropout", 0.25},  {"--context-length", 9}, {"--bernoulli", "mkl"}, {"--no-reseed", true},
      {"--preset", "post"}, {"--d-model", 12},       {"--num-hiddens", 20},  {"--valid-lens", "3,2"},
      {"--gpt2", true},     {"--num-kv-groups", 2},  {"--latent-dim", 7},    {"--window", 4},
      {"--lang", "zh"},     {"--explain", true}};
  REQUIRE(values.size() == option_fields().size());
  LessonOptions opt;
  for (const auto& [flag, value] : values)
    for (const OptionField& f : option_fields())
      if (f.row->flag == flag) f.set(opt, value);
  const nlohmann::json config = opt.config_json();
  for (const auto& entry : values) {  // not a structured binding: clang 14 cannot capture one in CAPTURE
    const std::string& flag = entry.first;
    CAPTURE(flag);
    CHECK(config.at(option_row(flag).config_key()) == entry.second);
  }
  // check's replay reads the same config back into the same settings (the language and --explain are how
  // the page was written: read, not set).
  const LessonOptions back = replay_options(LearnerExport{"test.json", "no-lesson", config, {}, {}});
  nlohmann::json replayed = back.config_json();
  CHECK(replayed.at("lang") == "en");
  CHECK(replayed.at("explain") == false);
  replayed["lang"] = "zh";
  replayed["explain"] = true;
  CHECK(replayed == config);
}

TEST_CASE("option fields: a bound checked by the conversion is the row's, on the command line and in check") {
  const OptionRow& heads = option_row("--num-heads");
  CHECK(heads.min == 1);
  CHECK(heads.max == 64);
  CHECK_FALSE(heads.parser_range());
  CHECK(run_cli("mha --num-heads 65").err.find("--num-heads 65: at most 64 heads here") != std::string::npos);
  const std::string file =
      write_file(temp_dir(), "heads.json",
                 "{\"schema\": \"attn-tutor/1\", \"lesson\": \"mha\", \"config\": {\"num_heads\": 65}, "
                 "\"tensors\": [{\"name\": \"x\", \"data\": [1.0]}]}");
  const CliResult r = run_cli("check " + file);
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err.find("config.num_heads is 65; use a whole number from 1 to 64") != std::string::npos, r.err);
}

TEST_CASE("option rules: facts of the lesson's row") {
  std::vector<std::string> without, eval, chapter;
  for (const LessonInfo& l : lessons()) {
    if (l.without_weights()) without.push_back(l.name);
    if (l.eval_unless_dropout) eval.push_back(l.name);
    if (l.in_chapter()) chapter.push_back(l.name);
  }
  CHECK(without == std::vector<std::string>{"naive-scores", "softmax"});
  CHECK(eval == std::vector<std::string>{"d2l-mha"});
  std::vector<std::string> all;
  for (const LessonInfo* l : lessons_run_by("all")) all.push_back(l->name);
  CHECK(all == chapter);
  CHECK(lessons_run_by("mha").size() == 1);
  CHECK(lessons_run_by("verify").empty());
  CHECK(dropout_rate("d2l-mha", std::nullopt) == 0.0);
  CHECK(dropout_rate("dropout", std::nullopt) == 0.5);
}

namespace {

std::string source_text(const std::string& path) {
  std::ifstream in(std::string(ATTN_SOURCE_DIR) + "/" + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("option rules: no source outside a lesson's folder and the registry branches on a lesson's name") {
  std::string names;
  for (const LessonInfo& l : lessons()) names += (names.empty() ? "" : "|") + l.name;
  names += "|all";
  const std::regex branch("(==|!=) *\"(" + names + ")\"|\"(" + names + ")\" *(==|!=)|lesson_default(_count)?\\(\"(" +
                          names + ")\"");
  for (const char* path : {"app/option_rules.cpp", "app/lesson_command.cpp", "app/lessons_command.cpp", "app/main.cpp",
                           "lessons/lesson.cpp", "lessons/cost_model.cpp", "lessons/option_fields.cpp",
                           "lessons/options.cpp", "features/check/replay.cpp"}) {
    CAPTURE(path);
    const std::string text = source_text(path);
    REQUIRE_FALSE(text.empty());
    std::smatch m;
    CHECK_MESSAGE(!std::regex_search(text, m, branch), m.str());
  }
}
