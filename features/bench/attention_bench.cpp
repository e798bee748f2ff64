#include "features/bench/attention_bench.h"

#include <unistd.h>
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iterator>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "features/bench/bonus_timings.h"
#include "fast/bench_forms.h"
#include "fast/flash_attention.h"
#include "fast/fma_peak.h"
#include "fast/kernels.h"
#include "fast/parallel.h"
#include "core/usage_error.h"

namespace attn {

namespace {

using Forward = void (*)(const MhaWeights&, const AttentionShape&, const float*, float*, int, Workspace&);

struct Form {
  const char* name;
  Forward forward;
};

// In the order the table shows them: the chapter's four steps up, each from the one before, then the
// bonus notebook's other forms (bonus_timings.h says which row each is). mha is the reference.
const Form kForms[] = {{"wrapper", wrapper_forward},     {"mha", mha_forward},
                       {"fused-qkv", fused_qkv_forward}, {"flash", flash_forward},
                       {"einsum", einsum_forward},       {"sdpa-mask", sdpa_mask_forward},
                       {"torch-mha", torch_mha_forward}, {"torch-mha-weights", torch_mha_weights_forward}};
constexpr int kMhaIndex = 1;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string gb(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GB", bytes / 1e9);
  return text;
}

}  // namespace

int hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

std::string cpu_model_name() {
#if defined(__APPLE__)
  char brand[256] = {};
  size_t size = sizeof brand;
  if (sysctlbyname("machdep.cpu.brand_string", brand, &size, nullptr, 0) == 0 && brand[0]) return brand;
#endif
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(colon + 1);
        name.erase(0, name.find_first_not_of(" \t"));
        name.erase(name.find_last_not_of(" \t") + 1);
        if (!name.empty()) return name;
      }
    }
  return "unknown CPU";
}

std::vector<std::string> bench_form_names() {
  std::vector<std::string> names;
  for (const Form& f : kForms) names.push_back(f.name);
  return names;
}

std::string bench_forms_text() {
  std::string valid;
  for (const Form& f : kForms) valid += std::string(valid.empty() ? "" : ", ") + f.name;
  return valid;
}

std::vector<std::string> parse_bench_forms(const std::string& list) {
  const std::string valid = bench_forms_text();
  std::vector<std::string> names;
  size_t start = 0;
  for (;;) {
    const size_t comma = list.find(',', start);
    const std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    bool known = false;
    for (const Form& f : kForms) known = known || name == f.name;
    if (!known)
      throw UsageError(error_text(name.empty() ? "bench.err.forms-empty" : "bench.err.forms", {list, name, valid}));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    if (comma == std::string::npos) return names;
    start = comma + 1;
  }
}

bool bench_times(const BenchOptions& opt, const std::string& name) {
  return opt.forms.empty() || name == kForms[kMhaIndex].name ||
         std::find(opt.forms.begin(), opt.forms.end(), name) != opt.forms.end();
}

double bench_bytes_estimate(const BenchOptions& opt) {
  const AttentionShape& s = opt.shape;
  const double b = s.batch, T = s.tokens, d = s.d_model, h = s.heads;
  const double act = b * T * d;  // one (b, T, d) tensor
  // The (b, heads, T, T) scores and weights: once, shared by the forms that hold them (Workspace::shared),
  // since the forms run one after another.
  const double shared = 2 * b * h * T * T;
  const double torch_mha = 9 * act + T * T;  // qkv, q, k, v apart, scaled q, two contexts; the mask
  const std::pair<const char*, double> forms[] = {
      {"mha", 5 * act},  // q, k, v, two contexts
      {"wrapper", 2 * b * T * T + 3 * act / h + 2 * act},
      {"fused-qkv", 5 * act},  // one (b, T, 3d) qkv, two contexts
      {"flash", 5 * act},      // at most: a chunk of the batch's qkv, packed keys and values
      {"einsum", 5 * act},
      {"sdpa-mask", 7 * act + T * T},  // qkv, scaled q and k, two contexts; the float mask
      {"torch-mha", torch_mha},
      {"torch-mha-weights", torch_mha + b * T * T}};  // + the head-averaged (b, T, T) weights
  double total = shared;                              // mha's, always run
  for (const auto& [name, floats] : forms)
    if (bench_times(opt, name)) total += floats + act;  // + its output
  const double weights = 10 * d * d;         // W_query, W_key, W_value, out_proj, the fused W_qkv, einsum's transposes
  return 4.0 * (total + 2 * act + weights);  // + x and mha's copy
}

namespace {

int timed_form_count(const BenchOptions& opt) {
  int n = 0;
  for (const Form& f : kForms) n += bench_times(opt, f.name);
  return n;
}

}  // namespace

