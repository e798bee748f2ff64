#pragma once
// Flash-style causal attention for the bench: queries in tiles of br rows meet keys in tiles of
// bc, the softmax is carried online (running max m and sum l per query, earlier partial results
// rescaled by exp(m_old - m_new)), so no (T, T) matrix exists, and tiles wholly above the diagonal
// are never computed. The tile sizes are the active kernel set's (AVX-512: 64 x 64; AVX2, NEON and
// portable: 48 x 48). Work is split over batch x heads x query tiles, costliest first.
#include <cstdint>

#include "fast/bench_attention.h"

namespace attn {

void flash_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads,
                   Workspace& ws);

// Tiles of one (batch, head) with the active kernels' tile sizes: computed (on or below the
// diagonal) and in the full grid; and those sizes.
struct FlashTileCount {
  int64_t computed = 0, total = 0;
  int64_t query_tile = 0, key_tile = 0;
};
FlashTileCount flash_tiles(int64_t tokens);

}  // namespace attn
