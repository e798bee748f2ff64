#pragma once
// The `Attention` head and `MultiHeadAttention` of a course's multi-head attention: one module
// per head with its own Wq/Wk/Wv, a tril mask tested with `== 0`, and a projection + dropout after
// the concatenated heads. Hyper-parameters are the course's globals, passed in here.
#include <vector>

#include "core/generator.h"
#include "nn/linear.h"
#include "core/random_ops.h"
#include "core/tensor.h"
#include "core/steps.h"
#include "nn/variant.h"

namespace attn {

// Every intermediate of one head's forward pass, in the course's variable names.
struct CourseAttentionTrace {
  Tensor q, k, v;       // (B, T, head_size)
  Tensor scores;        // q @ k.transpose(-2, -1): (B, T, T)
  Tensor scaled;        // / math.sqrt(head_size)
  Tensor mask;          // self.mask[:T, :T]: (T, T), 1 on and below the diagonal
  Tensor mask_is_zero;  // self.mask[:T, :T] == 0: bool (T, T), True above the diagonal
  Tensor masked;        // masked_fill(..., float('-inf'))
  Tensor softmaxed;     // F.softmax(weights, dim=-1)
  Tensor dropped;       // self.dropout(weights)
  Tensor dropout_keep;  // the 0/1 keep mask of that dropout (empty when none was drawn)
  Tensor output;        // weights @ v: (B, T, head_size)
  Steps steps;          // in compute order, in the course's names
};

struct CourseAttention {
  int64_t head_size = 0;  // d_model // num_heads
  Linear Wq, Wk, Wv;      // nn.Linear(d_model, head_size, bias=False), drawn in this order
  Tensor mask;            // buffer: tril(ones(context_length, context_length))
  double dropout = 0.0;

  static CourseAttention init(Generator& gen, int64_t d_model, int64_t num_heads, int64_t context_length,
                              double dropout, const Variant& v = {});
  // x: (B, T, d_model) with T <= context_length. Dropout, when 0 < p < 1, draws from `gen`.
  Tensor forward(const Tensor& x, Generator& gen, BernoulliPath path, CourseAttentionTrace* trace = nullptr,
                 const Variant& v = {}) const;
};

struct CourseMultiHeadTrace {
  std::vector<CourseAttentionTrace> heads;  // one per head, in ModuleList order
  Tensor head_outputs;                      // torch.cat(head_outputs, dim=-1): (B, T, d_model)
  Tensor projected;                         // self.projection_layer(head_outputs)
  Tensor out;                               // self.dropout(out)
  Tensor dropout_keep;                      // the 0/1 keep mask of that dropout (empty when none was drawn)
  Steps steps;                              // every head's, then the module's
};

struct CourseMultiHeadAttention {
  int64_t d_model = 0, num_heads = 0;
  std::vector<CourseAttention> heads;  // nn.ModuleList([Attention() for _ in range(num_heads)])
  Linear projection_layer;             // nn.Linear(d_model, d_model), with bias, drawn after every head
  double dropout = 0.0;

  // Throws std::invalid_argument unless 0 < num_heads and d_model % num_heads == 0.
  static CourseMultiHeadAttention init(Generator& gen, int64_t d_model, int64_t num_heads, int64_t context_length,
                                       double dropout, const Variant& v = {});
  Tensor forward(const Tensor& x, Generator& gen, BernoulliPath path, CourseMultiHeadTrace* trace = nullptr,
                 const Variant& v = {}) const;
  int64_t parameter_count() const;
};

// math.sqrt(n): correctly rounded, unlike n ** 0.5 (pow), which differs in the last bit for n = 2921
// and 3541 (both round to the same float32, so the scaled scores agree).
double math_sqrt(int64_t n);

// t == 0 as a bool tensor of t's shape.
Tensor equals_zero(const Tensor& t);

}  // namespace attn