double bench_flops_estimate(const BenchOptions& opt) {
  const AttentionShape& s = opt.shape;
  const double b = s.batch, T = s.tokens, d = s.d_model;
  const double per_run = 8 * b * T * d * d + 4 * b * T * T * d;
  return per_run * timed_form_count(opt) *
         static_cast<double>(opt.repeats + 1);  // each form, a warm-up and the timed runs
}

void check_bench_options(const BenchOptions& opt) {
  const AttentionShape& s = opt.shape;
  // `why`: a key of features/bench/text.txt, why the option needs at least `lo`.
  auto range = [](const std::string& name, int64_t v, int64_t lo, int64_t hi, const char* why) {
    if (v < lo || v > hi)
      throw UsageError(
          error_text("bench.err.range", {name, std::to_string(v), error_text(v < lo ? why : "bench.err.more"),
                                         std::to_string(lo), std::to_string(hi)}));
  };
  range("--batch", s.batch, 1, 4096, "bench.err.batch");
  range("--tokens", s.tokens, 1, 65536, "bench.err.tokens");
  range("--d-model", s.d_model, 1, 16384, "bench.err.d-model");
  range("--num-heads", s.heads, 1, 1024, "bench.err.heads");
  if (opt.threads > hardware_threads())
    throw UsageError(
        error_text("bench.err.threads-many", {std::to_string(opt.threads), std::to_string(hardware_threads())}));
  range("--threads", opt.threads, 1, hardware_threads(), "bench.err.threads");
  range("--repeats", opt.repeats, 1, 1000, "bench.err.repeats");
  if (opt.kernels && !isa_supported(*opt.kernels)) {
    std::string have;
    for (Isa isa : supported_isas()) have += std::string(have.empty() ? "" : ", ") + isa_name(isa);
    throw UsageError(error_text("bench.err.kernels", {std::string(isa_name(*opt.kernels)), have}));
  }
  if (s.heads > s.d_model)
    throw UsageError(error_text("bench.err.heads-many", {std::to_string(s.heads), std::to_string(s.d_model)}));
  if (s.d_model % s.heads != 0) {
    // The nearest multiple of the heads inside the range (16384 with 12 heads: 16380, not 16392).
    const int64_t below = s.d_model / s.heads * s.heads, above = below + s.heads;
    const int64_t suggestion = above <= 16384 && above - s.d_model <= s.d_model - below ? above : below;
    throw UsageError(error_text("bench.err.divisible",
                                {std::to_string(s.d_model), std::to_string(s.heads), std::to_string(suggestion)}));
  }
  const double need = bench_bytes_estimate(opt);
  const double memory = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (memory > 0 && need > memory / 2) {
    // Name what dominates: the (batch, heads, T, T) scores, or the d_model x d_model weights.
    const double b = s.batch, T = s.tokens, d = s.d_model, h = s.heads;
    const bool scores = 2 * b * h * T * T >= 10 * d * d;
    throw UsageError(error_text(
        scores ? "bench.err.memory-scores" : "bench.err.memory-weights",
        {std::to_string(s.batch), std::to_string(s.tokens), std::to_string(s.d_model), gb(need), gb(memory)}));
  }
  const double flops = bench_flops_estimate(opt);
  if (flops > kMaxBenchFlops) {
    char text[64];
    std::snprintf(text, sizeof text, "%.0f TFLOP", flops / 1e12);
    throw UsageError(error_text(
        "bench.err.flops",
        {std::string(text), std::to_string(opt.repeats + 1), std::to_string(static_cast<int>(kMaxBenchFlops / 1e12)),
         std::to_string(opt.repeats), std::to_string(s.batch), std::to_string(s.tokens), std::to_string(s.d_model),
         std::to_string(timed_form_count(opt))}));
  }
}

int64_t calls_per_sample(double run_ms) {
  if (!(run_ms > 0)) return kMaxCallsPerSample;  // 0, negative or nan
  const double calls = std::floor(kSampleMs / run_ms);
  if (calls < 1) return 1;
  return calls >= static_cast<double>(kMaxCallsPerSample) ? kMaxCallsPerSample : static_cast<int64_t>(calls);
}

bool timing_done(int64_t samples, double timed_ms, int64_t min_repeats) {
  if (samples >= kMaxSamples) return true;
  return samples >= min_repeats && timed_ms >= kMinTimedMs;
}

const FormResult* BenchResult::form(const std::string& name) const {
  for (const FormResult& f : forms)
    if (f.name == name) return &f;
  return nullptr;
}

