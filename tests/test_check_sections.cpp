// Stage "sections" of a traced program's check (features/check/sections.h): the book's sections a
// program computes, each checked against its own lesson, on a made-up chapter and on real PyTorch traces
// of learner programs (tests/learners/c25, c26, m39, m41, traced by tools/gen_trace_fixtures.py).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "features/check/sections.h"
#include "run_cli.h"

namespace {

attn::Binding entry(const std::string& name, std::vector<float> v) {
  attn::Binding b;
  b.name = name;
  const int64_t n = static_cast<int64_t>(v.size());
  b.tensor = attn::Tensor({n}, std::move(v));
  return b;
}

attn::LearnerTensor value(const std::string& name, std::vector<float> v, bool in_call = false) {
  attn::LearnerTensor t;
  t.name = name;
  const int64_t n = static_cast<int64_t>(v.size());
  t.tensor = attn::Tensor({n}, std::move(v));
  t.in_call = in_call;
  return t;
}

// Two lessons: "first" gives inputs, query, scores; "second" inputs, w, scores (other values).
std::vector<attn::Binding> chapter() {
  return {entry("inputs", {1, 2}), entry("query", {2, 2}), entry("scores", {3, 3}),
          entry("inputs", {1, 2}), entry("w", {4, 4}),     entry("scores", {5, 5})};
}
const std::vector<attn::LessonSpan> kSpans = {{"first", 0, 3}, {"second", 3, 6}};

std::string check_trace(const std::string& trace) {
  const CliResult r =
      run_cli_wide("check '" + std::string(ATTN_TEST_FIXTURE_DIR) + "/traces/" + trace + "' --color never");
  CAPTURE(r.out);
  std::string out = r.out;  // a note's wrapped lines joined
  for (size_t at = out.find("\n    "); at != std::string::npos; at = out.find("\n    ", at)) out.replace(at, 5, " ");
  return std::to_string(r.exit_code) + "\n" + out;
}

}  // namespace

TEST_CASE("sections: a name bound in two sections is placed in each, by value first") {
  const std::vector<attn::LearnerTensor> program = {value("inputs", {1, 2}), value("query", {2, 2}),
                                                    value("scores", {3, 3}), value("w", {4, 4}),
                                                    value("scores", {5, 5})};
  const attn::SectionPlan plan = attn::find_sections(chapter(), kSpans, program);
  CHECK(plan.entry == std::vector<int>{0, 1, 2, 4, 5});
  REQUIRE(plan.sections.size() == 2);
  CHECK(plan.sections[0].span == 0);
  CHECK(plan.sections[1].span == 1);
  CHECK(plan.evidenced() == 2);
}

TEST_CASE("sections: a wrong step keeps its section by name and shape, the given input its neighbours'") {
  // The first section's query and scores wrong: its inputs equal, its steps placed by name and shape.
  const std::vector<attn::LearnerTensor> program = {value("inputs", {1, 2}), value("query", {9, 9}),
                                                    value("scores", {8, 8}), value("w", {4, 4}),
                                                    value("scores", {5, 5})};
  const attn::SectionPlan plan = attn::find_sections(chapter(), kSpans, program);
  CHECK(plan.entry == std::vector<int>{0, 1, 2, 4, 5});
  REQUIRE(plan.sections.size() == 2);
  CHECK(plan.sections[0].evidenced());
  CHECK(plan.sections[0].equal_steps == 0);
  // A program of the second lesson only: its inputs go with its steps, one section.
  const attn::SectionPlan second =
      attn::find_sections(chapter(), kSpans, {value("inputs", {1, 2}), value("w", {4, 4}), value("scores", {5, 5})});
  CHECK(second.entry == std::vector<int>{3, 4, 5});
  REQUIRE(second.sections.size() == 1);
  CHECK(second.sections[0].span == 1);
}

TEST_CASE("sections: a call's steps and a recomputed value are no evidence of a section") {
  // The second lesson's scores equal only inside a call the program made: not a section it computes.
  const attn::SectionPlan plan = attn::find_sections(
      chapter(), kSpans, {value("inputs", {1, 2}), value("query", {2, 2}), value("scores", {5, 5}, true)});
  CHECK(plan.evidenced() == 1);
  // The second lesson recomputing the first's scores: equal to them there is the first's value again.
  std::vector<attn::Binding> again = chapter();
  again[5] = entry("scores", {3, 3});
  const attn::SectionPlan recomputed =
      attn::find_sections(again, kSpans, {value("query", {2, 2}), value("scores", {3, 3}), value("scores", {3, 3})});
  CHECK(recomputed.evidenced() == 1);
}

TEST_CASE("check program: §3.3 and §3.4 in one script are two sections, each against its lesson") {
  const std::string out = check_trace("sections-33-34.json");
  CHECK(out.rfind("0\n", 0) == 0);
  CHECK(out.find("naive-scores (§3.3.1, 3.3.2), softmax (§3.3.1, 3.3.2), trainable (§3.4.1, 3.4.2)") !=
        std::string::npos);
  CHECK(out.find("✗") == std::string::npos);
}

TEST_CASE("check program: a wrong §3.3 beside a right §3.4 is a difference at §3.3's query") {
  const std::string out = check_trace("sections-33-query-first.json");
  CHECK(out.rfind("1\n", 0) == 0);
  CHECK(out.find("First difference: query") != std::string::npos);
  CHECK(out.find("(`query = inputs[0]`)") != std::string::npos);
  // §3.3's softmax part holds no value of its lesson: said to be unchecked, not compared.
  CHECK(out.find("not checked: lesson softmax's names (attn_weights_2, context_vec_2)") != std::string::npos);
}

TEST_CASE("check program: §3.4's keys are not compared with §3.5.1's in one script") {
  const std::string right = check_trace("sections-34-to-352.json");
  CHECK(right.rfind("0\n", 0) == 0);
  CHECK(right.find("trainable (§3.4.1, 3.4.2), causal-mask (§3.5.1), dropout (§3.5.2, 3.5.3)") != std::string::npos);
  const std::string triu = check_trace("sections-351-triu.json");
  CHECK(triu.rfind("1\n", 0) == 0);
  CHECK(triu.find("First difference: mask") != std::string::npos);
  CHECK(triu.find("Diagnosis: mask with triu missing diagonal=1") != std::string::npos);
  CHECK(triu.find("✗ keys") == std::string::npos);
}
