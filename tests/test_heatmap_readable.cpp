// Pictures that say what they show. d2l-mha's matrices over torch.ones or random
// scores are labelled by position, not with the book's tokens; course-mha's `out = mha(x)` draws the
// weights of every head (heads[0] too); 9 to 15 tokens keep a number in every cell (two decimals), and
// a grid too wide even for that shades on a ramp over the values it shows.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "notebook/text_width.h"
#include "run_cli.h"

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The lines of the picture whose title line contains `title` (up to the next line not a picture line).
std::vector<std::string> picture(const std::string& text, const std::string& title, int nth = 0) {
  std::vector<std::string> out;
  bool in = false;
  for (const std::string& line : lines_of(text)) {
    if (!in && has(line, title) && nth-- == 0)
      in = true;
    else if (in &&
             (line.empty() || line.rfind("tensor(", 0) == 0 || line.rfind("In [", 0) == 0 || has(line, ".shape: ")))
      break;
    if (in) out.push_back(line);
  }
  return out;
}

// The picture titled `title` whose legend marks masked cells (the causal weights, not the plain ones).
std::vector<std::string> masked_picture(const std::string& text, const std::string& title) {
  for (int nth = 0; nth < 20; ++nth) {
    const std::vector<std::string> p = picture(text, title, nth);
    if (p.empty()) break;
    for (const std::string& line : p)
      if (line.find("masked (never attended)") != std::string::npos) return p;
  }
  return {};
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

}  // namespace

TEST_CASE("heatmap labels: d2l-mha on torch.ones numbers its axes and says why, its own tokens label them") {
  const std::string plain = run_cli("d2l-mha --heatmap --color never").out;
  const std::string weights = joined(picture(plain, "# heatmap of self.attention_weights"));
  CAPTURE(weights);
  REQUIRE(!weights.empty());
  check_lacks(weights, {"journey", "Your"});
  check_contains(weights, {"positions", "not the tokens", "         0        1        2        3        4        5\n"});
  // The random scores of the first cells are never the tokens, even when the learner gives 4 of them.
  const std::string own = run_cli("d2l-mha --heatmap --color never --tokens 'red green blue gold'").out;
  const std::string scores = joined(picture(own, "# heatmap of masked_softmax(X, valid_lens)"));
  CHECK_FALSE(has(scores, "green"));
  CHECK(has(scores, "positions"));
  const std::string mine = joined(picture(own, "# heatmap of self.attention_weights"));
  CHECK(has(mine, "green"));
  CHECK_FALSE(has(mine, "positions"));
  // The HTML report: no book tokens in d2l-mha's pictures or its header, its inputs named as they are.
  const std::string html = run_cli("d2l-mha --html -").out;
  check_lacks(html, {"journey</text>", "data-key=\"journey\"", "Your journey starts with one step &middot;"});
  CHECK(has(html, "torch.ones"));
  const std::string html_own = run_cli("d2l-mha --tokens 'red green blue gold' --html -").out;
  CHECK(has(html_own, "green</text>"));
  // Chinese: the reason in Chinese.
  CHECK(has(run_cli("d2l-mha --heatmap --color never --lang zh").out, "这个单元的输入不是词元"));
}

TEST_CASE("heatmap heads: course-mha's out = mha(x) draws the weights of every head, heads[0] included") {
  for (const char* args : {"course-mha", "course-mha --dropout 0", "course-mha --num-heads 1 --d-model 3"}) {
    CAPTURE(args);
    const std::string text = run_cli(std::string(args) + " --heatmap --color never").out;
    // The cell of `out = mha(x)`: its pictures come before "In [7]".
    const size_t call = text.find(">>> out = mha(x)"), next = text.find("In [7]:");
    REQUIRE(call != std::string::npos);
    REQUIRE(next != std::string::npos);
    const std::string cell = text.substr(call, next - call);
    const int heads = std::string(args).find("--num-heads 1") != std::string::npos ? 1 : 3;
    for (int h = 0; h < heads; ++h) {
      CAPTURE(h);
      CHECK(has(cell, "inside head " + std::to_string(h) + "'s forward"));
    }
  }
}

