#include "core/ops_shape.h"

#include <stdexcept>
#include <string>

namespace attn {
namespace {

Tensor tracked(Tensor out, const Tensor& in, const char* grad_fn) {
  if (in.needs_grad()) out.set_grad_fn(grad_fn);
  return out;
}

bool any_needs_grad(const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts)
    if (t.needs_grad()) return true;
  return false;
}

}  // namespace

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  const int64_t n = ndim == 0 ? 1 : ndim;
  if (dim < -n || dim >= n)
    throw std::out_of_range("Dimension out of range (expected to be in range of [" + std::to_string(-n) + ", " +
                            std::to_string(n - 1) + "], but got " + std::to_string(dim) + ")");
  return dim < 0 ? dim + n : dim;
}

Tensor ones(const Shape& shape) { return Tensor(shape, std::vector<float>(numel_of(shape), 1.0f)); }
Tensor zeros(const Shape& shape) { return Tensor(shape, std::vector<float>(numel_of(shape), 0.0f)); }

Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  dim = wrap_dim(dim, t.dim());
  const int64_t n = t.shape()[dim];
  if (index < -n || index >= n)
    throw std::out_of_range("index " + std::to_string(index) + " is out of bounds for dimension " +
                            std::to_string(dim) + " with size " + std::to_string(n));
  if (index < 0) index += n;
  Shape shape = t.shape(), strides = t.strides();
  const int64_t offset = t.storage_offset() + index * strides[dim];
  shape.erase(shape.begin() + dim);
  strides.erase(strides.begin() + dim);
  return tracked(t.view_as(shape, strides, offset), t, "SelectBackward0");
}

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  dim = wrap_dim(dim, t.dim());
  if (start < 0 || length < 0 || start + length > t.shape()[dim])
    throw std::out_of_range("narrow: range out of bounds");
  Shape shape = t.shape();
  shape[dim] = length;
  const int64_t offset = t.storage_offset() + start * t.strides()[dim];
  return tracked(t.view_as(shape, t.strides(), offset), t, "SliceBackward0");
}

Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1) {
  dim0 = wrap_dim(dim0, t.dim());
  dim1 = wrap_dim(dim1, t.dim());
  Shape shape = t.shape(), strides = t.strides();
  std::swap(shape[dim0], shape[dim1]);
  std::swap(strides[dim0], strides[dim1]);
  return tracked(t.view_as(shape, strides, t.storage_offset()), t, "TransposeBackward0");
}

Tensor T(const Tensor& t) {
  if (t.dim() != 2) throw std::invalid_argument(".T is used here on 2-D tensors only");
  Tensor out = transpose(t, 0, 1);
  return tracked(out.set_grad_fn(""), t, "PermuteBackward0");
}

namespace {

// Resolves a single -1 in the requested shape.
Shape infer_shape(const Shape& requested, int64_t numel) {
  Shape shape = requested;
  int64_t known = 1, infer_at = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer_at >= 0) throw std::invalid_argument("only one dimension can be inferred");
      infer_at = static_cast<int64_t>(i);
    } else if (shape[i] < 0) {
      throw std::invalid_argument("invalid shape dimension " + std::to_string(shape[i]));
    } else {
      known *= shape[i];
    }
  }
  if (infer_at >= 0 && known != 0 && numel % known == 0) shape[infer_at] = numel / known;
  if (numel_of(shape) != numel)
    throw std::invalid_argument("shape '" + shape_text(requested) + "' is invalid for input of size " +
                                std::to_string(numel));
  return shape;
}

