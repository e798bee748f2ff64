// attn-tutor check: every rerun a diagnosis makes runs. For every lesson and a few settings, each known
// mistake the lesson can have (features/check/mistake_replay.cpp's list, with and without the settings
// reruns) is rerun; one that throws is a bug and fails here with the mistake and what was rerun.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lessons/diagnosis.h"
#include "features/check/replay.h"
#include "lessons/lesson.h"
#include "lessons/ui_text.h"
#include "features/check/check.h"
#include "check_report.h"

namespace {

using Setting = std::pair<std::string, std::function<void(attn::LessonOptions&)>>;

// Four tokens of four features: other sizes than the book's six of three.
attn::Inputs small_inputs() {
  return {{"a", "b", "c", "d"},
          attn::Tensor({4, 4}, {0.1f, 0.9f, -0.3f, 0.5f, 0.7f, 0.2f, 0.4f, -0.1f, 0.3f, 0.3f, 0.8f, 0.6f, -0.5f, 0.25f,
                                0.05f, 0.9f})};
}

std::vector<Setting> settings() {
  return {
      {"defaults", [](attn::LessonOptions&) {}},
      {"dropout 0.1", [](attn::LessonOptions& o) { o.dropout = 0.1; }},
      {"dropout 0.5, d_out 4", [](attn::LessonOptions& o) { o.dropout = 0.5, o.d_out = 4, o.d_out_given = true; }},
      {"3 heads, d_out 6", [](attn::LessonOptions& o) { o.num_heads = 3, o.d_out = 6, o.d_out_given = true; }},
      {"1 head, qkv_bias", [](attn::LessonOptions& o) { o.num_heads = 1, o.qkv_bias = true; }},
      {"4 heads, d_out 8, no reseed",
       [](attn::LessonOptions& o) { o.num_heads = 4, o.d_out = 8, o.d_out_given = true, o.no_reseed = true; }},
      {"4 tokens of 4, seed 7",
       [](attn::LessonOptions& o) { o.inputs = small_inputs(), o.custom_inputs = true, o.seed = 7; }},
      {"context_length 9", [](attn::LessonOptions& o) { o.context_length = 9; }},
      // the lessons after the chapter: their own options
      {"gqa 1 group", [](attn::LessonOptions& o) { o.num_kv_groups = 1; }},
      {"gqa 4 groups", [](attn::LessonOptions& o) { o.num_kv_groups = 4; }},
      {"gqa 4 heads of 3, 2 groups",
       [](attn::LessonOptions& o) { o.num_heads = 4, o.d_out = 12, o.d_out_given = true, o.num_kv_groups = 2; }},
      {"gqa 8 heads, 2 groups",
       [](attn::LessonOptions& o) { o.num_heads = 8, o.d_out = 8, o.d_out_given = true, o.num_kv_groups = 2; }},
      {"mla latent 3", [](attn::LessonOptions& o) { o.latent_dim = 3; }},
      {"mla latent 1, 1 head", [](attn::LessonOptions& o) { o.latent_dim = 1, o.num_heads = 1; }},
      {"swa window 1", [](attn::LessonOptions& o) { o.window = 1; }},
      {"swa window 6", [](attn::LessonOptions& o) { o.window = 6; }},
      {"course-mha post", [](attn::LessonOptions& o) { o.preset = "post"; }},
      {"d2l valid_lens", [](attn::LessonOptions& o) { o.valid_lens = "3,2"; }},
      {"d2l dropout 0.2", [](attn::LessonOptions& o) { o.dropout = 0.2, o.num_hiddens = 12; }},
  };
}

// Whether the lesson runs with these settings at all (a setting it rejects has no reruns to test).
bool lesson_runs(const attn::LessonInfo& l, const attn::LessonOptions& o) {
  try {
    l.run(o);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// body(lesson, the setting's name, its options) for every lesson and every setting the lesson runs with.
template <class F>
void for_each_running_setting(F&& body) {
  for (const attn::LessonInfo& l : attn::lessons())
    for (const Setting& setting : settings()) {
      attn::LessonOptions o;
      setting.second(o);
      if (lesson_runs(l, o)) body(l, setting.first, o);
    }
}

}  // namespace

TEST_CASE("check: every rerun of every lesson runs, for a few settings each") {
  int64_t total = 0;
  for_each_running_setting([&](const attn::LessonInfo& l, const std::string& setting, const attn::LessonOptions& o) {
    for (bool shapes_differ : {false, true}) {
      std::vector<attn::RerunFailure> failures;
      int64_t runs = 0;
      const std::vector<attn::WhatIf> what_ifs = attn::mistake_what_ifs(l.name, o, shapes_differ, &runs, &failures);
      total += runs;
      for (const attn::RerunFailure& f : failures)
        FAIL_CHECK(l.name << " (" << setting << std::string(shapes_differ ? ", settings reruns" : "") << "): mistake "
                          << attn::mistake(f.mistake).id << " ("
                          << attn::ui(f.detail.key, attn::Lang::En, f.detail.args) << ") throws: " << f.error);
      CHECK(what_ifs.size() + failures.size() == static_cast<size_t>(runs));
    }
  });
  CHECK(total > 1000);  // the test ran them, not an empty list
}

TEST_CASE("check: a rerun that throws is never skipped in silence") {
  // A base whose reruns cannot run (a stale-scores tensor of the wrong shape carried into every rerun
  // that keeps the base's variant): listed with failures, thrown without.
  attn::LessonOptions o;
  o.variant.stale_scores = attn::Tensor({1, 1}, {0.5f});
  std::vector<attn::RerunFailure> failures;
  attn::mistake_what_ifs("wrapper", o, false, nullptr, &failures);
  REQUIRE(!failures.empty());
  CHECK(failures[0].mistake == attn::MistakeId::MissingReseed);
  try {
    attn::mistake_what_ifs("wrapper", o, false);
    FAIL("no exception");
  } catch (const std::logic_error& e) {
    CHECK(std::string(e.what()).find("wrapper lesson rerun with mistake missing-reseed") != std::string::npos);
  }
  // Every lesson's defaults rerun cleanly.
  for (const attn::LessonInfo& l : attn::lessons()) {
    CAPTURE(l.name);
    CHECK_NOTHROW(attn::mistake_what_ifs(l.name, attn::LessonOptions{}, false));
  }
}

namespace {

bool same_timeline(const std::vector<attn::Binding>& a, const std::vector<attn::Binding>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].tensor.shape() != b[i].tensor.shape() ||
        a[i].tensor.values() != b[i].tensor.values())
      return false;
  return true;
}

}  // namespace

