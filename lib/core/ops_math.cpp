#include "core/ops_math.h"

#include <Eigen/Core>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/ops_shape.h"
#include "core/torch_exp.h"

namespace attn {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Tensor tracked(Tensor out, bool needs_grad, const char* grad_fn) {
  if (needs_grad) out.set_grad_fn(grad_fn);
  return out;
}

Shape broadcast_shape(const Shape& a, const Shape& b) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      throw std::invalid_argument("The size of tensor a (" + std::to_string(da) +
                                  ") must match the size of tensor b (" + std::to_string(db) +
                                  ") at non-singleton dimension " + std::to_string(i));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Values of t broadcast to `shape`, row-major.
std::vector<float> broadcast_values(const Tensor& t, const Shape& shape) {
  const std::vector<float> src = t.values();
  if (t.shape() == shape) return src;
  const Shape src_strides = contiguous_strides(t.shape());
  const size_t lead = shape.size() - t.shape().size();
  std::vector<float> out(numel_of(shape));
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t k = 0; k < out.size(); ++k) {
    int64_t pos = 0;
    for (size_t d = lead; d < shape.size(); ++d)
      if (t.shape()[d - lead] != 1) pos += index[d] * src_strides[d - lead];
    out[k] = src[pos];
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

Tensor elementwise(const Tensor& a, const Tensor& b, const std::function<float(float, float)>& f, const char* grad_fn) {
  const Shape shape = broadcast_shape(a.shape(), b.shape());
  std::vector<float> va = broadcast_values(a, shape), vb = broadcast_values(b, shape);
  Eigen::Map<Eigen::ArrayXf> xa(va.data(), va.size());
  Eigen::Map<Eigen::ArrayXf> xb(vb.data(), vb.size());
  xa = xa.binaryExpr(xb, f);
  return tracked(Tensor(shape, std::move(va)), a.needs_grad() || b.needs_grad(), grad_fn);
}

// C = A (m x k) @ B (k x n), each element a float32 sum over k in order, starting from +0: what
// PyTorch 1.13's BLAS (netlib sgemm) and its small-bmm kernel compute, at any size. Eigen's lazy
// product keeps that order (it vectorises across j only); a sum of -0 products comes out +0.
void matmul_2d(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n) {
  Eigen::Map<const RowMatrix> A(a, m, k);
  Eigen::Map<const RowMatrix> B(b, k, n);
  Eigen::Map<RowMatrix> C(c, m, n);
  if (k == 0) {
    C.setZero();
    return;
  }
  C.noalias() = A.lazyProduct(B);
  C.array() += 0.0f;
}

}  // namespace

Tensor dot(const Tensor& a, const Tensor& b) {
  if (a.dim() != 1 || b.dim() != 1)
    throw std::invalid_argument("1D tensors expected, but got " + std::to_string(a.dim()) + "D and " +
                                std::to_string(b.dim()) + "D tensors");
  if (a.numel() != b.numel())
    throw std::invalid_argument("inconsistent tensor size, expected tensor [" + std::to_string(a.numel()) +
                                "] and src [" + std::to_string(b.numel()) + "] to have the same number of elements");
  const std::vector<float> va = a.values(), vb = b.values();
  float acc = 0.0f;
  for (size_t i = 0; i < va.size(); ++i) acc = acc + va[i] * vb[i];
  return tracked(Tensor({}, {acc}), a.needs_grad() || b.needs_grad(), "DotBackward0");
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  const bool grad = a.needs_grad() || b.needs_grad();
  if (a.dim() == 0 || b.dim() == 0) throw std::invalid_argument("both arguments to matmul need to be at least 1D");
  if (a.dim() == 1 && b.dim() == 1) return dot(a, b);
  const int64_t k = a.size(-1);
  const int64_t kb = b.dim() == 1 ? b.size(0) : b.size(-2);
  if (k != kb)
    throw std::invalid_argument("mat1 and mat2 shapes cannot be multiplied (" +
                                std::to_string(a.dim() == 1 ? 1 : a.numel() / k) + "x" + std::to_string(k) + " and " +
                                std::to_string(kb) + "x" + std::to_string(b.dim() == 1 ? 1 : b.size(-1)) + ")");
  if (a.dim() == 1 && b.dim() == 2) {  // (k) @ (k, n) -> (n)
    const std::vector<float> va = a.values(), vb = b.values();
    std::vector<float> out(b.size(1));
    matmul_2d(va.data(), vb.data(), out.data(), 1, k, b.size(1));
    return tracked(Tensor({b.size(1)}, std::move(out)), grad, "SqueezeBackward4");
  }
  if (a.dim() == 2 && b.dim() == 1) {  // (m, k) @ (k) -> (m)
    const std::vector<float> va = a.values(), vb = b.values();
    std::vector<float> out(a.size(0));
    matmul_2d(va.data(), vb.data(), out.data(), a.size(0), k, 1);
    return tracked(Tensor({a.size(0)}, std::move(out)), grad, "MvBackward0");
  }
  if (a.dim() == 2 && b.dim() == 2) {
    const std::vector<float> va = a.values(), vb = b.values();
    std::vector<float> out(a.size(0) * b.size(1));
    matmul_2d(va.data(), vb.data(), out.data(), a.size(0), k, b.size(1));
    return tracked(Tensor({a.size(0), b.size(1)}, std::move(out)), grad, "MmBackward0");
  }
  if (b.dim() == 2) {  // (..., m, k) @ (k, n): fold the batch into rows
    const std::vector<float> va = a.values(), vb = b.values();
    const int64_t rows = a.numel() / k, n = b.size(1);
    std::vector<float> out(rows * n);
    matmul_2d(va.data(), vb.data(), out.data(), rows, k, n);
    Shape shape = a.shape();
    shape.back() = n;
    return tracked(Tensor(shape, std::move(out)), grad, "UnsafeViewBackward0");
  }
  // Batched: (..., m, k) @ (..., k, n) with equal or broadcastable batch dimensions.
  if (a.dim() < 2 || b.dim() < 2) throw std::invalid_argument("matmul: unsupported operand ranks");
  const Shape batch_a(a.shape().begin(), a.shape().end() - 2), batch_b(b.shape().begin(), b.shape().end() - 2);
  const Shape batch = broadcast_shape(batch_a, batch_b);
  const int64_t m = a.size(-2), n = b.size(-1);
  Shape shape_a = batch, shape_b = batch;
  shape_a.insert(shape_a.end(), {m, k});
  shape_b.insert(shape_b.end(), {k, n});
  const std::vector<float> va = broadcast_values(a, shape_a), vb = broadcast_values(b, shape_b);
  const int64_t count = numel_of(batch);
  std::vector<float> out(count * m * n);
  for (int64_t i = 0; i < count; ++i)
    matmul_2d(va.data() + i * m * k, vb.data() + i * k * n, out.data() + i * m * n, m, k, n);
  Shape shape = batch;
  shape.insert(shape.end(), {m, n});
  return tracked(Tensor(shape, std::move(out)), grad, "UnsafeViewBackward0");
}

Tensor mul(const Tensor& a, const Tensor& b) {
  return elementwise(
      a, b, [](float x, float y) { return x * y; }, "MulBackward0");
}
Tensor div(const Tensor& a, const Tensor& b) {
  return elementwise(
      a, b, [](float x, float y) { return x / y; }, "DivBackward0");
}
Tensor add(const Tensor& a, const Tensor& b) {
  return elementwise(
      a, b, [](float x, float y) { return x + y; }, "AddBackward0");
}
Tensor div(const Tensor& a, double scalar) {
  return tracked(div(a.needs_grad() ? Tensor(a.shape(), a.values()) : a, Tensor({}, {static_cast<float>(scalar)})),
                 a.needs_grad(), "DivBackward0");
}
Tensor mul(const Tensor& a, double scalar) {
  return tracked(mul(a.needs_grad() ? Tensor(a.shape(), a.values()) : a, Tensor({}, {static_cast<float>(scalar)})),
                 a.needs_grad(), "MulBackward0");
}

Tensor exp(const Tensor& t) {
  std::vector<float> v = t.values();
  Eigen::Map<Eigen::ArrayXf> x(v.data(), v.size());
  x = x.unaryExpr([](float f) { return torch_expf(f); });
  return tracked(Tensor(t.shape(), std::move(v)), t.needs_grad(), "ExpBackward0");
}

namespace {

// The order in which PyTorch 1.13's CPU sum kernel adds a contiguous row (measured against it):
// fewer than 8 values go into 4 accumulators, the leftovers into the first, then left to right;
// from 8 on, 8 lanes take one value per chunk of 8, the leftovers are added first, then the lanes.
float torch_row_sum(const std::vector<float>& v) {
  const size_t n = v.size();
  if (n == 0) return 0.0f;
  if (n < 4) {
    float acc = v[0];
    for (size_t i = 1; i < n; ++i) acc = acc + v[i];
    return acc;
  }
  if (n < 8) {
    float acc = v[0];
    for (size_t i = 4; i < n; ++i) acc = acc + v[i];
    for (size_t i = 1; i < 4; ++i) acc = acc + v[i];
    return acc;
  }
  const size_t full = n / 8 * 8;
  float lanes[8];
  for (size_t k = 0; k < 8; ++k) lanes[k] = v[k];
  for (size_t c = 8; c < full; c += 8)
    for (size_t k = 0; k < 8; ++k) lanes[k] = lanes[k] + v[c + k];
  float acc = 0.0f;
  bool first = true;
  for (size_t i = full; i < n; ++i, first = false) acc = first ? v[i] : acc + v[i];
  for (size_t k = 0; k < 8; ++k, first = false) acc = first ? lanes[k] : acc + lanes[k];
  return acc;
}

}  // namespace

Tensor sum(const Tensor& t) { return tracked(Tensor({}, {torch_row_sum(t.values())}), t.needs_grad(), "SumBackward0"); }

namespace {

// Applies `reduce` to every 1-D line along `dim`; returns the lines' results (keepdim shape).
Tensor reduce_lines(const Tensor& t, int64_t dim, bool keepdim,
                    const std::function<float(const std::vector<float>&)>& reduce) {
  dim = wrap_dim(dim, t.dim());
  const std::vector<float> v = t.values();
  const int64_t len = t.dim() == 0 ? 1 : t.shape()[dim];
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < t.dim(); ++d) inner *= t.shape()[d];
  const int64_t outer = len * inner == 0 ? 0 : t.numel() / (len * inner);
  std::vector<float> out(outer * inner), line(len);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      for (int64_t j = 0; j < len; ++j) line[j] = v[(o * len + j) * inner + i];
      out[o * inner + i] = reduce(line);
    }
  Shape shape = t.shape();
  if (t.dim() > 0) {
    if (keepdim)
      shape[dim] = 1;
    else
      shape.erase(shape.begin() + dim);
  }
  return Tensor(shape, std::move(out));
}

}  // namespace