TEST_CASE("heatmap 9 to 15 tokens: every cell keeps its value to two decimals, within 80 columns") {
  const std::string text = run_cli("causal-mask --heatmap --color never --tokens 'a b c d e f g h i j k l'").out;
  const std::vector<std::string> weights = masked_picture(text, "# heatmap of attn_weights: rows are queries");
  const std::string w = joined(weights);
  CAPTURE(w);
  REQUIRE(weights.size() > 12);
  CHECK(has(w, "# values to two decimals (.08 is 0.08), to fit 80 columns; columns are numbered\n# like the rows\n"));
  CHECK_FALSE(has(w, "shading only"));
  // The last row: 12 weights of about 1/12, each written (".08", ".09", ...), none blank.
  const std::string last = weights.back();
  CHECK(last.rfind("11 l ", 0) == 0);
  int numbers = 0;
  for (size_t at = last.find('.'); at != std::string::npos; at = last.find('.', at + 1)) ++numbers;
  CHECK(numbers == 12);
  // Row 0: one weight of 1.0, then 11 masked cells, each a · with its 0.
  CHECK(has(weights[weights.size() - 12], "█1.0 ·  0 ·  0"));
  for (const std::string& line : weights) {
    CAPTURE(line);
    CHECK(attn::visible_width(line) <= 80);
  }
  // Negative scores keep their sign: "-.14".
  const std::string scores = joined(picture(run_cli("course-mha --heatmap --color never --preset post --tokens "
                                                    "'a b c d e f g h i j'")
                                                .out,
                                            "# heatmap of"));
  CHECK(has(scores, "# values to two decimals"));
  // In colour too: every cell has its number, and the lines fit.
  const std::string colour = run_cli("causal-mask --heatmap --color always --tokens 'a b c d e f g h i j k l'").out;
  CHECK(has(colour, "# values to two decimals"));
  for (const std::string& line : lines_of(colour))
    if (line.find("\x1b[48;") != std::string::npos) CHECK(attn::visible_width(line) <= 80);
}

TEST_CASE("heatmap 16 tokens: shading only, each shade a quarter of the values shown (not all the lightest)") {
  const std::string text =
      run_cli("causal-mask --heatmap --color never --tokens 'a b c d e f g h i j k l m n o p'").out;
  const std::vector<std::string> weights = masked_picture(text, "# heatmap of attn_weights: rows are queries");
  const std::string w = joined(weights);
  CAPTURE(w);
  CHECK(has(w, "shading only"));
  // The shades split the unmasked values shown (about 1/16 up to 1) at their quartiles, not the fixed 0…1
  // and not the range's quarters (on which most of a 16-token causal grid is its lightest quarter).
  CHECK(has(w, "# shades by quarters of the values shown (0.0"));
  CHECK(has(w, "…1.0000): each shade holds about"));
  CHECK_FALSE(has(w, "fixed scale"));
  int shades[4] = {0, 0, 0, 0};
  const char* glyphs[4] = {"\u2591\u2591", "\u2592\u2592", "\u2593\u2593", "\u2588\u2588"};
  for (int g = 0; g < 4; ++g)
    for (size_t at = w.find(glyphs[g]); at != std::string::npos; at = w.find(glyphs[g], at + 1)) ++shades[g];
  // 136 unmasked cells: each shade about a quarter of them (ties at a cut may move a few).
  for (int g = 0; g < 4; ++g) {
    CAPTURE(g);
    CHECK(shades[g] >= 136 / 8);
    CHECK(shades[g] <= 136 / 2);
  }
  // A mask keeps its fixed 0…1 (True is full, False blank).
  CHECK(has(text, "# fixed scale 0…1\n"));
}
