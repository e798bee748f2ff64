// The bonus material's modules (lib/nn/bonus_attention.h) against themselves: each cached step equals
// the matching row of the full causal forward bit for bit, a window of at least T tokens is plain causal
// attention, G = num_heads groups repeat nothing, the KV cache's mask offset and its limits. Their
// numbers against real PyTorch are tests/test_bonus_fixtures.cpp's.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "core/generator.h"
#include "core/inputs.h"
#include "core/ops_shape.h"
#include "core/tensor_print.h"
#include "nn/bonus_attention.h"

using namespace attn;

namespace {

Tensor book_x() {
  const Tensor& e = book_inputs().embeddings;
  return view(e, {1, e.size(0), e.size(1)});
}

std::vector<float> row(const Tensor& full, int64_t t) { return token_slice(full, t, 1).values(); }

// Feeds x token by token with use_cache=True and checks each output against the full forward's row.
template <class Module>
void check_steps_equal_full(Module m, const Tensor& x) {
  Generator gen;
  const Tensor full = m.forward(x, false, gen, BernoulliPath::Default);
  for (int64_t t = 0; t < x.size(1); ++t) {
    CAPTURE(t);
    const Tensor out = m.forward(token_slice(x, t, 1), true, gen, BernoulliPath::Default);
    CHECK(out.values() == row(full, t));
  }
  CHECK(m.ptr_current_pos == x.size(1));
}

}  // namespace

TEST_CASE("bonus modules: repeat_interleave repeats each index in a row") {
  const Tensor t({1, 2, 1, 2}, {1, 2, 3, 4});
  const Tensor r = repeat_interleave(t, 2, 1);
  CHECK(r.shape() == Shape{1, 4, 1, 2});
  CHECK(r.values() == std::vector<float>{1, 2, 1, 2, 3, 4, 3, 4});
  CHECK(repeat_interleave(t, 1, 1).values() == t.values());
}

TEST_CASE("bonus modules: every cached step equals the full causal forward's row, bit for bit") {
  Generator gen;
  gen.manual_seed(123);
  check_steps_equal_full(KVCacheMultiHeadAttention::init(gen, 3, 4, 6, 0.0, 2, false), book_x());
  gen.manual_seed(123);
  check_steps_equal_full(GroupedQueryAttention::init(gen, 3, 8, 0.0, 4, 2, true), book_x());
  gen.manual_seed(7);
  check_steps_equal_full(MultiHeadLatentAttention::init(gen, 3, 4, 0.0, 2, false, 2), book_x());
  gen.manual_seed(123);
  check_steps_equal_full(SlidingWindowAttention::init(gen, 3, 4, 0.0, 2, false, 3), book_x());
}

TEST_CASE("bonus modules: a window of at least T tokens is the causal module, with the chapter's weights") {
  Generator gen;
  gen.manual_seed(123);
  KVCacheMultiHeadAttention causal = KVCacheMultiHeadAttention::init(gen, 3, 4, 6, 0.0, 2, false);
  gen.manual_seed(123);
  SlidingWindowAttention wide = SlidingWindowAttention::init(gen, 3, 4, 0.0, 2, false, 6);
  gen.manual_seed(123);
  SlidingWindowAttention none = SlidingWindowAttention::init(gen, 3, 4, 0.0, 2, false, std::nullopt);
  const Tensor want = causal.forward(book_x(), false, gen, BernoulliPath::Default);
  CHECK(wide.forward(book_x(), false, gen, BernoulliPath::Default).values() == want.values());
  CHECK(none.forward(book_x(), false, gen, BernoulliPath::Default).values() == want.values());
}

TEST_CASE("bonus modules: the sliding window masks i - j >= W and the cache keeps W tokens") {
  Generator gen;
  gen.manual_seed(123);
  SlidingWindowAttention swa = SlidingWindowAttention::init(gen, 3, 4, 0.0, 2, false, 3);
  BonusAttentionTrace t;
  swa.forward(book_x(), false, gen, BernoulliPath::Default, &t);
  CHECK(repr(t.mask_bool) ==
        "tensor([[False,  True,  True,  True,  True,  True],\n"
        "        [False, False,  True,  True,  True,  True],\n"
        "        [False, False, False,  True,  True,  True],\n"
        "        [ True, False, False, False,  True,  True],\n"
        "        [ True,  True, False, False, False,  True],\n"
        "        [ True,  True,  True, False, False, False]])");
  for (int64_t i = 0; i < 6; ++i) {
    swa.forward(token_slice(book_x(), i, 1), true, gen, BernoulliPath::Default, &t);
    CHECK(swa.cache_k->size(1) == std::min<int64_t>(i + 1, 3));
    CHECK(t.k_positions.values().front() == static_cast<float>(std::max<int64_t>(0, i - 2)));
  }
}

