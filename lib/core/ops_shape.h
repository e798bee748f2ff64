#pragma once
// Shape and layout operations of chapter 3: views share storage as in PyTorch.
#include <vector>

#include "core/tensor.h"

namespace attn {

Tensor ones(const Shape& shape);
Tensor zeros(const Shape& shape);

Tensor select(const Tensor& t, int64_t dim, int64_t index);                  // t[..., index, ...], a view
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);  // t[:, start:start+length]
Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1);               // a view, TransposeBackward0
Tensor T(const Tensor& t);                                                   // 2-D .T, PermuteBackward0
// .view(shape): -1 infers one size. Throws std::invalid_argument with PyTorch's explanation when
// the strides do not allow it (e.g. after transpose without contiguous()).
Tensor view(const Tensor& t, Shape shape);
bool can_view(const Tensor& t, const Shape& shape);
Tensor contiguous(const Tensor& t);  // the same tensor if contiguous, else a copy (CloneBackward0)

Tensor stack(const std::vector<Tensor>& ts, int64_t dim);  // StackBackward0
Tensor cat(const std::vector<Tensor>& ts, int64_t dim);    // CatBackward0
// t.repeat_interleave(repeats, dim): each index of `dim` `repeats` times in a row ([K1, K1, K2, K2]),
// a copy (IndexSelectBackward0).
Tensor repeat_interleave(const Tensor& t, int64_t repeats, int64_t dim);

Tensor tril(const Tensor& t, int64_t diagonal = 0);  // keeps j <= i + diagonal
Tensor triu(const Tensor& t, int64_t diagonal = 0);  // keeps j >= i + diagonal
Tensor to_bool(const Tensor& t);                     // .bool(): nonzero -> True

int64_t wrap_dim(int64_t dim, int64_t ndim);  // -1 -> ndim-1, throws when out of range

}  // namespace attn
