#pragma once
// A small float32 tensor of rank 0-4 with PyTorch's view semantics: shared storage, shape,
// strides and an offset, so transpose is a view and `view` on a non-contiguous tensor fails as in
// PyTorch. Autograd is carried as text only (the grad_fn name PyTorch would print).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace attn {

using Shape = std::vector<int64_t>;

class Tensor {
 public:
  Tensor();  // 0-d tensor holding 0
  // A contiguous tensor from row-major values; values.size() must equal the shape's numel.
  Tensor(Shape shape, std::vector<float> values, DType dtype = DType::Float32);

  const Shape& shape() const { return shape_; }
  const Shape& strides() const { return strides_; }
  int64_t storage_offset() const { return offset_; }
  int64_t dim() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numel() const;
  int64_t size(int64_t d) const;  // negative d counts from the end
  DType dtype() const { return dtype_; }
  bool is_contiguous() const;
  bool shares_storage_with(const Tensor& other) const { return storage_ == other.storage_; }

  std::vector<float> values() const;  // logical row-major copy
  float item() const;                 // the value of a one-element tensor
  float at(const std::vector<int64_t>& index) const;

  // Autograd provenance, as text.
  const std::string& grad_fn() const { return grad_fn_; }
  bool requires_grad() const { return requires_grad_; }
  bool is_parameter() const { return parameter_; }
  bool needs_grad() const { return requires_grad_ || !grad_fn_.empty(); }
  Tensor& set_grad_fn(std::string name);
  Tensor& set_requires_grad(bool on);
  Tensor& set_parameter(bool on);  // nn.Parameter(...): a leaf; requires_grad as given

  // A view sharing storage (used by transpose/view/indexing).
  Tensor view_as(Shape shape, Shape strides, int64_t offset) const;

 private:
  std::shared_ptr<std::vector<float>> storage_;
  Shape shape_;
  Shape strides_;
  int64_t offset_ = 0;
  DType dtype_ = DType::Float32;
  std::string grad_fn_;
  bool requires_grad_ = false;
  bool parameter_ = false;
};

int64_t numel_of(const Shape& shape);
Shape contiguous_strides(const Shape& shape);
std::string shape_text(const Shape& shape);  // "(2, 6, 3)"

}  // namespace attn
