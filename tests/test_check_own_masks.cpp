// Stage "own masks" (features/check/own_masks.h): a dropout drawn by another generator is valid dropout, not a
// mistake. The exports are real PyTorch 1.13 with nn.Dropout drawing from another stream
// (tools/learner_mistakes.py other_generator); the traces are tests/learners/c27, c28 and c31 under the tracer.
#include <doctest/doctest.h>

#include <string>

#include "core/tensor.h"
#include "features/check/own_masks.h"
#include "run_cli.h"

namespace {

const std::string kMistakes = std::string(ATTN_TEST_FIXTURE_DIR) + "/mistakes/";
const std::string kTraces = std::string(ATTN_TEST_FIXTURE_DIR) + "/traces/";

// The report with the header's wrapped note lines joined.
CliResult check(const std::string& path) {
  CliResult r = run_cli_wide("check '" + path + "' --color never");
  for (size_t at = r.out.find("\n    "); at != std::string::npos; at = r.out.find("\n    ", at))
    r.out.replace(at, 5, " ");
  return r;
}

const std::string kNote = "valid dropout, with masks that another generator drew";

}  // namespace

TEST_CASE("own masks: the keep mask of a dropout's output is 1 where an entry is not 0") {
  const attn::Tensor dropped({2, 2}, {0.0f, 1.5f, -0.25f, 0.0f});
  CHECK(attn::keep_mask_of(dropped).values() == std::vector<float>{0.0f, 1.0f, 1.0f, 0.0f});
  CHECK(attn::is_dropout_step("attn_weights = self.dropout(attn_weights)"));
  CHECK(attn::is_dropout_step("print(dropout(example))"));
  CHECK_FALSE(attn::is_dropout_step("attn_weights = torch.softmax(attn_scores, dim=-1)"));
}

TEST_CASE("own masks: the dropout lesson's masks from another generator are no mistake") {
  const CliResult r = check(kMistakes + "way-other-generator.json");
  CAPTURE(r.out);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("dropout(example), dropout(attn_weights): " + kNote) != std::string::npos);
  CHECK(r.out.find("All 3 checked tensors match the lesson.") != std::string::npos);
}

TEST_CASE("own masks: MultiHeadAttention's context vectors are compared under the learner's masks") {
  const CliResult r = check(kMistakes + "way-other-generator-mha.json");
  CAPTURE(r.out);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("attn_weights: " + kNote) != std::string::npos);
  CHECK(r.out.find("✓ context_vecs") != std::string::npos);
  // A mistake after the dropout is still named, its rerun under the same masks.
  const CliResult wrong = check(kMistakes + "no-out-proj-other-generator.json");
  CAPTURE(wrong.out);
  CHECK(wrong.exit_code == 1);
  CHECK(wrong.out.find("attn_weights: " + kNote) != std::string::npos);
  CHECK(wrong.out.find("First difference: context_vecs") != std::string::npos);
  CHECK(wrong.out.find("Diagnosis: out_proj forgotten") != std::string::npos);
}

TEST_CASE("own masks: an output after a dropout nobody exported cannot be judged, in one line") {
  const CliResult r = check(kMistakes + "way-other-generator-outputs.json");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find("cannot judge context_vecs: it comes after a dropout the lesson draws "
                   "(`attn_weights = self.dropout(attn_weights)`, In [10])") != std::string::npos);
  // The same module with the book's masks is judged as before: a ✓.
  CHECK(check(kMistakes + "correct-mha.json").exit_code == 0);
}

TEST_CASE("own masks: a traced program's forward under another seed's masks is valid dropout") {
  const CliResult r = check(kTraces + "mha-dropout-other-masks.json");
  CAPTURE(r.out);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("attn_weights: " + kNote) != std::string::npos);
  CHECK(r.out.find("dropout 0.5") != std::string::npos);
  // A seed of the program's own beside the book's 789 and 123 (before its dropout cells only): the lesson
  // with the book's seeds, not that seed everywhere (its weights would all differ).
  const CliResult seeded = check(kTraces + "dropout-seed-42.json");
  CAPTURE(seeded.out);
  CHECK(seeded.exit_code == 0);
  CHECK(seeded.out.find("seed 42") == std::string::npos);
}

TEST_CASE("own masks: heads that each drew another generator's mask of one shape cannot be judged, in one line") {
  // tests/learners/c31: the wrapper at dropout 0.5, torch.manual_seed(7) before the call: two heads, two
  // masks of shape (2, 6, 6) that are not the book's. The stage follows one mask per shape: the second
  // head's valid dropout is said to be beyond it, not called a mistake (it was a ✗ "no known mistake").
  const CliResult r = check(kTraces + "wrapper-several-masks.json");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find("cannot judge attn_weights (`attn_weights = self.dropout(attn_weights)`): your program's "
                   "dropouts of shape (2, 6, 6) drew several masks") != std::string::npos);
  const CliResult zh = run_cli_wide("check '" + kTraces + "wrapper-several-masks.json' --lang zh");
  CHECK(zh.exit_code == 2);
  CHECK(zh.err.find("形状为 (2, 6, 6) 的多次 dropout") != std::string::npos);
}
