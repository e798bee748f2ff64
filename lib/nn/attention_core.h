#pragma once
// The part every multi-head module of the chapter and of the bonus material shares once queries, keys
// and values are split into heads: scores, the mask, the scaled softmax, dropout, the weighted values,
// the heads merged back (transpose, contiguous, view) and out_proj. Each op as PyTorch runs it.
#include "core/generator.h"
#include "core/random_ops.h"
#include "core/tensor.h"
#include "nn/linear.h"

namespace attn {

struct HeadsAttentionTrace {
  Tensor attn_scores;         // (b, H, Tq, Tk) before masking
  Tensor mask_bool;           // (Tq, Tk): True = hidden
  Tensor masked_scores;       // after masked_fill with -inf
  Tensor attn_weights;        // softmax(masked / sqrt(head_dim)), before dropout
  Tensor dropped_weights;     // after dropout
  Tensor context_heads;       // attn_weights @ values: (b, H, Tq, head_dim)
  Tensor context_transposed;  // (b, Tq, H, head_dim), not contiguous
  Tensor context_contiguous;  // .contiguous()
  Tensor context_merged;      // .view(b, Tq, H * head_dim)
  Tensor context_vec;         // out_proj(...)
};

// queries (b, H, Tq, hd), keys and values (b, H, Tk, hd), mask_bool (Tq, Tk) or broadcastable to the
// scores. Fills `t` and returns t.context_vec.
Tensor attend_heads(const Tensor& queries, const Tensor& keys, const Tensor& values, const Tensor& mask_bool,
                    double dropout, Generator& gen, BernoulliPath path, const Linear& out_proj, HeadsAttentionTrace& t);

// The same values without autograd provenance: what a module computes under torch.no_grad().
Tensor inference(const Tensor& t);

}  // namespace attn
