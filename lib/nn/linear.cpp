#include "nn/linear.h"

#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "core/random_ops.h"

namespace attn {

Linear Linear::init(Generator& gen, int64_t in_features, int64_t out_features, bool bias) {
  LinearParams p = linear_init(gen, in_features, out_features, bias);
  Linear layer;
  layer.weight = Tensor({out_features, in_features}, std::move(p.weight));
  layer.weight.set_parameter(true).set_requires_grad(true);
  if (bias) {
    layer.bias = Tensor({out_features}, std::move(p.bias));
    layer.bias->set_parameter(true).set_requires_grad(true);
  }
  return layer;
}

Tensor Linear::operator()(const Tensor& x) const {
  // x @ weight.T, each output a float32 sum over in_features in order; the bias is added to the
  // finished sum (measured against PyTorch 1.13's addmm).
  Tensor w_t = transpose(weight, 0, 1);
  if (!bias) {
    Tensor y = matmul(x, w_t);
    y.set_grad_fn(x.dim() == 2 ? "MmBackward0" : (x.dim() == 1 ? "SqueezeBackward4" : "UnsafeViewBackward0"));
    return y;
  }
  const int64_t in = weight.size(1), out = weight.size(0);
  const std::vector<float> xv = x.values(), wv = weight.values(), bv = bias->values();
  const int64_t rows = x.numel() / in;
  std::vector<float> y(static_cast<size_t>(rows * out));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < out; ++o) {
      float acc = 0.0f;
      for (int64_t k = 0; k < in; ++k) acc = acc + xv[r * in + k] * wv[o * in + k];
      y[r * out + o] = acc + bv[o];
    }
  Shape shape = x.shape();
  shape.back() = out;
  Tensor result(shape, std::move(y));
  result.set_grad_fn(x.dim() == 2 ? "AddmmBackward0" : "ViewBackward0");
  return result;
}

int64_t Linear::parameter_count() const { return weight.numel() + (bias ? bias->numel() : 0); }

}  // namespace attn
