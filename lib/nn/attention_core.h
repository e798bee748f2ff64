#pragma once
// The part every multi-head module of the chapter and of the bonus material shares once queries, keys
// and values are split into heads: scores, the mask, the scaled softmax, dropout, the weighted values,
// the heads merged back (transpose, contiguous, view) and out_proj. Each op as PyTorch runs it.
#include <stdexcept>
#include <string>

#include "core/generator.h"
#include "core/random_ops.h"
#include "core/tensor.h"
#include "core/steps.h"
#include "nn/attention_steps.h"
#include "nn/linear.h"
#include "nn/variant.h"

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

// From the scores on, once t.attn_scores (b, H, Tq, Tk) and t.mask_bool are set: the mask, the scaled softmax and
// dropout (mask_softmax_dropout, the mask written as `mask_code`), the weighted `values` (b, H, Tk, hd), the heads
// merged back (transpose, contiguous, view) and out_proj, each value into `steps` under the book's names.
// Fills `t` and returns t.context_vec.
Tensor attend_from_scores(HeadsAttentionTrace& t, const Tensor& values, const std::string& mask_code,
                          const ScaleSizes& sizes, double dropout, Generator& gen, BernoulliPath path,
                          const Linear& out_proj, const Variant& v, Steps& steps);

// queries (b, H, Tq, hd), keys and values (b, H, Tk, hd), mask_bool (Tq, Tk) or broadcastable to the
// scores. Fills `t` and returns t.context_vec. `v`: a learner's mistake (scale None: no / head_dim**0.5).
Tensor attend_heads(const Tensor& queries, const Tensor& keys, const Tensor& values, const Tensor& mask_bool,
                    double dropout, Generator& gen, BernoulliPath path, const Linear& out_proj, HeadsAttentionTrace& t,
                    const Variant& v = Variant());

// d_out, num_heads and head_dim = d_out / num_heads of a multi-head module, after the class's assert:
// std::invalid_argument unless num_heads divides d_out.
template <class Module>
void set_head_sizes(Module& m, int64_t d_out, int64_t num_heads) {
  if (num_heads <= 0 || d_out % num_heads != 0) throw std::invalid_argument("d_out must be divisible by num_heads");
  m.d_out = d_out;
  m.num_heads = num_heads;
  m.head_dim = d_out / num_heads;
}

// The same values without autograd provenance: what a module computes under torch.no_grad().
Tensor inference(const Tensor& t);

}  // namespace attn
