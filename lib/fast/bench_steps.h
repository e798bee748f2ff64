#pragma once
// The steps the bench's materialising forms share (bench_attention.cpp and bench_forms.cpp), defined in
// bench_attention.cpp. q, k and v are (b, T, heads·hd) views with the row strides given.
#include <cstdint>
#include <functional>

#include "fast/bench_attention.h"
#include "fast/fast_gemm.h"

namespace attn {

// C_i = A_i · B_i for count independent products of the same shape, split into row chunks over the
// threads; each chunk runs on one thread with its own packing panels.
void batched_gemm(int64_t count, const std::function<GemmArgs(int64_t)>& product, int threads, GemmScratch& scratch);
// weights = softmax(scores * scale), row by row: `rows` rows of T.
void softmax_rows(const float* scores, float* weights, int64_t rows, int64_t T, float scale, int threads);
// scores (b, heads, T, T) = queries @ keys.transpose(-2, -1), every entry computed.
void head_scores(const AttentionShape& s, const float* q, int64_t ldq, const float* k, int64_t ldk, float* scores,
                 int threads, Workspace& ws);
// ctx_heads (b, heads, T, hd) = weights @ values, then ctx (b, T, heads·hd) = ctx_heads.transpose(1, 2).contiguous().
void values_merged(const AttentionShape& s, const float* weights, const float* v, int64_t ldv, float* ctx_heads,
                   float* ctx, int threads, Workspace& ws);

}  // namespace attn