namespace {

// A lesson's own reruns (its row's diagnoses, lessons/NAME/mistakes.cpp), as mistake_what_ifs starts from.
std::vector<attn::MistakeRerun> own_reruns(const attn::LessonInfo& l, const attn::LessonOptions& o) {
  attn::Reruns r{o, {}};
  if (l.diagnoses) l.diagnoses(r);
  return std::move(r.list);
}

}  // namespace

TEST_CASE("check: the mistakes after the chapter are offered only where they change the numbers") {
  // Each rerun of the modules after the chapter (and of the chapter's shape-changing mistakes) a lesson offers
  // gives other values than the lesson; and the settings where a mistake changes nothing (or cannot run) offer none.
  using M = attn::MistakeId;
  auto module_mistake = [](const attn::LessonInfo& l, M id) {
    return id == M::WrapperCatTokens || id == M::CausalNormWhole ||
           (l.after_chapter() && (id == M::NoScaling || id == M::ViewNoTranspose || id == M::GqaRepeat ||
                                  id == M::GqaWrongGroup || id == M::MlaValuesFromUk));
  };
  int64_t offered = 0;
  for_each_running_setting([&](const attn::LessonInfo& l, const std::string& setting, const attn::LessonOptions& o) {
    const std::vector<attn::Binding> book = l.run(o).timeline();
    for (const attn::MistakeRerun& m : own_reruns(l, o)) {
      if (!module_mistake(l, m.mistake)) continue;
      ++offered;
      CHECK_MESSAGE(!same_timeline(l.run(m.opt).timeline(), book),
                    l.name << " (" << setting << "): " << attn::mistake(m.mistake).id << " ("
                           << attn::ui(m.detail.key, attn::Lang::En, m.detail.args) << ") changes nothing");
    }
  });
  CHECK(offered > 40);
  auto ids = [](const std::string& lesson, const attn::LessonOptions& o) {
    std::vector<M> out;
    for (const attn::MistakeRerun& m : own_reruns(*attn::find_lesson(lesson), o)) out.push_back(m.mistake);
    return out;
  };
  auto has = [](const std::vector<M>& v, M id) { return std::find(v.begin(), v.end(), id) != v.end(); };
  attn::LessonOptions o;  // gqa's own 4 heads in 2 groups: repeat differs, h // 2 is h // group_size
  CHECK(has(ids("gqa", o), M::GqaRepeat));
  CHECK_FALSE(has(ids("gqa", o), M::GqaWrongGroup));
  o.num_kv_groups = 4;  // one head per group: repeat is repeat_interleave, h // 4 reads group 0 for all
  CHECK_FALSE(has(ids("gqa", o), M::GqaRepeat));
  CHECK(has(ids("gqa", o), M::GqaWrongGroup));
  o.num_kv_groups = 1;  // h // 1 past the only group: PyTorch's IndexError, no rerun
  CHECK_FALSE(has(ids("gqa", o), M::GqaWrongGroup));
  o = attn::LessonOptions();
  o.num_heads = 1;  // one head: a view without transpose is the same
  CHECK_FALSE(has(ids("mla", o), M::ViewNoTranspose));
  CHECK(has(ids("mla", o), M::MlaValuesFromUk));
  o.d_out = 1, o.d_out_given = true;  // head_dim 1: dividing by 1**0.5 changes nothing
  CHECK_FALSE(has(ids("swa", o), M::NoScaling));
  CHECK(has(ids("swa", attn::LessonOptions()), M::NoScaling));  // head_dim 2 (d_out 4, 2 heads): it does
  CHECK(ids("naive-scores", attn::LessonOptions()).empty());    // a lesson without diagnoses
}

