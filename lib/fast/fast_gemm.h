#pragma once
// A fast float32 matrix product for the bench forms (not for the lessons, whose ops_math matmul
// adds in PyTorch's order): packed panels and a 6x16 register-blocked AVX2/FMA micro-kernel, with a
// portable fallback chosen at run time. Row-major throughout.
#include <cstdint>
#include <vector>

#include "fast/aligned_buffer.h"

namespace attn {

enum class KernelPath { Avx2Fma, Portable };
bool cpu_has_avx2_fma();
KernelPath kernel_path();                 // AVX2+FMA when this CPU has both, else portable
void force_kernel_path(KernelPath path);  // tests: the portable fallback on any machine
const char* kernel_path_name(KernelPath path);

// How B is stored: (k, n) row-major, or (n, k) row-major as nn.Linear weights (out, in) and keys (T, d).
enum class BLayout { KxN, NxK };

struct GemmArgs {
  int64_t m = 0, n = 0, k = 0;
  const float* a = nullptr;  // A (m, k), row stride lda
  int64_t lda = 0;
  const float* b = nullptr;  // B (k, n) or, NxK, its transpose (n, k); row stride ldb
  int64_t ldb = 0;
  BLayout b_layout = BLayout::KxN;
  float* c = nullptr;  // C (m, n), row stride ldc
  int64_t ldc = 0;
  const float* bias = nullptr;  // (n), added to every row of C
  bool accumulate = false;      // C += A·B instead of C = A·B
};

// One thread's packing panels: A (MC, KC) in 6-row strips, B (KC, NC) in 16-column strips.
struct GemmPack {
  AlignedFloats a, b;
  std::size_t bytes() const { return a.bytes() + b.bytes(); }
};

// Panels for gemm_parallel (one shared B, one A per thread) or for per-thread gemm calls.
struct GemmScratch {
  std::vector<GemmPack> per_thread;
  GemmPack& thread(int t);  // grows the list on the calling (serial) side; call reserve_threads first
  void reserve_threads(int threads);
  std::size_t bytes() const;
};

void gemm(const GemmArgs& g, GemmPack& pack);  // on the calling thread only
// OpenMP over blocks of rows of C; B packed once per block of k and shared.
void gemm_parallel(const GemmArgs& g, int threads, GemmScratch& scratch);

// The micro-kernel, for kernels that lay out their own panels (flash attention):
// C (6, 16) = A (6, kc) · B (kc, 16), or C += ..., or with row_scale C = row_scale[r]·C + ...
// A(r, p) is a[r + p*a_ks]; B is packed [p][16]. a_ks 6 (a packed strip) and kGemmFastKS have
// compiled AVX2 kernels; other strides run portable code.
constexpr int64_t kGemmMR = 6, kGemmNR = 16, kGemmFastKS = 48;
void micro_kernel_6x16(int64_t kc, const float* a, int64_t a_ks, const float* b, float* c, int64_t ldc,
                       bool accumulate, const float* row_scale = nullptr);

}  // namespace attn
