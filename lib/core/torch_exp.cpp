#include "core/torch_exp.h"

#include <cmath>
#include <limits>

namespace attn {

float torch_expf(float x) {
  if (std::isnan(x)) return x;
  const float log2e = 1.442695040888963407359924681001892137f;
  const float ln2_hi = 0.693145751953125f, ln2_lo = 1.428606765330187045e-06f;
  const float q = std::nearbyint(x * log2e);
  float s = std::fma(q, -ln2_hi, x);
  s = std::fma(q, -ln2_lo, s);
  float u = 0.000198527617612853646278381f;
  u = std::fma(u, s, 0.00139304355252534151077271f);
  u = std::fma(u, s, 0.00833336077630519866943359f);
  u = std::fma(u, s, 0.0416664853692054748535156f);
  u = std::fma(u, s, 0.166666671633720397949219f);
  u = std::fma(u, s, 0.5f);
  u = 1.0f + std::fma(s * s, u, s);
  if (x < -104.0f) return 0.0f;
  if (x > 104.0f) return std::numeric_limits<float>::infinity();
  return std::ldexp(u, static_cast<int>(q));
}

float torch_lane_sum(const float* v, int64_t n) {
  if (n <= 0) return 0.0f;
  if (n < 8) {
    float acc = v[0];
    for (int64_t i = 1; i < n; ++i) acc = acc + v[i];
    return acc;
  }
  float l[8];
  for (int k = 0; k < 8; ++k) l[k] = v[k];
  int64_t d = 8;
  for (; d + 8 <= n; d += 8)
    for (int k = 0; k < 8; ++k) l[k] = l[k] + v[d + k];
  for (int64_t k = 0; d + k < n; ++k) l[k] = l[k] + v[d + k];
  return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
}

}  // namespace attn