BenchResult run_attention_bench(const BenchOptions& options, const BenchProgress& progress) {
  using clock = std::chrono::steady_clock;
  BenchResult r;
  r.options = options;
  if (r.options.threads <= 0) r.options.threads = hardware_threads();
  check_bench_options(r.options);
  const AttentionShape& s = r.options.shape;
  const int threads = r.options.threads, repeats = static_cast<int>(r.options.repeats);
  // The kernels for this run: the widest this CPU has, or those asked for; restored afterwards.
  struct KernelChoice {
    Isa before = active_isa();
    explicit KernelChoice(const std::optional<Isa>& isa) {
      if (isa) force_isa(*isa);
    }
    ~KernelChoice() { force_isa(before); }
  } choice(r.options.kernels);
  const KernelSet& k = active_kernels();
  r.cpu = cpu_model_name();
  r.hardware_threads = hardware_threads();
  r.kernels = isa_name(k.isa);
  r.portable = k.isa == Isa::Portable;
  r.threading = threading_name();
  r.gemm_mr = k.mr, r.gemm_nr = k.nr;
  const double b = s.batch, T = s.tokens, d = s.d_model, h = s.heads, hd = s.head_dim();
  r.projection_flops = 8 * b * T * d * d;
  r.attention_flops = 4 * b * T * T * d;
  const FlashTileCount tiles = flash_tiles(s.tokens);
  r.flash_tiles_computed = tiles.computed;
  r.flash_tiles_total = tiles.total;
  r.flash_query_tile = tiles.query_tile, r.flash_key_tile = tiles.key_tile;
  // Each computed tile: br x bc scores (2·hd flops each) and br queries x bc keys into hd outputs.
  r.flash_flops_done =
      r.projection_flops + b * h * static_cast<double>(tiles.computed) * tiles.query_tile * tiles.key_tile * 4 * hd;

  FmaPeak peak(threads);
  peak.measure(5);
  std::vector<float> x;
  const MhaWeights w = seeded_weights(s, r.options.seed, x);
  const size_t n = x.size();
  std::vector<const Form*> chosen;  // the forms timed, in the table's order; mha first
  chosen.push_back(&kForms[kMhaIndex]);
  for (const Form& f : kForms)
    if (&f != &kForms[kMhaIndex] && bench_times(r.options, f.name)) chosen.push_back(&f);
  const int forms = static_cast<int>(chosen.size());
  std::vector<Workspace> spaces(forms);
  // The forms run one after another, so the (b, heads, T, T) buffers of those that hold them are one set.
  auto pool = std::make_shared<std::vector<AlignedFloats>>();
  for (Workspace& ws : spaces) ws.share(pool);
  std::vector<std::vector<float>> outs(forms, std::vector<float>(n));
  r.forms.resize(forms);
  // Warm-up: mha first (the reference), then the others; it sizes the workspaces and faults in
  // their pages, so the timed runs below measure the computation.
  std::vector<double> fastest(forms);  // each form's fastest run so far (ms): its samples' length
  for (int i = 0; i < forms; ++i) {
    if (progress) progress(chosen[i]->name, 0, repeats);
    const auto t0 = clock::now();
    chosen[i]->forward(w, s, x.data(), outs[i].data(), threads, spaces[i]);
    fastest[i] = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    r.forms[i].name = chosen[i]->name;
    r.forms[i].extra_bytes = spaces[i].bytes();
    double diff = 0;
    for (size_t j = 0; j < n; ++j) diff = std::max(diff, static_cast<double>(std::fabs(outs[i][j] - outs[0][j])));
    r.forms[i].max_abs_diff = diff;
  }
  // Timed samples, round-robin, so a slow moment of the machine does not fall on one form only; a form
  // that is timed enough (timing_done) sits the later rounds out. The peak is measured after each of
  // the first --repeats rounds.
  for (int round = 1;; ++round) {
    bool any = false;
    for (int i = 0; i < forms; ++i) {
      FormResult& f = r.forms[i];
      if (timing_done(static_cast<int64_t>(f.ms.size()), f.timed_ms, repeats)) continue;
      any = true;
      const int sample = static_cast<int>(f.ms.size()) + 1;
      if (progress) progress(chosen[i]->name, sample, std::max(repeats, sample));
      std::fill(std::begin(spaces[i].phase_ms), std::end(spaces[i].phase_ms), 0.0);
      const int64_t runs = calls_per_sample(fastest[i]);
      const auto t0 = clock::now();
      for (int64_t c = 0; c < runs; ++c) chosen[i]->forward(w, s, x.data(), outs[i].data(), threads, spaces[i]);
      const double ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
      const double calls = static_cast<double>(runs);
      f.ms.push_back(ms / calls);
      f.runs += runs;
      f.timed_ms += ms;
      fastest[i] = std::min(fastest[i], ms / calls);
      for (int p = 0; p < Workspace::kPhases; ++p) f.phase_runs[p].push_back(spaces[i].phase_ms[p] / calls);
    }
    if (!any) break;
    if (round <= repeats) peak.measure(1);
  }
  peak.measure(5);
  r.peak_loop = peak.loop_text();
  const FmaPeak::Loop loop = peak.loop();
  r.peak_chains = loop.chains;
  r.peak_lanes = loop.lanes;
  r.peak_isa = isa_name(loop.isa);
  r.peak_gflops = peak.gflops();
  r.peak_trials = peak.trials();
  // The table's order: the forms as kForms lists them (mha ran first, as the reference).
  std::vector<FormResult> ordered;
  for (const Form& form : kForms)
    for (FormResult& f : r.forms)
      if (f.name == form.name) ordered.push_back(std::move(f));
  r.forms = std::move(ordered);
  for (FormResult& f : r.forms) {
    f.median_ms = median(f.ms);
    f.min_ms = *std::min_element(f.ms.begin(), f.ms.end());
    f.max_ms = *std::max_element(f.ms.begin(), f.ms.end());
    f.gflops = r.flops() / (f.median_ms * 1e6);
    f.peak_fraction = f.gflops / r.peak_gflops;
    for (int p = 0; p < Workspace::kPhases; ++p) f.phase_median_ms[p] = median(f.phase_runs[p]);
  }
  return r;
}

