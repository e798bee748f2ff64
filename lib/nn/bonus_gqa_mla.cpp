// The bonus material's modules that cache less: GroupedQueryAttention (ch04/04_gqa) and
// MultiHeadLatentAttention (ch04/05_mla).
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/ops_shape.h"
#include "nn/bonus_attention.h"

namespace attn {

GroupedQueryAttention GroupedQueryAttention::init(Generator& gen, int64_t d_in, int64_t d_out, double dropout,
                                                  int64_t num_heads, int64_t num_kv_groups, bool qkv_bias) {
  GroupedQueryAttention m;
  set_head_sizes(m, d_out, num_heads);
  if (num_kv_groups <= 0 || num_heads % num_kv_groups != 0)
    throw std::invalid_argument("num_heads must be divisible by num_kv_groups");
  m.num_kv_groups = num_kv_groups;
  m.group_size = num_heads / num_kv_groups;
  // The bonus class's order: keys and values first, then queries, then out_proj (no bias).
  m.W_key = Linear::init(gen, d_in, num_kv_groups * m.head_dim, qkv_bias);
  m.W_value = Linear::init(gen, d_in, num_kv_groups * m.head_dim, qkv_bias);
  m.W_query = Linear::init(gen, d_in, d_out, qkv_bias);
  m.out_proj = Linear::init(gen, d_out, d_out, false);
  m.dropout = dropout;
  return m;
}

Tensor GroupedQueryAttention::forward(const Tensor& x, bool use_cache, Generator& gen, BernoulliPath path,
                                      BonusAttentionTrace* trace) {
  const int64_t b = x.size(0), num_tokens = x.size(1);
  BonusAttentionTrace t;
  t.ptr_before = ptr_current_pos;
  t.queries_proj = inference(W_query(x));  // (b, T, num_heads * head_dim)
  t.keys_proj = inference(W_key(x));       // (b, T, num_kv_groups * head_dim)
  t.values_proj = inference(W_value(x));
  // (b, T, n * hd) -> (b, n, T, hd); a learner's view straight to (b, n, T, hd) mixes tokens and heads
  auto split = [&](const Tensor& p, int64_t n) {
    return variant.split_without_transpose ? view(p, {b, n, num_tokens, head_dim})
                                           : transpose(view(p, {b, num_tokens, n, head_dim}), 1, 2);
  };
  t.queries = split(t.queries_proj, num_heads);
  t.keys_new = split(t.keys_proj, num_kv_groups);
  t.values_new = split(t.values_proj, num_kv_groups);
  if (use_cache) {
    cache_k = cache_k ? cat({*cache_k, t.keys_new}, 2) : t.keys_new;
    cache_v = cache_v ? cat({*cache_v, t.values_new}, 2) : t.values_new;
    t.keys_base = *cache_k;
    t.values_base = *cache_v;
  } else {
    t.keys_base = t.keys_new;
    t.values_base = t.values_new;
    if (cache_k || cache_v) reset_cache();
  }
  // (b, G, K, hd) -> (b, num_heads, K, hd): group g serves query heads g * group_size ... (g + 1) * group_size - 1
  t.keys = heads_of_groups(t.keys_base);
  t.values = heads_of_groups(t.values_base);
  const Tensor mask_bool = cached_future_mask(t, ptr_current_pos, use_cache, num_tokens, t.keys.size(2));
  return finish_forward(t, mask_bool, dropout, gen, path, out_proj, trace, variant);
}

Tensor GroupedQueryAttention::heads_of_groups(const Tensor& groups) const {
  if (!variant.gqa_repeat && !variant.gqa_group_by_count) return repeat_interleave(groups, group_size, 1);
  // keys_base.repeat(1, group_size, 1, 1): head h reads group h % num_kv_groups; or a loop over the heads
  // reading group h // num_kv_groups (IndexError past the last group, as PyTorch's indexing raises)
  std::vector<Tensor> heads;
  for (int64_t h = 0; h < num_heads; ++h) {
    const int64_t g = variant.gqa_repeat ? h % num_kv_groups : h / num_kv_groups;
    if (g >= num_kv_groups)
      throw std::invalid_argument("index " + std::to_string(g) + " is out of bounds for dimension 1 with size " +
                                  std::to_string(num_kv_groups));
    heads.push_back(narrow(groups, 1, g, 1));
  }
  return cat(heads, 1);
}

int64_t GroupedQueryAttention::parameter_count() const {
  return W_key.parameter_count() + W_value.parameter_count() + W_query.parameter_count() + out_proj.parameter_count();
}

MultiHeadLatentAttention MultiHeadLatentAttention::init(Generator& gen, int64_t d_in, int64_t d_out, double dropout,
                                                        int64_t num_heads, bool qkv_bias,
                                                        std::optional<int64_t> latent_dim) {
  MultiHeadLatentAttention m;
  set_head_sizes(m, d_out, num_heads);
  m.latent_dim = latent_dim ? *latent_dim : std::max<int64_t>(16, d_out / 8);
  m.W_query = Linear::init(gen, d_in, d_out, qkv_bias);
  m.W_DKV = Linear::init(gen, d_in, m.latent_dim, qkv_bias);
  m.W_UK = Linear::init(gen, m.latent_dim, d_out, qkv_bias);
  m.W_UV = Linear::init(gen, m.latent_dim, d_out, qkv_bias);
  m.out_proj = Linear::init(gen, d_out, d_out, true);
  m.dropout = dropout;
  return m;
}

Tensor MultiHeadLatentAttention::forward(const Tensor& x, bool use_cache, Generator& gen, BernoulliPath path,
                                         BonusAttentionTrace* trace) {
  const int64_t num_tokens = x.size(1);
  BonusAttentionTrace t;
  t.ptr_before = ptr_current_pos;
  t.queries_proj = inference(W_query(x));  // (b, T, d_out)
  t.latent_new = inference(W_DKV(x));      // (b, T, latent_dim)
  t.latent_total = t.latent_new;
  if (use_cache) {
    if (cache_c_kv) t.latent_total = cat({*cache_c_kv, t.latent_new}, 1);
    cache_c_kv = t.latent_total;
  }
  // every cached latent is up-projected again: (b, K, latent_dim) -> (b, K, d_out)
  t.keys_proj = inference(W_UK(t.latent_total));
  t.values_proj = inference((variant.mla_values_from_uk ? W_UK : W_UV)(t.latent_total));
  auto to_heads = [&](const Tensor& p) {
    if (variant.split_without_transpose) return contiguous(view(p, {p.size(0), num_heads, p.size(1), head_dim}));
    return contiguous(transpose(view(p, {p.size(0), p.size(1), num_heads, head_dim}), 1, 2));
  };
  t.queries = to_heads(t.queries_proj);
  t.keys = to_heads(t.keys_proj);
  t.values = to_heads(t.values_proj);
  const Tensor mask_bool = cached_future_mask(t, ptr_current_pos, use_cache, num_tokens, t.keys.size(2));
  return finish_forward(t, mask_bool, dropout, gen, path, out_proj, trace, variant);
}

void MultiHeadLatentAttention::reset_cache() {
  cache_c_kv.reset();
  ptr_current_pos = 0;
}

int64_t MultiHeadLatentAttention::parameter_count() const {
  return W_query.parameter_count() + W_DKV.parameter_count() + W_UK.parameter_count() + W_UV.parameter_count() +
         out_proj.parameter_count();
}

}  // namespace attn
