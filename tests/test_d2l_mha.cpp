// d2l's multi-head attention (lib/d2l_attention, lessons/d2l_mha.cpp): the split equals the book's
// split up to layout, masked_softmax's two valid_lens forms, d2l.ai §11.5's integers, and the CLI's
// checks of --valid-lens / --num-hiddens.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "nn/d2l_attention.h"
#include "core/generator.h"
#include "core/ops_shape.h"
#include "core/random_ops.h"
#include "run_cli.h"
#include "core/tensor_print.h"

using namespace attn;

namespace {

bool same(const Tensor& a, const Tensor& b) { return a.shape() == b.shape() && a.values() == b.values(); }

}  // namespace

TEST_CASE("d2l split equals the book's split up to layout") {
  // transpose_qkv(X) = X.view(b, T, h, head_dim).transpose(1, 2).reshape(b * h, T, head_dim), and
  // transpose_output inverts it, for every shape tried (random values, head_dim 1 and h 1 included).
  Generator gen;
  gen.manual_seed(4);
  int tried = 0;
  for (int64_t b : {1, 2, 3})
    for (int64_t T : {1, 2, 5})
      for (int64_t h : {1, 2, 3, 4})
        for (int64_t head_dim : {1, 2, 5}) {
          CAPTURE(b);
          CAPTURE(T);
          CAPTURE(h);
          CAPTURE(head_dim);
          const Tensor X({b, T, h * head_dim}, rand_values(gen, b * T * h * head_dim));
          d2l::SplitTrace s;
          const Tensor split = d2l::transpose_qkv(X, h, &s);
          const Tensor book = d2l::book_split(X, h);  // (b, h, T, head_dim)
          CHECK(split.shape() == Shape{b * h, T, head_dim});
          CHECK(book.shape() == Shape{b, h, T, head_dim});
          CHECK(same(s.permuted, book));                                 // d2l's permute = the book's transpose
          CHECK(same(split, d2l::reshape(book, {b * h, T, head_dim})));  // folded: the same numbers
          CHECK(same(d2l::reshape(split, {b, h, T, head_dim}), book));   // unfolded: the book's tensor
          for (int64_t i = 0; i < b; ++i)                                // head j of sequence i is batch i*h + j
            for (int64_t j = 0; j < h; ++j) CHECK(same(select(split, 0, i * h + j), select(select(book, 0, i), 0, j)));
          CHECK(same(d2l::transpose_output(split, h), X));
          ++tried;
        }
  CHECK(tried == 108);
}

TEST_CASE("d2l transpose_qkv on d2l.ai §11.5's integers gives its X_final") {
  const Tensor X = d2l::int64_tensor({2, 2, 4}, {10, 11, 12, 13, 14, 15, 16, 17, 20, 21, 22, 23, 24, 25, 26, 27});
  d2l::SplitTrace s;
  const Tensor X_final = d2l::transpose_qkv(X, 2, &s);
  CHECK(s.reshaped.values() == X.values());  // reshape moves nothing
  CHECK(s.permuted.strides() == Shape{8, 2, 4, 1});
  CHECK(X_final.values() == std::vector<float>{10, 11, 14, 15, 12, 13, 16, 17, 20, 21, 24, 25, 22, 23, 26, 27});
  CHECK(X_final.is_contiguous());
  CHECK(repr(X_final) ==
        "tensor([[[10, 11],\n         [14, 15]],\n\n        [[12, 13],\n         [16, 17]],\n\n"
        "        [[20, 21],\n         [24, 25]],\n\n        [[22, 23],\n         [26, 27]]])");
  const Tensor book = d2l::book_split(X, 2);
  CHECK_FALSE(book.is_contiguous());
  CHECK(book.strides() == Shape{8, 2, 4, 1});
  CHECK(same(d2l::reshape(book, {-1, 2, 2}), X_final));
}

TEST_CASE("d2l reshape is a view when it can be and a copy otherwise") {
  Tensor w({2, 6}, std::vector<float>(12, 1.0f));
  w.set_requires_grad(true);
  const Tensor alias = d2l::reshape(w, {2, 3, 2});
  CHECK(alias.shares_storage_with(w));
  CHECK(alias.grad_fn() == "ReshapeAliasBackward0");
  const Tensor permuted = d2l::permute(alias, {0, 2, 1});
  CHECK(permuted.grad_fn() == "PermuteBackward0");
  const Tensor copy = d2l::reshape(permuted, {-1, 3});
  CHECK_FALSE(copy.shares_storage_with(w));
  CHECK(copy.grad_fn() == "UnsafeViewBackward0");
  CHECK(d2l::repeat_interleave(d2l::int64_tensor({2}, {3, 2}), 5).values() ==
        std::vector<float>{3, 3, 3, 3, 3, 2, 2, 2, 2, 2});
  CHECK(d2l::repeat_interleave(d2l::int64_tensor({2, 2}, {1, 2, 3, 4}), 2).values() ==
        std::vector<float>{1, 2, 1, 2, 3, 4, 3, 4});
}

