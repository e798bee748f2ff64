#include "nn/attention_core.h"

#include <limits>

#include "core/dropout.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "nn/self_attention.h"

namespace attn {

Tensor attend_heads(const Tensor& queries, const Tensor& keys, const Tensor& values, const Tensor& mask_bool,
                    double dropout, Generator& gen, BernoulliPath path, const Linear& out_proj, HeadsAttentionTrace& t,
                    const Variant& v) {
  const int64_t b = queries.size(0), num_tokens = queries.size(2);
  // (b, H, Tq, hd) @ (b, H, hd, Tk) -> (b, H, Tq, Tk)
  t.attn_scores = matmul(queries, transpose(keys, 2, 3));
  t.mask_bool = mask_bool;
  t.masked_scores = masked_fill(t.attn_scores, mask_bool, -std::numeric_limits<float>::infinity());
  const bool scaled = v.scale != Variant::Scale::None;
  t.attn_weights = softmax(scaled ? div(t.masked_scores, sqrt_d_k(keys.size(-1))) : t.masked_scores, -1);
  t.dropped_weights = attn::dropout(t.attn_weights, dropout, gen, path);
  // (b, H, Tq, hd) -> (b, Tq, H, hd) -> (b, Tq, H * hd); without the transpose (a mistake) the heads'
  // (b, H, Tq, hd) memory is viewed as (b, Tq, H * hd) as it lies
  t.context_heads = matmul(t.dropped_weights, values);
  t.context_transposed = v.merge_without_transpose ? t.context_heads : transpose(t.context_heads, 1, 2);
  t.context_contiguous = contiguous(t.context_transposed);
  t.context_merged = view(t.context_contiguous, {b, num_tokens, queries.size(1) * values.size(-1)});
  t.context_vec = out_proj(t.context_merged);
  return t.context_vec;
}

Tensor inference(const Tensor& t) { return Tensor(t.shape(), t.values(), t.dtype()); }

}  // namespace attn
