// d2l.ai §11.5's MultiHeadAttention. masked_softmax hides padded keys (valid_lens), transpose_qkv
// folds the heads into the batch (d2l.ai §11.5's integer walk-through, beside the book's layout), and
// d2l.ai's run: MultiHeadAttention(100, 100, 100, 100, 5, 0.5) on ones with valid_lens [3, 2].
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>

#include "nn/d2l_attention.h"
#include "lessons/lesson.h"
#include "lessons/d2l-mha/d2l_code.h"
#include "lessons/lesson_text.h"
#include "core/ops_shape.h"
#include "core/print.h"
#include "core/random_ops.h"
#include "core/tensor_print.h"
#include "core/usage_error.h"

namespace attn {

namespace {

// With dropout active the call draws its mask; the cells that step through it replay the same draws.
const char* const kSaveRng = "rng = torch.get_rng_state()  # before the call: replayed below";

using namespace d2l_lesson;

void masked_softmax_cells(Notebook& nb, const LessonOptions& opt) {
  nb.source_heading("d2l 11.5", "lesson.source", "heading.masked_softmax");
  std::vector<std::string> code = kMaskedSoftmaxCode;
  code.insert(code.end(),
              {"", "torch.manual_seed(" + fmt_seed(opt, kSeed) + ")",
               "X = torch.rand(2, 2, 4)  # scores: (batch 2, 2 queries, 4 keys)", "valid_lens = torch.tensor([2, 3])",
               "print(X)", "print(masked_softmax(X.clone(), valid_lens))"});
  nb.cell(code);
  Generator gen;
  gen.manual_seed(opt.seed_or(kSeed));
  const Tensor X({2, 2, 4}, rand_values(gen, 16));
  const Tensor valid_lens = d2l::int64_tensor({2}, {2, 3});
  nb.show("X", X);  // recorded in the code's order: X, then valid_lens
  nb.record("valid_lens", valid_lens);
  d2l::MaskedSoftmaxTrace t;
  const Tensor weights = d2l::masked_softmax(X, valid_lens, &t, opt.variant);
  nb.show("masked_softmax(X, valid_lens)", weights);
  nb.note("intro.note");
  nb.explain("intro.explain");
  nb.confusion("intro.confusion");

  nb.cell({"# inside masked_softmax(X, valid_lens)", "shape = X.shape",
           "valid_lens = torch.repeat_interleave(valid_lens, shape[1])", "print(valid_lens)"});
  nb.show("valid_lens", t.valid_lens);
  nb.note("valid_lens.note");
  nb.explain("valid_lens.explain");

  nb.cell({"# inside sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)", "X = X.reshape(-1, shape[-1])",
           "maxlen = X.size(1)", "mask = torch.arange((maxlen), dtype=torch.float32)[None, :] < valid_lens[:, None]",
           "print(X)", "print(mask)"});
  nb.show("X", t.rows);
  nb.show("mask", t.mask);
  nb.note("mask.note", {shape_text(t.rows.shape())});
  nb.explain("mask.explain");

  tensor_cell(nb, {"X[~mask] = -1e6", "print(X)"}, "X", t.masked, "x.note", "x.explain", "x.confusion");
  tensor_cell(nb, {"print(nn.functional.softmax(X.reshape(shape), dim=-1))"},
              "nn.functional.softmax(X.reshape(shape), dim=-1)", t.weights, "nn_functional_softmax_x_reshape.note",
              "nn_functional_softmax_x_reshape.explain");

  nb.cell({"X = torch.rand(2, 2, 4)", "valid_lens = torch.tensor([[1, 3], [2, 4]])  # one length per query",
           "print(valid_lens.reshape(-1))", "print(masked_softmax(X, valid_lens))"});
  const Tensor X2({2, 2, 4}, rand_values(gen, 16));
  const Tensor lens2 = d2l::int64_tensor({2, 2}, {1, 3, 2, 4});
  nb.record("X", X2);
  nb.record("valid_lens", lens2);
  d2l::MaskedSoftmaxTrace t2;
  const Tensor weights2 = d2l::masked_softmax(X2, lens2, &t2, opt.variant);
  nb.show("valid_lens.reshape(-1)", t2.valid_lens);
  nb.show("masked_softmax(X, valid_lens)", weights2);
  nb.note("masked_softmax_x_valid_lens.note");
  nb.explain("masked_softmax_x_valid_lens.explain");
}

void transpose_cells(Notebook& nb) {
  nb.source_heading("d2l 11.5", "lesson.source", "heading.transpose_qkv");
  std::vector<std::string> code = kTransposeCode;
  code.insert(code.end(), {"", "num_heads = 2", "X = torch.tensor([[[10, 11, 12, 13],   # sentence 0, word A",
                           "                   [14, 15, 16, 17]],  # sentence 0, word B",
                           "                  [[20, 21, 22, 23],   # sentence 1, word C",
                           "                   [24, 25, 26, 27]]]) # sentence 1, word D", "print(X)"});
  nb.cell(code);
  const Tensor X = d2l::int64_tensor({2, 2, 4}, {10, 11, 12, 13, 14, 15, 16, 17, 20, 21, 22, 23, 24, 25, 26, 27});
  const int64_t num_heads = 2;
  nb.show("X", X);
  nb.note("transpose_input.note");
  nb.explain("transpose_input.explain");

  d2l::SplitTrace s;
  const Tensor X_final = d2l::transpose_qkv(X, num_heads, &s);
  nb.cell({"X_reshaped = X.reshape(X.shape[0], X.shape[1], num_heads, -1)", "print(X_reshaped)"});
  nb.show("X_reshaped", s.reshaped);
  nb.note("x_reshaped.note", {shape_text(s.reshaped.shape())});
  nb.explain("x_reshaped.explain");

  nb.cell({"X_permuted = X_reshaped.permute(0, 2, 1, 3)", "print(X_permuted)"});
  nb.show("X_permuted", s.permuted);
  const std::string permuted_shape = shape_text(s.permuted.shape()),
                    strides = shape_text(s.reshaped.strides()) + " -> " + shape_text(s.permuted.strides());
  nb.note("x_permuted.note", {permuted_shape, strides});
  nb.explain("x_permuted.explain");

  nb.cell({"X_final = X_permuted.reshape(-1, X_permuted.shape[2], X_permuted.shape[3])", "print(X_final)",
           "print(X_final.tolist())", "print(torch.equal(X_final, transpose_qkv(X, num_heads)))"});
  nb.show("X_final", s.out);
  nb.print(tolist_text(s.out));
  nb.print(bool_text(equal(s.out, X_final)));
  const std::string final_shape = shape_text(s.out.shape());
  nb.note("transpose_qkv_equal.note", {final_shape});
  nb.explain("transpose_qkv_equal.explain");
  nb.confusion("transpose_qkv_equal.confusion", {std::to_string(s.out.size(0))});

  nb.cell({"# the book's MultiHeadAttention (3.6.2) splits the same X with view + transpose:",
           "b, num_tokens, d_out = X.shape", "head_dim = d_out // num_heads",
           "X_book = X.view(b, num_tokens, num_heads, head_dim).transpose(1, 2)", "print(X_book)",
           "print(torch.equal(X_book, X_permuted), torch.equal(X_book.reshape(-1, num_tokens, head_dim), X_final))",
           "print(X_final.stride(), X_book.stride())"});
  const Tensor X_book = d2l::book_split(X, num_heads);
  nb.show("X_book", X_book);
  nb.print(bool_text(equal(X_book, s.permuted)) + " " +
           bool_text(equal(d2l::reshape(X_book, {-1, X.size(1), X.size(2) / num_heads}), s.out)));
  nb.print(shape_text(s.out.strides()) + " " + shape_text(X_book.strides()));
  const std::string book_shape = shape_text(X_book.shape()), folded = std::to_string(s.out.size(0));
  nb.note("x_final_stride_x_book_stride.note", {book_shape, folded});
  nb.explain("x_final_stride_x_book_stride.explain");

  d2l::SplitTrace o;
  const Tensor X_back = d2l::transpose_output(s.out, num_heads, &o);
  nb.cell({"# transpose_output(X_final, num_heads), step by step",
           "Z = X_final.reshape(-1, num_heads, X_final.shape[1], X_final.shape[2])", "print(Z)",
           "Z = Z.permute(0, 2, 1, 3)", "print(Z)", "Z = Z.reshape(Z.shape[0], Z.shape[1], -1)", "print(Z)",
           "print(torch.equal(Z, X))"});
  nb.show("Z", o.reshaped);
  nb.show("Z", o.permuted);
  nb.show("Z", o.out);
  nb.print(bool_text(equal(X_back, X)));
  const std::string s1 = shape_text(o.reshaped.shape()), s2 = shape_text(o.permuted.shape()),
                    s3 = shape_text(o.out.shape());
  nb.note("torch_equal_z_x.note", {s1, s2, s3});
  nb.explain("torch_equal_z_x.explain");
}

}  // namespace

Notebook d2l_mha_lesson(const LessonOptions& opt) {
  Notebook nb = lesson_notebook("d2l-mha", opt);
  const int64_t num_hiddens = opt.num_hiddens.value_or(lesson_default_count("d2l-mha", "--num-hiddens"));
  const int64_t num_heads = opt.heads_or(lesson_default_count("d2l-mha", "--num-heads"));
  if (num_hiddens % num_heads != 0)
    throw UsageError(error_text("d2l.err.hiddens",
                                {std::to_string(num_hiddens), std::to_string(num_heads), divisors_text(num_hiddens)}));
  const double p = opt.dropout.value_or(lesson_default("d2l-mha", "--dropout"));
  const bool training = opt.dropout && *opt.dropout > 0.0;  // --dropout P > 0: train mode, dropout active
  const bool own_inputs = opt.custom_inputs;                // --inputs/--tokens: self-attention on them
  const int64_t num_queries = own_inputs ? opt.num_tokens() : kNumQueries;
  const int64_t num_kvpairs = own_inputs ? opt.num_tokens() : kNumKvpairs;
  Tensor valid_lens =
      d2l::int64_tensor({kBatchSize}, {std::min<int64_t>(3, num_kvpairs), std::min<int64_t>(2, num_kvpairs)});
  if (opt.valid_lens) valid_lens = parse_valid_lens(*opt.valid_lens, num_queries, num_kvpairs);

  nb.positions_not_tokens();  // random scores and integer examples: their axes are not the tokens
  nb.resolve_setting("valid_lens", lens_code(valid_lens));  // the settings table: the lengths this run used
  masked_softmax_cells(nb, opt);
  transpose_cells(nb);
  nb.positions_not_tokens(!own_inputs);  // d2l.ai §11.5's run on torch.ones: queries and keys by position

  nb.source_heading("d2l 11.5", "lesson.source", "heading.d2l_run");
  const std::string seed = fmt_seed(opt, kSeed), h = std::to_string(num_heads);
  std::vector<std::string> code = kClassCode;
  code.push_back("");
  if (own_inputs) {
    const std::vector<std::string> in = inputs_code(opt);
    code.insert(code.end(), in.begin(), in.end());
    code.push_back("X = torch.stack((inputs, inputs), dim=0)  # (batch_size, num_tokens, d_in)");
  }
  code.push_back("torch.manual_seed(" + seed + ")  # not in d2l.ai (its generator is unseeded); --seed");
  code.push_back("num_hiddens, num_heads = " + std::to_string(num_hiddens) + ", " + h);
  const std::string bias = opt.qkv_bias ? ", bias=True" : "";
  if (own_inputs) {
    code.push_back("d_in = X.shape[-1]");
    code.push_back("attention = MultiHeadAttention(d_in, d_in, d_in, num_hiddens, num_heads, " + py_float(p) + bias +
                   ")");
  } else {
    code.push_back("attention = MultiHeadAttention(num_hiddens, num_hiddens, num_hiddens,");
    code.push_back("                               num_hiddens, num_heads, " + py_float(p) + bias + ")");
  }
  code.push_back(training ? "attention.train()  # --dropout > 0: dropout active (d2l.ai calls eval())"
                          : "attention.eval()");
  code.push_back("print(attention)");
  nb.cell(code);
  Generator gen;
  gen.manual_seed(opt.seed_or(kSeed));
  const int64_t in_size = own_inputs ? opt.d_in() : num_hiddens;
  d2l::MultiHeadAttention attention = d2l::MultiHeadAttention::init(gen, in_size, in_size, in_size, num_hiddens,
                                                                    num_heads, p, opt.qkv_bias, opt.variant);
  attention.training = training;
  nb.print(attention.repr());
  if (own_inputs) nb.record("X", stack({opt.inputs.embeddings, opt.inputs.embeddings}, 0));
  const std::string linear = "nn.Linear(" + std::to_string(in_size) + ", " + std::to_string(num_hiddens) +
                             (opt.qkv_bias ? "" : ", bias=False") + ")";
  const std::string pr = py_float(p), mode = training ? "train()" : "eval()";
  nb.note_case("d2l_class.note", training ? "train" : "eval", {linear, mode, pr});
  const std::string per_head = std::to_string(num_hiddens / num_heads);
  nb.explain_case("d2l_class.explain", own_inputs ? "your_inputs" : "d2l_inputs", {per_head, std::to_string(in_size)});

  std::string call;
  Tensor X, Y;
  if (own_inputs) {
    std::vector<std::string> run = {"valid_lens = " + lens_code(valid_lens),
                                    "print(attention(X, X, X, valid_lens).shape)"};
    if (training) run.insert(run.end() - 1, kSaveRng);
    nb.cell(run);
    X = stack({opt.inputs.embeddings, opt.inputs.embeddings}, 0);
    Y = X;
    call = "attention(X, X, X, valid_lens)";
  } else {
    std::vector<std::string> run = {
        "batch_size, num_queries = 2, 4", "num_kvpairs, valid_lens = 6, " + lens_code(valid_lens),
        "X = torch.ones((batch_size, num_queries, num_hiddens))",
        "Y = torch.ones((batch_size, num_kvpairs, num_hiddens))", "print(attention(X, Y, Y, valid_lens).shape)"};
    if (training) run.insert(run.end() - 1, kSaveRng);
    nb.cell(run);
    X = ones({kBatchSize, kNumQueries, num_hiddens});
    Y = ones({kBatchSize, kNumKvpairs, num_hiddens});
    call = "attention(X, Y, Y, valid_lens)";
  }
  // In the code's order: d2l's cell binds valid_lens before X and Y; with --inputs, X before valid_lens.
  if (!own_inputs) nb.record("valid_lens", valid_lens);
  if (!own_inputs) {
    nb.record("X", X);
    nb.record("Y", Y);
  }
  if (own_inputs) nb.record("valid_lens", valid_lens);
  d2l::MultiHeadAttentionTrace t;
  const Tensor out = attention.forward(X, Y, Y, valid_lens, gen, opt.bernoulli, &t, opt.variant);
  nb.trace(t.steps);
  nb.print(repr_size(out.shape()));
  nb.record(call, out);
  const bool capped = !opt.valid_lens && num_kvpairs < 3;
  const std::string kv = std::to_string(num_kvpairs);
  const std::string inputs_case = own_inputs ? "your_inputs" : "d2l_inputs";
  nb.note_case("attention_call.note", capped ? "capped_" + inputs_case : inputs_case, {kv, call});
  nb.explain_case("attention_call.explain", inputs_case, {kv, std::to_string(num_queries)});

  const int64_t head_dim = num_hiddens / num_heads;
  nb.cell({"# inside " + call + ": self is attention",
           std::string("self, queries, keys, values = attention, ") + (own_inputs ? "X, X, X" : "X, Y, Y"),
           "print(self.W_q.weight)", "queries = transpose_qkv(self.W_q(queries), self.num_heads)",
           "keys = transpose_qkv(self.W_k(keys), self.num_heads)",
           "values = transpose_qkv(self.W_v(values), self.num_heads)", "print(queries.shape, keys.shape, values.shape)",
           "print(queries[0])"});
  nb.show("self.W_q.weight", attention.W_q.weight);
  nb.record("queries", t.queries);
  nb.record("keys", t.keys);
  nb.record("values", t.values);
  nb.print(repr_size(t.queries.shape()) + " " + repr_size(t.keys.shape()) + " " + repr_size(t.values.shape()));
  nb.show("queries[0]", select(t.queries, 0, 0));
  const std::string nh = std::to_string(num_hiddens), hd = std::to_string(head_dim),
                    last_col = std::to_string(head_dim - 1);
  nb.note("queries_0.note", {nh, h, hd, last_col});
  nb.explain("queries_0.explain", {std::to_string(t.queries.size(0))});

  nb.cell({"valid_lens = torch.repeat_interleave(valid_lens, repeats=self.num_heads, dim=0)", "print(valid_lens)"});
  nb.show("valid_lens", *t.valid_lens);
  const bool per_query = valid_lens.dim() == 2;
  const std::string lens_case = per_query ? "per_query" : "per_sequence";
  nb.note_case("repeated_lens.note", lens_case, {h});
  nb.explain("repeated_lens.explain");
  nb.confusion_case("repeat_interleave.confusion", lens_case);

  nb.cell({"# inside self.attention(queries, keys, values, valid_lens): self is attention.attention",
           "self = self.attention", "d = queries.shape[-1]",
           "scores = torch.bmm(queries, keys.transpose(1,2)) / math.sqrt(d)", "print(scores.shape)",
           "self.attention_weights = masked_softmax(scores, valid_lens)", "print(self.attention_weights)"});
  nb.record("scores", t.attention.scores);
  nb.print(repr_size(t.attention.scores.shape()));
  nb.record("mask", t.attention.softmax.mask);
  nb.show("self.attention_weights", t.attention.attention_weights);
  nb.note_case("self_attention_weights.note", lens_case, {hd});
  nb.explain_case("self_attention_weights.explain", inputs_case);

  std::vector<std::string> bmm_code = {"output = torch.bmm(self.dropout(self.attention_weights), values)"};
  bmm_code.push_back("print(output.shape)");
  if (training) {
    bmm_code = {"torch.set_rng_state(rng)  # so that self.dropout draws what the call above drew", bmm_code[0],
                "torch.set_rng_state(rng)  # the same draw again: what bmm received",
                "print(self.dropout(self.attention_weights))", "print(output.shape)"};
  }
  nb.cell(bmm_code);
  if (training) nb.show("self.dropout(self.attention_weights)", t.attention.dropped);
  nb.record("output", t.attention.output);
  nb.print(repr_size(t.attention.output.shape()));
  nb.note_case("attention_output.note", training ? "train" : "eval");
  nb.explain("attention_output.explain");

  nb.cell({"# back in MultiHeadAttention.forward: self is attention", "self = attention",
           "output_concat = transpose_output(output, self.num_heads)", "print(output_concat.shape)",
           "print(self.W_o(output_concat).shape)"});
  nb.record("output_concat", t.output_concat);
  nb.print(repr_size(t.output_concat.shape()));
  nb.print(repr_size(t.result.shape()));
  const std::string concat_shape = shape_text(t.output_concat.shape()), result_shape = shape_text(t.result.shape());
  nb.note("self_w_o_output_concat_shape.note", {h, hd, concat_shape, result_shape, call});
  nb.explain("self_w_o_output_concat_shape.explain");
  return nb;
}

}  // namespace attn
