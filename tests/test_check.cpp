// attn-tutor check: learners' exports made with real PyTorch (tools/gen_mistake_fixtures.py), one per
// known mistake and one correct per lesson, and the tool's own exports.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "core/ops_shape.h"
#include "features/check/check.h"
#include "features/check/check_report.h"
#include "features/check/learner_export.h"
#include "lessons/lesson.h"
#include "run_cli.h"
#include "core/usage_error.h"

namespace {

const std::string kMistakes = std::string(ATTN_TEST_FIXTURE_DIR) + "/mistakes/";

bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

CliResult check(const std::string& path) { return run_cli_wide("check '" + path + "' --color never"); }

// The report's text with its wrapped lines joined.
std::string flat(std::string text) {
  for (size_t at = text.find("\n  "); at != std::string::npos; at = text.find("\n  ", at)) text.replace(at, 3, " ");
  for (char& c : text)
    if (c == '\n') c = ' ';
  return text;
}

}  // namespace

TEST_CASE("check: every known mistake has a fixture") {
  const std::vector<attn::Mistake>& mistakes = attn::known_mistakes();
  CHECK(mistakes.size() == 36);
  for (const attn::Mistake& m : mistakes) {
    INFO(m.id);
    CHECK(file_exists(kMistakes + m.fixture() + ".json"));
  }
}

TEST_CASE("check: each mistake's export gets its diagnosis") {
  for (const attn::Mistake& m : attn::known_mistakes()) {
    INFO(m.id);
    const CliResult r = check(kMistakes + m.id + ".json");
    CHECK(r.exit_code == 1);
    CHECK(r.err.empty());
    check_contains(r.out, {"First difference: ", "Diagnosis: " + m.title(attn::Lang::En) + "\n", "Fix: "});
    // Exactly one diagnosis, and not another mistake's.
    for (const attn::Mistake& other : attn::known_mistakes())
      if (other.id != m.id) CHECK(r.out.find("Diagnosis: " + other.title(attn::Lang::En) + "\n") == std::string::npos);
  }
}

TEST_CASE("check: a second fixture of a diagnosis, d2l's torch.rand dropout divided by p") {
  const CliResult r = check(kMistakes + "dropout-scale-rand.json");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("Diagnosis: dropout scaled by 1/p\n") != std::string::npos);
  CHECK(flat(r.out).find("mask = (torch.rand(x.shape) > p), x * mask / 0.2.") != std::string::npos);
}

TEST_CASE("check: correct programs written another way match") {
  // d2l's in-place masked_softmax, attn_weights saved before dropout, reshape for contiguous().view,
  // the course's == 0 on a tril buffer, one name exported twice
  for (const char* way :
       {"inplace-softmax", "before-dropout", "reshape", "tril-eq0", "both-attn-weights", "mask-visible", "finfo-min"}) {
    INFO(way);
    const CliResult r = check(kMistakes + "way-" + way + ".json");
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("checked tensors match the lesson.") != std::string::npos);
  }
  const CliResult r = check(kMistakes + "way-before-dropout.json");
  CHECK(r.out.find("taken before `attn_weights = self.dropout(attn_weights)` (what you exported after it matches)") !=
        std::string::npos);
}

TEST_CASE("check: an earlier value with a differing successor is stale, not a match") {
  const CliResult r = check(kMistakes + "mask-discarded.json");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("\u2717 attn_scores   (2, 2, 6, 6)  differs from In [9]: it is still its value before "
                   "`attn_scores.masked_fill_(mask_bool, -torch.inf)`") != std::string::npos);
  CHECK(r.out.find("First difference: attn_scores (") != std::string::npos);
  CHECK(flat(r.out).find("that step never reached your attn_scores") != std::string::npos);
  CHECK(r.out.find("Diagnosis: masked_fill's result discarded\n") != std::string::npos);
  CHECK(r.out.find("Possible diagnosis") == std::string::npos);
}