TEST_CASE("bonus modules: GQA shares one group's keys among group_size query heads") {
  Generator gen;
  gen.manual_seed(123);
  GroupedQueryAttention gqa = GroupedQueryAttention::init(gen, 3, 8, 0.0, 4, 2, false);
  CHECK(gqa.W_key.weight.shape() == Shape{4, 3});
  CHECK(gqa.W_query.weight.shape() == Shape{8, 3});
  CHECK_FALSE(gqa.out_proj.bias.has_value());
  CHECK(gqa.parameter_count() == 4 * 3 + 4 * 3 + 8 * 3 + 8 * 8);
  BonusAttentionTrace t;
  gqa.forward(book_x(), true, gen, BernoulliPath::Default, &t);
  CHECK(t.keys_base.shape() == Shape{1, 2, 6, 2});
  CHECK(t.keys.shape() == Shape{1, 4, 6, 2});
  CHECK(select(select(t.keys, 0, 0), 0, 1).values() == select(select(t.keys_base, 0, 0), 0, 0).values());
  CHECK(select(select(t.keys, 0, 0), 0, 2).values() == select(select(t.keys_base, 0, 0), 0, 1).values());
  CHECK(gqa.cache_k->shape() == Shape{1, 2, 6, 2});
  gqa.forward(book_x(), false, gen, BernoulliPath::Default);  // no cache: the class drops it
  CHECK_FALSE(gqa.cache_k.has_value());
  CHECK(gqa.ptr_current_pos == 0);
  CHECK_THROWS_AS(GroupedQueryAttention::init(gen, 3, 8, 0.0, 4, 3, false), std::invalid_argument);
}

TEST_CASE("bonus modules: MLA caches the latent only and its default latent_dim is max(16, d_out // 8)") {
  Generator gen;
  gen.manual_seed(123);
  MultiHeadLatentAttention mla = MultiHeadLatentAttention::init(gen, 3, 4, 0.0, 2, false, std::nullopt);
  CHECK(mla.latent_dim == 16);
  gen.manual_seed(123);
  mla = MultiHeadLatentAttention::init(gen, 3, 4, 0.0, 2, false, 2);
  CHECK(mla.W_DKV.weight.shape() == Shape{2, 3});
  CHECK(mla.W_UK.weight.shape() == Shape{4, 2});
  mla.forward(token_slice(book_x(), 0, 2), true, gen, BernoulliPath::Default);
  mla.forward(token_slice(book_x(), 2, 1), true, gen, BernoulliPath::Default);
  CHECK(mla.cache_c_kv->shape() == Shape{1, 3, 2});
  mla.reset_cache();
  CHECK_FALSE(mla.cache_c_kv.has_value());
}

TEST_CASE("bonus modules: the KV cache's mask rows follow ptr_current_pos and stop at context_length") {
  Generator gen;
  gen.manual_seed(123);
  KVCacheMultiHeadAttention m = KVCacheMultiHeadAttention::init(gen, 3, 4, 6, 0.0, 2, false);
  BonusAttentionTrace t;
  m.forward(token_slice(book_x(), 0, 3), true, gen, BernoulliPath::Default, &t);  // prefill: mask[0:3, :3]
  m.forward(token_slice(book_x(), 3, 2), true, gen, BernoulliPath::Default, &t);  // chunk: mask[3:5, :5]
  CHECK(repr(t.mask_bool) ==
        "tensor([[False, False, False, False,  True],\n        [False, False, False, False, False]])");
  m.forward(token_slice(book_x(), 5, 1), true, gen, BernoulliPath::Default, &t);
  CHECK(m.cache_k->shape() == Shape{1, 6, 2, 2});
  try {
    m.forward(token_slice(book_x(), 5, 1), true, gen, BernoulliPath::Default);
    FAIL("a 7th token past context_length 6 must fail");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) ==
          "The size of tensor a (7) must match the size of tensor b (6) at non-singleton dimension 3");
  }
  m.reset_cache();
  CHECK_FALSE(m.cache_k.has_value());
  CHECK(m.ptr_current_pos == 0);
}
