#pragma once
// `attn-tutor kv-memory`: the KV-cache estimators of the book's bonus material after chapter 3
// (rasbt/LLMs-from-scratch ch04/04_gqa memory_estimator_gqa.py, 05_mla memory_estimator_mla.py,
// 06_swa memory_estimator_swa.py), with their conventions:
//   bytes per element: fp32 4, bf16 2, fp16 2, fp8 1, int8 1
//   head_dim = ceil(emb_dim / n_heads)
//   per layer: batch * context_length * head_dim * n_kv_heads * 2 (K and V) * bytes_per_elem
//   MHA: n_kv_heads = n_heads;  GQA: n_kv_heads = n_heads // n_kv_groups (the scripts' reading of
//        n_kv_groups: query heads per key/value head, the reverse of GroupedQueryAttention's num_kv_groups)
//   SWA "a:b": blocks of a sliding-window then b full layers; n_layers // (a + b) whole blocks, the rest
//        filled SWA first: swa = blocks * a + min(a, rest), full = blocks * b + max(0, rest - a);
//        a sliding-window layer caches min(window, context_length) tokens, a full one context_length
//   MLA: batch * context_length * n_layers * latent_dim * bytes_per_elem (one latent, no factor 2)
//   GB = bytes / 10^9, printed with two decimals.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "notebook/prose.h"

namespace attn {

struct KvMemoryConfig {
  int64_t emb_dim = 4096, num_heads = 32, num_layers = 32, context_length = 32768, batch_size = 1;
  std::string dtype = "bf16";
  int64_t num_kv_groups = 4;
  std::optional<int64_t> window;      // SWA (and GQA + SWA) only when given
  std::string swa_ratio = "1:0";      // the scripts' default: every layer sliding-window
  std::optional<int64_t> latent_dim;  // MLA only when given
  // What the plot draws (--plot): "methods", one curve per estimator above; "gqa", MHA and GQA at the
  // bonus plot's n_kv_groups (4, 8, 12, 24 that divide n_heads, and --num-kv-groups); "mla", MHA and MLA
  // at its latent sizes (1024, 512, 256, 64, and --latent-dim); "swa" (needs --window), MHA, GQA and
  // SWA at several ratios (--swa-ratio, 1:0, 5:1, 1:1) on MHA, GQA + SWA at --swa-ratio.
  std::string plot = "methods";
};

struct KvMemoryTotals {
  int64_t context_length = 0;
  int64_t mha = 0, gqa = 0;
  std::optional<int64_t> swa, gqa_swa, mla;
};

struct KvMemoryEstimate {
  KvMemoryConfig config;
  int64_t bytes_per_elem = 0, head_dim = 0, gqa_kv_heads = 0;
  int64_t swa_a = 0, swa_b = 0, swa_layers = 0, full_layers = 0, effective_window = 0;
  KvMemoryTotals totals;                   // at config.context_length
  std::vector<KvMemoryTotals> by_context;  // 256 ... 131072 (the plot scripts'), and config.context_length
};

// Checks the options (UsageError with one line: what and the fix) and computes every figure.
KvMemoryEstimate estimate_kv_memory(const KvMemoryConfig& config);
// The totals at one context length (the config already checked).
KvMemoryTotals kv_memory_totals(const KvMemoryEstimate& e, int64_t context_length);

// f"{x:,.2f}": two decimals, thousands separated by commas.
std::string grouped_2f(double x);
// "17.18 GB" as the scripts print bytes.
std::string gigabytes(int64_t bytes);

std::string kv_memory_json(const KvMemoryEstimate& e, const std::string& version);
// The text, its prose wrapped and its plot drawn to `columns` (the terminal's width, $COLUMNS).
std::string render_kv_memory(const KvMemoryEstimate& e, Lang lang, size_t columns = 80);
// The same as an HTML document (kv_memory_html.cpp):
//   <main class="kv-memory"> <h1>, <pre class="estimate"> (the text's config, totals and formulas),
//   <h2> + <table class="kv-memory"> (one <tr> per context length, <tr class="current"> for --context-length),
//   <h2> + <figure class="kv-chart"><svg class="kv-chart" role="img" aria-label=...> with <title>,
//   <g class="y-axis">, <g class="x-axis">, <text class="axis-title x-title|y-title">, <line class="current">,
//   one <g class="series" data-series="MHA|GQA|MHA+SWA|GQA+SWA|MLA"> per estimator holding one <polyline> and a
//   <circle data-x="256" data-y="0.13" data-bytes="..."><title>...</title></circle> per point, <g class="legend">;
//   <figcaption>.
std::string kv_memory_html(const KvMemoryEstimate& e, Lang lang);

}  // namespace attn
