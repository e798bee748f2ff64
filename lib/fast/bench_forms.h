#pragma once
// The bench's forms after the chapter, as the book's bonus notebook (ch03/02_bonus) writes them,
// each the same function as mha_forward on the same seeded weights (bench_attention.h):
//   einsum_forward             MHAEinsum: raw (d_in, d_out) weights, x · W untransposed, scores divided
//                              by √head_dim in a pass of their own
//   sdpa_mask_forward          scaled_dot_product_attention's math path with an explicit mask: q and k
//                              each scaled by head_dim^-1/4, full (T, T) scores, a float mask of 0 and
//                              -inf added, softmax, weighted values; no tile skipped
//   torch_mha_forward          nn.MultiheadAttention(batch_first=True), need_weights=False: the packed
//                              in_proj_weight (3·d, d), q, k, v copied apart, q scaled by 1/√head_dim
//                              before QKᵀ, the bool mask as an additive float mask, out_proj
//   torch_mha_weights_forward  the same with need_weights=True: also the attention weights averaged
//                              over the heads, (b, T, T), as the module returns them
// Dropout is 0.0, as in the notebook's timings.
#include "fast/bench_attention.h"

namespace attn {

void einsum_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads,
                    Workspace& ws);
void sdpa_mask_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads,
                       Workspace& ws);
void torch_mha_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads,
                       Workspace& ws);
void torch_mha_weights_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads,
                               Workspace& ws);

// The head-averaged attention weights torch_mha_weights_forward's last run left in `ws`
// (batch, tokens, tokens); call it only after such a run.
const float* averaged_weights(Workspace& ws, const AttentionShape& s);

}  // namespace attn
