// Random tensor factories and dropout, bit-exact to PyTorch 1.13 on x86-64.
// Spec: docs/spec/torch-rng.md. Built with -ffp-contract=off: every fused multiply-add
// PyTorch performs is written as std::fma, every other float operation rounds on its own.
#include "core/random_ops.h"

#include <cmath>

#include "core/float_bits.h"
#include <stdexcept>
#include <string>
#include <utility>

namespace attn {

namespace {

// ---- small helpers -------------------------------------------------------------------------

size_t checked_size(int64_t numel, const char* what) {
  if (numel < 0) throw std::invalid_argument(std::string(what) + ": negative number of elements");
  return static_cast<size_t>(numel);
}

float flip_sign(float f) { return float_from_bits(float_bits(f) ^ 0x80000000u); }

// §3 U24: low 24 bits of one draw, times 2^-24 (exact).
float u24(uint32_t draw) { return static_cast<float>(draw & 0xFFFFFFu) * 0x1p-24f; }

// §3 U53: low 53 bits of random64(), times 2^-53 (exact).
double u53(uint64_t r) { return static_cast<double>(r & ((1ULL << 53) - 1)) * 0x1p-53; }

// ---- §4 uniform_ -----------------------------------------------------------------------------

// Fills out[0..n) with fma(U24, hi - lo, lo): the fused form of x86-64 builds (§4).
void fill_uniform(Generator& gen, float* out, size_t n, double a, double b) {
  const float lo = static_cast<float>(a);
  const float hi = static_cast<float>(b);
  const float span = hi - lo;
  for (size_t i = 0; i < n; ++i) out[i] = std::fma(u24(gen.random()), span, lo);
}

// ---- §5.1 scalar double Box-Muller with cache ----------------------------------------------

constexpr double kTwoPiDouble = 0x1.921fb54442d18p+2;  // 2 * M_PI as a double

double normal_double(Generator& gen) {
  std::optional<double>& cache = gen.normal_cache();
  if (cache) {
    const double cached = *cache;
    cache.reset();
    return cached;
  }
  const double u1 = u53(gen.random64());
  const double u2 = u53(gen.random64());
  const double r = std::sqrt(-2.0 * std::log(1.0 - u2));  // 1.13: log(1 - u2), see §10
  const double theta = kTwoPiDouble * u1;
  cache = r * std::sin(theta);
  return r * std::cos(theta);
}

void fill_normal_scalar(Generator& gen, float* out, size_t n, double mean, double std_) {
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(normal_double(gen) * std_ + mean);
}

// ---- §5.2 (A) the AVX2 kernel, emulated one lane at a time ------------------------------------

namespace avx {
const float kSqrtHf = float_from_bits(0x3F3504F3);
const float kP[9] = {float_from_bits(0x3D9021BB), float_from_bits(0xBDEBD1B8), float_from_bits(0x3DEF251A),
                     float_from_bits(0xBDFE5D4F), float_from_bits(0x3E11E9BF), float_from_bits(0xBE2AAE50),
                     float_from_bits(0x3E4CCEAC), float_from_bits(0xBE7FFFFC), float_from_bits(0x3EAAAAAA)};
// Cephes' constants as the AVX2 kernel holds them (bit patterns from the spec).
const float kQ1 = float_from_bits(0xB95E8083), kQ2 = float_from_bits(0x3F318000), kFopi = float_from_bits(0x3FA2F983);
const float kDp1 = float_from_bits(0x3F490000), kDp2 = float_from_bits(0x397DA000), kDp3 = float_from_bits(0x33222169);
const float kC0 = float_from_bits(0x37CCF5CE), kC1 = float_from_bits(0xBAB6061A), kC2 = float_from_bits(0x3D2AAAA5);
const float kS0 = float_from_bits(0xB94CA1F9), kS1 = float_from_bits(0x3C08839E), kS2 = float_from_bits(0xBE2AAAA3);
const float kTwoPi = float_from_bits(0x40C90FDB);
const float kMinNormal = 0x1p-126f;

// §5.2 LOG: Cephes logarithm for x in (0, 1], with GCC's fusions.
float log(float x) {
  x = std::fmax(x, kMinNormal);
  const uint32_t xb = float_bits(x);
  const int32_t k = static_cast<int32_t>(xb >> 23) - 127;
  const float m = float_from_bits((xb & 0x807FFFFFu) | 0x3F000000u);  // mantissa in [0.5, 1)
  float e = static_cast<float>(k) + 1.0f;
  float t;
  if (m < kSqrtHf) {
    e = e - 1.0f;
    t = (m - 1.0f) + m;
  } else {
    t = m - 1.0f;
  }
  float y = kP[0];
  for (int i = 1; i <= 8; ++i) y = std::fma(y, t, kP[i]);
  const float z = t * t;
  y = y * t;
  y = std::fma(y, z, e * kQ1);
  y = y - z * 0.5f;
  const float r = t + y;
  return std::fma(e, kQ2, r);
}

// §5.2 SINCOS: Cephes sine and cosine for theta >= 0, three-part reduction by pi/4.
void sincos(float theta, float& sin_out, float& cos_out) {
  int32_t j = static_cast<int32_t>(theta * kFopi);  // truncation, like cvttps
  j = (j + 1) & ~1;
  const float yj = static_cast<float>(j);
  float x = std::fma(yj, -kDp1, theta);
  x = std::fma(yj, -kDp2, x);
  x = std::fma(yj, -kDp3, x);
  const float z = x * x;

  float c = std::fma(z, kC0, kC1);
  c = std::fma(z, c, kC2);
  c = c * z;
  c = std::fma(c, z, -(z * 0.5f));
  c = c + 1.0f;

  float s = std::fma(z, kS0, kS1);
  s = std::fma(z, s, kS2);
  s = s * z;
  s = std::fma(s, x, x);

  float sin_v = s, cos_v = c;
  if ((j & 2) != 0) std::swap(sin_v, cos_v);
  if ((j & 4) != 0) sin_v = flip_sign(sin_v);
  if (((j - 2) & 4) == 0) cos_v = flip_sign(cos_v);
  sin_out = sin_v;
  cos_out = cos_v;
}

// §5.2 group transform: data[0..16) holds U24 values and becomes 16 normals.
void normal_fill_16(float* data, float mean, float std_) {
  for (int k = 0; k < 8; ++k) {
    const float u1 = 1.0f - data[k];
    const float u2 = data[k + 8];
    const float theta = kTwoPi * u2;
    const float rho = std::sqrt(avx::log(u1) * -2.0f);
    float s, c;
    avx::sincos(theta, s, c);
    data[k] = std::fma(rho * c, std_, mean);
    data[k + 8] = std::fma(rho * s, std_, mean);
  }
}
}  // namespace avx

// §5.2 steps 1-3: n >= 16; the generator's cache is neither read nor cleared.
void fill_normal_16wide(Generator& gen, float* out, size_t n, double mean, double std_) {
  const float mean_f = static_cast<float>(mean);
  const float std_f = static_cast<float>(std_);
  for (size_t i = 0; i < n; ++i) out[i] = u24(gen.random());
  for (size_t o = 0; o + 16 <= n; o += 16) avx::normal_fill_16(out + o, mean_f, std_f);
  if (n % 16 != 0) {  // redraw the last 16 positions, overwriting finished normals
    float* tail = out + (n - 16);
    for (size_t i = 0; i < 16; ++i) tail[i] = u24(gen.random());
    avx::normal_fill_16(tail, mean_f, std_f);
  }
}

// ---- §7 bernoulli ---------------------------------------------------------------------------

// §7.1: one random64 per element, kept iff U53 < q.
void fill_bernoulli_default(Generator& gen, float* out, size_t n, double q) {
  for (size_t i = 0; i < n; ++i) out[i] = u53(gen.random64()) < q ? 1.0f : 0.0f;
}

// §7.2: one seed draw, then one sequential MCG31m1 stream; the first uniform is x0 itself.
void fill_bernoulli_mkl(Generator& gen, float* out, size_t n, double q) {
  constexpr uint64_t kM = 2147483647;  // 2^31 - 1
  constexpr uint64_t kA = 1132489760;
  uint64_t x = gen.random() % kM;
  if (x == 0) x = 1;
  for (size_t i = 0; i < n; ++i) {
    out[i] = static_cast<double>(x) / static_cast<double>(kM) < q ? 1.0f : 0.0f;
    x = (kA * x) % kM;
  }
}

}  // namespace

// ---- public API -----------------------------------------------------------------------------

std::vector<float> rand_values(Generator& gen, int64_t numel) {
  return uniform_values(gen, numel, 0.0, 1.0);  // §4: value = U24 exactly
}

std::vector<float> uniform_values(Generator& gen, int64_t numel, double a, double b) {
  std::vector<float> out(checked_size(numel, "uniform_"));
  fill_uniform(gen, out.data(), out.size(), a, b);
  return out;
}

std::vector<float> randn_values(Generator& gen, int64_t numel, double mean, double std) {
  std::vector<float> out(checked_size(numel, "randn"));
  if (out.size() >= 16) {
    fill_normal_16wide(gen, out.data(), out.size(), mean, std);
  } else {
    fill_normal_scalar(gen, out.data(), out.size(), mean, std);
  }
  return out;
}

// §6: kaiming_uniform_(a=sqrt(5)) weight, then bias with bound 1/sqrt(in); doubles step by step.
LinearParams linear_init(Generator& gen, int64_t in_features, int64_t out_features, bool bias) {
  const size_t in = checked_size(in_features, "Linear in_features");
  const size_t out = checked_size(out_features, "Linear out_features");
  LinearParams params;
  params.weight.resize(in * out);
  if (!params.weight.empty()) {  // kaiming_uniform_ on an empty tensor is a no-op
    const double a = std::sqrt(5.0);
    const double gain = std::sqrt(2.0 / (1.0 + a * a));
    const double std_ = gain / std::sqrt(static_cast<double>(in));
    const double bound = std::sqrt(3.0) * std_;
    fill_uniform(gen, params.weight.data(), params.weight.size(), -bound, bound);
  }
  if (bias) {
    params.bias.resize(out);
    const double bound = in > 0 ? 1.0 / std::sqrt(static_cast<double>(in)) : 0.0;
    fill_uniform(gen, params.bias.data(), params.bias.size(), -bound, bound);
  }
  return params;
}

std::vector<float> bernoulli_mask(Generator& gen, int64_t numel, double q, BernoulliPath path) {
  std::vector<float> mask(checked_size(numel, "bernoulli_"));
  if (path == BernoulliPath::Mkl) {
    fill_bernoulli_mkl(gen, mask.data(), mask.size(), q);
  } else {
    fill_bernoulli_default(gen, mask.data(), mask.size(), q);
  }
  return mask;
}

// §7: identity for p == 0 or empty input, input * 0 for p == 1, else input * (mask / f32(q)).
std::vector<float> dropout_values(Generator& gen, const std::vector<float>& input, double p, BernoulliPath path,
                                  std::vector<float>* mask_out) {
  if (!(p >= 0.0 && p <= 1.0)) throw std::invalid_argument("dropout probability must be in [0, 1]");
  if (mask_out) mask_out->clear();
  if (p == 0.0 || input.empty()) return input;
  std::vector<float> out(input.size());
  if (p == 1.0) {
    for (size_t i = 0; i < input.size(); ++i) out[i] = input[i] * 0.0f;
    return out;
  }
  std::vector<float> mask = bernoulli_mask(gen, static_cast<int64_t>(input.size()), 1.0 - p, path);
  out = scale_kept(input, mask, p);
  if (mask_out) *mask_out = std::move(mask);
  return out;
}

std::vector<float> scale_kept(const std::vector<float>& input, const std::vector<float>& mask, double p) {
  const float q_f = static_cast<float>(1.0 - p);
  std::vector<float> out(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    const float noise = mask[i] / q_f;  // noise = bernoulli_(1 - p).div_(1 - p)
    out[i] = input[i] * noise;
  }
  return out;
}

}  // namespace attn