TEST_CASE("check: an earlier value with nothing after it is a match that says where it was taken") {
  nlohmann::json doc = nlohmann::json::parse(read_text_file(kMistakes + "way-before-dropout.json"));
  REQUIRE(doc["tensors"][0]["name"] == "attn_weights");
  doc["tensors"].erase(1);  // no context_vecs after it: nothing contradicts it
  const std::string dir = temp_dir();
  const CliResult r = check(write_file(dir, "alone.json", doc.dump()));
  CHECK(r.exit_code == 0);
  CHECK(r.out.find(
            "\u2713 attn_weights  (2, 2, 6, 6)  = In [4], its value after `attn_weights = torch.softmax(attn_scores / "
            "keys.shape[-1]**0.5, dim=-1)`, taken before `attn_weights = self.dropout(attn_weights)` (nothing you "
            "exported after it says otherwise)") != std::string::npos);
  CHECK(r.out.find("Diagnosis") == std::string::npos);
  // Saying where it was taken gives the plain match.
  doc["tensors"][0]["cell"] = 4;
  const CliResult hinted = check(write_file(dir, "hinted.json", doc.dump()));
  CHECK(hinted.exit_code == 0);
  // With a differing tensor after it, it is stale: a ✗ with the reason.
  nlohmann::json stale = nlohmann::json::parse(read_text_file(kMistakes + "way-before-dropout.json"));
  stale["tensors"][1]["data"][0][0][0] = 9.0;  // context_vecs off in one value
  const CliResult s = check(write_file(dir, "stale.json", stale.dump()));
  CHECK(s.exit_code == 1);
  CHECK(s.out.find("\u2717 attn_weights") != std::string::npos);
}

TEST_CASE("check: the first difference is the first in compute order, not in the file") {
  nlohmann::json doc = nlohmann::json::parse(read_text_file(kMistakes + "triu-diagonal.json"));
  nlohmann::json reversed = nlohmann::json::array();
  for (auto t = doc["tensors"].rbegin(); t != doc["tensors"].rend(); ++t) reversed.push_back(*t);
  doc["tensors"] = reversed;
  REQUIRE(doc["tensors"][0]["name"] == "context_vec");
  const CliResult r = check(write_file(temp_dir(), "reversed.json", doc.dump()));
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("First difference: mask (") != std::string::npos);
  CHECK(r.out.find("Diagnosis: mask with triu missing diagonal=1\n") != std::string::npos);
}

TEST_CASE("check: when several known mistakes give the numbers, each is offered, none asserted") {
  const attn::Notebook nb = attn::find_lesson("causal-mask")->run(attn::LessonOptions{});
  const attn::Tensor changed = attn::ones({6, 6});
  attn::LearnerExport ex;
  ex.source = "several.json";
  ex.lesson = "causal-mask";
  ex.tensors.push_back({"mask", changed, std::nullopt, std::nullopt, false, std::nullopt});
  auto what_ifs = [&](const attn::CheckReport&) {
    std::vector<attn::Binding> tl = nb.timeline();
    for (attn::Binding& b : tl)
      if (b.name == "mask") b.tensor = changed;
    return std::vector<attn::WhatIf>{{attn::MistakeId::TrilMask, "one", tl, {}},
                                     {attn::MistakeId::TriuDiagonal, "two", tl, {}},
                                     {attn::MistakeId::TrilMask, "three", tl, {}}};
  };
  const attn::CheckReport r = attn::check_export(ex, nb, what_ifs);
  REQUIRE(r.diagnoses.size() == 2);
  const std::string text = attn::render_report(r, false);
  check_contains(text, {"2 known mistakes give exactly your numbers; one of them is yours:",
                        "Possible diagnosis: tril where masked_fill needs the upper triangle\n",
                        "Possible diagnosis: mask with triu missing diagonal=1\n"});
  CHECK(text.find("\nDiagnosis: ") == std::string::npos);
}