Tensor sum(const Tensor& t, int64_t dim, bool keepdim) {
  Tensor out = reduce_lines(t, dim, keepdim, torch_row_sum);
  return tracked(out, t.needs_grad(), "SumBackward1");
}

Tensor max_along(const Tensor& t, int64_t dim, bool keepdim) {
  return reduce_lines(t, dim, keepdim, [](const std::vector<float>& line) {
    float m = -std::numeric_limits<float>::infinity();
    for (float f : line) m = (f > m || std::isnan(f)) ? f : m;
    return m;
  });
}

Tensor softmax(const Tensor& t, int64_t dim) {
  dim = wrap_dim(dim, t.dim());
  std::vector<float> v = t.values();
  const int64_t len = t.dim() == 0 ? 1 : t.shape()[dim];
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < t.dim(); ++d) inner *= t.shape()[d];
  const int64_t outer = len * inner == 0 ? 0 : t.numel() / (len * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) -> float& { return v[(o * len + j) * inner + i]; };
      float max = -std::numeric_limits<float>::infinity();
      for (int64_t j = 0; j < len; ++j) max = std::max(max, at(j));
      std::vector<float> e(static_cast<size_t>(len));
      for (int64_t j = 0; j < len; ++j) e[j] = torch_expf(at(j) - max);  // max = -inf (all masked) gives nan
      const float scale = 1.0f / torch_lane_sum(e.data(), len);
      for (int64_t j = 0; j < len; ++j) at(j) = e[j] * scale;
    }
  return tracked(Tensor(t.shape(), std::move(v)), t.needs_grad(), "SoftmaxBackward0");
}

Tensor masked_fill(const Tensor& t, const Tensor& mask, float value) {
  if (mask.dtype() != DType::Bool)
    throw std::invalid_argument("masked_fill_ only supports boolean masks, but got mask with dtype float");
  const Shape shape = broadcast_shape(t.shape(), mask.shape());
  if (shape != t.shape())
    throw std::invalid_argument("masked_fill: the mask " + shape_text(mask.shape()) + " must broadcast to the tensor " +
                                shape_text(t.shape()));
  std::vector<float> v = t.values();
  const std::vector<float> m = broadcast_values(mask, shape);
  for (size_t k = 0; k < v.size(); ++k)
    if (m[k] != 0.0f) v[k] = value;
  return tracked(Tensor(shape, std::move(v)), t.needs_grad(), "MaskedFillBackward0");
}

}  // namespace attn
