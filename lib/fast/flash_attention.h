#pragma once
// Flash-style causal attention for the bench: queries in tiles of 48 rows meet keys in tiles of 48,
// the softmax is carried online (running max m and sum l per query, earlier partial results
// rescaled by exp(m_old - m_new)), so no (T, T) matrix exists, and tiles wholly above the diagonal
// are never computed. One batch at a time: x_b @ W_qkv^T, then heads in parallel, then out_proj.
#include <cstdint>

#include "fast/bench_attention.h"

namespace attn {

constexpr int64_t kFlashQueryTile = 48;  // rows of queries per tile (a multiple of 6 and 16)
constexpr int64_t kFlashKeyTile = 48;    // keys per tile (a multiple of 6)

void flash_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads,
                   Workspace& ws);

// Tiles of one (batch, head): computed (on or below the diagonal) and in the full grid.
struct FlashTileCount {
  int64_t computed = 0, total = 0;
};
FlashTileCount flash_tiles(int64_t tokens);

}  // namespace attn
