#include "nn/mha_forms.h"

#include <algorithm>
#include <limits>

#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "nn/causal_attention.h"
#include "nn/course_attention.h"
#include "nn/self_attention.h"

namespace attn {

namespace {

const float kInf = std::numeric_limits<float>::infinity();

Linear rows_of(const Linear& layer, int64_t start, int64_t length) {  // weight[start:start+length, :]
  Linear l;
  l.weight = contiguous(narrow(layer.weight, 0, start, length));
  if (layer.bias) l.bias = contiguous(narrow(*layer.bias, 0, start, length));
  return l;
}

Tensor packed(const MultiHeadAttention& mha) {  // cat(W_query, W_key, W_value) along dim 0: (3 * d_out, d_in)
  return cat({mha.W_query.weight, mha.W_key.weight, mha.W_value.weight}, 0);
}

std::optional<Tensor> packed_bias(const MultiHeadAttention& mha) {
  if (!mha.W_query.bias) return std::nullopt;
  return cat({*mha.W_query.bias, *mha.W_key.bias, *mha.W_value.bias}, 0);
}

// (b, T, d) -> (b, H, T, hd): view(b, T, H, hd).transpose(1, 2)
Tensor heads_of(const Tensor& t, int64_t heads, int64_t hd) {
  return transpose(view(t, {t.size(0), t.size(1), heads, hd}), 1, 2);
}

// (b, H, T, hd) -> transpose(1, 2).contiguous().view(b, T, H * hd)
Tensor merged(const Tensor& t) {
  return view(contiguous(transpose(t, 1, 2)), {t.size(0), t.size(2), t.size(1) * t.size(3)});
}

// PyTorch 1.13's cascade sum of n values (SumKernel.cpp's multi_row_sum for one lane): chunks of level_step
// values into acc[0], each full chunk carried up the levels; the leftovers into acc[0]; then acc[0] += acc[1..3].
float cascade_sum(const std::vector<float>& v) {
  const int64_t n = static_cast<int64_t>(v.size());
  int64_t log2 = 0;
  while ((int64_t{1} << log2) < n) ++log2;
  const int64_t power = std::max<int64_t>(4, log2 / 4), step = int64_t{1} << power, mask = step - 1;
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  int64_t i = 0;
  while (i + step <= n) {
    for (int64_t j = 0; j < step; ++j, ++i) acc[0] += v[static_cast<size_t>(i)];
    for (int64_t j = 1; j < 4; ++j) {
      acc[j] += acc[j - 1];
      acc[j - 1] = 0.0f;
      if ((i & (mask << (j * power))) != 0) break;
    }
  }
  for (; i < n; ++i) acc[0] += v[static_cast<size_t>(i)];
  for (int64_t j = 1; j < 4; ++j) acc[0] += acc[j];
  return acc[0];
}

// SumKernel.cpp's row_sum: four interleaved cascade sums (values k, k + 4, ...), the leftovers into the
// first, then the four added left to right.
float ilp_sum(const std::vector<float>& v) {
  const size_t whole = v.size() / 4 * 4;
  float p[4];
  for (size_t k = 0; k < 4; ++k) {
    std::vector<float> lane;
    for (size_t i = k; i < whole; i += 4) lane.push_back(v[i]);
    p[k] = cascade_sum(lane);
  }
  for (size_t i = whole; i < v.size(); ++i) p[0] += v[i];
  return ((p[0] + p[1]) + p[2]) + p[3];
}

// t (b, H, T, S).sum(dim=1) as PyTorch 1.13's AVX2 kernel sums over the heads (vectorized_outer_sum, 8 floats a
// vector): per batch, the first multiple of 32 of the T*S columns by cascade_sum, the rest by ilp_sum.
Tensor sum_over_heads_impl(const Tensor& t) {
  const int64_t b = t.size(0), H = t.size(1), cols = t.size(2) * t.size(3), full = cols / 32 * 32;
  const std::vector<float> v = contiguous(t).values();
  std::vector<float> out(static_cast<size_t>(b * cols));
  std::vector<float> column(static_cast<size_t>(H));
  for (int64_t n = 0; n < b; ++n)
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t h = 0; h < H; ++h) column[static_cast<size_t>(h)] = v[static_cast<size_t>((n * H + h) * cols + c)];
      out[static_cast<size_t>(n * cols + c)] = c < full ? cascade_sum(column) : ilp_sum(column);
    }
  return Tensor({b, t.size(2), t.size(3)}, out);
}

}  // namespace

Tensor sum_over_heads(const Tensor& t) { return sum_over_heads_impl(t); }

