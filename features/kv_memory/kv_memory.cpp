#include "features/kv_memory/kv_memory.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/usage_error.h"

namespace attn {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

int64_t dtype_bytes(const std::string& dtype) {
  if (dtype == "fp32") return 4;
  if (dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "fp8" || dtype == "int8") return 1;
  throw UsageError(error_text("kvmem.err.dtype", {dtype}));
}

void positive(const std::string& flag, int64_t v, int64_t max) {
  if (v < 1 || v > max) throw UsageError(error_text("kvmem.err.range", {flag, str(v), str(max)}));
}

// "a:b" with non-negative a, b and a + b > 0, as the SWA estimator's parse_ratio (whose int() also
// takes spaces around each number: " 5:1", "5 : 1").
void parse_ratio(const std::string& text, int64_t& a, int64_t& b) {
  const size_t colon = text.find(':');
  auto trim = [](const std::string& s) {
    const size_t first = s.find_first_not_of(" \t"), last = s.find_last_not_of(" \t");
    return first == std::string::npos ? std::string() : s.substr(first, last - first + 1);
  };
  auto number = [&](const std::string& raw, int64_t& out) {
    const std::string s = trim(raw);
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    out = std::stoll(s);
    return true;
  };
  if (colon == std::string::npos || !number(text.substr(0, colon), a) || !number(text.substr(colon + 1), b) ||
      a + b == 0)
    throw UsageError(error_text("kvmem.err.ratio", {text}));
}

// a * b * ... in bytes, or a UsageError when it does not fit in 63 bits.
int64_t product(std::initializer_list<int64_t> factors) {
  unsigned __int128 p = 1;
  for (int64_t f : factors) {
    p *= static_cast<unsigned __int128>(f);
    if (p > static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max()))
      throw UsageError(error_text("kvmem.err.overflow"));
  }
  return static_cast<int64_t>(p);
}

}  // namespace

KvMemoryTotals kv_memory_totals(const KvMemoryEstimate& e, int64_t context_length) {
  const KvMemoryConfig& c = e.config;
  auto per_layer = [&](int64_t tokens, int64_t kv_heads) {
    return product({c.batch_size, tokens, e.head_dim, kv_heads, 2, e.bytes_per_elem});
  };
  KvMemoryTotals t;
  t.context_length = context_length;
  t.mha = product({per_layer(context_length, c.num_heads), c.num_layers});
  t.gqa = product({per_layer(context_length, e.gqa_kv_heads), c.num_layers});
  if (c.window) {
    const int64_t w = std::min(context_length, *c.window);
    t.swa = product({e.swa_layers, per_layer(w, c.num_heads)}) +
            product({e.full_layers, per_layer(context_length, c.num_heads)});
    t.gqa_swa = product({e.swa_layers, per_layer(w, e.gqa_kv_heads)}) +
                product({e.full_layers, per_layer(context_length, e.gqa_kv_heads)});
  }
  if (c.latent_dim) t.mla = product({c.batch_size, context_length, c.num_layers, *c.latent_dim, e.bytes_per_elem});
  return t;
}

