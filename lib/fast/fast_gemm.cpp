// The BLIS loop nest: for each block of columns (NC) and of k (KC), pack B into 16-wide strips;
// for each block of rows (MC), pack A into 6-tall strips; then every (6, 16) tile of C is one
// micro-kernel call that keeps its 12 AVX registers of C for the whole k block.
#include "fast/fast_gemm.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstring>

namespace attn {

namespace {

constexpr int64_t MR = kGemmMR, NR = kGemmNR, kFlashKS = kGemmFastKS;
constexpr int64_t KC = 384;   // B strip (KC, 16) = 24 KB stays in L1
constexpr int64_t MC = 120;   // A block (MC, KC) = 180 KB stays in L2
constexpr int64_t NC = 2304;  // B block (KC, NC) = 3.5 MB stays in L3
constexpr int64_t kInPlaceMaxN = 128;  // up to 8 strips of B: A read in place

// What the accumulators hold before the k loop: zeros, the bias row, C, or C's rows times
// row_scale[0..5] (flash attention's rescaling by exp(m_old - m_new)).
enum class Start { Zero, Bias, C, ScaledC };

KernelPath g_path = cpu_has_avx2_fma() ? KernelPath::Avx2Fma : KernelPath::Portable;

// A(r, p) at a[r + p*KS]: KS = 6 for packed strips, 48 for flash attention's probability tiles;
// KS = 0: A read in place, A(r, p) at a[r*lda + p] (row-major, for narrow products where packing
// A would cost as much as using it).
template <int64_t KS>
__attribute__((target("avx2,fma"))) void kernel_avx2(int64_t kc, const float* a, int64_t lda, const float* b,
                                                      float* c, int64_t ldc, Start start, const float* bias) {
  __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
  if (start == Start::C) {
    c00 = _mm256_loadu_ps(c + 0 * ldc), c01 = _mm256_loadu_ps(c + 0 * ldc + 8);
    c10 = _mm256_loadu_ps(c + 1 * ldc), c11 = _mm256_loadu_ps(c + 1 * ldc + 8);
    c20 = _mm256_loadu_ps(c + 2 * ldc), c21 = _mm256_loadu_ps(c + 2 * ldc + 8);
    c30 = _mm256_loadu_ps(c + 3 * ldc), c31 = _mm256_loadu_ps(c + 3 * ldc + 8);
    c40 = _mm256_loadu_ps(c + 4 * ldc), c41 = _mm256_loadu_ps(c + 4 * ldc + 8);
    c50 = _mm256_loadu_ps(c + 5 * ldc), c51 = _mm256_loadu_ps(c + 5 * ldc + 8);
  } else if (start == Start::ScaledC) {
    __m256 f = _mm256_broadcast_ss(bias);
    c00 = _mm256_mul_ps(f, _mm256_loadu_ps(c + 0 * ldc)), c01 = _mm256_mul_ps(f, _mm256_loadu_ps(c + 0 * ldc + 8));
    f = _mm256_broadcast_ss(bias + 1);
    c10 = _mm256_mul_ps(f, _mm256_loadu_ps(c + 1 * ldc)), c11 = _mm256_mul_ps(f, _mm256_loadu_ps(c + 1 * ldc + 8));
    f = _mm256_broadcast_ss(bias + 2);
    c20 = _mm256_mul_ps(f, _mm256_loadu_ps(c + 2 * ldc)), c21 = _mm256_mul_ps(f, _mm256_loadu_ps(c + 2 * ldc + 8));
    f = _mm256_broadcast_ss(bias + 3);
    c30 = _mm256_mul_ps(f, _mm256_loadu_ps(c + 3 * ldc)), c31 = _mm256_mul_ps(f, _mm256_loadu_ps(c + 3 * ldc + 8));
    f = _mm256_broadcast_ss(bias + 4);
    c40 = _mm256_mul_ps(f, _mm256_loadu_ps(c + 4 * ldc)), c41 = _mm256_mul_ps(f, _mm256_loadu_ps(c + 4 * ldc + 8));
    f = _mm256_broadcast_ss(bias + 5);
    c50 = _mm256_mul_ps(f, _mm256_loadu_ps(c + 5 * ldc)), c51 = _mm256_mul_ps(f, _mm256_loadu_ps(c + 5 * ldc + 8));
  } else {
    const __m256 z0 = start == Start::Bias ? _mm256_loadu_ps(bias) : _mm256_setzero_ps();
    const __m256 z1 = start == Start::Bias ? _mm256_loadu_ps(bias + 8) : _mm256_setzero_ps();
    c00 = c10 = c20 = c30 = c40 = c50 = z0;
    c01 = c11 = c21 = c31 = c41 = c51 = z1;
  }
  for (int64_t r = 0; r < MR; ++r) {  // C's rows are needed at the end: start fetching them now
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + NR - 1), _MM_HINT_T0);
  }
  // Row r's k-th element: packed, a + r after p steps of KS; in place, row pointer r plus p.
  const int64_t row = KS ? 1 : lda, step = KS ? KS : 1;
  const float *a0 = a, *a1 = a + row, *a2 = a + 2 * row, *a3 = a + 3 * row, *a4 = a + 4 * row, *a5 = a + 5 * row;
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p, a0 += step, a1 += step, a2 += step, a3 += step, a4 += step, a5 += step, b += NR) {
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
    __m256 x = _mm256_broadcast_ss(a0);
    c00 = _mm256_fmadd_ps(x, b0, c00), c01 = _mm256_fmadd_ps(x, b1, c01);
    x = _mm256_broadcast_ss(a1);
    c10 = _mm256_fmadd_ps(x, b0, c10), c11 = _mm256_fmadd_ps(x, b1, c11);
    x = _mm256_broadcast_ss(a2);
    c20 = _mm256_fmadd_ps(x, b0, c20), c21 = _mm256_fmadd_ps(x, b1, c21);
    x = _mm256_broadcast_ss(a3);
    c30 = _mm256_fmadd_ps(x, b0, c30), c31 = _mm256_fmadd_ps(x, b1, c31);
    x = _mm256_broadcast_ss(a4);
    c40 = _mm256_fmadd_ps(x, b0, c40), c41 = _mm256_fmadd_ps(x, b1, c41);
    x = _mm256_broadcast_ss(a5);
    c50 = _mm256_fmadd_ps(x, b0, c50), c51 = _mm256_fmadd_ps(x, b1, c51);
  }
  _mm256_storeu_ps(c + 0 * ldc, c00), _mm256_storeu_ps(c + 0 * ldc + 8, c01);
  _mm256_storeu_ps(c + 1 * ldc, c10), _mm256_storeu_ps(c + 1 * ldc + 8, c11);
  _mm256_storeu_ps(c + 2 * ldc, c20), _mm256_storeu_ps(c + 2 * ldc + 8, c21);
  _mm256_storeu_ps(c + 3 * ldc, c30), _mm256_storeu_ps(c + 3 * ldc + 8, c31);
  _mm256_storeu_ps(c + 4 * ldc, c40), _mm256_storeu_ps(c + 4 * ldc + 8, c41);
  _mm256_storeu_ps(c + 5 * ldc, c50), _mm256_storeu_ps(c + 5 * ldc + 8, c51);
}

