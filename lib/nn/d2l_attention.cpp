#include "nn/d2l_attention.h"

#include "core/py_repr.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "nn/attention_steps.h"

namespace attn::d2l {

namespace {

Tensor tracked(Tensor out, bool needs_grad, const char* grad_fn) {
  out.set_grad_fn(needs_grad ? grad_fn : "");
  return out;
}

// torch.bmm: (n, m, k) @ (n, k, p) -> (n, m, p).
Tensor bmm(const Tensor& a, const Tensor& b) {
  if (a.dim() != 3 || b.dim() != 3 || a.size(0) != b.size(0) || a.size(2) != b.size(1))
    throw std::invalid_argument("bmm: expected (n, m, k) @ (n, k, p), got " + shape_text(a.shape()) + " @ " +
                                shape_text(b.shape()));
  return tracked(matmul(a, b), a.needs_grad() || b.needs_grad(), "BmmBackward0");
}

// layer(x): attn::Linear, with the grad_fn F.linear of 1.13 gives a non-contiguous 3-D input.
Tensor linear(const Linear& layer, const Tensor& x) {
  Tensor y = layer(x);
  if (layer.bias && x.dim() == 3 && !x.is_contiguous()) y.set_grad_fn("AddBackward0");
  return y;
}

}  // namespace

Tensor reshape(const Tensor& X, Shape shape) {
  if (can_view(X, shape)) return tracked(view(X, std::move(shape)), X.needs_grad(), "ReshapeAliasBackward0");
  Tensor copy(X.shape(), X.values(), X.dtype());  // clone(contiguous), then _unsafe_view
  return tracked(view(copy, std::move(shape)), X.needs_grad(), "UnsafeViewBackward0");
}

Tensor permute(const Tensor& X, const std::vector<int64_t>& dims) {
  if (static_cast<int64_t>(dims.size()) != X.dim())
    throw std::invalid_argument("permute: number of dims don't match in permute");
  Shape shape(dims.size()), strides(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], X.dim());
    if (seen[d]) throw std::invalid_argument("permute: repeated dim in permute");
    seen[d] = true;
    shape[i] = X.shape()[d];
    strides[i] = X.strides()[d];
  }
  return tracked(X.view_as(shape, strides, X.storage_offset()), X.needs_grad(), "PermuteBackward0");
}

Tensor repeat_interleave(const Tensor& t, int64_t repeats) {
  if (t.dim() < 1 || repeats < 0) throw std::invalid_argument("repeat_interleave: need a tensor of rank >= 1");
  const std::vector<float> v = t.values();
  const int64_t rows = t.size(0), row = rows == 0 ? 0 : t.numel() / rows;
  std::vector<float> out;
  out.reserve(v.size() * static_cast<size_t>(repeats));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < repeats; ++k) out.insert(out.end(), v.begin() + r * row, v.begin() + (r + 1) * row);
  Shape shape = t.shape();
  shape[0] = rows * repeats;
  return Tensor(shape, std::move(out), t.dtype());
}

Tensor int64_tensor(Shape shape, const std::vector<int64_t>& values) {
  return Tensor(std::move(shape), std::vector<float>(values.begin(), values.end()), DType::Int64);
}

SequenceMask sequence_mask(const Tensor& X, const Tensor& valid_len, float value) {
  if (X.dim() != 2 || valid_len.dim() != 1)
    throw std::invalid_argument("sequence_mask: X must be (rows, maxlen) and valid_len (rows,)");
  const int64_t rows = X.size(0), maxlen = X.size(1);
  if (valid_len.size(0) != rows)
    throw std::invalid_argument("The size of tensor a (" + std::to_string(rows) +
                                ") must match the size of tensor b (" + std::to_string(valid_len.size(0)) +
                                ") at non-singleton dimension 0");
  const std::vector<float> lens = valid_len.values();
  std::vector<float> x = X.values(), keep(x.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < maxlen; ++j) {
      // torch.arange(maxlen, dtype=torch.float32)[None, :] < valid_len[:, None] (int64 promoted to float32)
      const bool kept = static_cast<float>(j) < lens[r];
      keep[r * maxlen + j] = kept ? 1.0f : 0.0f;
      if (!kept) x[r * maxlen + j] = value;
    }
  SequenceMask out;
  out.mask = Tensor(X.shape(), std::move(keep), DType::Bool);
  // X[~mask] = value writes in place; on a view (reshape's alias of the scores) autograd then
  // prints AsStridedBackward0, on a tensor of its own IndexPutBackward0.
  out.X = Tensor(X.shape(), std::move(x), X.dtype());
  if (X.needs_grad())
    out.X.set_grad_fn(X.grad_fn() == "ReshapeAliasBackward0" ? "AsStridedBackward0" : "IndexPutBackward0");
  return out;
}

