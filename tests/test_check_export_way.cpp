// attn-tutor check, the export way of the learner programs (tests/learners/): a mistake the rerun gives at an
// earlier value of a name, several mistakes with the same numbers, reason lines true of the learner's values.
// Fixtures by real PyTorch: tools/learner_mistakes_bonus.py and tools/learner_mistakes_cache.py.
#include <doctest/doctest.h>

#include <string>

#include "features/check/check.h"
#include "run_cli.h"

namespace {

const std::string kMistakes = std::string(ATTN_TEST_FIXTURE_DIR) + "/mistakes/";

CliResult check_fixture(const std::string& name) {
  return run_cli_wide("check '" + kMistakes + name + ".json' --color never");
}

std::string title(const char* id) {
  const attn::Mistake* m = attn::find_mistake(id);
  REQUIRE(m != nullptr);
  return m->title(attn::Lang::En);
}

}  // namespace

TEST_CASE("check: heads merged by view without transpose, the merged value exported before the output") {
  // The learner's context_vec is the merged heads (before out_proj), then context_vecs: the mistake's rerun
  // gives context_vec at its merged step, as a correct program's earlier value is a match; the report
  // compares it with the lesson's merged value (In [12]), not with the value after out_proj.
  const CliResult r = check_fixture("view-no-transpose-merged-value");
  CHECK(r.exit_code == 1);
  CHECK(r.err.empty());
  CHECK(r.out.find("First difference: context_vec (") != std::string::npos);
  CHECK(r.out.find("✗ context_vec   (2, 6, 2)     differs from In [12]") != std::string::npos);
  CHECK(r.out.find("\nDiagnosis: " + title("view-no-transpose") + "\n") != std::string::npos);
  CHECK(r.out.find("Possible diagnosis") == std::string::npos);
  CHECK(r.out.find("still its value before") == std::string::npos);
  // The correct program's merged value stays a match (tests/fixtures/mistakes/way-context-vec-last.json).
  CHECK(check_fixture("way-context-vec-last").exit_code == 0);
}

TEST_CASE("check: a window one too wide in the mask and the cache alike lists both mistakes that give it") {
  // diff > W and a cache of the last W + 1 (real PyTorch): the numbers of a window of W + 1 everywhere, which
  // an export forgetting window=4 gives as well. Nothing in the values tells them apart: both are listed.
  const CliResult r = check_fixture("swa-window-off-by-one-cache");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("First difference: mask_bool (") != std::string::npos);
  CHECK(r.out.find("2 known mistakes give exactly your numbers") != std::string::npos);
  CHECK(r.out.find("\nPossible diagnosis: " + title("swa-window-off-by-one") + "\n") != std::string::npos);
  CHECK(r.out.find("\nPossible diagnosis: " + title("export-settings") + "\n") != std::string::npos);
  CHECK(r.out.find("the cache keeping the last 4 tokens alike") != std::string::npos);
  CHECK(r.out.find("still its value before") == std::string::npos);
  // With the book's cache (only the mask off by one) the later outputs tell: the one mistake.
  const CliResult mask_only = check_fixture("swa-window-off-by-one");
  CHECK(mask_only.out.find("\nDiagnosis: " + title("swa-window-off-by-one") + "\n") != std::string::npos);
  CHECK(mask_only.out.find("Possible diagnosis") == std::string::npos);
}

TEST_CASE("check: a later step that a named mistake makes repeat its value is no step never reached") {
  // The KV-cache mask from row 0, each step's mask, weights and output exported (real PyTorch): the mask differs
  // first; the second step's output equals the first's because every token sees only key 0. That step ran.
  const CliResult r = check_fixture("kv-mask-row0-steps");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("First difference: mask_bool (") != std::string::npos);
  CHECK(r.out.find("\nDiagnosis: " + title("kv-mask-row0") + "\n") != std::string::npos);
  CHECK(r.out.find("\u2717 out           (1, 1, 4)     differs from In [5]: 4 of 4 values") != std::string::npos);
  CHECK(r.out.find("still its value before") == std::string::npos);
  CHECK(r.out.find("never reached") == std::string::npos);
  // A step a mistake leaves without effect in place still never reached it (masked_fill's result discarded).
  std::string discarded = check_fixture("mask-discarded").out;  // its prose wrapped at 80 columns: one line
  for (char& c : discarded) c = c == '\n' ? ' ' : c;
  CHECK(discarded.find("never reached your attn_scores") != std::string::npos);
}

TEST_CASE("check: no reset_cache() at the lesson's context_length, by a cache that masks by positions") {
  // A learner's cache with the mask from positions (real PyTorch) runs on past context_length 6 where the
  // book's class raises (its mask buffer runs out): the rerun with room for the second text gives its numbers.
  const CliResult r = check_fixture("no-reset-cache-positions");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("First difference: prompt (") != std::string::npos);
  CHECK(r.out.find("\nDiagnosis: " + title("no-reset-cache") + "\n") != std::string::npos);
  std::string flat = r.out;
  for (size_t at = flat.find("\n  "); at != std::string::npos; at = flat.find("\n  ", at)) flat.replace(at, 3, " ");
  CHECK(flat.find("your cache masks by positions past context_length = 6") != std::string::npos);
  // The book's class at context_length 12 (room for it): the plain detail.
  const CliResult book = check_fixture("no-reset-cache");
  CHECK(book.out.find("\nDiagnosis: " + title("no-reset-cache") + "\n") != std::string::npos);
  CHECK(book.out.find("masks by positions") == std::string::npos);
}