TEST_CASE("d2l masked_softmax: per-sequence lengths equal the same lengths per query") {
  Generator gen;
  gen.manual_seed(123);
  const Tensor X({2, 3, 5}, rand_values(gen, 30));
  d2l::MaskedSoftmaxTrace t;
  const Tensor w1 = d2l::masked_softmax(X, d2l::int64_tensor({2}, {3, 0}), &t);
  const Tensor w2 = d2l::masked_softmax(X, d2l::int64_tensor({2, 3}, {3, 3, 3, 0, 0, 0}));
  CHECK(same(w1, w2));
  CHECK(t.valid_lens.values() == std::vector<float>{3, 3, 3, 0, 0, 0});
  const std::vector<float> v = w1.values();
  for (int64_t q = 0; q < 3; ++q)
    for (int64_t k = 3; k < 5; ++k) CHECK(v[q * 5 + k] == 0.0f);             // masked: exactly zero
  for (int64_t k = 0; k < 5; ++k) CHECK(v[15 + k] == doctest::Approx(0.2));  // length 0: every key -1e6, uniform
  CHECK(t.masked.values()[3] == -1e6f);
  CHECK(t.mask.dtype() == DType::Bool);
}

TEST_CASE("d2l MultiHeadAttention draws W_q W_k W_v W_o in that order") {
  Generator a, b;
  a.manual_seed(123);
  b.manual_seed(123);
  const d2l::MultiHeadAttention m = d2l::MultiHeadAttention::init(a, 7, 3, 5, 10, 5, 0.5);
  const Linear q = Linear::init(b, 3, 10, false), k = Linear::init(b, 7, 10, false), v = Linear::init(b, 5, 10, false),
               o = Linear::init(b, 10, 10, false);
  CHECK(m.W_q.weight.values() == q.weight.values());
  CHECK(m.W_k.weight.values() == k.weight.values());
  CHECK(m.W_v.weight.values() == v.weight.values());
  CHECK(m.W_o.weight.values() == o.weight.values());
  CHECK_THROWS(d2l::MultiHeadAttention::init(a, 4, 4, 4, 10, 3, 0.0));
}

TEST_CASE("d2l-mha runs d2l.ai §11.5's example and prints its shapes") {
  const CliResult r = run_cli("d2l-mha");
  REQUIRE(r.exit_code == 0);
  check_contains(r.out, {">>> print(attention(X, Y, Y, valid_lens).shape)\ntorch.Size([2, 4, 100])",
                         "(dropout): Dropout(p=0.5, inplace=False)", ">>> attention.eval()",
                         "tensor([3, 3, 3, 3, 3, 2, 2, 2, 2, 2])",
                         "torch.Size([10, 4, 20]) torch.Size([10, 6, 20]) torch.Size([10, 6, 20])"});
  CHECK(r.out.find("[[[10, 11], [14, 15]], [[12, 13], [16, 17]], [[20, 21], [24, 25]], [[22, 23], [26, 27]]]") !=
        std::string::npos);
  CHECK(r.out.find("True True\n(4, 2, 1) (8, 2, 4, 1)") != std::string::npos);

  const CliResult train = run_cli("d2l-mha --dropout 0.25 --valid-lens '[[1,2,3,4],[6,5,0,2]]' --num-heads 2");
  REQUIRE(train.exit_code == 0);
  check_contains(train.out, {">>> attention.train()", "self.dropout(self.attention_weights).shape",
                             "torch.tensor([[1, 2, 3, 4], [6, 5, 0, 2]])"});

  const CliResult zero = run_cli("d2l-mha --dropout 0 --seed 7");
  REQUIRE(zero.exit_code == 0);
  check_contains(zero.out, {">>> attention.eval()", "torch.manual_seed(7)"});

  const CliResult tokens = run_cli("d2l-mha --tokens 'the cat sat' --num-hiddens 6 --num-heads 3 --json -");
  REQUIRE(tokens.exit_code == 0);
  check_contains(tokens.out, {"\"name\": \"attention(X, X, X, valid_lens)\", \"cell\": 14", "\"shape\": [2,3,6]"});
}

TEST_CASE("d2l-mha rejects bad --valid-lens and --num-hiddens with one line") {
  expect_usage_error("d2l-mha --valid-lens 3,2,1", "3 length(s) for a batch of 2 sequences");
  expect_usage_error("d2l-mha --valid-lens 3", "1 length(s) for a batch of 2");
  expect_usage_error("d2l-mha --valid-lens=-1,2", "-1 is out of range");
  expect_usage_error("d2l-mha --valid-lens 7,2", "must be from 0 to 6");
  expect_usage_error("d2l-mha --tokens 'a b c' --valid-lens 3,4", "must be from 0 to 3");
  expect_usage_error("d2l-mha --valid-lens 3,x", "not a list of whole numbers");
  expect_usage_error("d2l-mha --valid-lens '3,,2'", "not a list of whole numbers");
  expect_usage_error("d2l-mha --valid-lens '[3, 2'", "not a list of whole numbers");
  expect_usage_error("d2l-mha --valid-lens 2.5,1", "not a list of whole numbers");
  expect_usage_error("d2l-mha --valid-lens '[[1,2],[3,4]]'", "(batch_size, num_queries) = (2, 4)");
  expect_usage_error("d2l-mha --valid-lens '[[1,2,3,4],[1,2,3]]'", "rows of different lengths");
  expect_usage_error("d2l-mha --valid-lens '[[1,2,3,4],[1,2,3,4],[1,2,3,4]]'", "3 row(s)");
  expect_usage_error("d2l-mha --valid-lens 99999999999999999999,1", "not a list of whole numbers");
  expect_usage_error("d2l-mha --num-heads 3", "--num-hiddens 100: not divisible by --num-heads 3");
  expect_usage_error("d2l-mha --num-hiddens 10 --num-heads 4", "use --num-heads 1, 2, 5, 10");
  expect_usage_error("d2l-mha --num-hiddens 0", "--num-hiddens");
}
