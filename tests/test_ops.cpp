// The tensor core: view semantics, broadcasting, grad_fn names, and the float results of the
// kernels PyTorch 1.13 runs (bit patterns printed by real torch 1.13 on x86-64).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <limits>
#include <vector>

#include "core/float_bits.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "core/steps.h"
#include "core/tensor_print.h"
#include "core/torch_exp.h"

using namespace attn;

namespace {

float from_bits(uint32_t b) { return float_from_bits(b); }
uint32_t bits(float f) { return float_bits(f); }
std::vector<float> floats(std::initializer_list<uint32_t> b) {
  std::vector<float> v;
  for (uint32_t x : b) v.push_back(from_bits(x));
  return v;
}
void check_bits(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(bits(got[i]) == bits(want[i]));
  }
}

}  // namespace

TEST_CASE("ops: softmax over 13 and 10 values is torch's, bit for bit") {
  const auto in13 = floats({0xbfbaec7f, 0xbfe7de14, 0xbfd64f18, 0x40002a27, 0xbf179d63, 0x40ba81d9, 0xc086903b,
                            0xc0126936, 0x3ff262ce, 0xc02ca24b, 0xbfd63154, 0x40049e36, 0x3f2ad923});
  const auto out13 = floats({0x3a269f59, 0x39ea91ff, 0x3a068793, 0x3ca62733, 0x3ac67a7d, 0x3f6e2981, 0x382b52e5,
                             0x3991b328, 0x3c95012e, 0x3941705f, 0x3a06a6df, 0x3cb2205b, 0x3baedd1c});
  check_bits(softmax(Tensor({13}, in13), 0).values(), out13);
  const auto in10 = floats({0xbf2a8dbd, 0x3f2f44b6, 0x3f12f1c5, 0xbf1537cd, 0x3f4497d1, 0x3d69d9fe, 0xbf983d6d,
                            0xbf10ddd5, 0xbf5528cc, 0x3f66c557});
  const auto out10 = floats({0x3d321297, 0x3e2bdfde, 0x3e19df57, 0x3d418cb4, 0x3e3ace02, 0x3db786ed, 0x3cd311e4,
                             0x3d44de1f, 0x3d16c567, 0x3e557c66});
  check_bits(softmax(Tensor({10}, in10), -1).values(), out10);
}

TEST_CASE("ops: exp is torch.exp, including subnormal and overflowing results") {
  const auto in = floats({0xc2cf0000, 0xc2ae999a, 0xc1a20000, 0xba83126f, 0x00000000, 0x3f000000, 0x3f800000,
                          0x41200000, 0x42b10000, 0x42be0000});
  const auto out = floats({0x00000001, 0x0084c38b, 0x30dc9ef1, 0x3f7fbe7f, 0x3f800000, 0x3fd3094c, 0x402df854,
                           0x46ac14ee, 0x7f4cdcc4, 0x7f800000});
  check_bits(exp(Tensor({10}, in)).values(), out);
  // A correctly rounded exp differs from torch's here: the test would catch a switch back to std::exp.
  int differs = 0;
  for (float x = -5.0f; x < 5.0f; x += 0.001f) differs += bits(torch_expf(x)) != bits(std::exp(x));
  CHECK(differs > 0);
}

TEST_CASE("ops: sum adds in torch's order") {
  const auto in11 = floats({0x3f5b3b00, 0x3ebf8fa0, 0x3f67f384, 0x3eea18dc, 0x3ecb3548, 0x3e80bed2, 0x3f4426b3,
                            0x3f33ca1b, 0x3f516b1f, 0x3e38cc08, 0x3e6fc510});
  CHECK(bits(sum(Tensor({11}, in11)).item()) == 0x40be2fa0u);
  const auto in6 = floats({0x3f792126, 0x3e63d1a4, 0x3e5bff4c, 0x3ebb8126, 0x3ead4224, 0x3e23cdc4});
  CHECK(bits(sum(Tensor({6}, in6)).item()) == 0x40119a9eu);
  CHECK(sum(Tensor({2, 6},
                   [&] {
                     auto v = in6;
                     v.insert(v.end(), in6.begin(), in6.end());
                     return v;
                   }()),
            -1, true)
            .shape() == Shape{2, 1});
}

