// `attn-tutor check FILE.py` on every lesson's own program: real-torch traces of each lesson's `--py`
// output and of the whole chapter's (`all --py`, `all --ipynb`), made by tools/gen_lesson_traces.py
// (tests/fixtures/traces/lessons/), check clean; the chapter with one mistake names it where it is.
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "check_report.h"
#include "run_cli.h"

namespace {

const std::string kLessonTraces = std::string(ATTN_TEST_FIXTURE_DIR) + "/traces/lessons";

}  // namespace

TEST_CASE("check program: every lesson's own --py program, traced, checks clean against its lesson") {
  const std::vector<std::string> lessons = {"naive-scores", "softmax", "trainable",  "causal-mask", "dropout",
                                            "wrapper",      "mha",     "course-mha", "d2l-mha",     "kv-cache",
                                            "gqa",          "mla",     "swa"};
  for (const std::string& lesson : lessons) {
    CAPTURE(lesson);
    const CliResult r = run_cli_wide("check '" + kLessonTraces + "/" + lesson + ".json' --color never");
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("lesson " + lesson + " inferred from your program") != std::string::npos);
    CHECK(r.out.find("✗") == std::string::npos);
  }
}

TEST_CASE("check program: the whole chapter's program and notebook check clean against the chapter") {
  for (const char* trace : {"chapter.json", "chapter-ipynb.json"}) {
    CAPTURE(trace);
    const CliResult r = run_cli_wide("check '" + kLessonTraces + "/" + trace + "' --color never");
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("your program covers the chapter: checked against its 7 lessons") != std::string::npos);
    CHECK(r.out.find("✗") == std::string::npos);
  }
  // The notebook's tensors are named by cell.
  CHECK(run_cli_wide("check '" + kLessonTraces + "/chapter-ipynb.json' --color never").out.find("cell ") !=
        std::string::npos);
}

TEST_CASE("check program: a chapter program with one mistake differs at it, with its lesson's diagnosis") {
  const CliResult r =
      expect_named_mistake({kLessonTraces + "/chapter-triu.json", "mask", "mask with triu missing diagonal=1", ""});
  CAPTURE(r.out);
  CHECK(r.out.find("its first difference is in lesson causal-mask") != std::string::npos);
  CHECK(r.out.find("(`mask = torch.triu(torch.ones(context_length, context_length))`): differs") != std::string::npos);
  // The sections before it all match: the first difference is the first in program order.
  const size_t first_cross = r.out.find("✗");
  REQUIRE(first_cross != std::string::npos);
  CHECK(r.out.find("mask ", first_cross) < r.out.find("\n", first_cross));
  const CliResult zh = run_cli_wide("check '" + kLessonTraces + "/chapter-triu.json' --color never --lang zh");
  CHECK(zh.exit_code == 1);
  CHECK(zh.out.find("第一处差异在课程 causal-mask") != std::string::npos);
}

TEST_CASE("check program: a chapter program with the wrapper's heads reversed names the wrapper's context_vecs") {
  // The wrapper's first head equals 3.5.3's CausalAttention (same seed, same sizes): its values stay 3.5.3's
  // matches, and the first difference is the wrapper's concatenation, with its diagnosis.
  const CliResult r = expect_named_mistake(
      {kLessonTraces + "/chapter-heads-reversed.json", "context_vecs", "heads concatenated in the wrong order", ""});
  CAPTURE(r.out);
  CHECK(r.out.find("(`context_vecs = mha(batch)`): differs from the lesson's In [51]") != std::string::npos);
  CHECK(r.out.find("its first difference is in lesson wrapper") != std::string::npos);
  CHECK(r.out.find("1 differ.") != std::string::npos);
}

TEST_CASE("check program: a chapter's mistake in a class used again later is diagnosed for all its differences") {
  // CausalAttention written once (3.5.3) without the scaling and used again by 3.6.1's wrapper: the
  // diagnosis reruns the mistake in both lessons, so it explains the wrapper's differences too (no
  // "another mistake follows").
  const CliResult r =
      expect_named_mistake({kLessonTraces + "/chapter-noscale.json", "attn_weights", "no √d_k scaling", ""});
  CAPTURE(r.out);
  CHECK(r.out.find("its first difference is in lesson dropout") != std::string::npos);
  CHECK(r.out.find("another mistake follows") == std::string::npos);
  // Each head's softmax line as well as its dropout (p = 0) line: the difference shown where the scores
  // go unscaled.
  CHECK(r.out.find("10 differ.") != std::string::npos);
  CHECK(r.out.find("(`attn_weights = torch.softmax(attn_scores, dim=-1)`): differs") != std::string::npos);
}
