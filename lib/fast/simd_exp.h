#pragma once
// exp of a vector of floats for the bench kernels: Cephes' expf, range reduction by ln 2 and a
// degree-6 polynomial, within 2 ulp of std::exp; exactly 0 below -87.3, so a masked score (-inf)
// gets weight 0. One version per instruction set, each behind its architecture's guard; call each
// only from functions compiled for that instruction set (target attributes on x86).
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace attn {

namespace exp_constants {
constexpr float kLo = -87.33654f, kHi = 88.37626f, kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;  // ln 2 in two parts: n ln2 exact
constexpr float kP0 = 1.9875691500e-4f, kP1 = 1.3981999507e-3f, kP2 = 8.3334519073e-3f, kP3 = 4.1665795894e-2f,
                kP4 = 1.6666665459e-1f, kP5 = 5.0000001201e-1f;
}  // namespace exp_constants

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) inline __m256 exp256(__m256 x) {
  using namespace exp_constants;
  const __m256 lo = _mm256_set1_ps(kLo);
  const __m256 zero = _mm256_cmp_ps(x, lo, _CMP_LT_OQ);  // exp(x) underflows: 0 (and -inf)
  x = _mm256_min_ps(_mm256_max_ps(x, lo), _mm256_set1_ps(kHi));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
  __m256 p = _mm256_set1_ps(kP0);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP1));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP5));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  // times 2^n, built in the exponent bits
  const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_andnot_ps(zero, _mm256_mul_ps(p, _mm256_castsi256_ps(e)));
}

__attribute__((target("avx512f"))) inline __m512 exp512(__m512 x) {
  using namespace exp_constants;
  const __m512 lo = _mm512_set1_ps(kLo);
  const __mmask16 keep = _mm512_cmp_ps_mask(x, lo, _CMP_GE_OQ);  // lanes that do not underflow (-inf: 0)
  x = _mm512_min_ps(_mm512_max_ps(x, lo), _mm512_set1_ps(kHi));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), r);
  __m512 p = _mm512_set1_ps(kP0);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP1));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP5));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  const __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
  return _mm512_maskz_mul_ps(keep, p, _mm512_castsi512_ps(e));
}
#endif

#if defined(__aarch64__)
inline float32x4_t exp_neon(float32x4_t x) {
  using namespace exp_constants;
  const float32x4_t lo = vdupq_n_f32(kLo);
  const uint32x4_t keep = vcgeq_f32(x, lo);  // lanes that do not underflow (-inf: 0)
  x = vminq_f32(vmaxq_f32(x, lo), vdupq_n_f32(kHi));
  const float32x4_t n = vrndnq_f32(vmulq_f32(x, vdupq_n_f32(kLog2e)));
  float32x4_t r = vfmsq_f32(x, n, vdupq_n_f32(kLn2Hi));  // x - n·ln2_hi
  r = vfmsq_f32(r, n, vdupq_n_f32(kLn2Lo));
  float32x4_t p = vdupq_n_f32(kP0);
  p = vfmaq_f32(vdupq_n_f32(kP1), p, r);
  p = vfmaq_f32(vdupq_n_f32(kP2), p, r);
  p = vfmaq_f32(vdupq_n_f32(kP3), p, r);
  p = vfmaq_f32(vdupq_n_f32(kP4), p, r);
  p = vfmaq_f32(vdupq_n_f32(kP5), p, r);
  p = vfmaq_f32(vaddq_f32(r, vdupq_n_f32(1.0f)), p, vmulq_f32(r, r));
  const int32x4_t e = vshlq_n_s32(vaddq_s32(vcvtnq_s32_f32(n), vdupq_n_s32(127)), 23);
  return vreinterpretq_f32_u32(vandq_u32(keep, vreinterpretq_u32_f32(vmulq_f32(p, vreinterpretq_f32_s32(e)))));
}
#endif

}  // namespace attn
