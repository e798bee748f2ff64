#pragma once
// The float32 exp and row sum that PyTorch 1.13's vectorised CPU kernels (AVX2) compute, so that
// softmax and torch.exp agree with it bit for bit.
#include <cstdint>

namespace attn {

// exp(x) by range reduction x = q*ln2 + s and a degree-7 polynomial in s with FMAs, then 2^q:
// SLEEF's 1-ulp single-precision exp as vectorised for AVX2. Checked equal to torch.exp on 60,000
// values in [-110, 100].
float torch_expf(float x);

// The sum reduce_all computes in softmax: in order below 8 values; from 8 on, 8 lanes (leftovers
// added into the first lanes) combined as ((l0+l4)+(l2+l6))+((l1+l5)+(l3+l7)).
float torch_lane_sum(const float* v, int64_t n);

}  // namespace attn
