// check_export's earlier-value rules for a traced program's tensors (LearnerTensor::snapshot) beside an
// export's: an earlier value that nothing after it contradicts is a match both ways; after another value
// of its name it is a difference exported (out of the program's order) and a match traced (a module called
// again recomputes an earlier value).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "features/check/check.h"
#include "features/check/learner_export.h"
#include "features/check/replay.h"
#include "lessons/lesson.h"
#include "run_cli.h"

namespace {

using V = attn::TensorCheck::Verdict;
using E = attn::TensorCheck::Elsewhere;

// The mha export of the weights before dropout (and the context vectors after), as a traced program's when `traced`.
attn::LearnerExport before_dropout(bool traced) {
  attn::LearnerExport ex = attn::parse_export(
      read_text_file(std::string(ATTN_TEST_FIXTURE_DIR) + "/mistakes/way-before-dropout.json"), "before.json");
  REQUIRE(ex.tensors.size() == 2);
  REQUIRE(ex.tensors[0].name == "attn_weights");
  for (attn::LearnerTensor& t : ex.tensors) t.snapshot = traced;
  return ex;
}

attn::CheckReport run_check(const attn::LearnerExport& ex) {
  const attn::Notebook nb = attn::find_lesson(ex.lesson)->run(attn::replay_options(ex));
  return attn::check_export(ex, nb, nullptr);
}

}  // namespace

TEST_CASE("check traced: an earlier value with nothing after it is a match, exported or traced") {
  // The merged heads before out_proj bound last (README's ambiguous case) in a .py as in an export.
  for (bool traced : {false, true}) {
    CAPTURE(traced);
    attn::LearnerExport ex = before_dropout(traced);
    ex.tensors.pop_back();  // the weights alone
    const attn::CheckReport r = run_check(ex);
    REQUIRE(r.checks.size() == 1);
    CHECK(r.checks[0].verdict == V::Match);
    CHECK(r.checks[0].elsewhere == E::Earlier);
    CHECK(r.checks[0].nothing_after);
  }
  // With the context vectors after it, both ways it is a value taken there.
  for (bool traced : {false, true}) {
    CAPTURE(traced);
    const attn::CheckReport r = run_check(before_dropout(traced));
    CHECK(r.ok());
    CHECK(r.checks[0].elsewhere == E::Earlier);
    CHECK_FALSE(r.checks[0].nothing_after);
  }
}

TEST_CASE("check traced: an earlier value after another of its name is a recomputation traced, a difference exported") {
  for (bool traced : {false, true}) {
    CAPTURE(traced);
    attn::LearnerExport ex = before_dropout(traced);
    const attn::Notebook nb = attn::find_lesson(ex.lesson)->run(attn::replay_options(ex));
    // The weights' last value in the lesson, before the weights taken before dropout: the program went past
    // dropout and came back to the value before it (a traced module called again).
    const attn::Tensor* last = nullptr;
    for (const attn::Binding& b : nb.timeline())
      if (b.name == "attn_weights") last = &b.tensor;
    REQUIRE(last != nullptr);
    attn::LearnerTensor first = ex.tensors[0];
    first.tensor = *last;
    ex.tensors.insert(ex.tensors.begin(), first);
    const attn::CheckReport r = attn::check_export(ex, nb, nullptr);
    REQUIRE(r.checks.size() == 3);
    CHECK(r.checks[0].verdict == V::Match);
    CHECK(r.checks[2].verdict == V::Match);
    CHECK(r.checks[1].verdict == (traced ? V::Match : V::Differs));
  }
}

TEST_CASE("check program: a value a loop repeats from an earlier step is not placed at that step again") {
  // A KV cache whose mask rows come from row 0: every cached step's `out` is the first step's. Each of the
  // lesson's entries places one value, so steps 2 to 5 are compared with the lesson's steps 2 to 5 (a ✗
  // each), never passed as a ✓ of step 1.
  const CliResult r =
      run_cli_wide("check '" + std::string(ATTN_TEST_FIXTURE_DIR) + "/traces/kv-mask-row0.json' --color never");
  CAPTURE(r.out);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("lesson kv-cache inferred from your program") != std::string::npos);
  size_t matched_out = 0;
  for (size_t at = r.out.find("\u2713 out "); at != std::string::npos; at = r.out.find("\u2713 out ", at + 1))
    ++matched_out;
  CHECK(matched_out == 1);
  // Each step's `out` is checked at its own step, In [5] to In [9].
  for (int cell = 5; cell <= 9; ++cell)
    CHECK(r.out.find("\u2717 out           (1, 1, 4)     differs from In [" + std::to_string(cell) + "]") !=
          std::string::npos);
  CHECK(r.out.find("Diagnosis: KV-cache mask rows taken from row 0") != std::string::npos);
}

TEST_CASE("check program: a traced value a call repeats or a module keeps is named where the export names it") {
  // The first difference as the learner's own export of the same program names it (tests/learners/): the
  // module's attributes after the call (`mha.mask_bool`, `swa.cache_k`), and a name bound again to the same
  // tensor (`attn_weights = self.dropout(attn_weights)` in eval mode).
  struct Case {
    std::string trace, first, where, diagnosis;
  };
  for (const Case& c : std::vector<Case>{{"kv-mask-row0.json", "mask_bool",
                                          "line 99 of kv-mask-row0.py (`out = mha(x[:, i:i + 1, :], use_cache=True)`): "
                                          "differs from the lesson's In [5]",
                                          "KV-cache mask rows taken from row 0"},
                                         {"swa-cache-oldest.json", "swa.cache_k",
                                          "line 98 of swa-cache-oldest.py (`out = swa(x[:, i:i + 1, :], "
                                          "use_cache=True)`): differs from the lesson's In [8]",
                                          "sliding-window cache keeping the oldest tokens"},
                                         {"mha-eval-mode.json", "attn_weights",
                                          "line 31 of mha-eval-mode.py (`attn_weights = self.dropout(attn_weights)`): "
                                          "differs from the lesson's In [10]",
                                          "the module run in eval() where the lesson trains"}}) {
    const CliResult r =
        run_cli_wide("check '" + std::string(ATTN_TEST_FIXTURE_DIR) + "/traces/" + c.trace + "' --color never");
    CAPTURE(r.out);
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("First difference: " + c.first + " (") != std::string::npos);
    CHECK(r.out.find("yours: " + c.where) != std::string::npos);
    CHECK(r.out.find("Diagnosis: " + c.diagnosis) != std::string::npos);
  }
}
