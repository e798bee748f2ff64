#pragma once
// A fast float32 matrix product for the bench forms (not for the lessons, whose ops_math matmul
// adds in PyTorch's order): BLIS-style packed panels around a register-blocked micro-kernel, the
// one of the instruction set chosen at run time (kernels.h: AVX-512 6x64, AVX2+FMA 6x16, NEON
// 6x16, portable 6x16). Row-major throughout.
#include <cstdint>
#include <vector>

#include "fast/aligned_buffer.h"
#include "fast/cpu_features.h"

namespace attn {

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
  // gemm_parallel only, when all of B fits one packed block: keep_packed_b keeps B's packing in the scratch;
  // b_unchanged says B (the same pointer, layout, ldb, n and k) has not changed since a call that kept it,
  // whose packing is then used again.
  bool keep_packed_b = false, b_unchanged = false;
};

// One thread's packing panels: A (mc, kc) in mr-row strips, B (kc, nc) in nr-column strips.
struct GemmPack {
  AlignedFloats a, b;
  std::size_t bytes() const { return a.bytes() + b.bytes(); }
};

// Panels for gemm_parallel (one shared B, one A per thread) or for per-thread gemm calls, and the
// packings of whole Bs that gemm_parallel keeps for calls that say b_unchanged.
struct GemmScratch {
  std::vector<GemmPack> per_thread;
  struct KeptB {
    AlignedFloats packed;
    const float* b = nullptr;
    int64_t ldb = 0, n = 0, k = 0, nr = 0;
    BLayout layout = BLayout::KxN;
  };
  std::vector<KeptB> kept;
  GemmPack& thread(int t);  // grows the list on the calling (serial) side; call reserve_threads first
  void reserve_threads(int threads);
  std::size_t bytes() const;
};

void gemm(const GemmArgs& g, GemmPack& pack);  // on the calling thread only
// Over blocks of rows of C on `threads` threads; B packed once per block of k and shared.
void gemm_parallel(const GemmArgs& g, int threads, GemmScratch& scratch);

}  // namespace attn