TEST_CASE("check: a correct export of every lesson passes") {
  for (const attn::LessonInfo& lesson : attn::lessons()) {
    INFO(lesson.name);
    const CliResult r = check(kMistakes + "correct-" + lesson.name + ".json");
    CHECK_MESSAGE(r.exit_code == 0,
                  "tests/fixtures/mistakes/correct-"
                      << lesson.name
                      << ".json: real PyTorch's export of the "
                         "lesson (tools/gen_mistake_fixtures.py, or tools/gen_bonus_fixtures.py --exports)");
    CHECK(r.out.find("checked tensors match the lesson.") != std::string::npos);
    CHECK(r.out.find("\u2717") == std::string::npos);
  }
}

TEST_CASE("check: the stale attn_scores export is a reader's run on Intel/Windows") {
  const CliResult r = check(kMistakes + "stale-scores.json");
  CHECK(r.exit_code == 1);
  check_contains(r.out, {"tensor([[[0.4772, 0.1063, 0.4566, 0.2729],", "[0.5668, 0.2819, 0.5771, 0.3006],",
                         "[0.5093, 0.3362, 0.5375, 0.2530]]])",
                         "Diagnosis: scores that do not come from the module's own queries and keys", "attn_socres",
                         "a reader's run on Intel/Windows"});  // with the generator carried over
}

TEST_CASE("check: the report shows both tensors and where they differ") {
  const CliResult r = run_cli("check '" + kMistakes + "triu-diagonal.json' --color never");  // at 80 columns
  check_contains(r.out, {"  \u2713 attn_scores", "  \u2717 mask ",
                         "First difference: mask (the first in the order the lesson computes them)\n"});
  // the whole cell the lesson's value comes from
  CHECK(r.out.find("In [6]:\n    mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)\n"
                   "    masked = attn_scores.masked_fill(mask.bool(), -torch.inf)\n") != std::string::npos);
  check_contains(
      r.out, {"yours:", "attn-tutor:", "tensor([[1., 1., 1., 1., 1., 1.],     tensor([[0., 1., 1., 1., 1., 1.],",
              "6 of 36 values differ (max |diff| 1); the first at [0, 0]: yours 1.0,\n  attn-tutor 0.0",  // 80 columns
              "    x . . . . .\n    . x . . . .\n", "3 match, 4 differ."});
}

TEST_CASE("check: a difference no known mistake explains") {
  nlohmann::json doc = nlohmann::json::parse(read_text_file(kMistakes + "correct-wrapper.json"));
  REQUIRE(doc["tensors"][1]["name"] == "context_vecs");
  doc["tensors"][1]["data"][0][0][0] = 9.5;
  const CliResult r = check(write_file(temp_dir(), "odd.json", doc.dump()));
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("1 of 48 values differ (max |diff| 9.952); the first at [0, 0, 0]: yours 9.5") != std::string::npos);
  CHECK(r.out.find("No known mistake gives your numbers.") != std::string::npos);
}

TEST_CASE("check: the tool's own exports pass, options and all") {
  const std::string dir = temp_dir();
  const std::string inputs = write_file(
      dir, "in.json", "{\"tokens\": [\"a\", \"b\", \"c\"], \"inputs\": [[0.1, 0.2], [0.3, -0.4], [0.001, 5]]}");
  for (const std::string& args :
       {std::string("naive-scores"), std::string("softmax --inputs ") + inputs,
        std::string("trainable --init randn --seed 42"), std::string("causal-mask --tokens 'the cat sat' --d-in 4"),
        std::string("dropout --dropout 0.3 --bernoulli mkl"), std::string("wrapper --no-reseed --num-heads 3"),
        std::string("mha --seed -5 --d-out 4 --qkv-bias --dropout 0.1 --inputs ") + inputs, std::string("course-mha"),
        std::string("d2l-mha --num-hiddens 10")}) {
    INFO(args);
    const std::string path = dir + "/own.json";
    REQUIRE(run_cli(args + " --json " + path).exit_code == 0);
    const CliResult r = check(path);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("checked tensors match the lesson.") != std::string::npos);
  }
}

