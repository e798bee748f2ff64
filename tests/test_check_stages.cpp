// check's stages one by one, on timelines made here: the lookups (timeline_index), compare, diagnose,
// the placement of traced values (trace_place) and the choice among lessons (candidates). The whole
// pipeline's verdicts on real programs are tests/test_check_program.cpp's and the learner corpus's.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "features/check/candidates.h"
#include "features/check/compare.h"
#include "features/check/diagnose.h"
#include "features/check/timeline_index.h"
#include "features/check/trace_place.h"

namespace attn {

namespace {

Tensor vec(std::vector<float> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return Tensor({n}, std::move(v));
}

Binding bind(const std::string& name, Tensor t, int cell = 1, bool in_place = false) {
  Binding b;
  b.name = name;
  b.cell = cell;
  b.code = name + " = f()";
  b.tensor = std::move(t);
  b.in_place = in_place;
  return b;
}

LearnerTensor yours(const std::string& name, Tensor t) {
  return {name, std::move(t), std::nullopt, std::nullopt, false, std::nullopt};
}

// A report as check_export frames it: the learner's tensors against `tl`, compared at `points`.
CheckReport compared(std::vector<LearnerTensor> y, std::vector<Binding> tl, const std::vector<int>& points) {
  CheckReport r;
  r.yours = std::move(y);
  r.tool = std::move(tl);
  const NameIndex index(r.tool);
  REQUIRE(compare_at_points(r, points, index));
  settle_earlier_values(r, in_compute_order(r));
  return r;
}

}  // namespace

TEST_CASE("check stages: the timeline lookups by name, rank and owner") {
  const std::vector<Binding> tl = {bind("a", vec({1})), bind("b", vec({2})), bind("a", vec({3})),
                                   bind("a", vec({4}), 1, true)};
  const NameIndex index(tl);
  CHECK(index.of("a") == std::vector<int>{0, 2, 3});
  CHECK(index.of("zz").empty());
  CHECK(rank_of(tl, 2) == 1);
  CHECK(nth_of_name(tl, "a", 1) == 2);
  CHECK(nth_of_name(tl, "b", 1) == -1);
  CHECK(owners(tl) == std::vector<int>{0, 1, 2, 2});  // the in-place change belongs to the binding before it
  CHECK(equal_elsewhere(tl, index, "a", vec({1}), 2) == 0);
  CHECK(equal_elsewhere(tl, index, "a", vec({9}), 2) == -1);
  TensorCheck c;
  CHECK_FALSE(fill_difference(vec({1, 2, 3}), vec({1, 5, 7}), c));
  CHECK(c.differing == 2);
  CHECK(c.first_diff == 1);
  CHECK(c.max_diff == doctest::Approx(4.0));
}

TEST_CASE("check stages: compare matches a later value, an earlier one with nothing after, another form") {
  using V = TensorCheck::Verdict;
  using E = TensorCheck::Elsewhere;
  // A later value of its name: exported later than its place says, a match.
  CheckReport later = compared({yours("a", vec({3}))}, {bind("a", vec({1})), bind("a", vec({3}))}, {0});
  CHECK(later.checks[0].verdict == V::Match);
  CHECK(later.checks[0].elsewhere == E::Later);
  CHECK(later.ok());
  // An earlier value with nothing exported after it: taken there on purpose, a match.
  CheckReport earlier = compared({yours("a", vec({1}))}, {bind("a", vec({1})), bind("a", vec({3}))}, {1});
  CHECK(earlier.checks[0].elsewhere == E::Earlier);
  CHECK(earlier.checks[0].nothing_after);
  CHECK(earlier.ok());
  // The same, with the next tensor differing: the step after it never reached it (stale).
  CheckReport stale = compared({yours("a", vec({1})), yours("b", vec({7}))},
                               {bind("a", vec({1})), bind("a", vec({3})), bind("b", vec({4}))}, {1, 2});
  CHECK(stale.checks[0].verdict == V::Differs);
  CHECK(stale.checks[0].elsewhere == E::Stale);
  CHECK(stale.first_divergence == 0);
  // A mask of the other polarity is the same step: a match in that form, the next tensor decides.
  CheckReport polarity = compared({yours("mask", vec({1, 0}))}, {bind("mask", vec({0, 1}))}, {0});
  CHECK(polarity.checks[0].verdict == V::Match);
  CHECK(polarity.checks[0].form == Form::OtherPolarity);
}

TEST_CASE("check stages: diagnose names the rerun that gives the difference and contradicts no later match") {
  // The learner's `b` differs; `c` after it matches. Rerun 1 gives b and leaves c: named. Rerun 2 gives b
  // but changes c, which the learner has right: not the learner's mistake.
  const std::vector<Binding> tl = {bind("a", vec({1})), bind("b", vec({2})), bind("c", vec({3}))};
  const std::vector<LearnerTensor> y = {yours("a", vec({1})), yours("b", vec({5})), yours("c", vec({3}))};
  CheckReport r = compared(y, tl, {0, 1, 2});
  REQUIRE(r.first_divergence == 1);
  WhatIf fits{MistakeId::NoScaling, {}, {bind("a", vec({1})), bind("b", vec({5})), bind("c", vec({3}))}, {}};
  WhatIf contradicts{MistakeId::SoftmaxDim, {}, {bind("a", vec({1})), bind("b", vec({5})), bind("c", vec({8}))}, {}};
  diagnose(r, in_compute_order(r), {contradicts, fits});
  REQUIRE(r.diagnoses.size() == 1);
  CHECK(r.diagnoses[0].mistake == &mistake(MistakeId::NoScaling));
  CHECK(r.diagnoses[0].at_point);
  CheckReport none = compared(y, tl, {0, 1, 2});
  diagnose(none, in_compute_order(none), {contradicts});
  CHECK(none.diagnoses.empty());
}

TEST_CASE("check stages: placement keeps a loop's last state and places values where they equal the lesson's") {
  // A module-level loop: `s` rebound twice (its in-between state the lesson does not have), then `t`.
  std::vector<TraceEvent> events(3);
  for (size_t i = 0; i < events.size(); ++i) {
    events[i].kind = "bind";
    events[i].scope = "module";
    events[i].origin.line = static_cast<int>(i + 1);
  }
  events[0].name = events[1].name = "s";
  events[2].name = "t";
  TracedValues v;
  for (const TraceEvent& e : events) v.events.push_back(&e);
  v.tensors = {yours("s", vec({9})), yours("s", vec({2})), yours("t", vec({4}))};
  const std::vector<Binding> tl = {bind("s", vec({2}), 1), bind("t", vec({4}), 2)};
  place_in_timeline(v, tl, false);
  CHECK(v.keep == std::vector<char>{0, 1, 1});
  CHECK(v.point == std::vector<int>{-1, 0, 1});
  CHECK(v.cell[2] == 2);
  unplaced(v);
  CHECK(v.keep == std::vector<char>{1, 1, 1});
  CHECK(v.point == std::vector<int>{-1, -1, -1});
}

TEST_CASE("check stages: the lesson chosen matches the most, then differs the least, then reaches furthest") {
  Candidate a, b, c;
  a.matched = 4, a.differing = 1, a.furthest = 3;
  b.matched = 4, b.differing = 0, b.furthest = 3;
  c.matched = 2, c.differing = 0, c.furthest = 9;  // a third as many or more, and further into the program
  const std::vector<Candidate> two = {a, b};
  CHECK(choose_lesson(two).best == &two[1]);
  CHECK(choose_lesson(two).most == 4);
  const std::vector<Candidate> three = {a, b, c};
  CHECK(choose_lesson(three).best == &three[2]);
  c.matched = 1;  // under a third: the most matches stand
  const std::vector<Candidate> short_of = {a, b, c};
  CHECK(choose_lesson(short_of).best == &short_of[1]);
}

TEST_CASE("check stages: docs/architecture.md's drawing of the stages names every file of features/check") {
  std::ifstream in(std::string(ATTN_SOURCE_DIR) + "/docs/architecture.md");
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string text = doc.str();
  const size_t begin = text.find("## `check`'s stages");
  REQUIRE(begin != std::string::npos);
  const std::string section = text.substr(begin, text.find("\n## ", begin + 1) - begin);
  int headers = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ATTN_SOURCE_DIR) + "/features/check")) {
    if (entry.path().extension() != ".h") continue;
    ++headers;
    const std::string stem = entry.path().stem().string();
    CAPTURE(stem);
    CHECK(section.find(stem) != std::string::npos);
  }
  CHECK(headers > 20);
}

}  // namespace attn
