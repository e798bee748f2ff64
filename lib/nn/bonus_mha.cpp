// The bonus material's MultiHeadAttention shapes: the chapter's module with a KV cache
// (ch04/03_kv-cache) and with a sliding window (ch04/06_swa); and the position helpers all four share.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/ops_shape.h"
#include "nn/bonus_attention.h"
#include "nn/causal_attention.h"

namespace attn {

Tensor arange_positions(int64_t start, int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(start + i);
  return Tensor({n}, std::move(v), DType::Int64);
}

Tensor future_mask(const Tensor& q_positions, const Tensor& k_positions) {
  const std::vector<float> q = q_positions.values(), k = k_positions.values();
  std::vector<float> m;
  for (float qi : q)
    for (float kj : k) m.push_back(qi < kj ? 1.0f : 0.0f);
  return Tensor({q_positions.numel(), k_positions.numel()}, std::move(m), DType::Bool);
}

Tensor cached_future_mask(BonusAttentionTrace& t, int64_t& ptr_current_pos, bool use_cache, int64_t num_tokens,
                          int64_t num_keys) {
  t.q_positions = arange_positions(use_cache ? ptr_current_pos : 0, num_tokens);
  ptr_current_pos = use_cache ? ptr_current_pos + num_tokens : 0;
  t.k_positions = arange_positions(0, num_keys);
  return future_mask(t.q_positions, t.k_positions);
}

Tensor finish_forward(BonusAttentionTrace& t, const Tensor& mask_bool, double dropout, Generator& gen,
                      BernoulliPath path, const Linear& out_proj, BonusAttentionTrace* trace, const Variant& v) {
  attend_heads(t.queries, t.keys, t.values, mask_bool, dropout, gen, path, out_proj, t, v);
  t.context_vec = inference(t.context_vec);
  return hand_over(t, trace, t.context_vec);
}

void KeyValueCache::reset_cache() {
  cache_k.reset();
  cache_v.reset();
  ptr_current_pos = 0;
}

Tensor token_slice(const Tensor& x, int64_t start, int64_t length) { return contiguous(narrow(x, 1, start, length)); }

namespace {

// self.mask.bool()[start:start + rows, :cols] as it meets masked_fill_ on (b, H, rows, cols) scores: a
// slice past context_length is shorter, and PyTorch's broadcast then fails with this message.
Tensor mask_rows(const Tensor& mask, int64_t start, int64_t rows, int64_t cols) {
  const int64_t ctx = mask.size(0);
  const int64_t r = std::max<int64_t>(0, std::min(ctx, start + rows) - std::min(ctx, start));
  const int64_t c = std::min(ctx, cols);
  auto mismatch = [](int64_t a, int64_t b, int dim) {
    return std::invalid_argument("The size of tensor a (" + std::to_string(a) + ") must match the size of tensor b (" +
                                 std::to_string(b) + ") at non-singleton dimension " + std::to_string(dim));
  };
  if (c != cols) throw mismatch(cols, c, 3);
  if (r != rows && r != 1) throw mismatch(rows, r, 2);
  return to_bool(
      narrow(narrow(mask, 0, std::min(ctx, start), r), 1, 0, c));  // only the rows used, not the whole buffer
}

// x's (b, T, d_out) projection as (b, T, num_heads, head_dim). A learner's view straight to
// (b, num_heads, T, head_dim) (`no_transpose`) gives other numbers: those, in this layout.
Tensor split_heads(const Tensor& projected, int64_t num_heads, int64_t head_dim, bool no_transpose) {
  const int64_t b = projected.size(0), n = projected.size(1);
  if (no_transpose) return transpose(view(projected, {b, num_heads, n, head_dim}), 1, 2);
  return view(projected, {b, n, num_heads, head_dim});
}

// The start of the chapter-shaped forwards: x's keys, values and queries (in that order), and the new
// tokens' keys and values as (b, T, H, hd).
BonusAttentionTrace project_new_tokens(const Tensor& x, const Linear& W_query, const Linear& W_key,
                                       const Linear& W_value, int64_t num_heads, int64_t head_dim, bool no_transpose) {
  BonusAttentionTrace t;
  t.keys_proj = inference(W_key(x));
  t.values_proj = inference(W_value(x));
  t.queries_proj = inference(W_query(x));
  t.keys_new = split_heads(t.keys_proj, num_heads, head_dim, no_transpose);
  t.values_new = split_heads(t.values_proj, num_heads, head_dim, no_transpose);
  return t;
}

}  // namespace

KVCacheMultiHeadAttention KVCacheMultiHeadAttention::init(Generator& gen, int64_t d_in, int64_t d_out,
                                                          int64_t context_length, double dropout, int64_t num_heads,
                                                          bool qkv_bias) {
  KVCacheMultiHeadAttention m;
  m.mha = MultiHeadAttention::init(gen, d_in, d_out, context_length, dropout, num_heads, qkv_bias);
  return m;
}

Tensor KVCacheMultiHeadAttention::forward(const Tensor& x, bool use_cache, Generator& gen, BernoulliPath path,
                                          BonusAttentionTrace* trace) {
  const int64_t num_tokens = x.size(1);
  const bool no_transpose = variant.split_without_transpose;
  BonusAttentionTrace t =
      project_new_tokens(x, mha.W_query, mha.W_key, mha.W_value, mha.num_heads, mha.head_dim, no_transpose);
  t.ptr_before = ptr_current_pos;
  // The book's cache is (b, K, H, hd), transposed after; a learner without transpose keeps (b, H, K, hd),
  // grown along dim=2.
  auto heads_first = [&](const Tensor& k) { return no_transpose ? k : transpose(k, 1, 2); };
  Tensor keys = no_transpose ? transpose(t.keys_new, 1, 2) : t.keys_new;
  Tensor values = no_transpose ? transpose(t.values_new, 1, 2) : t.values_new;
  if (use_cache) {
    const int64_t tokens_dim = no_transpose ? 2 : 1;
    cache_k = cache_k ? cat({*cache_k, keys}, tokens_dim) : keys;
    cache_v = cache_v ? cat({*cache_v, values}, tokens_dim) : values;
    keys = *cache_k;
    values = *cache_v;
  }
  t.keys = heads_first(keys);
  t.queries = transpose(split_heads(t.queries_proj, mha.num_heads, mha.head_dim, no_transpose), 1, 2);
  t.values = heads_first(values);
  Tensor mask_bool;
  if (use_cache) {
    mask_bool = mask_rows(mha.mask, variant.mask_from_row0 ? 0 : ptr_current_pos, num_tokens, t.keys.size(2));
    ptr_current_pos += num_tokens;
  } else {
    check_fits_context(num_tokens, mha.mask);
    mask_bool = causal_mask_bool(mha.mask, num_tokens);
  }
  return finish_forward(t, mask_bool, mha.dropout, gen, path, mha.out_proj, trace, variant);
}

SlidingWindowAttention SlidingWindowAttention::init(Generator& gen, int64_t d_in, int64_t d_out, double dropout,
                                                    int64_t num_heads, bool qkv_bias, std::optional<int64_t> window) {
  SlidingWindowAttention m;
  set_head_sizes(m, d_out, num_heads);
  m.W_query = Linear::init(gen, d_in, d_out, qkv_bias);
  m.W_key = Linear::init(gen, d_in, d_out, qkv_bias);
  m.W_value = Linear::init(gen, d_in, d_out, qkv_bias);
  m.out_proj = Linear::init(gen, d_out, d_out, true);
  m.dropout = dropout;
  m.window = window;
  return m;
}

Tensor SlidingWindowAttention::forward(const Tensor& x, bool use_cache, Generator& gen, BernoulliPath path,
                                       BonusAttentionTrace* trace) {
  const int64_t num_tokens = x.size(1);
  const bool no_transpose = variant.split_without_transpose;
  BonusAttentionTrace t = project_new_tokens(x, W_query, W_key, W_value, num_heads, head_dim, no_transpose);
  t.ptr_before = ptr_current_pos;
  Tensor keys = t.keys_new, values = t.values_new;
  int64_t q_start = 0, k_start = 0;
  // A learner without transpose keeps the cache as (b, H, K, hd): the steps below run on (b, K, H, hd).
  auto swap_cache_layout = [&] {
    if (no_transpose && cache_k) cache_k = transpose(*cache_k, 1, 2);
    if (no_transpose && cache_v) cache_v = transpose(*cache_v, 1, 2);
  };
  if (use_cache) {
    swap_cache_layout();
    const int64_t old_len = cache_k ? cache_k->size(1) : 0;
    const Tensor combined_k = cache_k ? cat({*cache_k, t.keys_new}, 1) : t.keys_new;
    const Tensor combined_v = cache_v ? cat({*cache_v, t.values_new}, 1) : t.values_new;
    const int64_t all = combined_k.size(1);
    keys = combined_k;
    values = combined_v;
    if (window) {
      // the last W - 1 older keys and the whole new chunk; the cache keeps the last W (before the fix:
      // the chunk attended to the trimmed cache, the last W keys)
      const int64_t cache_keep = std::min(all, *window);
      const int64_t attn_keep = variant.swa_trim_before_attend ? cache_keep : std::min(all, *window + num_tokens - 1);
      keys = narrow(combined_k, 1, all - attn_keep, attn_keep);
      values = narrow(combined_v, 1, all - attn_keep, attn_keep);
      const int64_t cache_from = variant.cache_keeps_oldest ? 0 : all - cache_keep;  // [:, :W] or [:, -W:]
      cache_k = narrow(combined_k, 1, cache_from, cache_keep);
      cache_v = narrow(combined_v, 1, cache_from, cache_keep);
    } else {
      cache_k = combined_k;
      cache_v = combined_v;
    }
    k_start = ptr_current_pos - old_len + (all - keys.size(1));
    q_start = ptr_current_pos;
    swap_cache_layout();
  }
  t.keys = transpose(keys, 1, 2);
  t.queries = transpose(split_heads(t.queries_proj, num_heads, head_dim, no_transpose), 1, 2);
  t.values = transpose(values, 1, 2);
  const int64_t num_keys = t.keys.size(2);
  t.q_positions = arange_positions(q_start, num_tokens);
  t.k_positions = arange_positions(k_start, num_keys);
  const int64_t w = window ? *window : num_keys + 1;
  std::vector<float> diff, masked;
  for (int64_t i = 0; i < num_tokens; ++i)
    for (int64_t j = 0; j < num_keys; ++j) {
      const int64_t d = (q_start + i) - (k_start + j);
      diff.push_back(static_cast<float>(d));
      masked.push_back(d < 0 || (variant.window_off_by_one ? d > w : d >= w) ? 1.0f : 0.0f);
    }
  t.diff = Tensor({num_tokens, num_keys}, std::move(diff), DType::Int64);
  ptr_current_pos = use_cache ? ptr_current_pos + num_tokens : 0;
  return finish_forward(t, Tensor({num_tokens, num_keys}, std::move(masked), DType::Bool), dropout, gen, path, out_proj,
                        trace, variant);
}

}  // namespace attn
