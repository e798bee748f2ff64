#include "nn/attention_core.h"

#include <limits>

#include "core/dropout.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "nn/self_attention.h"

namespace attn {

Tensor attend_from_scores(HeadsAttentionTrace& t, const Tensor& values, const std::string& mask_code,
                          const ScaleSizes& sizes, double dropout, Generator& gen, BernoulliPath path,
                          const Linear& out_proj, const Variant& v, Steps& s) {
  const MaskedWeights w = mask_softmax_dropout(t.attn_scores, t.mask_bool, mask_code, sizes, dropout, gen, path, v, s);
  t.masked_scores = w.masked;
  t.attn_weights = w.weights;
  t.dropped_weights = w.dropped;
  // (b, H, Tq, hd) -> (b, Tq, H, hd) -> (b, Tq, H * hd); without the transpose (a mistake) the heads'
  // (b, H, Tq, hd) memory is viewed as (b, Tq, H * hd) as it lies
  t.context_heads = matmul(t.dropped_weights, values);
  t.context_transposed = s.bind("context_vec", "context_vec = (attn_weights @ values).transpose(1, 2)",
                                v.merge_without_transpose ? t.context_heads : transpose(t.context_heads, 1, 2));
  t.context_contiguous = contiguous(t.context_transposed);
  const int64_t b = t.context_heads.size(0), num_tokens = t.context_heads.size(2);
  t.context_merged = s.bind("context_vec", "context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)",
                            view(t.context_contiguous, {b, num_tokens, t.context_heads.size(1) * values.size(-1)}));
  t.context_vec = v.no_out_proj ? t.context_merged : out_proj(t.context_merged);
  if (!v.no_out_proj) s.bind("context_vec", "context_vec = self.out_proj(context_vec)", t.context_vec);
  return t.context_vec;
}

Tensor attend_heads(const Tensor& queries, const Tensor& keys, const Tensor& values, const Tensor& mask_bool,
                    double dropout, Generator& gen, BernoulliPath path, const Linear& out_proj, HeadsAttentionTrace& t,
                    const Variant& v) {
  // (b, H, Tq, hd) @ (b, H, hd, Tk) -> (b, H, Tq, Tk)
  t.attn_scores = matmul(queries, transpose(keys, 2, 3));
  t.mask_bool = mask_bool;
  const int64_t d_k = keys.size(-1);
  Steps steps;  // the bonus modules record their own steps from the trace
  return attend_from_scores(t, values, "attn_scores.masked_fill_(mask_bool, -torch.inf)", {d_k, d_k, d_k}, dropout, gen,
                            path, out_proj, v, steps);
}

Tensor inference(const Tensor& t) { return Tensor(t.shape(), t.values(), t.dtype()); }

}  // namespace attn