std::string bench_json(const BenchResult& r, const std::string& version) {
  const AttentionShape& s = r.options.shape;
  nlohmann::ordered_json j;
  j["schema"] = "attn-tutor-bench/1";
  j["version"] = version;
  j["config"] = {{"batch", s.batch},
                 {"tokens", s.tokens},
                 {"d_model", s.d_model},
                 {"num_heads", s.heads},
                 {"head_dim", s.head_dim()},
                 {"threads", r.options.threads},
                 {"repeats", r.options.repeats},
                 {"seed", r.options.seed},
                 {"min_timed_ms", kMinTimedMs}};
  nlohmann::ordered_json timed = nlohmann::ordered_json::array();
  for (const FormResult& f : r.forms) timed.push_back(f.name);
  j["config"]["forms"] = timed;
  j["machine"] = {{"cpu", r.cpu},
                  {"hardware_threads", r.hardware_threads},
                  {"kernels", r.kernels},
                  {"threading", r.threading},
                  {"gemm_micro_kernel", {r.gemm_mr, r.gemm_nr}},
                  {"flash_tile", {r.flash_query_tile, r.flash_key_tile}},
                  {"peak_loop", r.peak_loop},
                  {"peak_gflops", r.peak_gflops},
                  {"peak_trials", r.peak_trials}};
  j["flops"] = {{"formula", "8*b*T*d^2 + 4*b*T^2*d"},      {"projections", r.projection_flops},
                {"attention", r.attention_flops},          {"total", r.flops()},
                {"flash_done", r.flash_flops_done},        {"flash_tiles_computed", r.flash_tiles_computed},
                {"flash_tiles_total", r.flash_tiles_total}};
  nlohmann::ordered_json bonus = nlohmann::ordered_json::array();
  for (const BonusRow& row : bonus_rows())
    bonus.push_back({{"row", row.row},
                     {"class", row.bonus_class},
                     {"form", row.form.empty() ? nullptr : nlohmann::ordered_json(row.form)},
                     {"m3_cpu_ms", row.m3_ms ? nlohmann::ordered_json(*row.m3_ms) : nullptr}});
  j["bonus_notebook"] = {{"source", kBonusSource}, {"rows", bonus}};
  nlohmann::ordered_json forms = nlohmann::ordered_json::array();
  for (const FormResult& f : r.forms)
    forms.push_back({{"name", f.name},
                     {"bonus_row", bonus_row_of(f.name) ? bonus_row_of(f.name)->row : 0},
                     {"median_ms", f.median_ms},
                     {"min_ms", f.min_ms},
                     {"max_ms", f.max_ms},
                     {"times_ms", f.ms},
                     {"runs", f.runs},
                     {"timed_ms", f.timed_ms},
                     {"gflops", f.gflops},
                     {"peak_fraction", f.peak_fraction},
                     {"extra_bytes", f.extra_bytes},
                     {"max_abs_diff_vs_mha", f.max_abs_diff},
                     {"phases_median_ms",
                      {{"projections", f.phase_median_ms[Workspace::kProjections]},
                       {"attention", f.phase_median_ms[Workspace::kAttention]},
                       {"output", f.phase_median_ms[Workspace::kOutput]}}}});
  j["forms"] = forms;
  return j.dump(1) + "\n";
}

}  // namespace attn
