#include "lessons/cost_model.h"

#include <algorithm>
#include <cstdio>

#include "core/usage_error.h"
#include "lessons/course-mha/course_settings.h"
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

struct Work {
  double masks_built = 0, masks_alive = 0, context = 0;  // context x context float masks
  double weights = 0, bytes_per_weight = 16;
  double extra_seconds = 0, extra_bytes = 0;  // fixed work beside the options' (mha --gpt2)
  std::vector<std::string> mask_knobs, weight_knobs;
};

Work work_of(const std::string& lesson, const LessonOptions& opt) {
  Work w;
  const double d_in = static_cast<double>(opt.d_in()), d_out = static_cast<double>(opt.d_out);
  const double T = static_cast<double>(opt.num_tokens());
  w.context = static_cast<double>(opt.context_length_or_tokens());
  if (lesson == "trainable") {
    w.weights = 9 * d_in * d_out;  // SelfAttention v1, v2 and the weights of 3.4.1
    w.weight_knobs = {"d_out"};
  } else if (lesson == "dropout") {
    w.masks_built = 2, w.masks_alive = 2;  // the §3.5.1 setup's mask and CausalAttention's buffer
    w.weights = 6 * d_in * d_out;
    w.mask_knobs = {"context_length"}, w.weight_knobs = {"d_out"};
  } else if (lesson == "wrapper") {
    const double h = static_cast<double>(opt.heads_or(lesson_default_count("wrapper", "--num-heads")));
    w.masks_built = h, w.masks_alive = h + 2;  // one buffer per CausalAttention head, ones and triu
    w.weights = 3 * d_in * d_out * (h + (opt.no_reseed ? 1 : 0));
    w.mask_knobs = {"context_length", "num_heads"}, w.weight_knobs = {"d_out", "num_heads"};
  } else if (lesson == "mha") {
    w.masks_built = 1, w.masks_alive = 2;  // ones, then its triu
    w.weights = 3 * d_in * d_out + d_out * d_out;  // W_query, W_key, W_value, out_proj
    w.mask_knobs = {"context_length"}, w.weight_knobs = {"d_out"};
    if (opt.gpt2) {  // exercise 3.3: 4 x 768 x 768 weights and a 1024 x 1024 mask, whatever the options
      w.extra_seconds = 4 * 768.0 * 768.0 * kSecondsPerWeight + 1024.0 * 1024.0 * kSecondsPerMaskElement;
      w.extra_bytes = 4 * 768.0 * 768.0 * 16 + 2 * 1024.0 * 1024.0 * kBytesPerMaskElement;
    }
  } else if (lesson == "course-mha") {
    const bool post = opt.preset == "post";
    const double d = post ? static_cast<double>(opt.d_model.value_or(course::kDModel)) : d_in;
    const int64_t heads = post ? course::kNumHeads : course::small_num_heads(static_cast<int64_t>(d));
    const double h = static_cast<double>(opt.heads_or(heads));
    w.context = opt.context_length ? static_cast<double>(*opt.context_length) : post ? course::kContextLength : T;
    w.masks_built = 2 * h, w.masks_alive = h + 2;  // the heads' buffers, and a CausalAttention per head
    w.weights = 7 * d * d;  // Wq, Wk, Wv of every head, the projection, each head's CausalAttention copy
    w.bytes_per_weight = 8;
    w.mask_knobs = {"context_length", "num_heads"}, w.weight_knobs = {"d_model"};
  } else if (lesson == "d2l-mha") {
    const double n = static_cast<double>(opt.num_hiddens.value_or(lesson_default_count("d2l-mha", "--num-hiddens")));
    const double in = opt.custom_inputs ? d_in : n;
    w.weights = 3 * in * n + n * n;  // W_q, W_k, W_v and W_o
    w.bytes_per_weight = 10;
    w.weight_knobs = {"num_hiddens"};
  }
  return w;
}

LessonCost cost_of(const Work& w, bool exporting) {
  LessonCost c;
  const double mask = w.context * w.context;
  const double exported = exporting ? w.weights : 0;  // every weight is a recorded tensor
  c.bytes = kBaseBytes + w.masks_alive * mask * kBytesPerMaskElement + w.weights * w.bytes_per_weight +
            exported * kBytesPerExported + w.extra_bytes;
  const double mask_seconds = w.masks_built * mask * kSecondsPerMaskElement;
  const double weight_seconds = w.weights * kSecondsPerWeight + exported * kSecondsPerExported;
  c.seconds = mask_seconds + weight_seconds + w.extra_seconds;
  if (mask_seconds >= weight_seconds) {
    c.biggest = error_text(w.masks_built == 1 ? "cost.err.mask" : "cost.err.masks", {fixed(w.masks_built, 0), fixed(w.context, 0)});
    c.knobs = w.mask_knobs;
  } else {
    c.biggest = error_text(exporting ? "cost.err.weights-exported" : "cost.err.weights", {fixed(w.weights / 1e6, 1)});
    c.knobs = w.weight_knobs;
  }
  return c;
}

}  // namespace

LessonCost estimate_lesson_cost(const std::string& lesson, const LessonOptions& opt, bool exporting) {
  if (lesson != "all") return cost_of(work_of(lesson, opt), exporting);
  LessonCost total, worst;
  total.bytes = kBaseBytes;
  for (const LessonInfo& l : lessons()) {
    if (l.sections.front().rfind("3.", 0) != 0) continue;  // the chapter's lessons, as `all` runs them
    const LessonCost c = cost_of(work_of(l.name, opt), exporting);
    total.bytes += c.bytes - kBaseBytes;  // the notebook keeps every lesson's tensors
    total.seconds += c.seconds;
    if (c.seconds >= worst.seconds) worst = c;
  }
  total.biggest = worst.biggest;
  total.knobs = worst.knobs;
  return total;
}

const LessonOptions& require_affordable(const std::string& lesson, const LessonOptions& opt, bool exporting,
                                        const std::string& knob_prefix, double runs, const std::string& source) {
  LessonCost c = estimate_lesson_cost(lesson, opt, exporting);
  c.seconds *= runs;
  c.bytes = kBaseBytes + (c.bytes - kBaseBytes) * runs;
  if (c.bytes <= kMaxLessonBytes && c.seconds <= kMaxLessonSeconds) return opt;
  // "a", "a or b", "a, b or c"
  ErrorText knobs = error_text("cost.err.the-sizes");
  for (size_t i = 0; i < c.knobs.size(); ++i) {
    std::string k = c.knobs[i];
    if (knob_prefix == "--") std::replace(k.begin(), k.end(), '_', '-');
    const std::string knob = knob_prefix + k;
    if (i == 0) knobs = knob;
    else knobs = error_text(i + 1 == c.knobs.size() ? "cost.err.or" : "cost.err.list", {knobs, knob});
  }
  throw UsageError(error_text("cost.err.too-much", {source.empty() ? lesson : source, fixed(c.seconds, 0),
                                                fixed(c.bytes / (1024 * 1024), 0), c.biggest, fixed(kMaxLessonSeconds, 0),
                                                fixed(kMaxLessonBytes / (1024 * 1024), 0), knobs}));
}

}  // namespace attn