// The same tile in plain C++ (no FMA: -ffp-contract=off keeps multiply and add apart).
void kernel_portable(int64_t kc, const float* a, int64_t rs, int64_t ks, const float* b, float* c, int64_t ldc,
                     Start start, const float* bias) {
  float acc[MR][NR];
  for (int64_t r = 0; r < MR; ++r)
    for (int64_t j = 0; j < NR; ++j)
      acc[r][j] = start == Start::C         ? c[r * ldc + j]
                  : start == Start::ScaledC ? bias[r] * c[r * ldc + j]
                  : start == Start::Bias    ? bias[j]
                                            : 0.0f;
  for (int64_t p = 0; p < kc; ++p, b += NR)
    for (int64_t r = 0; r < MR; ++r) {
      const float x = a[r * rs + p * ks];
      for (int64_t j = 0; j < NR; ++j) acc[r][j] += x * b[j];
    }
  for (int64_t r = 0; r < MR; ++r)
    for (int64_t j = 0; j < NR; ++j) c[r * ldc + j] = acc[r][j];
}

// A(r, p) at a[r*rs + p*ks]: packed (1, 6), flash's probabilities (1, 48) or in place (lda, 1).
void kernel(int64_t kc, const float* a, int64_t rs, int64_t ks, const float* b, float* c, int64_t ldc, Start start,
            const float* bias) {
  if (g_path == KernelPath::Portable) kernel_portable(kc, a, rs, ks, b, c, ldc, start, bias);
  else if (rs == 1 && ks == MR) kernel_avx2<MR>(kc, a, 0, b, c, ldc, start, bias);
  else if (rs == 1 && ks == kFlashKS) kernel_avx2<kFlashKS>(kc, a, 0, b, c, ldc, start, bias);
  else if (ks == 1) kernel_avx2<0>(kc, a, rs, b, c, ldc, start, bias);
  else kernel_portable(kc, a, rs, ks, b, c, ldc, start, bias);
}

