#pragma once
// Arithmetic of chapter 3 on float32 tensors, with PyTorch's broadcasting and grad_fn names.
#include "core/tensor.h"

namespace attn {

Tensor dot(const Tensor& a, const Tensor& b);     // 1-D . 1-D -> 0-d, DotBackward0
Tensor matmul(const Tensor& a, const Tensor& b);  // the @ operator: 1-D, 2-D, batched 3-D/4-D

Tensor mul(const Tensor& a, const Tensor& b);  // broadcasting *, MulBackward0
Tensor div(const Tensor& a, const Tensor& b);  // broadcasting /, DivBackward0
Tensor add(const Tensor& a, const Tensor& b);  // broadcasting +, AddBackward0
Tensor div(const Tensor& a, double scalar);    // t / 1.4142 (the scalar is rounded to float32 as PyTorch does)
Tensor mul(const Tensor& a, double scalar);

Tensor exp(const Tensor& t);                                   // ExpBackward0
Tensor sum(const Tensor& t);                                   // all elements -> 0-d, SumBackward0
Tensor sum(const Tensor& t, int64_t dim, bool keepdim);        // SumBackward1
Tensor softmax(const Tensor& t, int64_t dim);                  // max-subtracted, SoftmaxBackward0
Tensor max_along(const Tensor& t, int64_t dim, bool keepdim);  // values of t.max(dim)

// masked_fill(mask, value): mask is a bool tensor broadcastable to t. MaskedFillBackward0.
Tensor masked_fill(const Tensor& t, const Tensor& mask, float value);

}  // namespace attn
