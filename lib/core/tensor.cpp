#include "core/tensor.h"

#include <algorithm>
#include <stdexcept>

namespace attn {

namespace {

// a * b, or std::length_error when the product does not fit in int64_t (a hostile shape such as
// [2^62, 2^62, 4] must not wrap around into a small or negative size).
int64_t times(int64_t a, int64_t b, const Shape& shape) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product))
    throw std::length_error("tensor: shape " + shape_text(shape) + " has more elements than 64-bit sizes can count");
  return product;
}

}  // namespace

int64_t numel_of(const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n = times(n, s, shape);
  return n;
}

Shape contiguous_strides(const Shape& shape) {
  Shape strides(shape.size());
  int64_t step = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = step;
    step = times(step, shape[i], shape);
  }
  return strides;
}

std::string shape_text(const Shape& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + ")";
}

Tensor::Tensor() : storage_(std::make_shared<std::vector<float>>(1, 0.0f)) {}

Tensor::Tensor(Shape shape, std::vector<float> values, DType dtype)
    : storage_(std::make_shared<std::vector<float>>(std::move(values))),
      shape_(std::move(shape)),
      strides_(contiguous_strides(shape_)),
      dtype_(dtype) {
  if (static_cast<int64_t>(storage_->size()) != numel_of(shape_))
    throw std::invalid_argument("tensor: " + std::to_string(storage_->size()) + " values do not fill shape " +
                                shape_text(shape_));
}

int64_t Tensor::numel() const { return numel_of(shape_); }

int64_t Tensor::size(int64_t d) const {
  if (d < 0) d += dim();
  if (d < 0 || d >= dim()) throw std::out_of_range("dimension out of range");
  return shape_[static_cast<size_t>(d)];
}

bool Tensor::is_contiguous() const {
  // As PyTorch: dimensions of size 1 do not constrain the stride.
  int64_t expected = 1;
  for (size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 1) continue;
    if (strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

std::vector<float> Tensor::values() const {
  const int64_t n = numel();
  std::vector<float> out(static_cast<size_t>(n));
  if (n == 0) return out;
  const float* data = storage_->data();
  if (is_contiguous()) {  // one run: a copy
    std::copy(data + offset_, data + offset_ + n, out.begin());
    return out;
  }
  // Row by row of the last dimension, each a strided run; the outer dimensions advance as an
  // odometer (last outer dimension fastest).
  const size_t outer = shape_.size() - 1;
  const int64_t inner = shape_[outer], step = strides_[outer];
  std::vector<int64_t> index(outer, 0);
  for (int64_t k = 0; k < n; k += inner) {
    int64_t pos = offset_;
    for (size_t d = 0; d < outer; ++d) pos += index[d] * strides_[d];
    const float* src = data + pos;
    float* dst = out.data() + k;
    for (int64_t j = 0; j < inner; ++j) dst[j] = src[j * step];
    for (size_t d = outer; d-- > 0;) {
      if (++index[d] < shape_[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

float Tensor::item() const {
  if (numel() != 1) throw std::invalid_argument("item() needs a one-element tensor");
  return values()[0];
}

float Tensor::at(const std::vector<int64_t>& index) const {
  if (index.size() != shape_.size()) throw std::invalid_argument("at(): wrong number of indices");
  int64_t pos = offset_;
  for (size_t d = 0; d < shape_.size(); ++d) {
    if (index[d] < 0 || index[d] >= shape_[d]) throw std::out_of_range("at(): index out of range");
    pos += index[d] * strides_[d];
  }
  return (*storage_)[static_cast<size_t>(pos)];
}

Tensor& Tensor::set_grad_fn(std::string name) {
  grad_fn_ = std::move(name);
  return *this;
}

Tensor& Tensor::set_requires_grad(bool on) {
  requires_grad_ = on;
  return *this;
}

Tensor& Tensor::set_parameter(bool on) {
  parameter_ = on;
  return *this;
}

Tensor Tensor::view_as(Shape shape, Shape strides, int64_t offset) const {
  Tensor t = *this;
  t.shape_ = std::move(shape);
  t.strides_ = std::move(strides);
  t.offset_ = offset;
  t.grad_fn_.clear();
  t.requires_grad_ = false;
  t.parameter_ = false;
  return t;
}

}  // namespace attn
