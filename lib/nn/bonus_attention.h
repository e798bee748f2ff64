#pragma once
// The attention modules of the book's bonus material after chapter 3 (rasbt/LLMs-from-scratch, ch04/03_kv-cache,
// 04_gqa, 05_mla, 06_swa), with their KV caches, as they run under torch.no_grad(): the chapter's
// MultiHeadAttention with a cache, GroupedQueryAttention, MultiHeadLatentAttention and multi-head
// attention with a sliding window. Each creates its nn.Linear layers in the bonus classes' order, so
// the same torch.manual_seed gives the same weights. The heads part is nn/attention_core.h's.
#include <optional>

#include "nn/attention_core.h"
#include "nn/multihead_attention.h"

namespace attn {

// What one forward call computed (the fields a module does not have stay empty).
struct BonusAttentionTrace : HeadsAttentionTrace {
  Tensor queries_proj, keys_proj,
      values_proj;                        // W_query(x), W_key(x), W_value(x): (b, T, ·); MLA: W_UK/W_UV(latent_total)
  Tensor latent_new, latent_total;        // MLA: W_DKV(x), and the cached latents with it: (b, ·, latent_dim)
  Tensor queries;                         // (b, H, T, hd)
  Tensor keys_new, values_new;            // the new tokens' keys and values in heads (groups for GQA)
  Tensor keys_base, values_base;          // GQA: the cached groups before repeat_interleave (b, G, K, hd)
  Tensor keys, values;                    // what the scores use: (b, H, K, hd)
  Tensor q_positions, k_positions, diff;  // int64 positions of the queries and keys, and q - k (SWA)
  int64_t ptr_before = 0;                 // ptr_current_pos when the call started
};

// cache_k, cache_v and ptr_current_pos, as three of the modules keep them; reset_cache() empties them.
struct KeyValueCache {
  std::optional<Tensor> cache_k, cache_v;
  int64_t ptr_current_pos = 0;
  void reset_cache();
};

// The chapter's MultiHeadAttention with cache_k/cache_v (b, K, H, hd) and ptr_current_pos (ch04/03_kv-cache).
struct KVCacheMultiHeadAttention : KeyValueCache {
  MultiHeadAttention mha;  // W_query, W_key, W_value, out_proj and the triu mask buffer, as in chapter 3
  Variant variant;         // a learner's mistake (mask_from_row0) for `check`; the default is the book's

  static KVCacheMultiHeadAttention init(Generator& gen, int64_t d_in, int64_t d_out, int64_t context_length,
                                        double dropout, int64_t num_heads, bool qkv_bias);
  // With the cache the mask rows are mask[ptr : ptr + T, :K]; past context_length this throws what
  // PyTorch raises (std::invalid_argument).
  Tensor forward(const Tensor& x, bool use_cache, Generator& gen, BernoulliPath path,
                 BonusAttentionTrace* trace = nullptr);
};

// GroupedQueryAttention (ch04/04_gqa): W_key, W_value (d_in -> G * hd), W_query, out_proj without bias;
// the cache holds the G groups' keys and values: (b, G, K, hd).
struct GroupedQueryAttention : KeyValueCache {
  int64_t d_out = 0, num_heads = 0, num_kv_groups = 0, head_dim = 0, group_size = 0;
  Linear W_key, W_value, W_query, out_proj;
  double dropout = 0.0;
  Variant variant;  // a learner's mistake for `check` (no scaling, repeat, the wrong group, split without transpose)

  // Throws std::invalid_argument unless num_heads divides d_out and num_kv_groups divides num_heads.
  static GroupedQueryAttention init(Generator& gen, int64_t d_in, int64_t d_out, double dropout, int64_t num_heads,
                                    int64_t num_kv_groups, bool qkv_bias);
  Tensor forward(const Tensor& x, bool use_cache, Generator& gen, BernoulliPath path,
                 BonusAttentionTrace* trace = nullptr);
  int64_t parameter_count() const;
  // The groups (b, G, K, hd) as the query heads' keys or values (b, num_heads, K, hd): repeat_interleave.
  Tensor heads_of_groups(const Tensor& groups) const;
};

// MultiHeadLatentAttention (ch04/05_mla): W_query, W_DKV (d_in -> latent), W_UK, W_UV (latent -> d_out),
// out_proj with bias; the cache holds the latents only.
struct MultiHeadLatentAttention {
  int64_t d_out = 0, num_heads = 0, head_dim = 0, latent_dim = 0;
  Linear W_query, W_DKV, W_UK, W_UV, out_proj;
  double dropout = 0.0;
  Variant variant;                   // a learner's mistake for `check` (values from W_UK, split without transpose)
  std::optional<Tensor> cache_c_kv;  // (b, K, latent_dim)
  int64_t ptr_current_pos = 0;

  // latent_dim absent: max(16, d_out // 8), the class's default.
  static MultiHeadLatentAttention init(Generator& gen, int64_t d_in, int64_t d_out, double dropout, int64_t num_heads,
                                       bool qkv_bias, std::optional<int64_t> latent_dim);
  Tensor forward(const Tensor& x, bool use_cache, Generator& gen, BernoulliPath path,
                 BonusAttentionTrace* trace = nullptr);
  void reset_cache();
  int64_t parameter_count() const;
};

// MultiHeadAttentionWithSWA (ch04/06_swa): the chapter's layers; key j is visible to query i iff
// 0 <= i - j < W (W tokens, the query's own included). No window: causal. The cache keeps the last W:
// (b, <= W, H, hd).
struct SlidingWindowAttention : KeyValueCache {
  int64_t d_out = 0, num_heads = 0, head_dim = 0;
  Linear W_query, W_key, W_value, out_proj;
  double dropout = 0.0;
  std::optional<int64_t> window;
  Variant variant;  // a learner's mistake (window_off_by_one, cache_keeps_oldest) for `check`; default: the book's

  static SlidingWindowAttention init(Generator& gen, int64_t d_in, int64_t d_out, double dropout, int64_t num_heads,
                                     bool qkv_bias, std::optional<int64_t> window);
  Tensor forward(const Tensor& x, bool use_cache, Generator& gen, BernoulliPath path,
                 BonusAttentionTrace* trace = nullptr);
};

// torch.arange(start, start + n) as int64, and q_positions.unsqueeze(-1) < k_positions.unsqueeze(0).
Tensor arange_positions(int64_t start, int64_t n);
Tensor future_mask(const Tensor& q_positions, const Tensor& k_positions);
// The end every forward shares: attend_heads on t's queries, keys and values under mask_bool (scores to
// out_proj), the output without autograd provenance, t handed to `trace` (when given); returns the output.
Tensor finish_forward(BonusAttentionTrace& t, const Tensor& mask_bool, double dropout, Generator& gen,
                      BernoulliPath path, const Linear& out_proj, BonusAttentionTrace* trace,
                      const Variant& v = Variant());
// Causal positions with a cache: t.q_positions from ptr_current_pos (use_cache) or 0, ptr_current_pos moved
// on past the new tokens (or back to 0), t.k_positions 0 .. num_keys - 1; returns their future_mask.
Tensor cached_future_mask(BonusAttentionTrace& t, int64_t& ptr_current_pos, bool use_cache, int64_t num_tokens,
                          int64_t num_keys);
// x[:, start:start + length, ...] as a contiguous copy.
Tensor token_slice(const Tensor& x, int64_t start, int64_t length);

}  // namespace attn
