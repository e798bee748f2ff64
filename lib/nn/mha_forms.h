#pragma once
// The bonus material's forms of causal multi-head attention (ch03/02_bonus_efficient-multihead-attention),
// each computed as PyTorch 1.13 computes it on the CPU, from the weights of the chapter's
// MultiHeadAttention copied into it as the bonus material's test copies them:
//   Ch03_MHA_Wrapper            head h's W_query/W_key/W_value = rows h*head_dim.. of the chapter's, out_proj copied
//   MultiHeadAttentionCombinedQKV  qkv.weight = cat(W_query, W_key, W_value) along dim 0, proj = out_proj
//   MHAEinsum                   W_query = W_query.weight.T (and so on), out_proj copied
//   MHAPyTorchClass             in_proj_weight = cat(W_query, W_key, W_value), multihead_attn.out_proj = the identity
//                               (no bias), proj = out_proj: torch.nn.functional.multi_head_attention_forward
//   SDPA / FlexAttention        softmax(Q K^T * scale + bias) V, the documented math, on the combined projection
#include <optional>
#include <vector>

#include "core/tensor.h"
#include "nn/linear.h"
#include "nn/multihead_attention.h"

namespace attn {

// Form 1: the wrapper of CausalAttention heads, each d_out / num_heads wide.
struct WrapperFormTrace {
  std::vector<Tensor> head_outputs;  // each (b, T, head_dim)
  Tensor context_vec;                // torch.cat(head_outputs, dim=-1): (b, T, d_out)
  Tensor out;                        // out_proj(context_vec)
};
struct WrapperForm {
  std::vector<Linear> W_query, W_key, W_value;  // one per head: (head_dim, d_in)
  Linear out_proj;
  Tensor mask;  // triu(ones(context_length, context_length), diagonal=1)
  static WrapperForm copied_from(const MultiHeadAttention& mha);
  Tensor forward(const Tensor& x, WrapperFormTrace* trace = nullptr) const;
};

// Forms 3, 5, 6 and 9 share the combined projection: qkv (b, T, 3*d_out) viewed as (b, T, 3, H, hd)
// and permuted to (3, b, H, T, hd).
struct CombinedTrace {
  Tensor qkv;                    // self.qkv(x): (b, T, 3 * d_out)
  Tensor permuted;               // (3, b, H, T, hd), contiguous copy of the permuted view (for printing)
  Tensor queries, keys, values;  // (b, H, T, hd)
  Tensor attn_scores;            // masked scores (form 3) or the SDPA scores with the bias added
  Tensor attn_weights;           // (b, H, T, T)
  Tensor context_vec;            // merged heads: (b, T, d_out)
  Tensor out;                    // proj(context_vec)
};
struct CombinedForm {
  int64_t d_out = 0, num_heads = 0, head_dim = 0;
  Linear qkv, proj;
  Tensor mask;
  static CombinedForm copied_from(const MultiHeadAttention& mha);
  // MultiHeadAttentionCombinedQKV: masked_fill(mask, -inf), softmax(scores / keys.shape[-1]**0.5).
  Tensor forward(const Tensor& x, CombinedTrace* trace = nullptr) const;
  // The projection and split alone (the SDPA and FlexAttention forms' first lines).
  void project(const Tensor& x, CombinedTrace& t) const;
  // context (b, H, T, hd) -> transpose(1, 2).contiguous().view(b, T, d_out) -> proj.
  Tensor merge(const Tensor& context, CombinedTrace& t) const;
};

// The documented math of F.scaled_dot_product_attention (the reference code of its docs):
// attn_bias = 0, -inf where is_causal hides (tril) or a bool attn_mask is False (True = take part),
// or the float attn_mask added; attn_weight = softmax(q @ k^T * (1 / math.sqrt(hd)) + attn_bias) @ v.
// `attn_mask`: nullptr for none.
struct SdpaTrace {
  Tensor attn_bias, attn_weight;
};
Tensor sdpa_math(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* attn_mask, bool is_causal,
                 SdpaTrace* trace = nullptr);

// Form 4: MHAEinsum, raw (d_in, d_out) weights and einsum (a matmul in PyTorch 1.13's order).
struct EinsumTrace {
  Tensor Q, K, V;  // (b, H, T, hd)
  Tensor scores;   // einsum("bhnd,bhmd->bhnm", Q, K) / head_dim ** 0.5, masked
  Tensor attn_weights;
  Tensor context_vec;  // (b, T, d_out)
  Tensor out;
};
struct EinsumForm {
  int64_t d_out = 0, num_heads = 0, head_dim = 0;
  Tensor W_query, W_key, W_value;                // (d_in, d_out) Parameters
  std::optional<Tensor> bias_q, bias_k, bias_v;  // qkv_bias
  Linear out_proj;
  Tensor mask;
  static EinsumForm copied_from(const MultiHeadAttention& mha);
  Tensor forward(const Tensor& x, EinsumTrace* trace = nullptr) const;
};

// Forms 7 and 8: MHAPyTorchClass, nn.MultiheadAttention(batch_first=True) then proj, as PyTorch 1.13's
// multi_head_attention_forward computes it (the module is in training mode, so no fast path): the packed
// in_proj, q / math.sqrt(head_dim) BEFORE the product, the bool mask turned into a float one (-inf where
// True) and added by baddbmm, softmax, bmm, out_proj; with need_weights the weights averaged over heads.
// Needs d_in == d_out (query's width is embed_dim) and no qkv_bias (add_bias_kv appends a learned key).
struct TorchMhaTrace {
  Tensor q, k, v;              // (b * H, T, hd)
  Tensor q_scaled;             // q / math.sqrt(hd)
  Tensor float_mask;           // (1, T, T): 0 and -inf
  Tensor attn_output_weights;  // softmax: (b * H, T, T)
  Tensor attn_output;          // (b, T, d_out), after out_proj, batch first again
  Tensor averaged_weights;     // (b, T, T): need_weights=True only
  Tensor out;                  // proj(attn_output)
};
struct TorchMhaForm {
  int64_t embed_dim = 0, num_heads = 0, head_dim = 0;
  Tensor in_proj_weight;  // (3 * embed_dim, embed_dim)
  std::optional<Tensor> in_proj_bias;
  Linear out_proj, proj;
  Tensor mask;  // bool triu
  static TorchMhaForm copied_from(const MultiHeadAttention& mha);
  Tensor forward(const Tensor& x, bool need_weights, TorchMhaTrace* trace = nullptr) const;
};

// t (b, H, T, S).sum(dim=1) in the order PyTorch 1.13's CPU kernel (AVX2, its default) adds the heads: per
// column a cascade sum for the first multiple of 32 columns, four interleaved sums for the rest.
Tensor sum_over_heads(const Tensor& t);

}  // namespace attn
