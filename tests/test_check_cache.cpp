// attn-tutor check: the KV cache and sliding-window mistakes of the lessons after the chapter, the
// settings diagnosis (every shape first, the bonus lessons' own settings), an earlier value with nothing after
// it, and reason lines that are true of the learner's values. Fixtures by real PyTorch:
// tools/learner_mistakes_cache.py.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "features/check/replay.h"
#include "lessons/lesson.h"
#include "check_report.h"
#include "run_cli.h"

namespace {

const std::string kMistakes = std::string(ATTN_TEST_FIXTURE_DIR) + "/mistakes/";

CliResult check_fixture(const std::string& name) {
  return run_cli_wide("check '" + kMistakes + name + ".json' --color never");
}

// The report's text with its wrapped lines joined.
std::string flat(std::string text) {
  for (size_t at = text.find("\n  "); at != std::string::npos; at = text.find("\n  ", at)) text.replace(at, 3, " ");
  for (char& c : text)
    if (c == '\n') c = ' ';
  return text;
}

void no_untrue_reason(const std::string& out) {
  CHECK(out.find("never reached") == std::string::npos);
  CHECK(out.find("still its value before") == std::string::npos);
  CHECK(out.find("after `    print(") == std::string::npos);
  CHECK(out.find("before `    print(") == std::string::npos);
  CHECK(out.find("Possible diagnosis") == std::string::npos);
}

}  // namespace

TEST_CASE("check: the book's printed context_vec exported last is a match, not out_proj forgotten") {
  const CliResult r = check_fixture("way-context-vec-last");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("\u2713 context_vec   (2, 6, 2)     = In [12], its value after `context_vec = "
                   "context_vec.contiguous().view(b, num_tokens, self.d_out)`, taken before `context_vec = "
                   "self.out_proj(context_vec)` (nothing you exported after it says otherwise)") != std::string::npos);
  CHECK(r.out.find("out_proj forgotten") == std::string::npos);
}

TEST_CASE("check: the KV cache and sliding-window mistakes are named at the right tensor") {
  const NamedMistake cases[] = {
      {kMistakes + "swa-window-off-by-one.json", "mask_bool", "sliding window one token too wide",
       "mask_bool = (diff < 0) | (diff > 3): 4 keys visible."},
      {kMistakes + "swa-cache-oldest.json", "swa.cache_k", "sliding-window cache keeping the oldest tokens",
       "cache_k, cache_v = ...[:, :3], the oldest 3 tokens."},
      {kMistakes + "swa-cache-oldest-last.json", "out", "sliding-window cache keeping the oldest tokens", ""},
      {kMistakes + "kv-mask-row0.json", "out", "KV-cache mask rows taken from row 0",
       "self.mask.bool()[:num_tokens_Q, :num_tokens_K] with use_cache=True."},
      {kMistakes + "kv-mask-row0-outs.json", "out", "KV-cache mask rows taken from row 0", ""},
      {kMistakes + "no-reset-cache.json", "prompt", "no reset_cache() before a new prompt",
       "prompt = mha(x[:, :3, :], use_cache=True) after the token-by-token steps, without mha.reset_cache()"},
  };
  for (const NamedMistake& c : cases) no_untrue_reason(expect_named_mistake(c).out);
}

TEST_CASE("check: a step that ran is not said to have never reached the tensor") {
  // Every token fed with the mask's row 0 sees only the first key: each step's out equals the first step's.
  // The steps ran; the report says which mistake gives that, and no export of the same name counts as
  // "taken earlier" than an export of it before.
  const CliResult r = check_fixture("kv-mask-row0-outs");
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("\u2717 out   (1, 1, 4)  differs from In [5]: 4 of 4 values") != std::string::npos);
  CHECK(r.out.find("taken before") == std::string::npos);
  // The sliding-window cache: the lesson records it in a loop whose line is a print(...): never named as a step.
  const CliResult swa = check_fixture("swa-cache-oldest");
  CHECK(swa.out.find("The lesson's swa.cache_k, In [8]:") != std::string::npos);
  // The cache exported last equals an earlier step's; the named mistake gives it at its own point: a ✗.
  const CliResult last = check_fixture("swa-cache-oldest-last");
  CHECK(last.out.find("\u2717 swa.cache_k  (1, 3, 2, 2)  differs from In [8]: 12 of 12 values") != std::string::npos);
  // An in-place step a mistake leaves without effect still never reached it (masked_fill's result discarded).
  const CliResult discarded = check_fixture("mask-discarded");
  CHECK(flat(discarded.out).find("that step never reached your attn_scores") != std::string::npos);
}

const char* const kSettingsDiagnosis = "an export whose tensors show other settings than it declares";

