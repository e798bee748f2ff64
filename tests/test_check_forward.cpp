// Stage "forward" of a traced program's check (features/check/forward_check.h): the steps of
// SelfAttention_v1's and _v2's forwards, which the trainable lesson runs inside a printed output, are
// compared with the program's calls of `forward`.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "features/check/forward_check.h"
#include "lessons/lesson.h"
#include "run_cli.h"

namespace {

attn::Notebook trainable() { return attn::find_lesson("trainable")->run(attn::LessonOptions{}); }

std::string check_trace(const std::string& trace) {
  const CliResult r =
      run_cli_wide("check '" + std::string(ATTN_TEST_FIXTURE_DIR) + "/traces/" + trace + "' --color never");
  CAPTURE(r.out);
  return std::to_string(r.exit_code) + "\n" + r.out;
}

}  // namespace

TEST_CASE("the trainable lesson's forwards are sa_v1's, sa_v2's and the copied sa_v1's, named by their outputs") {
  const attn::Notebook nb = trainable();
  const std::vector<attn::LessonForward> forwards = attn::lesson_forwards(nb.timeline(), nb.inside_values());
  REQUIRE(forwards.size() == 3);
  for (const attn::LessonForward& f : forwards) {
    CHECK(f.output.find("(inputs)") != std::string::npos);
    REQUIRE(f.steps.size() >= 3);
    CHECK(f.steps.front().name == "keys");
  }
  CHECK(forwards[0].output == "sa_v1(inputs)");
  CHECK(forwards[1].output == "sa_v2(inputs)");
  CHECK(forwards[0].cell < forwards[1].cell);
}

TEST_CASE(
    "a forward's steps go into the timeline just before the cell that shows its output, each named STEP in OUTPUT") {
  const attn::Notebook nb = trainable();
  const std::vector<attn::LessonForward> forwards = attn::lesson_forwards(nb.timeline(), nb.inside_values());
  std::vector<int> moved;
  const std::vector<attn::Binding> merged = attn::with_forward_steps(nb.timeline(), forwards, &moved);
  size_t steps = 0;
  for (const attn::LessonForward& f : forwards) steps += f.steps.size();
  REQUIRE(merged.size() == nb.timeline().size() + steps);
  REQUIRE(moved.size() == nb.timeline().size());
  for (size_t i = 0; i < moved.size(); ++i) CHECK(merged[moved[i]].name == nb.timeline()[i].name);
  int weights = -1, output = -1;  // sa_v2's attention weights come before the output its cell shows
  for (size_t i = 0; i < merged.size(); ++i) {
    if (merged[i].name == "attn_weights in sa_v2(inputs)" && weights < 0) weights = static_cast<int>(i);
    if (merged[i].name == "sa_v2(inputs)" && output < 0) output = static_cast<int>(i);
  }
  REQUIRE(weights >= 0);
  REQUIRE(output >= 0);
  CHECK(weights < output);
  CHECK(merged[weights].tensor.values() == forwards[1].steps[4].tensor.values());
}

TEST_CASE("without forwards the timeline is unchanged") {
  const attn::Notebook nb = trainable();
  const std::vector<attn::Binding> merged = attn::with_forward_steps(nb.timeline(), {});
  REQUIRE(merged.size() == nb.timeline().size());
  for (size_t i = 0; i < merged.size(); ++i) CHECK(merged[i].name == nb.timeline()[i].name);
}

TEST_CASE("the book's two classes traced: every step of both forwards is checked and matches") {
  const std::string out = check_trace("sa-classes-book.json");
  CHECK(out.rfind("0\n", 0) == 0);
  for (const char* step :
       {"keys in sa_v1(inputs)", "attn_weights in sa_v1(inputs)", "context_vec in sa_v1(inputs)",
        "attn_scores in sa_v2(inputs)", "attn_weights in sa_v2(inputs)", "context_vec in sa_v2(inputs)"})
    CHECK(out.find(std::string("✓ ") + step) != std::string::npos);
  CHECK(out.find("All 16 checked tensors match the lesson.") != std::string::npos);
}

TEST_CASE("SelfAttention_v2 without the scaling, v1 right: the first difference is v2's weights, named no scaling") {
  const std::string out = check_trace("sa-v2-no-scaling.json");
  CHECK(out.rfind("1\n", 0) == 0);
  CHECK(out.find("✓ attn_weights in sa_v1(inputs)") != std::string::npos);
  CHECK(out.find("First difference: attn_weights in sa_v2(inputs) (") != std::string::npos);
  CHECK(out.find("torch.softmax(attn_scores, dim=-1)`): differs from the lesson's In [10]") != std::string::npos);
  CHECK(out.find("Diagnosis: no √d_k scaling") != std::string::npos);
}
