#pragma once
// `attn-tutor bench`: the forms of causal self-attention on the same seeded weights and input,
// timed over repeats, against this machine's measured FP32 peak. Computes; prints nothing.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fast/bench_attention.h"
#include "fast/cpu_features.h"

namespace attn {

struct BenchOptions {
  AttentionShape shape;  // GPT-2 small by default: batch 8, 1024 tokens, 768 dims, 12 heads
  int threads = 0;       // 0: every hardware thread
  int64_t repeats = 5;   // the fewest timed samples per form (each form also runs kMinTimedMs in all)
  uint64_t seed = 123;
  std::optional<Isa> kernels;  // run these kernels instead of the widest the CPU has (must be supported)
  // The forms to time (bench_form_names()); empty: all of them. mha is always timed: it is the reference
  // of max|diff| and of the ratios.
  std::vector<std::string> forms;
};

// --forms a,b,...: the names, checked (UsageError naming the valid ones for an unknown or empty name).
std::vector<std::string> parse_bench_forms(const std::string& list);
// The form names as one list for help and errors: "wrapper, mha, fused-qkv, ...".
std::string bench_forms_text();
// Whether `opt` times the form `name`.
bool bench_times(const BenchOptions& opt, const std::string& name);

// Throws UsageError (one line: the problem and the fix) for sizes the bench cannot run.
void check_bench_options(const BenchOptions& opt);
// The forms, in the table's order: wrapper, mha, fused-qkv, flash, einsum, sdpa-mask, torch-mha,
// torch-mha-weights.
std::vector<std::string> bench_form_names();
// Bytes the run will hold at once: the forms' workspaces, x and the outputs (an estimate
// from the shapes, for the check above; the table reports what was really allocated).
double bench_bytes_estimate(const BenchOptions& opt);
// Floating-point operations of the whole run: every form, a warm-up and `repeats` timed runs each.
double bench_flops_estimate(const BenchOptions& opt);
// About five default runs (GPT-2 small, 5 repeats, eight forms: 3.1 TFLOP, two minutes on 2 cores).
constexpr double kMaxBenchFlops = 16e12;

// How a form is timed. A timing under a millisecond is mostly the clock's and the machine's noise, so a
// timed sample runs the form several times in a row (about kSampleMs: calls_per_sample of the fastest
// run so far, the warm-up's at first) and records the time per run; a form is sampled until it has at
// least --repeats samples and kMinTimedMs of timed runs in all (at most kMaxSamples samples).
constexpr double kMinTimedMs = 200;
constexpr double kSampleMs = 10;
constexpr int64_t kMaxCallsPerSample = 1000000;
constexpr int64_t kMaxSamples = 100000;
// Runs per timed sample for a form whose one run took `run_ms`: kSampleMs / run_ms, at
// least 1 (a run of kSampleMs or more is a sample alone), at most kMaxCallsPerSample (a time of 0 or less).
int64_t calls_per_sample(double run_ms);
// Whether a form with `samples` timed samples, `timed_ms` of timed runs in all, is timed enough.
bool timing_done(int64_t samples, double timed_ms, int64_t min_repeats);

struct FormResult {
  std::string name;        // bench_form_names()
  std::vector<double> ms;  // time per run of each timed sample (of one or more runs)
  int64_t runs = 0;        // timed runs in all samples
  double timed_ms = 0;     // all timed runs together
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double gflops = 0;            // counted FLOPs / median time
  double peak_fraction = 0;     // gflops / peak
  std::size_t extra_bytes = 0;  // the form's workspace: everything but x, weights and output
  double max_abs_diff = 0;      // largest |out - mha's out|
  // Median over the timed runs of each phase (Workspace::Phase): projections, attention, output.
  std::vector<std::vector<double>> phase_runs{Workspace::kPhases};
  double phase_median_ms[Workspace::kPhases] = {};
};

struct BenchResult {
  BenchOptions options;  // threads resolved
  std::string cpu;       // /proc/cpuinfo's model name
  int hardware_threads = 0;
  std::string kernels;               // the instruction set that ran: AVX-512, AVX2+FMA, NEON or portable C++
  bool portable = false;             // the portable C++ kernels ran
  std::string threading;             // OpenMP or std::thread
  int64_t gemm_mr = 0, gemm_nr = 0;  // the GEMM micro-kernel's tile
  std::string peak_loop;  // the FMA loop that measured the peak, e.g. "16 independent 16-lane FMAs (AVX-512)"
  int peak_chains = 0, peak_lanes = 0;  // its facts (FmaPeak::Loop), worded by the report in its language
  std::string peak_isa;                 // its instruction set: AVX-512, AVX2+FMA, NEON or portable C++
  double peak_gflops = 0;               // FmaPeak over all its trials
  int peak_trials = 0;                  // 5 before the forms, 1 after each round of timed runs, 5 after
  double projection_flops = 0;          // 8·b·T·d²
  double attention_flops = 0;           // 4·b·T²·d
  double flops() const { return projection_flops + attention_flops; }
  int64_t flash_tiles_computed = 0, flash_tiles_total = 0;  // per (batch, head)
  int64_t flash_query_tile = 0, flash_key_tile = 0;         // the active kernels' tile sizes
  double flash_flops_done = 0;                              // projections + the attention tiles flash really computes
  std::vector<FormResult> forms;
  const FormResult* form(const std::string& name) const;
};

// Called before each run: form name, run number (0 is the warm-up), runs per form.
using BenchProgress = std::function<void(const std::string&, int, int)>;
BenchResult run_attention_bench(const BenchOptions& opt, const BenchProgress& progress = {});

// {"schema": "attn-tutor-bench/1", ...}: every figure of the table (README.md).
std::string bench_json(const BenchResult& r, const std::string& version);

int hardware_threads();
std::string cpu_model_name();

}  // namespace attn