TEST_CASE("ops: transpose is a view and view needs compatible strides") {
  Tensor x({2, 3, 2, 2}, std::vector<float>(24));
  Tensor t = transpose(x, 1, 2);  // (2, 2, 3, 2)
  CHECK(t.shares_storage_with(x));
  CHECK_FALSE(t.is_contiguous());
  CHECK(t.strides() == Shape{12, 2, 4, 1});
  CHECK_FALSE(can_view(t, {2, 2, 6}));
  CHECK_THROWS_WITH_AS(view(t, {2, 2, 6}), doctest::Contains("view size is not compatible"), std::invalid_argument);
  Tensor c = contiguous(t);
  CHECK(c.is_contiguous());
  CHECK(c.strides() == Shape{12, 6, 2, 1});
  CHECK(view(c, {2, 2, 6}).shape() == Shape{2, 2, 6});
  // A size-1 head dimension imposes no stride: this view works without contiguous(), as in PyTorch.
  Tensor h1 = transpose(Tensor({2, 2, 6, 1}, std::vector<float>(24)), 1, 2);
  CHECK(can_view(h1, {2, 6, 2}));
  CHECK(view(Tensor({6}, std::vector<float>(6)), {-1, 3}).shape() == Shape{2, 3});
}

TEST_CASE("ops: values follow the logical order of a strided view") {
  Tensor x({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(transpose(x, 0, 1).values() == std::vector<float>{1, 4, 2, 5, 3, 6});
  CHECK(select(x, 0, 1).values() == std::vector<float>{4, 5, 6});
  CHECK(select(x, 1, -1).values() == std::vector<float>{3, 6});
  CHECK(narrow(x, 1, 1, 2).values() == std::vector<float>{2, 3, 5, 6});
}

TEST_CASE("ops: matmul shapes and grad_fn names as PyTorch prints them") {
  Tensor a({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor w({3, 2}, {1, 0, 0, 1, 1, 1});
  w.set_parameter(true).set_requires_grad(true);
  CHECK(matmul(a, w).grad_fn() == "MmBackward0");
  CHECK(matmul(a, w).values() == std::vector<float>{4, 5, 10, 11});
  CHECK(matmul(Tensor({3}, {1, 2, 3}), w).shape() == Shape{2});
  Tensor b3 = stack({a, a}, 0);
  CHECK(matmul(b3, w).grad_fn() == "UnsafeViewBackward0");
  CHECK(matmul(b3, transpose(b3, 1, 2)).shape() == Shape{2, 2, 2});
  CHECK(matmul(a, Tensor({3, 2}, std::vector<float>(6))).grad_fn().empty());
  CHECK(dot(Tensor({3}, {1, 2, 3}), Tensor({3}, {4, 5, 6})).item() == 32.0f);
  CHECK_THROWS_AS(matmul(a, a), std::invalid_argument);
}

TEST_CASE("ops: masked_fill, tril, triu, cat, stack") {
  Tensor ones3 = ones({3, 3});
  CHECK(tril(ones3).values() == std::vector<float>{1, 0, 0, 1, 1, 0, 1, 1, 1});
  CHECK(triu(ones3, 1).values() == std::vector<float>{0, 1, 1, 0, 0, 1, 0, 0, 0});
  Tensor filled = masked_fill(ones3, to_bool(triu(ones3, 1)), -std::numeric_limits<float>::infinity());
  CHECK(repr(filled) == "tensor([[1., -inf, -inf],\n        [1., 1., -inf],\n        [1., 1., 1.]])");
  CHECK_THROWS_AS(masked_fill(ones3, triu(ones3, 1), 0.0f), std::invalid_argument);  // float mask
  CHECK(cat({Tensor({2, 1}, {1, 2}), Tensor({2, 2}, {3, 4, 5, 6})}, -1).values() ==
        std::vector<float>{1, 3, 4, 2, 5, 6});
  CHECK(stack({Tensor({2}, {1, 2}), Tensor({2}, {3, 4})}, 0).shape() == Shape{2, 2});
}

TEST_CASE("ops: broadcasting division by a column, as row_sums does") {
  Tensor m({2, 2}, {1, 3, 2, 2});
  Tensor s = sum(m, -1, true);
  CHECK(div(m, s).values() == std::vector<float>{0.25f, 0.75f, 0.5f, 0.5f});
  CHECK_THROWS_AS(div(m, Tensor({3}, {1, 2, 3})), std::invalid_argument);
}

TEST_CASE("hand_over gives the trace to a caller who asks and returns the output taken before") {
  struct Trace {
    Tensor out;
    std::vector<int> seen;
  };
  Trace t{Tensor({2}, {1.0f, 2.0f}), {7}};
  Trace kept;
  const Tensor out = hand_over(t, &kept, t.out);
  CHECK(out.values() == std::vector<float>{1.0f, 2.0f});
  CHECK(kept.seen == std::vector<int>{7});
  CHECK(kept.out.values() == std::vector<float>{1.0f, 2.0f});
  Trace u{Tensor({1}, {3.0f}), {8}};
  CHECK(hand_over(u, static_cast<Trace*>(nullptr), u.out).values() == std::vector<float>{3.0f});
  CHECK(u.seen == std::vector<int>{8});  // nobody asked: the forward's trace stays where it was
}