// Strides for viewing `t` as `shape` without copying, or an empty result when impossible.
// The old dimensions are grouped into runs that are contiguous with one another; each run must be
// covered exactly by a run of new dimensions.
bool view_strides(const Tensor& t, const Shape& shape, Shape& strides) {
  const Shape& old_shape = t.shape();
  const Shape& old_strides = t.strides();
  strides.assign(shape.size(), 0);
  if (t.numel() == 0) {
    strides = contiguous_strides(shape);
    return true;
  }
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = old_strides.empty() ? 1 : old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_shape.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_shape[d];
    // End of a contiguous run: the next older dim does not continue it.
    if (d == 0 || (old_shape[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

}  // namespace

bool can_view(const Tensor& t, const Shape& shape) {
  Shape strides;
  return view_strides(t, infer_shape(shape, t.numel()), strides);
}

Tensor view(const Tensor& t, Shape shape) {
  shape = infer_shape(shape, t.numel());
  Shape strides;
  if (!view_strides(t, shape, strides))
    throw std::invalid_argument(
        "view size is not compatible with input tensor's size and stride (at least one dimension "
        "spans across two contiguous subspaces). Use .reshape(...) instead.");
  return tracked(t.view_as(shape, strides, t.storage_offset()), t, "ViewBackward0");
}

Tensor contiguous(const Tensor& t) {
  if (t.is_contiguous()) return t;
  return tracked(Tensor(t.shape(), t.values(), t.dtype()), t, "CloneBackward0");
}

namespace {

void check_same_shapes(const std::vector<Tensor>& ts, const char* op, int64_t skip_dim) {
  if (ts.empty()) throw std::invalid_argument(std::string(op) + " expects a non-empty list of tensors");
  for (const Tensor& t : ts) {
    if (t.dim() != ts[0].dim()) throw std::invalid_argument(std::string(op) + ": tensors must have the same rank");
    for (int64_t d = 0; d < t.dim(); ++d)
      if (d != skip_dim && t.shape()[d] != ts[0].shape()[d])
        throw std::invalid_argument(std::string(op) + ": sizes of tensors must match except in the joined dimension");
  }
}

}  // namespace

Tensor cat(const std::vector<Tensor>& ts, int64_t dim) {
  if (ts.empty()) throw std::invalid_argument("cat expects a non-empty list of tensors");
  dim = wrap_dim(dim, ts[0].dim());
  check_same_shapes(ts, "cat", dim);
  Shape shape = ts[0].shape();
  shape[dim] = 0;
  for (const Tensor& t : ts) shape[dim] += t.shape()[dim];
  // outer = product of dims before `dim`; each tensor contributes a block of size[dim]*inner per outer index.
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= shape[d];
  std::vector<std::vector<float>> parts;
  for (const Tensor& t : ts) parts.push_back(t.values());
  std::vector<float> out;
  out.reserve(numel_of(shape));
  for (int64_t o = 0; o < outer; ++o)
    for (size_t k = 0; k < ts.size(); ++k) {
      const int64_t block = outer ? static_cast<int64_t>(parts[k].size()) / outer : 0;
      out.insert(out.end(), parts[k].begin() + o * block, parts[k].begin() + (o + 1) * block);
    }
  Tensor result(shape, std::move(out), ts[0].dtype());
  if (any_needs_grad(ts)) result.set_grad_fn("CatBackward0");
  return result;
}

Tensor repeat_interleave(const Tensor& t, int64_t repeats, int64_t dim) {
  dim = wrap_dim(dim, t.dim());
  if (repeats < 0) throw std::invalid_argument("repeat_interleave: repeats must be non-negative");
  Shape shape = t.shape();
  const int64_t n = shape[dim];
  shape[dim] = n * repeats;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= shape[d];
  for (int64_t d = dim + 1; d < t.dim(); ++d) inner *= shape[d];
  const std::vector<float> v = t.values();
  std::vector<float> out;
  out.reserve(numel_of(shape));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t r = 0; r < repeats; ++r)
        out.insert(out.end(), v.begin() + (o * n + i) * inner, v.begin() + (o * n + i + 1) * inner);
  return tracked(Tensor(shape, std::move(out), t.dtype()), t, "IndexSelectBackward0");
}

Tensor stack(const std::vector<Tensor>& ts, int64_t dim) {
  if (ts.empty()) throw std::invalid_argument("stack expects a non-empty list of tensors");
  dim = wrap_dim(dim, ts[0].dim() + 1);
  check_same_shapes(ts, "stack", -1);
  std::vector<Tensor> expanded;
  for (const Tensor& t : ts) {
    Shape shape = t.shape();
    shape.insert(shape.begin() + dim, 1);
    expanded.push_back(Tensor(shape, t.values(), t.dtype()));
  }
  Tensor result = cat(expanded, dim);
  result.set_grad_fn(any_needs_grad(ts) ? "StackBackward0" : "");
  return result;
}

namespace {

Tensor triangle(const Tensor& t, int64_t diagonal, bool lower, const char* grad_fn) {
  if (t.dim() < 2) throw std::invalid_argument("tril/triu: input tensor must have at least 2 dimensions");
  std::vector<float> v = t.values();
  const int64_t rows = t.size(-2), cols = t.size(-1);
  for (size_t k = 0; k < v.size(); ++k) {
    const int64_t i = (static_cast<int64_t>(k) / cols) % rows, j = static_cast<int64_t>(k) % cols;
    const bool keep = lower ? (j - i <= diagonal) : (j - i >= diagonal);
    if (!keep) v[k] = 0.0f;
  }
  return tracked(Tensor(t.shape(), std::move(v), t.dtype()), t, grad_fn);
}

}  // namespace

Tensor tril(const Tensor& t, int64_t diagonal) { return triangle(t, diagonal, true, "TrilBackward0"); }
Tensor triu(const Tensor& t, int64_t diagonal) { return triangle(t, diagonal, false, "TriuBackward0"); }

Tensor to_bool(const Tensor& t) {
  std::vector<float> v = t.values();
  for (float& x : v) x = (x != 0.0f) ? 1.0f : 0.0f;
  return Tensor(t.shape(), std::move(v), DType::Bool);
}

}  // namespace attn
