#pragma once
// The steps every attention module of the chapter shares, from scores to dropped weights, each with the
// Variant's switches (the book's arithmetic when the variant is the default).
#include "core/generator.h"
#include "core/random_ops.h"
#include "core/tensor.h"
#include "core/steps.h"
#include "nn/variant.h"

namespace attn {

// The sizes a scale variant may divide by: d_k (one head's keys), the input's d_in, the projection width.
struct ScaleSizes {
  int64_t d_k = 1, d_in = 1, width = 1;
};
// scores / divisor. `book` is the book's divisor (keys.shape[-1]**0.5; the course's math.sqrt(head_size)).
Tensor scale_scores(const Tensor& scores, double book, const ScaleSizes& sizes, const Variant& v);
// softmax(x, dim) with the variant's dim when it names another dimension than the last of x.
Tensor variant_softmax(const Tensor& x, int64_t book_dim, const Variant& v);
// The weights after softmax: divided by `book` when the variant scales after softmax, else as they are.
Tensor scale_weights(const Tensor& weights, double book, const Variant& v);
// softmax(scores / book, dim), each step with the variant's switches (scale_scores, variant_softmax, scale_weights).
Tensor scaled_softmax(const Tensor& scores, double book, const ScaleSizes& sizes, int64_t book_dim, const Variant& v);
// What masked_fill fills with -inf: `book_mask` (T x T bool), or the variant's triangle.
Tensor fill_mask(const Tensor& book_mask, const Variant& v);
// scores.masked_fill(book_mask, -inf) before softmax, or the variant's way of masking there (another
// triangle, 0 or +inf filled, the 0/1 mask added). A variant that masks elsewhere (after softmax, or not at
// all) is its caller's to skip.
Tensor mask_scores(const Tensor& scores, const Tensor& book_mask, const Variant& v);
// nn.Dropout(p) of a module in `training` mode, or the variant's dropout (eval, F.dropout, a hand-written
// torch.rand mask, 1/p, the learner's own mask). `keep` receives the 0/1 mask (empty when none was drawn).
Tensor dropout_step(const Tensor& t, double p, bool training, Generator& gen, BernoulliPath path, const Variant& v,
                    Tensor* keep = nullptr);

// CausalAttention's and MultiHeadAttention's lines from attn_scores to the dropped weights:
//   attn_scores.masked_fill_(mask, -torch.inf)
//   attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
//   attn_weights = self.dropout(attn_weights)
// with the variant; each value goes into `steps` under the book's names.
struct MaskedWeights {
  Tensor masked;   // attn_scores after the mask (the scores as they went into softmax)
  Tensor weights;  // after softmax (and, masking after softmax, after zeroing the future)
  Tensor dropped;  // after dropout
};
MaskedWeights mask_softmax_dropout(const Tensor& scores, const Tensor& book_mask, const std::string& mask_code,
                                   const ScaleSizes& sizes, double p, Generator& gen, BernoulliPath path,
                                   const Variant& v, Steps& steps);

}  // namespace attn