TEST_CASE("check: bad input is one line and exit 2") {
  const std::string dir = temp_dir();
  expect_usage_error("check " + dir + "/missing.json", "missing.json");
  expect_usage_error("check " + write_file(dir, "bad.json", "{\"schema\": "), "not valid JSON");
  expect_usage_error("check " + write_file(dir, "other.json", "{\"schema\": \"other/2\", \"lesson\": \"mha\"}"),
                     "attn-tutor/1");
  expect_usage_error("check " + write_file(dir, "noschema.json", "[1, 2]"), "schema");
  const std::string tensor = "\"tensors\": [{\"name\": \"context_vecs\", \"shape\": [2], \"data\": [1.0, 2.0]}]";
  expect_usage_error("check " + write_file(dir, "lesson.json",
                                           "{\"schema\": \"attn-tutor/1\", \"lesson\": \"chapter4\", " + tensor + "}"),
                     "chapter4");
  expect_usage_error("check " + write_file(dir, "names.json",
                                           "{\"schema\": \"attn-tutor/1\", \"lesson\": \"mha\", "
                                           "\"tensors\": [{\"name\": \"my_output\", \"data\": [1.0]}]}"),
                     "my_output");
  expect_usage_error("check " + write_file(dir, "ragged.json",
                                           "{\"schema\": \"attn-tutor/1\", \"lesson\": \"mha\", "
                                           "\"tensors\": [{\"name\": \"batch\", \"data\": [[1.0], [2.0, 3.0]]}]}"),
                     "batch");
  expect_usage_error(
      "check " + write_file(dir, "shape.json",
                            "{\"schema\": \"attn-tutor/1\", \"lesson\": \"mha\", "
                            "\"tensors\": [{\"name\": \"batch\", \"shape\": [3], \"data\": [1.0, 2.0]}]}"),
      "shape");
  expect_usage_error("check " + write_file(dir, "config.json",
                                           "{\"schema\": \"attn-tutor/1\", \"lesson\": \"mha\", "
                                           "\"config\": {\"d_out\": 0}, " +
                                               tensor + "}"),
                     "config.d_out");
  expect_usage_error("check " + write_file(dir, "heads.json",
                                           "{\"schema\": \"attn-tutor/1\", \"lesson\": \"mha\", "
                                           "\"config\": {\"d_out\": 3, \"num_heads\": 2}, " +
                                               tensor + "}"),
                     "divisible");
  expect_usage_error("check " + write_file(dir, "file.json",
                                           "{\"schema\": \"attn-tutor/1\", \"lesson\": \"mha\", "
                                           "\"config\": {\"inputs\": \"mine.json\"}, " +
                                               tensor + "}"),
                     "inputs_data");
  expect_usage_error("check", "FILE");
}

TEST_CASE("check: an unknown name is listed, not failed") {
  nlohmann::json doc = nlohmann::json::parse(read_text_file(kMistakes + "correct-wrapper.json"));
  doc["tensors"].push_back({{"name", "my_debug"}, {"shape", nlohmann::json::array()}, {"data", 1.5}});
  const CliResult r = check(write_file(temp_dir(), "extra.json", doc.dump()));
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("? my_debug") != std::string::npos);
  CHECK(r.out.find("1 not checked") != std::string::npos);
}

TEST_CASE("check: --color always paints the verdicts") {
  const CliResult r = run_cli_wide("check '" + kMistakes + "head-order.json' --color always");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("\033[31m\u2717\033[0m") != std::string::npos);
  CHECK(r.out.find("\033[32m\u2713\033[0m") != std::string::npos);
}