Tensor repeat(const Tensor& t, int64_t repeats) {
  const std::vector<float> v = t.values();
  std::vector<float> out;
  for (int64_t k = 0; k < repeats; ++k) out.insert(out.end(), v.begin(), v.end());
  return Tensor({t.numel() * repeats}, std::move(out), t.dtype());
}

Tensor masked_softmax(const Tensor& X, const std::optional<Tensor>& valid_lens, MaskedSoftmaxTrace* trace,
                      const Variant& v) {
  if (!valid_lens) return variant_softmax(X, -1, v);
  if (X.dim() != 3) throw std::invalid_argument("masked_softmax: X must be 3-D");
  const Shape shape = X.shape();
  MaskedSoftmaxTrace t;
  if (valid_lens->dim() == 1)
    t.valid_lens = v.repeat_rows ? repeat(*valid_lens, shape[1]) : repeat_interleave(*valid_lens, shape[1]);
  else
    t.valid_lens = reshape(*valid_lens, {-1});
  t.rows = reshape(X, {-1, shape.back()});
  SequenceMask masked = sequence_mask(t.rows, t.valid_lens, static_cast<float>(-1e6));
  t.mask = masked.mask;
  t.masked = masked.X;
  t.weights = variant_softmax(reshape(t.masked, shape), -1, v);
  return hand_over(t, trace, t.weights);
}

Tensor transpose_qkv(const Tensor& X, int64_t num_heads, SplitTrace* trace) {
  SplitTrace t;
  t.reshaped = reshape(X, {X.size(0), X.size(1), num_heads, -1});             // (b, T, num_heads, head_dim)
  t.permuted = permute(t.reshaped, {0, 2, 1, 3});                             // (b, num_heads, T, head_dim)
  t.out = reshape(t.permuted, {-1, t.permuted.size(2), t.permuted.size(3)});  // (b * num_heads, T, head_dim)
  return hand_over(t, trace, t.out);
}

Tensor transpose_output(const Tensor& X, int64_t num_heads, SplitTrace* trace) {
  SplitTrace t;
  t.reshaped = reshape(X, {-1, num_heads, X.size(1), X.size(2)});             // (b, num_heads, T, head_dim)
  t.permuted = permute(t.reshaped, {0, 2, 1, 3});                             // (b, T, num_heads, head_dim)
  t.out = reshape(t.permuted, {t.permuted.size(0), t.permuted.size(1), -1});  // (b, T, num_hiddens)
  return hand_over(t, trace, t.out);
}

Tensor book_split(const Tensor& X, int64_t num_heads) {
  const int64_t b = X.size(0), num_tokens = X.size(1), d_out = X.size(2);
  if (num_heads <= 0 || d_out % num_heads != 0) throw std::invalid_argument("d_out must be divisible by num_heads");
  return transpose(view(X, {b, num_tokens, num_heads, d_out / num_heads}), 1, 2);
}

