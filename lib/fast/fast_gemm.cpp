// The BLIS loop nest: for each block of columns (nc) and of k (kc), pack B into nr-wide strips;
// for each block of rows (mc), pack A into mr-tall strips; then every (mr, nr) tile of C is one
// micro-kernel call that keeps C in registers for the whole k block. The sizes come from the
// active kernel set (kernels.h).
#include "fast/fast_gemm.h"

#include <algorithm>
#include <cstring>

#include "fast/kernels.h"
#include "fast/parallel.h"

namespace attn {

namespace {

constexpr int64_t kMaxMR = 8, kMaxNR = 64;  // the largest tile of any kernel set
constexpr int64_t kInPlaceMaxN = 128;       // C this narrow: A read in place, not packed

int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// A partial tile (mr < MR or nr < NR): through a full tile on the stack.
void edge_tile(const KernelSet& k, int64_t kc, const float* a, int64_t rs, int64_t ks, const float* b, float* c,
               int64_t ldc, Start start, const float* bias, int64_t mr, int64_t nr) {
  alignas(64) float tile[kMaxMR * kMaxNR] = {};
  for (int64_t r = 0; r < mr; ++r)
    for (int64_t j = 0; j < nr; ++j)
      tile[r * k.nr + j] = start == Start::C ? c[r * ldc + j] : start == Start::Bias ? bias[j] : 0.0f;
  k.micro_kernel(kc, a, rs, ks, b, tile, k.nr, Start::C, nullptr);
  for (int64_t r = 0; r < mr; ++r) std::memcpy(c + r * ldc, tile + r * k.nr, sizeof(float) * nr);
}

// A strip [p][width] from `used` rows of kc floats (row c at src(c)), zero-padded past them. Sixteen
// rows at a time, each read in order: every p then writes 16 adjacent floats (one cache line), where a
// whole column at a time would touch every line of a strip larger than L1.
template <class Src>
void pack_transposed(float* dst, int64_t width, int64_t used, int64_t kc, Src src) {
  constexpr int64_t kRows = 16;
  for (int64_t c0 = 0; c0 < width; c0 += kRows) {
    const int64_t ce = std::min(width, c0 + kRows), cu = std::min(ce, std::max(used, c0));
    const float* rows[kRows];
    for (int64_t c = c0; c < cu; ++c) rows[c - c0] = src(c);
    for (int64_t p = 0; p < kc; ++p) {
      float* d = dst + p * width;
      for (int64_t c = c0; c < cu; ++c) d[c] = rows[c - c0][p];
      for (int64_t c = cu; c < ce; ++c) d[c] = 0.0f;
    }
  }
}

// B block rows [pc, pc+kc) x columns [j, j+NR) into one strip [p][NR], zero-padded past n.
void pack_b_strip(const GemmArgs& g, int64_t NR, int64_t pc, int64_t kc, int64_t j, float* dst) {
  const int64_t nr = std::min(NR, g.n - j);
  if (g.b_layout == BLayout::KxN) {
    for (int64_t p = 0; p < kc; ++p) {
      const float* src = g.b + (pc + p) * g.ldb + j;
      float* d = dst + p * NR;
      std::memcpy(d, src, sizeof(float) * nr);
      for (int64_t c = nr; c < NR; ++c) d[c] = 0.0f;
    }
  } else {
    pack_transposed(dst, NR, nr, kc, [&](int64_t c) { return g.b + (j + c) * g.ldb + pc; });
  }
}

// A rows [i, i+mr) x k [pc, pc+kc) into one strip [p][MR], zero-padded past mr.
void pack_a_strip(const GemmArgs& g, int64_t MR, int64_t i, int64_t mr, int64_t pc, int64_t kc, float* dst) {
  pack_transposed(dst, MR, mr, kc, [&](int64_t r) { return g.a + (i + r) * g.lda + pc; });
}

// Rows [ic, ic+mc) of C for one (jc, pc) block, B already packed. A narrow C (a few strips)
// reuses A too little to repay packing it: full strips are then read in place.
void macro_kernel(const KernelSet& k, const GemmArgs& g, int64_t ic, int64_t mc, int64_t jc, int64_t nc, int64_t pc,
                  int64_t kc, const float* bpack, float* apack) {
  const int64_t MR = k.mr, NR = k.nr;
  const int64_t strips = (mc + MR - 1) / MR;
  const bool in_place = nc <= kInPlaceMaxN;
  for (int64_t s = 0; s < strips; ++s)
    if (!in_place || mc - s * MR < MR)
      pack_a_strip(g, MR, ic + s * MR, std::min(MR, mc - s * MR), pc, kc, apack + s * kc * MR);
  const Start start = pc > 0 || g.accumulate ? Start::C : g.bias ? Start::Bias : Start::Zero;
  for (int64_t jr = 0; jr < nc; jr += NR) {
    const int64_t nr = std::min(NR, nc - jr);
    const float* bp = bpack + (jr / NR) * kc * NR;
    const float* bias = g.bias ? g.bias + jc + jr : nullptr;
    for (int64_t s = 0; s < strips; ++s) {
      const int64_t mr = std::min(MR, mc - s * MR);
      float* c = g.c + (ic + s * MR) * g.ldc + jc + jr;
      const bool direct = in_place && mr == MR;
      const float* ap = direct ? g.a + (ic + s * MR) * g.lda + pc : apack + s * kc * MR;
      const int64_t rs = direct ? g.lda : 1, ks = direct ? 1 : MR;
      if (mr == MR && nr == NR)
        k.micro_kernel(kc, ap, rs, ks, bp, c, g.ldc, start, bias);
      else
        edge_tile(k, kc, ap, rs, ks, bp, c, g.ldc, start, bias, mr, nr);
    }
  }
}

}  // namespace

void GemmScratch::reserve_threads(int threads) {
  if (static_cast<int>(per_thread.size()) < threads) per_thread.resize(threads);
}

GemmPack& GemmScratch::thread(int t) { return per_thread.at(t); }

std::size_t GemmScratch::bytes() const {
  std::size_t n = 0;
  for (const GemmPack& p : per_thread) n += p.bytes();
  for (const KeptB& kb : kept) n += kb.packed.bytes();
  return n;
}

void gemm(const GemmArgs& g, GemmPack& pack) {
  if (g.m <= 0 || g.n <= 0) return;
  const KernelSet& k = active_kernels();
  const int64_t KC = k.kc, MC = round_up(k.mc, k.mr), NC = round_up(k.nc, k.nr);
  const int64_t kmax = std::min(KC, std::max<int64_t>(g.k, 1));
  float* bpack = pack.b.reserve(kmax * round_up(std::min(NC, g.n), k.nr));
  float* apack = pack.a.reserve(kmax * round_up(std::min(MC, g.m), k.mr));
  for (int64_t jc = 0; jc < g.n; jc += NC) {
    const int64_t nc = std::min(NC, g.n - jc);
    for (int64_t pc = 0; pc < std::max<int64_t>(g.k, 1); pc += KC) {
      const int64_t kc = std::min(KC, g.k - pc);  // k == 0: one pass that writes bias or zeros
      for (int64_t jr = 0; jr < nc; jr += k.nr) pack_b_strip(g, k.nr, pc, kc, jc + jr, bpack + (jr / k.nr) * kc * k.nr);
      for (int64_t ic = 0; ic < g.m; ic += MC)
        macro_kernel(k, g, ic, std::min(MC, g.m - ic), jc, nc, pc, kc, bpack, apack);
    }
  }
}

namespace {

// Rows of C in blocks for `threads` threads: a multiple of the thread count, at most MC rows each, and
// whole mr-row strips shared out evenly (block b: strips [S·b/blocks, S·(b+1)/blocks)), so the threads'
// totals differ by at most a strip a block.
struct RowBlocks {
  int64_t m, mr, strips, blocks;
  RowBlocks(int64_t m_, int64_t mr_, int64_t MC, int threads) : m(m_), mr(mr_), strips((m_ + mr_ - 1) / mr_) {
    blocks = std::min(strips, std::max<int64_t>(1, round_up((m + MC - 1) / MC, threads)));
  }
  int64_t first(int64_t b) const { return strips * b / blocks * mr; }
  int64_t rows(int64_t b) const { return std::min(m, strips * (b + 1) / blocks * mr) - first(b); }
  int64_t max_rows() const { return (strips + blocks - 1) / blocks * mr; }
};

// All of B in one packed block (n <= NC, 0 < k <= KC), kept in scratch: packed again unless the caller
// says B is unchanged and a kept packing is of this B with these strips (the kernel set may have changed).
const float* whole_b_packed(const KernelSet& k, const GemmArgs& g, int threads, GemmScratch& scratch) {
  GemmScratch::KeptB* slot = nullptr;
  for (GemmScratch::KeptB& kb : scratch.kept)
    if (kb.b == g.b && kb.ldb == g.ldb && kb.n == g.n && kb.k == g.k && kb.nr == k.nr && kb.layout == g.b_layout) {
      if (g.b_unchanged) return kb.packed.data();
      slot = &kb;
    }
  if (!slot) {
    scratch.kept.emplace_back();
    slot = &scratch.kept.back();
  }
  float* bpack = slot->packed.reserve(g.k * round_up(g.n, k.nr));
  parallel_for(threads, (g.n + k.nr - 1) / k.nr,
               [&](int64_t s, int) { pack_b_strip(g, k.nr, 0, g.k, s * k.nr, bpack + s * g.k * k.nr); });
  slot->b = g.b, slot->ldb = g.ldb, slot->n = g.n, slot->k = g.k, slot->nr = k.nr, slot->layout = g.b_layout;
  return bpack;
}

}  // namespace

void gemm_parallel(const GemmArgs& g, int threads, GemmScratch& scratch) {
  threads = std::max(1, threads);
  scratch.reserve_threads(threads);
  const KernelSet& k = active_kernels();
  const int64_t KC = k.kc, MC = round_up(k.mc, k.mr), NC = round_up(k.nc, k.nr);
  if ((g.keep_packed_b || g.b_unchanged) && g.m > 0 && g.n > 0 && g.n <= NC && g.k > 0 && g.k <= KC) {
    const float* bpack = whole_b_packed(k, g, threads, scratch);
    const RowBlocks rb(g.m, k.mr, MC, threads);
    for (int t = 0; t < threads; ++t) scratch.thread(t).a.reserve(g.k * rb.max_rows());
    parallel_for(threads, rb.blocks, [&](int64_t blk, int t) {
      macro_kernel(k, g, rb.first(blk), rb.rows(blk), 0, g.n, 0, g.k, bpack, scratch.per_thread[t].a.data());
    });
    return;
  }
  if (threads == 1 || g.m < 2 * k.mr) return gemm(g, scratch.thread(0));
  if (g.n <= 0) return;
  const RowBlocks rb(g.m, k.mr, MC, threads);
  const int64_t kmax = std::min(KC, std::max<int64_t>(g.k, 1));
  float* bpack = scratch.thread(0).b.reserve(kmax * round_up(std::min(NC, g.n), k.nr));
  for (int t = 0; t < threads; ++t) scratch.thread(t).a.reserve(kmax * rb.max_rows());
  for (int64_t jc = 0; jc < g.n; jc += NC) {
    const int64_t nc = std::min(NC, g.n - jc);
    for (int64_t pc = 0; pc < std::max<int64_t>(g.k, 1); pc += KC) {
      const int64_t kc = std::min(KC, g.k - pc);
      parallel_for(threads, (nc + k.nr - 1) / k.nr,
                   [&](int64_t s, int) { pack_b_strip(g, k.nr, pc, kc, jc + s * k.nr, bpack + s * kc * k.nr); });
      parallel_for(threads, rb.blocks, [&](int64_t blk, int t) {
        macro_kernel(k, g, rb.first(blk), rb.rows(blk), jc, nc, pc, kc, bpack, scratch.per_thread[t].a.data());
      });
    }
  }
}

}  // namespace attn
