#include "lessons/cost_model.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <utility>

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
constexpr double kSecondsPerStreamed = 18e-9;
constexpr double kSecondsPerHeadKey = 70e-9;

double count(int64_t v) { return static_cast<double>(v); }

using WorkFn = LessonWork (*)(const LessonOptions&);

LessonWork no_work(const LessonOptions&) { return {}; }  // naive-scores, softmax: the tokens only

LessonWork trainable_work(const LessonOptions& opt) {
  LessonWork w;
  w.weights = w.recorded = 9 * count(opt.d_in()) * count(opt.d_out);  // SelfAttention v1, v2 and the weights of 3.4.1
  w.weight_knobs = {"d_out"};
  return w;
}

LessonWork causal_mask_work(const LessonOptions& opt) {
  LessonWork w;
  w.weights = w.recorded = 3 * count(opt.d_in()) * count(opt.d_out);  // its masks are the tokens' size
  w.weight_knobs = {"d_out"};
  return w;
}

LessonWork dropout_work(const LessonOptions& opt) {
  LessonWork w;
  w.context = count(opt.context_length_or_tokens());
  w.masks_built = 2, w.masks_alive = 2;  // the §3.5.1 setup's mask and CausalAttention's buffer
  w.weights = w.recorded = 6 * count(opt.d_in()) * count(opt.d_out);
  w.mask_knobs = {"context_length"}, w.weight_knobs = {"d_out"};
  return w;
}

LessonWork wrapper_work(const LessonOptions& opt) {
  LessonWork w;
  const double h = count(opt.heads_or(lesson_default_count("wrapper", "--num-heads")));
  w.context = count(opt.context_length_or_tokens());
  w.masks_built = h, w.masks_alive = h + 2;  // one buffer per CausalAttention head, ones and triu
  w.weights = w.recorded = 3 * count(opt.d_in()) * count(opt.d_out) * (h + (opt.no_reseed ? 1 : 0));
  w.mask_knobs = {"context_length", "num_heads"}, w.weight_knobs = {"d_out", "num_heads"};
  return w;
}

LessonWork mha_work(const LessonOptions& opt) {
  LessonWork w;
  const double d_in = count(opt.d_in()), d_out = count(opt.d_out);
  w.context = count(opt.context_length_or_tokens());
  w.masks_built = 1, w.masks_alive = 2;  // ones, then its triu
  w.weights = w.recorded = 3 * d_in * d_out + d_out * d_out;  // W_query, W_key, W_value, out_proj
  w.mask_knobs = {"context_length"}, w.weight_knobs = {"d_out"};
  if (opt.gpt2) {  // exercise 3.3: 4 x 768 x 768 weights and a 1024 x 1024 mask, whatever the options
    w.extra_seconds = 4 * 768.0 * 768.0 * kSecondsPerWeight + 1024.0 * 1024.0 * kSecondsPerMaskElement;
    w.extra_bytes = 4 * 768.0 * 768.0 * 16 + 2 * 1024.0 * 1024.0 * kBytesPerMaskElement;
  }
  return w;
}

LessonWork course_mha_work(const LessonOptions& opt) {
  LessonWork w;
  const bool post = opt.preset == "post";
  const double d = post ? count(opt.d_model.value_or(course::kDModel)) : count(opt.d_in());
  const int64_t heads = post ? course::kNumHeads : course::small_num_heads(static_cast<int64_t>(d));
  const double h = count(opt.heads_or(heads));
  w.context = opt.context_length ? count(*opt.context_length) : post ? course::kContextLength : count(opt.num_tokens());
  w.masks_built = 2 * h, w.masks_alive = h + 2;  // the heads' buffers, and a CausalAttention per head
  w.weights = w.recorded = 7 * d * d;  // Wq, Wk, Wv of every head, the projection, each head's CausalAttention copy
  w.bytes_per_weight = 8;
  w.mask_knobs = {"context_length", "num_heads"}, w.weight_knobs = {"d_model"};
  return w;
}

LessonWork d2l_mha_work(const LessonOptions& opt) {
  LessonWork w;
  const double n = count(opt.num_hiddens.value_or(lesson_default_count("d2l-mha", "--num-hiddens")));
  const double in = opt.custom_inputs ? count(opt.d_in()) : n;
  w.weights = w.recorded = 3 * in * n + n * n;  // W_q, W_k, W_v and W_o
  w.bytes_per_weight = 10;
  w.weight_knobs = {"num_hiddens"};
  return w;
}

