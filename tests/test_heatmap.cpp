// --heatmap: which tensors are drawn, the plain grid (labels, values, shading, masked cells, legend),
// and colour only where asked for (256 colours, or 24-bit with COLORTERM).
#include <doctest/doctest.h>

#include <cstdlib>
#include <optional>

#include "notebook/attention_matrix.h"
#include "notebook/heatmap.h"
#include "run_cli.h"

namespace {

using attn::DType;
using attn::NamedTensor;
using attn::Tensor;

// Sets (or with nullopt, unsets) an environment variable for the CLI runs of one test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

NamedTensor named(const std::string& name, attn::Shape shape, DType dtype = DType::Float32,
                  const std::string& code = "") {
  std::vector<float> values(static_cast<size_t>(attn::numel_of(shape)), 0.5f);
  return {name, 1, code.empty() ? name + " = ..." : code, Tensor(shape, values, dtype)};
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const std::string kCausalPlain = "causal-mask --heatmap --color never";

}  // namespace

TEST_CASE("heatmap rule: attention matrices by name, 1-D weights as bars") {
  CHECK(attn::is_attention_matrix(named("attn_scores", {6, 6})));
  CHECK(attn::is_attention_matrix(named("attn_weights", {2, 2, 6, 6})));
  CHECK(attn::is_attention_matrix(named("self.attention_weights", {2, 6, 6})));
  CHECK(attn::is_attention_matrix(named("mask.bool()", {6, 6}, DType::Bool)));
  CHECK(attn::is_attention_matrix(named("masked_simple_norm", {6, 6})));
  CHECK(attn::is_attention_matrix(named("dropout(example)", {6, 6})));
  CHECK(attn::is_attention_matrix(named("a @ a.transpose(2, 3)", {1, 2, 3, 3})));
  CHECK(attn::is_attention_matrix(named("first_res", {3, 3}, DType::Float32, "first_res = first_head @ first_head.T")));
  CHECK_FALSE(attn::is_attention_matrix(named("first_res", {3, 3})));            // not a product by its code
  CHECK_FALSE(attn::is_attention_matrix(named("mha.out_proj.weight", {2, 2})));  // a weight matrix, not weights
  CHECK_FALSE(attn::is_attention_matrix(named("X", {4, 4})));
  CHECK(attn::is_attention_matrix(named("masked_softmax(X, valid_lens)", {2, 2, 4})));         // 2 queries, 4 keys
  CHECK(attn::is_attention_matrix(named("attn_weights", {1, 2, 1, 7})));                       // one new token's query
  CHECK_FALSE(attn::is_attention_matrix(named("attn_weights @ values", {2, 2, 6, 2})));        // context vectors
  CHECK_FALSE(attn::is_attention_matrix(named("dropout(attn_weights).sum(dim=-1)", {2, 6})));  // row sums
  CHECK_FALSE(attn::is_attention_matrix(named("attn_weights_2", {6})));                        // bars, not a grid
  CHECK(attn::is_weight_vector(named("attn_weights_2", {6})));
  CHECK_FALSE(attn::is_weight_vector(named("attn_scores_2", {6})));
  CHECK_FALSE(attn::is_weight_vector(named("attn_weights.sum(dim=-1)", {6})));
  CHECK_FALSE(attn::is_attention_matrix(named("attn_weights", {1, 1})));
  CHECK_FALSE(attn::is_attention_matrix(named("mask", {17, 17})));  // beyond 16 tokens
  CHECK_FALSE(attn::is_attention_matrix(named("attn_scores", {6, 6}, DType::Int64)));
}

TEST_CASE("heatmap scale: fixed 0-1 when weights spread, automatic when near uniform, scores min-max") {
  using Kind = attn::HeatScale::Kind;
  const Tensor probs({2, 2}, {0.25f, 0.75f, 1.0f, 0.1f});
  const Tensor uniform({2, 2}, {0.24f, 0.26f, 0.25f, 0.25f});
  const Tensor scores({2, 2}, {-1.5f, 0.5f, 2.0f, -INFINITY});
  const Tensor dropped({2, 2}, {2.0f, 0.0f, 0.5f, 0.0f});
  CHECK(attn::heat_scale({"attn_weights", 1, "", probs}).kind == Kind::Fixed01);
  const attn::HeatScale u = attn::heat_scale({"attn_weights", 1, "", uniform});
  CHECK(u.kind == Kind::Auto);
  CHECK(u.lo == 0.24f);
  CHECK(u.hi == 0.26f);
  CHECK(u.position(0.26f) == 1.0);
  CHECK(u.describe(attn::Lang::En) ==
        "automatic scale 0.2400\u20260.2600 (the values are close together: on 0\u20261 they would all look alike)");
  CHECK(attn::heat_scale({"mask", 1, "", uniform}).kind == Kind::Fixed01);      // a mask keeps 0 and 1
  CHECK(attn::heat_scale({"attn_scores", 1, "", probs}).kind == Kind::MinMax);  // a score is never fixed
  const attn::HeatScale s = attn::heat_scale({"masked", 1, "", scores});
  CHECK(s.kind == Kind::MinMax);
  CHECK(s.lo == -1.5f);
  CHECK(s.hi == 2.0f);
  CHECK(s.has_masked);
  const attn::HeatScale d = attn::heat_scale({"dropout(attn_weights)", 1, "", dropped});
  CHECK(d.kind == Kind::ZeroToMax);
  CHECK(d.hi == 2.0f);
  CHECK(d.has_dropped);
  CHECK(d.position(1.0f) == 0.5);
  // Every cell dropped (dropout 1.0): nothing to scale, the fixed 0…1 stays.
  const attn::HeatScale none =
      attn::heat_scale({"dropout(attn_weights)", 1, "", Tensor({2, 2}, {0.0f, 0.0f, 0.0f, 0.0f})});
  CHECK(none.kind == Kind::Fixed01);
  CHECK(none.has_dropped);
}

TEST_CASE("heatmap marks: masked and dropped cells apart") {
  using M = attn::CellMark;
  // A causal dropout result: the upper triangle is masked, a 0 below it was dropped.
  const Tensor causal({3, 3}, {2.0f, 0.0f, 0.0f, 0.0f, 1.2f, 0.0f, 0.6f, 0.6f, 0.8f});
  const attn::NamedTensor t{"dropout(attn_weights)", 1, "", causal};
  const std::vector<M> marks = attn::cell_marks(t, attn::attention_grids(causal).front());
  CHECK(marks ==
        std::vector<M>{M::None, M::Masked, M::Masked, M::Dropped, M::None, M::Masked, M::None, M::None, M::None});
  // Weights no dropout touched: a 0 is masked (d2l's valid lengths); a mask itself has no marks.
  const Tensor d2l({2, 3}, {0.4f, 0.6f, 0.0f, 1.0f, 0.0f, 0.0f});
  CHECK(attn::cell_marks({"masked_softmax(X, valid_lens)", 1, "", d2l}, attn::attention_grids(d2l).front()) ==
        std::vector<M>{M::None, M::None, M::Masked, M::None, M::Masked, M::Masked});
  CHECK(attn::cell_marks({"mask_simple", 1, "", causal}, attn::attention_grids(causal).front()) ==
        std::vector<M>(9, M::None));
  // With the weights before dropout: masked exactly where they were 0, whatever the shape of the mask.
  const Tensor before({2, 3}, {0.5f, 0.5f, 0.0f, 0.25f, 0.75f, 0.0f});
  const Tensor after({2, 3}, {1.0f, 0.0f, 0.0f, 0.0f, 1.5f, 0.0f});
  const attn::NamedTensor a{"dropout(weights)", 1, "", after};
  const std::optional<Tensor> w =
      attn::find_undropped(a, {{"x", 1, "", before}, {"attn_weights", 1, "", after}, {"attn_weights", 1, "", before}});
  REQUIRE(w.has_value());
  CHECK(w->values() == before.values());
  CHECK_FALSE(
      attn::find_undropped(a, {{"attn_weights", 1, "", Tensor({2, 3}, {0.5f, 0.2f, 0.3f, 0.25f, 0.7f, 0.05f})}}));
  CHECK(attn::cell_marks(a, attn::attention_grids(after).front(), &attn::attention_grids(before).front()) ==
        std::vector<M>{M::None, M::Dropped, M::Masked, M::Dropped, M::None, M::Masked});
  // -inf and d2l's -1e6 are masked.
  const Tensor filled({1, 3}, {0.5f, -INFINITY, -1e6f});
  CHECK(attn::cell_marks({"scores", 1, "", filled}, attn::attention_grids(filled).front()) ==
        std::vector<M>{M::None, M::Masked, M::Masked});
}

TEST_CASE("heatmap palette: truecolor only when COLORTERM says so") {
  CHECK(attn::palette_for(false, "truecolor") == attn::Palette::None);
  CHECK(attn::palette_for(true, nullptr) == attn::Palette::Ansi256);
  CHECK(attn::palette_for(true, "xterm-256color") == attn::Palette::Ansi256);
  CHECK(attn::palette_for(true, "truecolor") == attn::Palette::TrueColor);
  CHECK(attn::palette_for(true, "24bit") == attn::Palette::TrueColor);
}

TEST_CASE("heatmap plain grid: legend, token labels, values and shading after the output") {
  const CliResult r = run_cli(kCausalPlain);
  REQUIRE(r.exit_code == 0);
  const std::string grid =
      "# heatmap of attn_weights: rows are queries, columns keys\n"
      "# automatic scale 0.1477\u20260.2041 (the values are close together: on 0\u20261 they\n"
      "# would all look alike)\n"
      "# \u2591 \u22650.15 \u2592 \u22650.16 \u2593 \u22650.18 \u2588 \u22650.19\n"
      "            Your  journey   starts     with      one     step\n"
      "Your    \u2588 0.1921 \u2592 0.1646 \u2592 0.1652 \u2591 0.1550 \u2592 0.1721 \u2591 0.1510\n";
  check_contains(
      r.out,
      {"        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]],\n       grad_fn=<SoftmaxBackward0>)\n" + grid,
       // masked_simple_norm: the 0s above the diagonal are masked, quarters shade on the fixed scale.
       "# fixed scale 0\u20261 (weights are read against 0 and 1)\n"
       "# \u2591 >0 \u2592 \u22650.25 \u2593 \u22650.5 \u2588 \u22650.75  blank = 0  \u00b7 masked (never attended)\n",
       "journey \u2593 0.5517 \u2592 0.4483 \u00b7 0.0000 \u00b7 0.0000 \u00b7 0.0000 \u00b7 0.0000\n",
       "step    \u2591 0.1935 \u2591 0.1663 \u2591 0.1666 \u2591 0.1542 \u2591 0.1666 \u2591 0.1529\n"
       "# masked_simple_norm.shape: torch.Size([6, 6])\n",
       // bool masks: their values, no marks
       "Your      False \u2588  True \u2588  True \u2588  True \u2588  True \u2588  True\n"});
  CHECK_FALSE(has(r.out, "\x1b"));
}

TEST_CASE("heatmap plain grid: masked -inf cells and min-max scores") {
  const CliResult r = run_cli(kCausalPlain);
  REQUIRE(r.exit_code == 0);
  check_contains(r.out,
                 {"# heatmap of masked: rows are queries, columns keys\n"
                  "# scale from the smallest to the largest value, 0.0078\u20260.4656\n"
                  "# \u2591 \u22650.0078 \u2592 \u22650.12 \u2593 \u22650.24 \u2588 \u22650.35  \u00b7 masked "
                  "(never attended)\n",
                  "Your    \u2593 0.2899 \u00b7   -inf \u00b7   -inf \u00b7   -inf \u00b7   -inf \u00b7   -inf\n",
                  "# heatmap of attn_scores: rows are queries, columns keys\n"
                  "# scale from the smallest to the largest value, -0.0511\u20260.4656\n"});
}

TEST_CASE("heatmap leading dims: one grid per batch and head, index labels when not one row per token") {
  const CliResult r = run_cli("mha --heatmap --color never");
  REQUIRE(r.exit_code == 0);
  CHECK(has(r.out,
            "# heatmap of a @ a.transpose(2, 3): rows are queries, columns keys\n"
            "# scale from the smallest to the largest value, 0.4391\u20262.2150\n"));
  CHECK(has(r.out, "batch 0, head 1:\n         0        1        2\n0 \u2591 0.4391 \u2591 0.7003 \u2591 0.5903\n"));
  CHECK(has(r.out, "batch 1, head 1:\n"));
  const CliResult d = run_cli("dropout --heatmap --color never");
  CHECK(has(d.out,
            "# heatmap of dropout(example): rows are queries, columns keys\n"
            "# scale 0\u20262.0000 (kept weights are scaled by 1/(1-p))\n"));
  CHECK(has(d.out, "[1]:\n"));  // three dims: the index as Python writes it
}

TEST_CASE("heatmap off: the text is unchanged, and the heatmap only adds lines") {
  const CliResult plain = run_cli("causal-mask --color never");
  const CliResult heat = run_cli(kCausalPlain);
  CHECK_FALSE(has(plain.out, "# heatmap"));
  // Every line of the plain text appears in the heatmap text, in order.
  size_t at = 0;
  size_t start = 0;
  while (start < plain.out.size()) {
    const size_t end = plain.out.find('\n', start);
    const std::string line = plain.out.substr(start, end - start + 1);
    at = heat.out.find(line, at);
    REQUIRE_MESSAGE(at != std::string::npos, "missing: " << line);
    at += line.size();
    start = end + 1;
  }
  // The JSON export holds no pictures (with --json -, --heatmap is refused: tests/test_cli_messages.cpp).
  const std::string dir = temp_dir();
  REQUIRE(run_cli("causal-mask --heatmap --json '" + dir + "/heat.json'").exit_code == 0);
  CHECK(read_text_file(dir + "/heat.json") == run_cli("causal-mask --json -").out);
}

TEST_CASE("heatmap colour: none in a pipe, 256 colours with --color always") {
  const ScopedEnv colorterm("COLORTERM", std::nullopt);
  const ScopedEnv no_color("NO_COLOR", std::nullopt);
  CHECK_FALSE(has(run_cli("causal-mask --heatmap").out, "\x1b"));
  const CliResult r = run_cli("causal-mask --heatmap --color always");
  CHECK(has(r.out, "\x1b[48;5;"));
  CHECK_FALSE(has(r.out, "\x1b[48;2;"));
  CHECK_FALSE(has(r.out, "\u2591"));                                 // colour replaces the shading characters
  CHECK(has(r.out, "\x1b[48;5;237m\x1b[38;5;250m   -inf \x1b[0m"));  // masked: grey
  CHECK(has(run_cli("dropout --heatmap --color always").out,
            "\x1b[48;5;125m\x1b[38;5;231m 0.0000 \x1b[0m"));  // dropped: red
}

TEST_CASE("heatmap colour: 24-bit with COLORTERM truecolor or 24bit, never into a pipe") {
  for (const char* value : {"truecolor", "24bit"}) {
    CAPTURE(value);
    const ScopedEnv colorterm("COLORTERM", std::string(value));
    const CliResult r = run_cli("causal-mask --heatmap --color always");
    CHECK(has(r.out, "\x1b[48;2;253;231;37m"));  // the top of the scale
    CHECK_FALSE(has(r.out, "\x1b[48;5;"));
    CHECK_FALSE(has(run_cli("causal-mask --heatmap").out, "\x1b"));
    CHECK_FALSE(has(run_cli("causal-mask --heatmap --color never").out, "\x1b"));
  }
}
