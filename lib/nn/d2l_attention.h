#pragma once
// d2l's multi-head attention (Dive into Deep Learning, PyTorch edition): masked_softmax with
// valid_lens, DotProductAttention, transpose_qkv / transpose_output and MultiHeadAttention, with
// PyTorch 1.13's values, summation order and printed grad_fn names.
#include <optional>
#include <string>
#include <vector>

#include "core/generator.h"
#include "nn/linear.h"
#include "core/random_ops.h"
#include "core/tensor.h"
#include "core/steps.h"
#include "nn/variant.h"

namespace attn::d2l {

// X.reshape(shape), -1 inferring one size: a view when the strides allow it (1.13 prints
// ReshapeAliasBackward0), else a contiguous copy (UnsafeViewBackward0).
Tensor reshape(const Tensor& X, Shape shape);
// X.permute(dims): a view (PermuteBackward0).
Tensor permute(const Tensor& X, const std::vector<int64_t>& dims);
// torch.repeat_interleave(t, repeats=repeats, dim=0) of an int64 tensor (1-D or 2-D).
Tensor repeat_interleave(const Tensor& t, int64_t repeats);
// torch.tensor(values) of int64 with the given shape.
Tensor int64_tensor(Shape shape, const std::vector<int64_t>& values);

// sequence_mask(X, valid_len, value): X (rows, maxlen), valid_len (rows,).
// mask = arange(maxlen)[None, :] < valid_len[:, None]; X[~mask] = value.
struct SequenceMask {
  Tensor mask;  // (rows, maxlen) bool: True = kept
  Tensor X;     // the masked X: PyTorch writes it in place, so a view made by reshape (grad_fn
                // ReshapeAliasBackward0) prints AsStridedBackward0 afterwards, any other X IndexPutBackward0
};
SequenceMask sequence_mask(const Tensor& X, const Tensor& valid_len, float value);

struct MaskedSoftmaxTrace {
  Tensor valid_lens;  // one per row: repeat_interleave(valid_lens, shape[1]) or valid_lens.reshape(-1)
  Tensor rows;        // X.reshape(-1, shape[-1])
  Tensor mask;        // (rows, shape[-1]) bool
  Tensor masked;      // rows after X[~mask] = -1e6
  Tensor weights;     // softmax(masked.reshape(shape), dim=-1)
};
// X: 3-D scores; valid_lens: none, 1-D (one per X.shape[0]) or 2-D (one per row of X.shape[0] x shape[1]).
Tensor masked_softmax(const Tensor& X, const std::optional<Tensor>& valid_lens, MaskedSoftmaxTrace* trace = nullptr,
                      const Variant& v = {});
// t.repeat(repeats) of a 1-D tensor: the whole tensor `repeats` times (not each element, as repeat_interleave).
Tensor repeat(const Tensor& t, int64_t repeats);

// Each step of transpose_qkv / transpose_output.
struct SplitTrace {
  Tensor reshaped;  // transpose_qkv: (b, T, num_heads, head_dim); transpose_output: (b, num_heads, T, head_dim)
  Tensor permuted;  // permute(0, 2, 1, 3)
  Tensor out;       // transpose_qkv: (b * num_heads, T, head_dim); transpose_output: (b, T, num_hiddens)
};
Tensor transpose_qkv(const Tensor& X, int64_t num_heads, SplitTrace* trace = nullptr);
Tensor transpose_output(const Tensor& X, int64_t num_heads, SplitTrace* trace = nullptr);
// The book's split of the same X (§3.6.2): X.view(b, T, num_heads, head_dim).transpose(1, 2),
// (b, num_heads, T, head_dim). transpose_qkv(X) is this reshaped to (b * num_heads, T, head_dim).
Tensor book_split(const Tensor& X, int64_t num_heads);

struct DotProductAttentionTrace {
  Tensor scores;  // bmm(queries, keys.transpose(1, 2)) / sqrt(d): (b * h, nq, nk)
  MaskedSoftmaxTrace softmax;
  Tensor attention_weights;  // self.attention_weights
  Tensor dropped;            // self.dropout(self.attention_weights) (the same tensor in eval mode)
  Tensor output;             // (b * h, nq, head_dim)
  Steps steps;               // in compute order (scores, changed in place by masked_softmax, ...)
};

struct DotProductAttention {
  double dropout = 0.0;  // nn.Dropout(dropout), active only in training mode
  Tensor forward(const Tensor& queries, const Tensor& keys, const Tensor& values,
                 const std::optional<Tensor>& valid_lens, bool training, Generator& gen, BernoulliPath path,
                 DotProductAttentionTrace* trace = nullptr, const Variant& v = {}) const;
};

struct MultiHeadAttentionTrace {
  Tensor queries, keys, values;      // after transpose_qkv: (b * h, T, head_dim)
  SplitTrace queries_split;          // the steps of transpose_qkv(self.W_q(queries))
  std::optional<Tensor> valid_lens;  // after repeat_interleave over the heads
  DotProductAttentionTrace attention;
  SplitTrace output_split;  // the steps of transpose_output(output)
  Tensor output_concat;     // (b, nq, num_hiddens)
  Tensor result;            // self.W_o(output_concat)
  Steps steps;              // in compute order, in d2l's names
};

struct MultiHeadAttention {
  int64_t num_heads = 0;
  DotProductAttention attention;
  Linear W_q, W_k, W_v, W_o;
  bool training = true;  // nn.Module starts in training mode; eval() clears it

  // d2l's constructor order: DotProductAttention (no parameters), then W_q, W_k, W_v, W_o, all with
  // `bias`. Throws std::invalid_argument when num_hiddens is not divisible by num_heads.
  static MultiHeadAttention init(Generator& gen, int64_t key_size, int64_t query_size, int64_t value_size,
                                 int64_t num_hiddens, int64_t num_heads, double dropout, bool bias = false,
                                 const Variant& v = {});
  Tensor forward(const Tensor& queries, const Tensor& keys, const Tensor& values,
                 const std::optional<Tensor>& valid_lens, Generator& gen, BernoulliPath path,
                 MultiHeadAttentionTrace* trace = nullptr, const Variant& v = {}) const;
  std::string repr() const;  // print(attention), as nn.Module prints it
};

}  // namespace attn::d2l