KvMemoryEstimate estimate_kv_memory(const KvMemoryConfig& c) {
  positive("--emb-dim", c.emb_dim, 1 << 20);
  positive("--num-heads", c.num_heads, 1 << 16);
  positive("--num-layers", c.num_layers, 1 << 16);
  positive("--context-length", c.context_length, int64_t{1} << 30);
  positive("--batch-size", c.batch_size, 1 << 20);
  positive("--num-kv-groups", c.num_kv_groups, 1 << 16);
  if (c.window) positive("--window", *c.window, int64_t{1} << 30);
  if (c.latent_dim) positive("--latent-dim", *c.latent_dim, 1 << 20);
  if (c.num_heads % c.num_kv_groups != 0)
    throw UsageError(error_text("kvmem.err.groups", {str(c.num_kv_groups), str(c.num_heads)}));
  KvMemoryEstimate e;
  e.config = c;
  e.bytes_per_elem = dtype_bytes(c.dtype);
  e.head_dim = (c.emb_dim + c.num_heads - 1) / c.num_heads;  // math.ceil(emb_dim / n_heads)
  e.gqa_kv_heads = c.num_heads / c.num_kv_groups;
  parse_ratio(c.swa_ratio, e.swa_a, e.swa_b);
  e.config.swa_ratio = str(e.swa_a) + ":" + str(e.swa_b);  // as the printout and the JSON write it
  if (c.plot == "swa" && !c.window) throw UsageError(error_text("kvmem.err.plot-window"));
  const int64_t block = e.swa_a + e.swa_b, blocks = c.num_layers / block, rest = c.num_layers % block;
  e.swa_layers = blocks * e.swa_a + std::min(e.swa_a, rest);
  e.full_layers = blocks * e.swa_b + std::max<int64_t>(0, rest - e.swa_a);
  e.effective_window = c.window ? std::min(c.context_length, *c.window) : 0;
  e.totals = kv_memory_totals(e, c.context_length);
  std::vector<int64_t> lengths;
  for (int64_t n = 256; n <= 131072; n *= 2) lengths.push_back(n);
  if (std::find(lengths.begin(), lengths.end(), c.context_length) == lengths.end()) lengths.push_back(c.context_length);
  std::sort(lengths.begin(), lengths.end());
  for (int64_t n : lengths) e.by_context.push_back(kv_memory_totals(e, n));
  return e;
}

std::string grouped_2f(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  std::string s = buf;
  const size_t dot = s.find('.');
  const size_t start = s[0] == '-' ? 1 : 0;
  for (size_t i = dot; i > start + 3; i -= 3) s.insert(i - 3, ",");
  return s;
}

std::string gigabytes(int64_t bytes) { return grouped_2f(static_cast<double>(bytes) / 1e9) + " GB"; }

std::string kv_memory_json(const KvMemoryEstimate& e, const std::string& version) {
  using nlohmann::ordered_json;
  const KvMemoryConfig& c = e.config;
  auto totals = [](const KvMemoryTotals& t) {
    ordered_json j;
    j["context_length"] = t.context_length;
    j["mha_bytes"] = t.mha;
    j["gqa_bytes"] = t.gqa;
    j["swa_bytes"] = t.swa ? ordered_json(*t.swa) : ordered_json(nullptr);
    j["gqa_swa_bytes"] = t.gqa_swa ? ordered_json(*t.gqa_swa) : ordered_json(nullptr);
    j["mla_bytes"] = t.mla ? ordered_json(*t.mla) : ordered_json(nullptr);
    return j;
  };
  ordered_json j;
  j["schema"] = "attn-tutor-kv-memory/1";
  j["version"] = version;
  j["config"] = {{"emb_dim", c.emb_dim},
                 {"num_heads", c.num_heads},
                 {"num_layers", c.num_layers},
                 {"context_length", c.context_length},
                 {"num_kv_groups", c.num_kv_groups},
                 {"batch_size", c.batch_size},
                 {"dtype", c.dtype},
                 {"window", c.window ? ordered_json(*c.window) : ordered_json(nullptr)},
                 {"swa_ratio", c.swa_ratio},
                 {"latent_dim", c.latent_dim ? ordered_json(*c.latent_dim) : ordered_json(nullptr)}};
  j["bytes_per_elem"] = e.bytes_per_elem;
  j["head_dim"] = e.head_dim;
  j["gqa_kv_heads"] = e.gqa_kv_heads;
  j["swa_layers"] = c.window ? ordered_json(e.swa_layers) : ordered_json(nullptr);
  j["full_layers"] = c.window ? ordered_json(e.full_layers) : ordered_json(nullptr);
  const ordered_json at_context = totals(e.totals);
  for (const auto& [k, v] : at_context.items())
    if (k != "context_length") j[k] = v;
  ordered_json rows = ordered_json::array();
  for (const KvMemoryTotals& t : e.by_context) rows.push_back(totals(t));
  j["by_context_length"] = rows;
  return j.dump(1) + "\n";
}

}  // namespace attn