TEST_CASE("check: parse_export reads the schema's values") {
  const attn::LearnerExport ex = attn::parse_export(
      "{\"schema\": \"attn-tutor/1\", \"lesson\": \"causal-mask\", \"config\": {\"seed\": null}, \"tokens\": [\"a\"], "
      "\"tensors\": [{\"name\": \"masked\", \"shape\": [1, 3], \"dtype\": \"float32\", \"data\": [[0.5, \"-inf\", "
      "\"nan\"]]},"
      " {\"name\": \"mask_bool\", \"shape\": [2], \"dtype\": \"bool\", \"data\": [true, false]},"
      " {\"name\": \"d_k\", \"shape\": [], \"dtype\": \"int64\", \"data\": 2},"
      " {\"name\": \"empty\", \"shape\": [0, 3], \"data\": []}]}",
      "x.json");
  REQUIRE(ex.tensors.size() == 4);
  CHECK(ex.tensors[0].tensor.shape() == attn::Shape{1, 3});
  const std::vector<float> v = ex.tensors[0].tensor.values();
  CHECK(v[0] == 0.5f);
  CHECK(std::isinf(v[1]));
  CHECK(v[1] < 0);
  CHECK(std::isnan(v[2]));
  CHECK(ex.tensors[1].tensor.dtype() == attn::DType::Bool);
  CHECK(ex.tensors[1].tensor.values() == std::vector<float>{1.0f, 0.0f});
  CHECK(ex.tensors[2].tensor.dim() == 0);
  CHECK(ex.tensors[2].tensor.item() == 2.0f);
  CHECK(ex.tensors[3].tensor.shape() == attn::Shape{0, 3});
  CHECK_THROWS_AS(attn::parse_export("{\"schema\": \"attn-tutor/1\", \"lesson\": \"mha\", \"tensors\": []}", "x"),
                  attn::UsageError);
  const attn::LearnerExport hinted = attn::parse_export(
      "{\"schema\": \"attn-tutor/1\", \"lesson\": \"mha\", \"tensors\": [{\"name\": \"a\", \"cell\": 7, \"data\": "
      "1.0}]}",
      "x");
  REQUIRE(hinted.tensors[0].cell);
  CHECK(*hinted.tensors[0].cell == 7);
  CHECK_THROWS_AS(attn::parse_export("{\"schema\": \"attn-tutor/1\", \"lesson\": \"mha\", \"tensors\": "
                                     "[{\"name\": \"a\", \"cell\": \"7\", \"data\": 1.0}]}",
                                     "x"),
                  attn::UsageError);
}

TEST_CASE("check: values agree within 1e-5, NaN with NaN, infinities exactly") {
  CHECK(attn::values_close(0.5f, 0.5f + 9e-6f));
  CHECK_FALSE(attn::values_close(0.5f, 0.5f + 2e-5f));
  CHECK(attn::values_close(1000.0f, 1000.005f));  // relative above 1
  CHECK(attn::values_close(std::nanf(""), std::nanf("")));
  CHECK_FALSE(attn::values_close(std::nanf(""), 0.0f));
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(attn::values_close(-inf, -inf));
  CHECK_FALSE(attn::values_close(inf, -inf));
  CHECK_FALSE(attn::values_close(inf, 3.0e38f));
}

TEST_CASE("check: a diagnosis that would change a later matching tensor is not named") {
  // queries = W_key(inputs) with the layers in the book's order: "layers created in another order" gives
  // those queries but would change the keys, which match; the queries are the lesson's keys, and it says so.
  const CliResult r = check(kMistakes + "copy-paste-queries.json");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("First difference: queries") != std::string::npos);
  CHECK(r.out.find("Diagnosis:") == std::string::npos);
  CHECK(flat(r.out).find("Your queries has exactly the values of the lesson's keys (`keys = sa_v2.W_key(inputs)`, "
                         "In [2])") != std::string::npos);
}
