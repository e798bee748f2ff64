// The NEON kernels (arm64, where NEON is part of every CPU): a 6x16 micro-kernel (24 of the 32
// Q registers accumulate, four hold a row of B), flash tiles of 48x48, exp on 4 lanes, and the
// peak loop: 24 independent 4-lane FMA chains (enough for four FMA units of latency 4, as on
// Apple's cores; two-unit cores need 8).
#if defined(__aarch64__)
#include <arm_neon.h>

#include <algorithm>
#include <limits>

#define ATTN_SIMD_TARGET  // NEON is the baseline of arm64

#include "fast/kernels.h"
#include "fast/simd_kernels.h"

namespace attn {

// The vector traits of fast/simd_kernels.h: 4 lanes of float32x4_t.
struct Neon {
  using reg = float32x4_t;
  using mask = uint32x4_t;
  static constexpr int lanes = 4;
  static reg set1(float x) { return vdupq_n_f32(x); }
  static reg max(reg a, reg b) { return vmaxq_f32(a, b); }
  static reg min(reg a, reg b) { return vminq_f32(a, b); }
  static reg fmadd(reg a, reg b, reg c) { return vfmaq_f32(c, a, b); }
  static reg round(reg v) { return vrndnq_f32(v); }
  static reg pow2(reg n) {
    return vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vcvtnq_s32_f32(n), vdupq_n_s32(127)), 23));
  }
  static mask at_least(reg x, reg lo) { return vcgeq_f32(x, lo); }
  static reg keep(mask m, reg v) { return vreinterpretq_f32_u32(vandq_u32(m, vreinterpretq_u32_f32(v))); }
  static float reduce_add(reg v) { return vaddvq_f32(v); }
  static float reduce_max(reg v) { return vmaxvq_f32(v); }
};

const KernelSet& neon_kernels() { return simd_kernel_set<Isa::Neon, Neon>(); }

}  // namespace attn
#endif