// The sizes a lesson after the chapter runs with (lessons/common/bonus_cells.h's bonus_options).
struct BonusSizes {
  double tokens, d_in, d_out, heads;
};
BonusSizes bonus_sizes(const std::string& lesson, const LessonOptions& opt) {
  return {count(opt.num_tokens()), count(opt.d_in()), count(opt.d_out_or(lesson_default_count(lesson, "--d-out"))),
          count(opt.heads_or(lesson_default_count(lesson, "--num-heads")))};
}

// The tokens one at a time through a cache after a full forward: keys x d_out and keys x heads summed
// over the calls (the full forward's T x T, the steps' 1 + 2 + ... + T).
void token_steps(LessonWork& w, const BonusSizes& s) {
  const double keys = s.tokens * s.tokens + s.tokens * (s.tokens + 1) / 2;
  w.streamed += keys * s.d_out;
  w.head_keys += keys * s.heads;
  w.recorded += s.tokens * (s.tokens + 1) / 2 * s.d_out;  // the cache recorded at every step
}

LessonWork kv_cache_work(const LessonOptions& opt) {
  LessonWork w;
  const BonusSizes s = bonus_sizes("kv-cache", opt);
  const double C = count(opt.context_length_or_tokens()), T = s.tokens, D = s.d_out;
  w.context = C;
  w.masks_built = 1, w.masks_alive = 2;  // the chapter's triu buffer, and its .bool() in the full forward
  const double layer = 3 * s.d_in * D + D * D;  // W_query, W_key, W_value, out_proj
  w.weights = layer;
  // Calls: the full forward (T tokens), T steps, the prefill (T tokens in two calls), then one token
  // at a time until the cache overflows context_length (C - T + 1 calls, the cache growing to C).
  w.calls = T + 2 + (C - T + 1);
  w.cached = C;
  w.macs = (3 * T + (C - T + 1)) * layer;
  token_steps(w, s);
  const double overflow_keys = (C * (C + 1) - T * (T + 1)) / 2;
  w.streamed += (overflow_keys + 2 * T * T) * D;
  w.head_keys += (overflow_keys + 2 * T * T) * s.heads;
  w.recorded += 2 * T * T * D;  // cache_k, cache_v at every step
  w.mask_knobs = {"context_length"}, w.weight_knobs = {"d_out"};
  w.mac_knobs = {"context_length", "d_out"}, w.step_knobs = {"context_length", "d_out", "num_heads"};
  return w;
}

LessonWork gqa_work(const LessonOptions& opt) {
  LessonWork w;
  const BonusSizes s = bonus_sizes("gqa", opt);
  const double g = count(opt.num_kv_groups.value_or(lesson_default_count("gqa", "--num-kv-groups")));
  const double kv = g * (s.d_out / s.heads);
  const double layer = 2 * s.d_in * kv + s.d_in * s.d_out + s.d_out * s.d_out;  // W_key, W_value, W_query, out_proj
  w.weights = w.recorded = layer;
  w.macs = 2 * s.tokens * layer;  // the full forward and the steps
  w.calls = s.tokens + 1, w.cached = s.tokens;
  token_steps(w, s);
  w.weight_knobs = w.mac_knobs = w.step_knobs = {"d_out"};
  return w;
}

LessonWork mla_work(const LessonOptions& opt) {
  LessonWork w;
  const BonusSizes s = bonus_sizes("mla", opt);
  const double L = count(opt.latent_dim.value_or(lesson_default_count("mla", "--latent-dim"))), D = s.d_out, T = s.tokens;
  const double down = s.d_in * D + s.d_in * L + D * D, up = 2 * L * D;  // W_query, W_DKV, out_proj; W_UK, W_UV
  w.weights = w.recorded = down + up;
  // Every call projects all cached latents up again: T in the full forward, 1 + 2 + ... + T in the steps.
  w.macs = 2 * T * down + (T + T * (T + 1) / 2) * up;
  w.calls = T + 1, w.cached = T;
  token_steps(w, s);
  w.weight_knobs = {"d_out", "latent_dim"};
  w.mac_knobs = {"d_out", "latent_dim"}, w.step_knobs = {"d_out"};
  return w;
}