WrapperForm WrapperForm::copied_from(const MultiHeadAttention& mha) {
  WrapperForm w;
  for (int64_t h = 0; h < mha.num_heads; ++h) {
    w.W_query.push_back(rows_of(mha.W_query, h * mha.head_dim, mha.head_dim));
    w.W_key.push_back(rows_of(mha.W_key, h * mha.head_dim, mha.head_dim));
    w.W_value.push_back(rows_of(mha.W_value, h * mha.head_dim, mha.head_dim));
  }
  w.out_proj = mha.out_proj;
  w.mask = mha.mask;
  return w;
}

Tensor WrapperForm::forward(const Tensor& x, WrapperFormTrace* trace) const {
  WrapperFormTrace t;
  check_fits_context(x.size(1), mask);
  const Tensor mask_bool = causal_mask_bool(mask, x.size(1));
  for (size_t h = 0; h < W_query.size(); ++h) {  // CausalAttention.forward of head h
    const Tensor keys = W_key[h](x), queries = W_query[h](x), values = W_value[h](x);             // (b, T, head_dim)
    const Tensor scores = masked_fill(matmul(queries, transpose(keys, 1, 2)), mask_bool, -kInf);  // (b, T, T)
    const Tensor weights = softmax(div(scores, sqrt_d_k(keys.size(-1))), -1);
    t.head_outputs.push_back(matmul(weights, values));
  }
  t.context_vec = cat(t.head_outputs, -1);  // (b, T, num_heads * head_dim)
  t.out = out_proj(t.context_vec);
  return hand_over(t, trace, t.out);
}

CombinedForm CombinedForm::copied_from(const MultiHeadAttention& mha) {
  CombinedForm c;
  c.d_out = mha.d_out, c.num_heads = mha.num_heads, c.head_dim = mha.head_dim;
  c.qkv.weight = packed(mha);
  c.qkv.bias = packed_bias(mha);
  c.proj = mha.out_proj;
  c.mask = mha.mask;
  return c;
}

void CombinedForm::project(const Tensor& x, CombinedTrace& t) const {
  const int64_t b = x.size(0), n = x.size(1);
  t.qkv = qkv(x);                                                    // (b, T, 3 * d_out)
  const Tensor split = view(t.qkv, {b, n, 3, num_heads, head_dim});  // (b, T, 3, H, hd)
  Tensor parts[3];
  for (int64_t i = 0; i < 3; ++i) parts[i] = transpose(select(split, 2, i), 1, 2);  // permute(2, 0, 3, 1, 4)[i]
  t.permuted = stack({parts[0], parts[1], parts[2]}, 0);                            // (3, b, H, T, hd)
  t.queries = parts[0], t.keys = parts[1], t.values = parts[2];
}

Tensor CombinedForm::merge(const Tensor& context, CombinedTrace& t) const {
  t.context_vec = merged(context);
  t.out = proj(t.context_vec);
  return t.out;
}

Tensor CombinedForm::forward(const Tensor& x, CombinedTrace* trace) const {
  CombinedTrace t;
  check_fits_context(x.size(1), mask);
  project(x, t);
  t.attn_scores = masked_fill(matmul(t.queries, transpose(t.keys, -2, -1)), causal_mask_bool(mask, x.size(1)), -kInf);
  t.attn_weights = softmax(div(t.attn_scores, sqrt_d_k(t.keys.size(-1))), -1);
  return hand_over(t, trace, merge(matmul(t.attn_weights, t.values), t));
}

Tensor sdpa_math(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* attn_mask, bool is_causal,
                 SdpaTrace* trace) {
  const int64_t L = q.size(-2), S = k.size(-2);
  const double scale_factor = 1.0 / math_sqrt(q.size(-1));
  Tensor bias = zeros({L, S});
  if (is_causal) bias = masked_fill(bias, to_bool(triu(ones({L, S}), 1)), -kInf);  // not tril(ones): -inf
  if (attn_mask) {
    if (attn_mask->dtype() == DType::Bool) {
      std::vector<float> flipped = attn_mask->values();  // attn_mask.logical_not()
      for (float& f : flipped) f = f != 0.0f ? 0.0f : 1.0f;
      bias = masked_fill(bias, to_bool(Tensor(attn_mask->shape(), flipped)), -kInf);
    } else {
      bias = add(*attn_mask, bias);
    }
  }
  Tensor w = add(mul(matmul(q, transpose(k, -2, -1)), scale_factor), bias);
  w = softmax(w, -1);
  if (trace) trace->attn_bias = bias, trace->attn_weight = w;
  return matmul(w, v);
}