TEST_CASE("check: the declared settings are checked against every exported shape, in any order") {
  // mha run with d_out=4, exported without it, attn_weights first: the same shape at d_out 2 and 4.
  expect_named_mistake({kMistakes + "export-settings-weights-first.json", "attn_weights", kSettingsDiagnosis,
                        "d_out=4: export(..., d_out=4), as attn-tutor mha --d-out 4 runs it."});
}

TEST_CASE("check: an export that forgets num_kv_groups, latent_dim or window is named") {
  const NamedMistake cases[] = {
      {kMistakes + "export-settings-kv-groups.json", "keys_new", kSettingsDiagnosis,
       "num_kv_groups=1: export(..., num_kv_groups=1), as attn-tutor gqa --num-kv-groups 1 runs it."},
      {kMistakes + "export-settings-latent.json", "latent", kSettingsDiagnosis,
       "latent_dim=3: export(..., latent_dim=3), as attn-tutor mla --latent-dim 3 runs it."},
      // the window changes values, not shapes
      {kMistakes + "export-settings-window.json", "mask_bool", kSettingsDiagnosis,
       "window=2: export(..., window=2), as attn-tutor swa --window 2 runs it."},
  };
  for (const NamedMistake& c : cases) expect_named_mistake(c);
  // Without the tensor whose shape differs: the values alone name it.
  for (const char* fixture : {"export-settings-kv-groups", "export-settings-latent"}) {
    INFO(fixture);
    nlohmann::json values = nlohmann::json::parse(read_text_file(kMistakes + fixture + ".json"));
    values["tensors"].erase(1);  // keys_new, latent
    REQUIRE(values["tensors"][0]["name"] == "attn_weights");
    const CliResult r =
        run_cli_wide("check '" + write_file(temp_dir(), "values.json", values.dump()) + "' --color never");
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("First difference: attn_weights (") != std::string::npos);
    CHECK(r.out.find("\nDiagnosis: an export whose tensors show other settings than it declares\n") !=
          std::string::npos);
  }
  // Stated, the same numbers pass.
  nlohmann::json doc = nlohmann::json::parse(read_text_file(kMistakes + "export-settings-window.json"));
  doc["config"]["window"] = 2;
  const CliResult fixed =
      run_cli_wide("check '" + write_file(temp_dir(), "window.json", doc.dump()) + "' --color never");
  CHECK(fixed.exit_code == 0);
}

TEST_CASE("check: every rerun of the lessons after the chapter runs (none is dropped for throwing)") {
  for (const char* lesson : {"kv-cache", "gqa", "mla", "swa"})
    for (int64_t context_length : {0, 12})
      for (bool shapes_differ : {false, true}) {
        INFO(lesson << " context_length " << context_length << " shapes_differ " << shapes_differ);
        attn::LessonOptions opt;
        if (context_length && std::string(lesson) == "kv-cache") opt.context_length = context_length;
        int64_t runs = 0;
        const std::vector<attn::WhatIf> what_ifs = attn::mistake_what_ifs(lesson, opt, shapes_differ, &runs);
        CHECK(static_cast<int64_t>(what_ifs.size()) == runs);
        CHECK(runs <= attn::mistake_rerun_count(lesson, opt));
        bool reset = false, row0 = false, window = false;
        for (const attn::WhatIf& w : what_ifs) {
          reset = reset || w.mistake == attn::MistakeId::NoResetCache;
          row0 = row0 || w.mistake == attn::MistakeId::KvMaskRow0;
          window = window || w.mistake == attn::MistakeId::SwaWindowOffByOne;
        }
        // at context_length 12 the book's class has room for the second text; at 6, a cache masking by positions
        CHECK(reset == (std::string(lesson) == "kv-cache"));
        CHECK(row0 == (std::string(lesson) == "kv-cache"));
        CHECK(window == (std::string(lesson) == "swa"));
      }
}

TEST_CASE("check: one earlier value exported many times is compared, without a crash") {
  // attn_weights before dropout 4096 times (the limit): after the first, each is a value taken before the point
  // of an earlier export of its name, with no later tensor to tell: a plain difference, never a match.
  nlohmann::json doc = nlohmann::json::parse(read_text_file(kMistakes + "way-before-dropout.json"));
  const nlohmann::json first = doc["tensors"][0];
  doc["tensors"] = nlohmann::json::array();
  for (int i = 0; i < 4096; ++i) doc["tensors"].push_back(first);
  const CliResult r = run_cli_wide("check '" + write_file(temp_dir(), "many.json", doc.dump()) + "' --color never");
  CHECK(r.exit_code == 1);
  CHECK(r.err.empty());
  CHECK(r.out.find("4094 differ.") != std::string::npos);
}