LessonWork swa_work(const LessonOptions& opt) {
  LessonWork w;
  const BonusSizes s = bonus_sizes("swa", opt);
  const double layer = 3 * s.d_in * s.d_out + s.d_out * s.d_out;
  w.weights = 2 * layer;  // the windowed module and the causal one it is compared with
  w.macs = 3 * s.tokens * layer;  // both full forwards and the steps
  w.calls = s.tokens + 2, w.cached = s.tokens;
  token_steps(w, s);
  w.streamed += s.tokens * s.tokens * s.d_out;  // the causal module's forward
  w.head_keys += s.tokens * s.tokens * s.heads;
  w.weight_knobs = w.mac_knobs = w.step_knobs = {"d_out"};
  return w;
}

// Every lesson's work, by name (tests/test_hostile_cost.cpp fails for a lesson missing here).
const std::vector<std::pair<std::string, WorkFn>>& work_table() {
  static const std::vector<std::pair<std::string, WorkFn>> table = {
      {"naive-scores", no_work},   {"softmax", no_work},         {"trainable", trainable_work},
      {"causal-mask", causal_mask_work}, {"dropout", dropout_work}, {"wrapper", wrapper_work},
      {"mha", mha_work},           {"course-mha", course_mha_work}, {"d2l-mha", d2l_mha_work},
      {"kv-cache", kv_cache_work}, {"gqa", gqa_work},           {"mla", mla_work},
      {"swa", swa_work}};
  return table;
}

LessonCost cost_of(const LessonWork& w, bool exporting) {
  LessonCost c;
  const double mask = w.context * w.context;
  const double exported = exporting ? w.recorded : 0;
  c.bytes = kBaseBytes + w.masks_alive * mask * kBytesPerMaskElement + w.weights * w.bytes_per_weight +
            exported * kBytesPerExported + w.extra_bytes;
  const double mask_seconds = w.masks_built * mask * kSecondsPerMaskElement;
  const double weight_seconds = w.weights * kSecondsPerWeight + exported * kSecondsPerExported;
  const double mac_seconds = w.macs * kSecondsPerMac;
  const double step_seconds = w.streamed * kSecondsPerStreamed + w.head_keys * kSecondsPerHeadKey;
  c.seconds = mask_seconds + weight_seconds + mac_seconds + step_seconds + w.extra_seconds;
  const double most = std::max({mask_seconds, weight_seconds, mac_seconds, step_seconds});
  if (most == mask_seconds) {
    c.biggest = error_text(w.masks_built == 1 ? "cost.err.mask" : "cost.err.masks", {fixed(w.masks_built, 0), fixed(w.context, 0)});
    c.knobs = w.mask_knobs;
  } else if (most == weight_seconds) {
    c.biggest = error_text(exporting && w.recorded >= w.weights ? "cost.err.weights-exported" : "cost.err.weights",
                           {fixed(w.weights / 1e6, 1)});
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

const WorkFn* find_work(const std::string& lesson) {
  for (const auto& [name, fn] : work_table())
    if (name == lesson) return &fn;
  return nullptr;
}

}  // namespace

bool has_cost_entry(const std::string& lesson) { return find_work(lesson) != nullptr; }

LessonWork lesson_work(const std::string& lesson, const LessonOptions& opt) {
  const WorkFn* fn = find_work(lesson);
  if (!fn) throw std::logic_error("no cost entry for lesson " + lesson);
  return (*fn)(opt);
}

LessonCost estimate_lesson_cost(const std::string& lesson, const LessonOptions& opt, bool exporting) {
  if (lesson != "all") return cost_of(lesson_work(lesson, opt), exporting);
  LessonCost total, worst;
  total.bytes = kBaseBytes;
  for (const LessonInfo& l : lessons()) {
    if (!l.in_chapter()) continue;  // the chapter's lessons, as `all` runs them
    const LessonCost c = cost_of(lesson_work(l.name, opt), exporting);
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
  // A value over its limit gets the decimals that show it ("about 6 s, more than the limit of 6 s" would
  // read as a contradiction: 6.04 s).
  auto shown = [](double v, double limit) {
    int digits = 0;
    while (v > limit && digits < 3 && std::stod(fixed(v, digits)) <= limit) ++digits;
    return fixed(v, digits);
  };
  throw UsageError(error_text("cost.err.too-much", {source.empty() ? lesson : source, shown(c.seconds, kMaxLessonSeconds),
                                                shown(c.bytes / (1024 * 1024), kMaxLessonBytes / (1024 * 1024)), c.biggest, fixed(kMaxLessonSeconds, 0),
                                                fixed(kMaxLessonBytes / (1024 * 1024), 0), knobs}));
}

}  // namespace attn