Tensor DotProductAttention::forward(const Tensor& queries, const Tensor& keys, const Tensor& values,
                                    const std::optional<Tensor>& valid_lens, bool training, Generator& gen,
                                    BernoulliPath path, DotProductAttentionTrace* trace, const Variant& v) const {
  DotProductAttentionTrace t;
  const int64_t d = queries.size(-1);
  t.scores = scale_scores(bmm(queries, transpose(keys, 1, 2)), std::sqrt(static_cast<double>(d)),  // / math.sqrt(d)
                          {d, d, d}, v);
  t.steps.bind("scores", "scores = torch.bmm(queries, keys.transpose(1,2)) / math.sqrt(d)", t.scores);
  t.attention_weights =
      scale_weights(masked_softmax(t.scores, valid_lens, &t.softmax, v), std::sqrt(static_cast<double>(d)), v);
  // X[~mask] = -1e6 writes through reshape's view of the scores: masked_softmax changes them in place.
  if (valid_lens)
    t.steps.modify("scores", "X[~mask] = -1e6  # in masked_softmax, on a view of scores",
                   reshape(t.softmax.masked, t.scores.shape()));
  t.steps.bind("self.attention_weights", "self.attention_weights = masked_softmax(scores, valid_lens)",
               t.attention_weights);
  t.dropped = t.steps.bind("self.dropout(self.attention_weights)", "self.dropout(self.attention_weights)",
                           dropout_step(t.attention_weights, dropout, training, gen, path, v));
  t.output = t.steps.bind("output", "output = torch.bmm(self.dropout(self.attention_weights), values)",
                          bmm(t.dropped, values));
  return hand_over(t, trace, t.output);
}

MultiHeadAttention MultiHeadAttention::init(Generator& gen, int64_t key_size, int64_t query_size, int64_t value_size,
                                            int64_t num_hiddens, int64_t num_heads, double dropout, bool bias,
                                            const Variant& v) {
  if (num_heads <= 0 || num_hiddens % num_heads != 0)
    throw std::invalid_argument("num_hiddens must be divisible by num_heads");
  MultiHeadAttention m;
  m.num_heads = num_heads;
  m.attention.dropout = dropout;
  Linear* created[] = {&m.W_q, &m.W_k, &m.W_v, &m.W_o};
  const int64_t in[] = {query_size, key_size, value_size, num_hiddens};
  for (int i : creation_order(v, 4)) *created[i] = Linear::init(gen, in[i], num_hiddens, bias);
  return m;
}

Tensor MultiHeadAttention::forward(const Tensor& queries, const Tensor& keys, const Tensor& values,
                                   const std::optional<Tensor>& valid_lens, Generator& gen, BernoulliPath path,
                                   MultiHeadAttentionTrace* trace, const Variant& v) const {
  MultiHeadAttentionTrace t;
  t.queries = t.steps.bind("queries", "queries = transpose_qkv(self.W_q(queries), self.num_heads)",
                           transpose_qkv(linear(W_q, queries), num_heads, &t.queries_split));  // (b * h, nq, head_dim)
  t.keys = t.steps.bind("keys", "keys = transpose_qkv(self.W_k(keys), self.num_heads)",
                        transpose_qkv(linear(W_k, keys), num_heads));  // (b * h, nk, head_dim)
  t.values = t.steps.bind("values", "values = transpose_qkv(self.W_v(values), self.num_heads)",
                          transpose_qkv(linear(W_v, values), num_heads));
  if (valid_lens) {
    t.valid_lens = v.repeat_heads && valid_lens->dim() == 1 ? repeat(*valid_lens, num_heads)
                                                            : repeat_interleave(*valid_lens, num_heads);
    t.steps.bind("valid_lens", "valid_lens = torch.repeat_interleave(valid_lens, repeats=self.num_heads, dim=0)",
                 *t.valid_lens);
  }
  const Tensor output =
      attention.forward(t.queries, t.keys, t.values, t.valid_lens, training, gen, path, &t.attention, v);
  t.steps.append(t.attention.steps);
  t.output_concat = t.steps.bind("output_concat", "output_concat = transpose_output(output, self.num_heads)",
                                 transpose_output(output, num_heads, &t.output_split));  // (b, nq, num_hiddens)
  t.result = linear(W_o, t.output_concat);
  return hand_over(t, trace, t.result);
}

std::string MultiHeadAttention::repr() const {
  auto linear = [](const char* name, const Linear& l) {
    return std::string("  (") + name + "): Linear(in_features=" + std::to_string(l.weight.size(1)) +
           ", out_features=" + std::to_string(l.weight.size(0)) + ", bias=" + (l.bias ? "True" : "False") + ")\n";
  };
  return "MultiHeadAttention(\n  (attention): DotProductAttention(\n    (dropout): Dropout(p=" +
         py_float(attention.dropout) + ", inplace=False)\n  )\n" + linear("W_q", W_q) + linear("W_k", W_k) +
         linear("W_v", W_v) + linear("W_o", W_o) + ")";
}

}  // namespace attn::d2l
