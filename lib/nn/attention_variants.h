#pragma once
// The chapter's attention computations, the book's way or with one known learner mistake applied.
// `attn-tutor check` recomputes a lesson's tensors with each mistake and looks for the learner's numbers.
#include "nn/causal_attention.h"
#include "core/generator.h"
#include "nn/multihead_attention.h"
#include "core/random_ops.h"
#include "core/tensor.h"

namespace attn {

struct AttentionVariant {
  int64_t softmax_dim = -1;              // the book normalises over the keys (the last dim)
  bool scale = true;                     // divide the scores by sqrt(d_k)
  int64_t mask_diagonal = 1;             // mask = triu(ones, diagonal); 0 also hides each token from itself
  bool mask_after_softmax = false;       // softmax over all tokens, then zero the future, no renormalising
  bool dropout_by_p = false;             // survivors * 1/p instead of 1/(1-p)
  bool split_without_transpose = false;  // mha: x.view(b, num_heads, T, head_dim) straight away
  bool merge_without_transpose = false;  // mha: (w @ v).contiguous().view(b, T, d_out), heads not moved back
};

// The scores' path to weights: the -inf mask (when causal), the scaling, softmax, as in the book or
// with the variant's mistake. scores: (..., T, T).
struct WeightsTrace {
  Tensor mask;    // triu(ones(T, T), diagonal) (empty when not causal)
  Tensor masked;  // scores with -inf where the mask is 1 (the scores themselves after masking after softmax)
  Tensor weights;
};
WeightsTrace attention_weights(const Tensor& scores, int64_t d_k, bool causal, const AttentionVariant& v);

// nn.Dropout(p) as the book runs it, or scaled by 1/p when v.dropout_by_p (the same mask either way).
Tensor dropout_variant(const Tensor& t, double p, Generator& gen, BernoulliPath path, const AttentionVariant& v);

// CausalAttention.forward / MultiHeadAttention.forward with the variant; the book's arithmetic otherwise.
CausalAttentionTrace causal_attention_forward(const CausalAttention& m, const Tensor& x, Generator& gen,
                                              BernoulliPath path, const AttentionVariant& v);
MultiHeadAttentionTrace multihead_attention_forward(const MultiHeadAttention& m, const Tensor& x, Generator& gen,
                                                    BernoulliPath path, const AttentionVariant& v);

}  // namespace attn
