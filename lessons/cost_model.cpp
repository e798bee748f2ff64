#include "lessons/cost_model.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "core/usage_error.h"
#include "lessons/lesson.h"

namespace attn {

namespace {

// printf's %.Nf.
std::string fixed(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

// Measured with /usr/bin/time (user + system time, so other load on the machine does not count)
// on the Release build, rounded up: the lessons' time goes into building causal masks (ones, then
// triu/tril, per element), drawing and using weights (torch's generator, nn.Linear's init, the
// exact-order matmuls), and rendering the exported tensors as JSON or HTML. Memory: the masks alive
// at once, the weights with their copies, the export's text. For example
//   mha --num-heads 64 --d-out 4096 --context-length 4096   2.9 s 392 MiB, estimated 3.0 s 400 MiB
//     the same with --json FILE                               6.0 s 469 MiB, estimated 7.2 s 656 MiB
//   wrapper --num-heads 6 --context-length 4096               5.3 s 453 MiB, estimated 6.0 s 464 MiB
//   d2l-mha --num-hiddens 3200 --num-heads 64                 3.2 s 330 MiB, estimated 4.9 s 407 MiB
//   course-mha --preset post --d-model 2560                   2.0 s 229 MiB, estimated 5.5 s 366 MiB
constexpr double kSecondsPerMaskElement = 60e-9;
constexpr double kSecondsPerWeight = 120e-9;
constexpr double kSecondsPerExported = 250e-9;
constexpr double kBytesPerMaskElement = 4;
constexpr double kBytesPerExported = 16;
constexpr double kBaseBytes = 16.0 * 1024 * 1024;
// The lessons after the chapter, measured the same way: a projection's multiply-adds (a call with one
// token still reads, and for the layers without bias transposes, its whole weight), and per decoding
// step the cache's keys times d_out (torch.cat of the cache, the transposes, the scores and the weighted
// values) and times the heads (each head's mask, scaling and softmax). Rounded up so that the largest
// admitted runs stay under the limit on a loaded 2-core machine. For example
//   kv-cache --context-length 4096 --d-out 16 --num-heads 16   9.9 s, estimated 12.8 s
//   kv-cache --context-length 1024 --d-out 1024 --num-heads 64  13.7 s, estimated 15.6 s
//   kv-cache --context-length 512 --d-out 1024                  3.2 s, estimated 4.3 s
//   mla --d-out 4096 --latent-dim 4096 with 16 tokens           15.6 s, estimated 23 s
//   gqa --d-out 4096 with 16 tokens and --json FILE             5.2 s, estimated 8 s
constexpr double kSecondsPerMac = 3e-9;
// mha --gpt2's module (Exercise 3.3): 2.4 million weights drawn and used on 2 x 6 tokens and a
// 1024 x 1024 mask built once take 0.03 s and 22 MiB beside the lesson's own (a rerun of check: 0.031 s),
// estimated 0.037 s and 46 MiB.
constexpr double kSecondsPerFixedWeight = 12e-9;
constexpr double kSecondsPerFixedMaskElement = 8e-9;
// A rerun of check keeps its recorded tensors (Notebook::timeline() and inside_values()): the weights the
// work counts and the token-sized tensors beside them, each a float with its share of the shapes and
// names. Those grow with the heads' score matrices (the wrapper keeps 1.05 million elements with 64 heads
// of 16 tokens, 32 times its 2 x 64 x 16 x 16 scores; counted as 40 times) and with the tokens' vectors
// (0.13 million more with 16 tokens and d_out 512, 8 times 2 x 16 x 512; counted as 16 times).
constexpr double kBytesPerKept = 8;
constexpr double kKeptPerScore = 40;
constexpr double kKeptPerVector = 16;
constexpr double kKeptBeside = 64.0 * 1024;
constexpr double kSecondsPerStreamed = 18e-9;
constexpr double kSecondsPerHeadKey = 70e-9;

LessonCost cost_of(const LessonWork& w, bool exporting) {
  LessonCost c;
  const double mask = w.context * w.context;
  const double exported = exporting ? w.recorded : 0;
  // more_weights: drawn once and used on a few tokens, 16 bytes each; more_mask_elements: built once,
  // alive twice (ones, then its triu)
  c.bytes = kBaseBytes + w.masks_alive * mask * kBytesPerMaskElement + w.weights * w.bytes_per_weight +
            exported * kBytesPerExported + w.more_weights * 16 + 2 * w.more_mask_elements * kBytesPerMaskElement;
  c.kept_bytes = w.recorded * kBytesPerKept;
  const double mask_seconds =
      w.masks_built * mask * kSecondsPerMaskElement + w.more_mask_elements * kSecondsPerFixedMaskElement;
  const double weight_seconds =
      w.weights * kSecondsPerWeight + w.more_weights * kSecondsPerFixedWeight + exported * kSecondsPerExported;
  const double mac_seconds = w.macs * kSecondsPerMac;
  const double step_seconds = w.streamed * kSecondsPerStreamed + w.head_keys * kSecondsPerHeadKey;
  c.seconds = mask_seconds + weight_seconds + mac_seconds + step_seconds;
  const double most = std::max({mask_seconds, weight_seconds, mac_seconds, step_seconds});
  if (most == mask_seconds) {
    c.biggest = error_text(w.masks_built == 1 ? "cost.err.mask" : "cost.err.masks",
                           {fixed(w.masks_built, 0), fixed(w.context, 0)});
    c.knobs = w.mask_knobs;
  } else if (most == weight_seconds) {
    c.biggest = error_text(exporting && w.recorded >= w.weights ? "cost.err.weights-exported" : "cost.err.weights",
                           {fixed((w.weights + w.more_weights) / 1e6, 1)});
    c.knobs = w.weight_knobs;
  } else if (most == mac_seconds) {
    c.biggest = error_text("cost.err.macs", {fixed(w.macs / 1e6, 0)});
    c.knobs = w.mac_knobs;
  } else {
    c.biggest = error_text("cost.err.steps", {fixed(w.calls, 0), fixed(w.cached, 0)});
    c.knobs = w.step_knobs;
  }
  return c;
}

// What a run keeps beside its weights: its token-sized tensors, by its heads' scores and its vectors.
double kept_beside(const LessonOptions& opt) {
  const double tokens = work_count(opt.inputs.embeddings.size(0)), heads = work_count(opt.heads_or(2));
  const double scores = 2 * heads * tokens * tokens, vectors = 2 * tokens * work_count(opt.d_out);
  return (kKeptPerScore * scores + kKeptPerVector * vectors + kKeptBeside) * kBytesPerKept;
}

}  // namespace

bool has_cost_entry(const std::string& lesson) {
  const LessonInfo* info = find_lesson(lesson);
  return info && info->work;
}

LessonWork lesson_work(const std::string& lesson, const LessonOptions& opt) {
  if (!has_cost_entry(lesson)) throw std::logic_error("no cost entry for lesson " + lesson);
  return find_lesson(lesson)->work(opt);
}

LessonCost estimate_lesson_cost(const std::string& lesson, const LessonOptions& opt, bool exporting) {
  if (find_lesson(lesson)) {
    LessonCost c = cost_of(lesson_work(lesson, opt), exporting);
    c.kept_bytes += kept_beside(opt);
    return c;
  }
  const std::vector<const LessonInfo*> run = lessons_run_by(lesson);  // `all`: the chapter's, in one notebook
  if (run.empty()) throw std::logic_error("no cost entry for " + lesson);
  LessonCost total, worst;
  total.bytes = kBaseBytes;
  for (const LessonInfo* l : run) {
    const LessonCost c = cost_of(lesson_work(l->name, opt), exporting);
    total.bytes += c.bytes - kBaseBytes;  // the notebook keeps every lesson's tensors
    total.seconds += c.seconds;
    total.kept_bytes += c.kept_bytes + kept_beside(opt);
    if (c.seconds >= worst.seconds) worst = c;
  }
  total.biggest = worst.biggest;
  total.knobs = worst.knobs;
  return total;
}

const LessonOptions& require_affordable(const std::string& lesson, const LessonOptions& opt, bool exporting,
                                        const std::string& knob_prefix, double runs, const std::string& source) {
  LessonCost c = estimate_lesson_cost(lesson, opt, exporting);
  // check's reruns run one after another, each keeping only its recorded tensors
  c.seconds *= runs;
  c.bytes += c.kept_bytes * (runs - 1);
  if (c.bytes <= kMaxLessonBytes && c.seconds <= kMaxLessonSeconds) return opt;
  // "a", "a or b", "a, b or c"
  ErrorText knobs = error_text("cost.err.the-sizes");
  for (size_t i = 0; i < c.knobs.size(); ++i) {
    std::string k = c.knobs[i];
    if (knob_prefix == "--") std::replace(k.begin(), k.end(), '_', '-');
    const std::string knob = knob_prefix + k;
    if (i == 0)
      knobs = knob;
    else
      knobs = error_text(i + 1 == c.knobs.size() ? "cost.err.or" : "cost.err.list", {knobs, knob});
  }
  // A value over its limit gets the decimals that show it ("about 6 s, more than the limit of 6 s" would
  // read as a contradiction: 6.04 s).
  auto shown = [](double v, double limit) {
    int digits = 0;
    while (v > limit && digits < 3 && std::stod(fixed(v, digits)) <= limit) ++digits;
    return fixed(v, digits);
  };
  throw UsageError(
      error_text("cost.err.too-much", {source.empty() ? lesson : source, shown(c.seconds, kMaxLessonSeconds),
                                       shown(c.bytes / (1024 * 1024), kMaxLessonBytes / (1024 * 1024)), c.biggest,
                                       fixed(kMaxLessonSeconds, 0), fixed(kMaxLessonBytes / (1024 * 1024), 0), knobs}));
}

}  // namespace attn