EinsumForm EinsumForm::copied_from(const MultiHeadAttention& mha) {
  EinsumForm e;
  e.d_out = mha.d_out, e.num_heads = mha.num_heads, e.head_dim = mha.head_dim;
  e.W_query = contiguous(T(mha.W_query.weight));  // to_mha.W_query.copy_(from_mha.W_query.weight.T)
  e.W_key = contiguous(T(mha.W_key.weight));
  e.W_value = contiguous(T(mha.W_value.weight));
  if (mha.W_query.bias) e.bias_q = mha.W_query.bias, e.bias_k = mha.W_key.bias, e.bias_v = mha.W_value.bias;
  e.out_proj = mha.out_proj;
  e.mask = mha.mask;
  return e;
}

Tensor EinsumForm::forward(const Tensor& x, EinsumTrace* trace) const {
  EinsumTrace t;
  const int64_t b = x.size(0), n = x.size(1);
  check_fits_context(n, mask);
  // "bnd,do->bno": a sum over d in order for every (b, n, o), as the bmm it becomes
  Tensor Q = matmul(x, W_query), K = matmul(x, W_key), V = matmul(x, W_value);
  if (bias_q) Q = add(Q, *bias_q), K = add(K, *bias_k), V = add(V, *bias_v);
  t.Q = heads_of(Q, num_heads, head_dim), t.K = heads_of(K, num_heads, head_dim),
  t.V = heads_of(V, num_heads, head_dim);
  const Tensor scores = div(matmul(t.Q, transpose(t.K, 2, 3)), sqrt_d_k(head_dim));  // "bhnd,bhmd->bhnm" / hd ** 0.5
  t.scores = masked_fill(scores, causal_mask_bool(mask, n), -kInf);
  t.attn_weights = softmax(t.scores, -1);
  t.context_vec = view(contiguous(transpose(matmul(t.attn_weights, t.V), 1, 2)), {b, n, d_out});  // "bhnm,bhmd->bhnd"
  t.out = out_proj(t.context_vec);
  return hand_over(t, trace, t.out);
}

TorchMhaForm TorchMhaForm::copied_from(const MultiHeadAttention& mha) {
  TorchMhaForm m;
  m.embed_dim = mha.d_out, m.num_heads = mha.num_heads, m.head_dim = mha.head_dim;
  m.in_proj_weight = packed(mha);
  m.in_proj_bias = packed_bias(mha);
  std::vector<float> eye(static_cast<size_t>(m.embed_dim * m.embed_dim), 0.0f);
  for (int64_t i = 0; i < m.embed_dim; ++i) eye[static_cast<size_t>(i * m.embed_dim + i)] = 1.0f;
  m.out_proj.weight = Tensor({m.embed_dim, m.embed_dim}, eye);  // torch.eye: out_proj passes the heads through
  m.proj = mha.out_proj;
  m.mask = mha.mask;
  return m;
}

Tensor TorchMhaForm::forward(const Tensor& x, bool need_weights, TorchMhaTrace* trace) const {
  TorchMhaTrace t;
  const int64_t b = x.size(0), n = x.size(1), H = num_heads, hd = head_dim;
  check_fits_context(n, mask);
  // q, k, v = linear(x, in_proj_weight, in_proj_bias).chunk(3, dim=-1): (the sequence-first layout does not
  // change a single sum), then view(T, b * H, hd).transpose(0, 1): (b * H, T, hd)
  const Tensor qkv = Linear{in_proj_weight, in_proj_bias}(x);  // (b, T, 3 * E)
  auto per_head = [&](int64_t i) {
    return view(contiguous(heads_of(narrow(qkv, 2, i * embed_dim, embed_dim), H, hd)), {b * H, n, hd});
  };
  t.q = per_head(0), t.k = per_head(1), t.v = per_head(2);
  t.q_scaled = div(t.q, math_sqrt(hd));  // q / math.sqrt(E), E = head_dim: before the product
  const Tensor mask_bool = causal_mask_bool(mask, n);
  t.float_mask = view(masked_fill(zeros({n, n}), mask_bool, -kInf), {1, n, n});  // True -> -inf, False -> 0
  // baddbmm(attn_mask, q_scaled, k^T): 0 + the in-order sum, or -inf + it
  t.attn_output_weights = softmax(masked_fill(matmul(t.q_scaled, transpose(t.k, 1, 2)), mask_bool, -kInf), -1);
  const Tensor heads = view(matmul(t.attn_output_weights, t.v), {b, H, n, hd});
  t.attn_output = out_proj(merged(heads));  // out_proj: the identity, no bias
  if (need_weights)                         // attn_output_weights.view(b, H, T, S).sum(dim=1) / num_heads
    t.averaged_weights = div(sum_over_heads(view(t.attn_output_weights, {b, H, n, n})), static_cast<double>(H));
  t.out = proj(t.attn_output);
  return hand_over(t, trace, t.out);
}

}  // namespace attn