TEST_CASE("check: the mistakes after the chapter and the shape-changing ones are named exactly") {
  // Real PyTorch's learner programs (tools/learner_mistakes_bonus.py): the first difference, the one
  // diagnosis and what was rerun. The ids' own fixtures are also in test_check.cpp's loop over every mistake.
  const struct {
    const char* id;                                             // the diagnosis
    const char* detail;                                         // in what exactly was rerun
    std::vector<std::pair<const char*, const char*>> fixtures;  // each fixture and its first differing tensor
  } cases[] = {
      {"gqa-repeat",
       "keys_base.repeat(1, 2, 1, 1) and values alike: query head h reads group h % 2",
       {{"gqa-repeat", "keys"}}},
      {"gqa-wrong-group",
       "h // num_kv_groups = h // 4 instead of h // group_size = h // 1",
       {{"gqa-wrong-group", "keys"}}},
      {"mla-values-from-uk", "values_all = self.W_UK(latent_total)", {{"mla-values-from-uk", "values_all"}}},
      {"no-scaling", "not divided by head_dim**0.5 (head_dim = 2)", {{"no-scaling-gqa", "attn_weights"}}},
      {"view-no-transpose",
       "the heads merged with",
       {{"view-no-transpose-merge", "context_vecs"}, {"view-no-transpose-merge-gqa", "context_vec"}}},
      {"view-no-transpose",
       "(key/value groups alike)",
       {{"view-no-transpose-gqa", "queries"},
        {"view-no-transpose-mla", "attn_weights"},
        {"view-no-transpose-kv-cache", "attn_weights"},
        {"view-no-transpose-swa", "attn_weights"}}},
      {"causal-norm-whole", "masked_simple / masked_simple.sum()", {{"causal-norm-whole", "masked_simple_norm"}}},
      {"causal-norm-whole", "row_sums = masked_simple.sum()", {{"causal-norm-whole-sums", "row_sums"}}},
      {"causal-norm-whole", "then attn_weights / attn_weights.sum()", {{"causal-norm-whole-weights", "attn_weights"}}},
      {"wrapper-cat-tokens", "dim=1): (b, num_heads * num_tokens, d_out)", {{"wrapper-cat-tokens", "context_vecs"}}},
  };
  for (const auto& c : cases) {
    const attn::Mistake* m = attn::find_mistake(c.id);
    REQUIRE_MESSAGE(m != nullptr, c.id);
    for (const auto& fixture : c.fixtures) {
      expect_named_mistake({std::string(ATTN_TEST_FIXTURE_DIR) + "/mistakes/" + fixture.first + ".json", fixture.second,
                            m->title(attn::Lang::En), c.detail});
    }
  }
}

TEST_CASE("check: a mask rerun changes only the step it varies in causal-mask") {
  // Masking after softmax or dropping masked_fill's result leaves the lesson's -inf `masked` as the book
  // computes it (the learner's other way of masking may still be right); the masks filled with 0 or +inf and
  // the added 0/1 mask change `masked` itself.
  const attn::LessonInfo& lesson = *attn::find_lesson("causal-mask");
  auto masked = [&](attn::Variant::Mask m) {
    attn::LessonOptions o;
    o.variant.mask = m;
    const attn::Notebook nb = lesson.run(o);
    for (const attn::Binding& b : nb.timeline())
      if (b.name == "masked") return b.tensor.values();
    FAIL("no masked in causal-mask");
    return std::vector<float>();
  };
  using M = attn::Variant::Mask;
  const std::vector<float> book = masked(M::Book);
  CHECK(masked(M::AfterSoftmax) == book);
  CHECK(masked(M::Discarded) == book);
  for (M m : {M::FillZero, M::PlusInf, M::AddOnes}) CHECK(masked(m) != book);
}