// A partial tile (mr < 6 or nr < 16): through a full (6, 16) tile on the stack.
void edge_tile(int64_t kc, const float* a, int64_t rs, int64_t ks, const float* b, float* c, int64_t ldc, Start start,
               const float* bias, int64_t mr, int64_t nr) {
  alignas(64) float tile[MR * NR] = {};
  for (int64_t r = 0; r < mr; ++r)
    for (int64_t j = 0; j < nr; ++j)
      tile[r * NR + j] = start == Start::C ? c[r * ldc + j] : start == Start::Bias ? bias[j] : 0.0f;
  kernel(kc, a, rs, ks, b, tile, NR, Start::C, nullptr);
  for (int64_t r = 0; r < mr; ++r) std::memcpy(c + r * ldc, tile + r * NR, sizeof(float) * nr);
}

// B block (kc, nc) from (pc, jc) into strips [strip][p][16], zero-padded past n.
void pack_b_strip(const GemmArgs& g, int64_t pc, int64_t kc, int64_t j, float* dst) {
  const int64_t nr = std::min(NR, g.n - j);
  if (g.b_layout == BLayout::KxN) {
    for (int64_t p = 0; p < kc; ++p) {
      const float* src = g.b + (pc + p) * g.ldb + j;
      float* d = dst + p * NR;
      std::memcpy(d, src, sizeof(float) * nr);
      for (int64_t c = nr; c < NR; ++c) d[c] = 0.0f;
    }
  } else {
    for (int64_t c = 0; c < NR; ++c) {
      if (c >= nr) {
        for (int64_t p = 0; p < kc; ++p) dst[p * NR + c] = 0.0f;
        continue;
      }
      const float* src = g.b + (j + c) * g.ldb + pc;
      for (int64_t p = 0; p < kc; ++p) dst[p * NR + c] = src[p];
    }
  }
}

// A rows [i, i+mr) x k [pc, pc+kc) into one strip [p][6], zero-padded past mr.
void pack_a_strip(const GemmArgs& g, int64_t i, int64_t mr, int64_t pc, int64_t kc, float* dst) {
  for (int64_t r = 0; r < MR; ++r) {
    if (r >= mr) {
      for (int64_t p = 0; p < kc; ++p) dst[p * MR + r] = 0.0f;
      continue;
    }
    const float* src = g.a + (i + r) * g.lda + pc;
    for (int64_t p = 0; p < kc; ++p) dst[p * MR + r] = src[p];
  }
}

// Rows [ic, ic+mc) of C for one (jc, pc) block, B already packed. A narrow C (a few 16-column
// strips) reuses A too little to repay packing it: full 6-row strips are then read in place.
void macro_kernel(const GemmArgs& g, int64_t ic, int64_t mc, int64_t jc, int64_t nc, int64_t pc, int64_t kc,
                  const float* bpack, float* apack) {
  const int64_t strips = (mc + MR - 1) / MR;
  const bool in_place = nc <= kInPlaceMaxN;
  for (int64_t s = 0; s < strips; ++s)
    if (!in_place || mc - s * MR < MR)
      pack_a_strip(g, ic + s * MR, std::min(MR, mc - s * MR), pc, kc, apack + s * kc * MR);
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
      if (mr == MR && nr == NR) kernel(kc, ap, rs, ks, bp, c, g.ldc, start, bias);
      else edge_tile(kc, ap, rs, ks, bp, c, g.ldc, start, bias, mr, nr);
    }
  }
}

