// Options inside the documented ranges that would take minutes and gigabytes (issue 14): refused
// before they run, naming the limit and the option to lower; the tested configurations still run.
#include <doctest/doctest.h>

#include <string>

#include "features/bench/attention_bench.h"
#include "hostile_run.h"
#include "lessons/cost_model.h"
#include "lessons/ui_text.h"
#include "run_cli.h"

namespace {

attn::LessonOptions with(int64_t heads, int64_t context, int64_t d_out) {
  attn::LessonOptions o;
  o.num_heads = heads;
  o.context_length = context;
  o.d_out = d_out;
  return o;
}

#if defined(ATTN_UNDER_EMULATOR)
constexpr bool kEmulated = true;
#else
constexpr bool kEmulated = false;
#endif

// Memory measured under AddressSanitizer is not the program's own: skip that comparison there.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

}  // namespace

TEST_CASE("hostile: the cost model grows with what the lessons build") {
  const attn::LessonCost small = attn::estimate_lesson_cost("wrapper", with(2, 6, 2), false);
  const attn::LessonCost masks = attn::estimate_lesson_cost("wrapper", with(64, 4096, 2), false);
  CHECK(masks.bytes > 64 * 4096.0 * 4096 * 4);  // 64 float masks of 4096 x 4096
  CHECK(masks.seconds > 100 * small.seconds);
  CHECK(attn::error_message(masks.biggest, attn::Lang::En) == "64 causal masks of 4096 x 4096");
  CHECK(masks.knobs == std::vector<std::string>{"context_length", "num_heads"});
  const attn::LessonCost weights = attn::estimate_lesson_cost("mha", with(2, 6, 4096), false);
  CHECK(weights.knobs == std::vector<std::string>{"d_out"});
  CHECK(attn::estimate_lesson_cost("mha", with(2, 6, 4096), true).seconds > weights.seconds);  // the export
  const attn::LessonCost all = attn::estimate_lesson_cost("all", with(4, 4096, 4096), false);
  CHECK(all.seconds > attn::estimate_lesson_cost("mha", with(4, 4096, 4096), false).seconds);
  attn::LessonOptions gpt2;
  gpt2.gpt2 = true;
  CHECK(attn::estimate_lesson_cost("mha", gpt2, false).seconds > attn::estimate_lesson_cost("mha", {}, false).seconds);
}

TEST_CASE("hostile: lessons too big for the limits are refused before they run") {
  expect_clean_refusal("all --num-heads 64 --d-out 4096 --context-length 4096",
                       "all: these options would take about");
  expect_clean_refusal("all --num-heads 64 --d-out 4096 --context-length 4096", "lower --context-length or --num-heads");
  expect_clean_refusal("wrapper --num-heads 64 --context-length 4096", "(64 causal masks of 4096 x 4096)");
  expect_clean_refusal("course-mha --preset post --d-model 4096 --num-heads 64 --context-length 4096",
                       "more than the limits of 6 s and 768 MiB here");
  expect_clean_refusal("d2l-mha --num-hiddens 4096 --num-heads 64", "lower --num-hiddens");
  expect_clean_refusal("course-mha --preset post --d-model 4096", "lower --d-model");
  const std::string dir = temp_dir();
  expect_clean_refusal("mha --d-out 4096 --context-length 4096 --json " + dir + "/out.json", "all exported");
  CHECK(read_text_file(dir + "/out.json").empty());  // nothing written
  // check replays the lesson with the file's config, and once per known mistake.
  const std::string big = write_file(dir, "big.json",
                                     "{\"schema\": \"attn-tutor/1\", \"lesson\": \"wrapper\", \"config\": "
                                     "{\"context_length\": 4096, \"num_heads\": 64}, \"tensors\": [{\"name\": "
                                     "\"context_vecs\", \"data\": [1]}]}");
  expect_clean_refusal("check " + big, "lower config.context_length or config.num_heads");
}

TEST_CASE("hostile: the largest tested configurations still run, within the limits") {
  for (const std::string& args : {std::string("mha --gpt2 --color never"), std::string("course-mha --preset post --json -"),
                                  std::string("all --color never"), std::string("mha --d-out 1024 --context-length 1024")}) {
    CAPTURE(args);
    const BoundedRun r = run_bounded(args);
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.seconds < 15.0);
    CHECK(r.max_rss_kb < 1024L * 1024L);
  }
  // The memory model does not underestimate: a mid-size run stays under its own estimate.
  const attn::LessonCost est = attn::estimate_lesson_cost("wrapper", with(4, 2048, 2), false);
  const BoundedRun r = run_bounded("wrapper --num-heads 4 --context-length 2048 --color never");
  CHECK(r.exit_code == 0);
  // Under AddressSanitizer or an emulator (the arm64 build runs under qemu) the measured memory
  // includes theirs, not only the program's.
  if (!kSanitized && !kEmulated) CHECK(r.max_rss_kb * 1024.0 <= est.bytes);
}

TEST_CASE("hostile: bench threads, sizes and work stay within the machine") {
  const std::string hw = std::to_string(attn::hardware_threads());
  expect_clean_refusal("bench --threads 1024", "--threads 1024: more threads than this machine's " + hw +
                                                   " hardware threads only take turns; use 1 to " + hw);
  expect_clean_refusal("bench --threads " + std::to_string(attn::hardware_threads() + 1), "use 1 to " + hw);
  expect_clean_refusal("bench --d-model 16384", "not divisible by --num-heads 12");
  expect_clean_refusal("bench --d-model 16384", "(e.g. --d-model 16380)");
  expect_clean_refusal("bench --d-model 16380", "--d-model");
  expect_clean_refusal("bench --repeats 1000", "TFLOP");
  expect_clean_refusal("bench --d-model 8 --num-heads 12", "use at most 8 heads");
  attn::BenchOptions o;
  CHECK(attn::bench_flops_estimate(o) < attn::kMaxBenchFlops / 5);  // the default run is well inside
}