int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

}  // namespace

bool cpu_has_avx2_fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

KernelPath kernel_path() { return g_path; }

void force_kernel_path(KernelPath path) {
  g_path = path == KernelPath::Avx2Fma && !cpu_has_avx2_fma() ? KernelPath::Portable : path;
}

const char* kernel_path_name(KernelPath path) { return path == KernelPath::Avx2Fma ? "AVX2+FMA" : "portable C++"; }

void GemmScratch::reserve_threads(int threads) {
  if (static_cast<int>(per_thread.size()) < threads) per_thread.resize(threads);
}

GemmPack& GemmScratch::thread(int t) { return per_thread.at(t); }

std::size_t GemmScratch::bytes() const {
  std::size_t n = 0;
  for (const GemmPack& p : per_thread) n += p.bytes();
  return n;
}

void micro_kernel_6x16(int64_t kc, const float* a, int64_t a_ks, const float* b, float* c, int64_t ldc,
                       bool accumulate, const float* row_scale) {
  const Start start = row_scale ? Start::ScaledC : accumulate ? Start::C : Start::Zero;
  kernel(kc, a, 1, a_ks, b, c, ldc, start, row_scale);
}

void gemm(const GemmArgs& g, GemmPack& pack) {
  if (g.m <= 0 || g.n <= 0) return;
  const int64_t kmax = std::min(KC, std::max<int64_t>(g.k, 1));
  float* bpack = pack.b.reserve(kmax * round_up(std::min(NC, g.n), NR));
  float* apack = pack.a.reserve(kmax * round_up(std::min(MC, g.m), MR));
  for (int64_t jc = 0; jc < g.n; jc += NC) {
    const int64_t nc = std::min(NC, g.n - jc);
    for (int64_t pc = 0; pc < std::max<int64_t>(g.k, 1); pc += KC) {
      const int64_t kc = std::min(KC, g.k - pc);  // k == 0: one pass that writes bias or zeros
      for (int64_t jr = 0; jr < nc; jr += NR) pack_b_strip(g, pc, kc, jc + jr, bpack + (jr / NR) * kc * NR);
      for (int64_t ic = 0; ic < g.m; ic += MC) macro_kernel(g, ic, std::min(MC, g.m - ic), jc, nc, pc, kc, bpack, apack);
    }
  }
}

void gemm_parallel(const GemmArgs& g, int threads, GemmScratch& scratch) {
  threads = std::max(1, threads);
  scratch.reserve_threads(threads);
  if (threads == 1 || g.m < 2 * MR) return gemm(g, scratch.thread(0));
  if (g.n <= 0) return;
  // Row blocks: a multiple of the thread count, each a multiple of 6 rows and at most MC.
  int64_t blocks = (g.m + MC - 1) / MC;
  blocks = round_up(blocks, threads);
  const int64_t mc = std::min(MC, round_up((g.m + blocks - 1) / blocks, MR));
  blocks = (g.m + mc - 1) / mc;
  const int64_t kmax = std::min(KC, std::max<int64_t>(g.k, 1));
  float* bpack = scratch.thread(0).b.reserve(kmax * round_up(std::min(NC, g.n), NR));
  for (int t = 0; t < threads; ++t) scratch.thread(t).a.reserve(kmax * round_up(mc, MR));
#pragma omp parallel num_threads(threads)
  {
    float* apack = scratch.per_thread[omp_get_thread_num()].a.data();
    for (int64_t jc = 0; jc < g.n; jc += NC) {
      const int64_t nc = std::min(NC, g.n - jc);
      for (int64_t pc = 0; pc < std::max<int64_t>(g.k, 1); pc += KC) {
        const int64_t kc = std::min(KC, g.k - pc);
#pragma omp for schedule(static)
        for (int64_t jr = 0; jr < nc; jr += NR) pack_b_strip(g, pc, kc, jc + jr, bpack + (jr / NR) * kc * NR);
#pragma omp for schedule(dynamic, 1)
        for (int64_t blk = 0; blk < blocks; ++blk) {
          const int64_t ic = blk * mc;
          macro_kernel(g, ic, std::min(mc, g.m - ic), jc, nc, pc, kc, bpack, apack);
        }
      }
    }
  }
}

}  // namespace attn
