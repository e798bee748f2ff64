// Notes that must say what the code does: rows, heads and sentences counted from 0
// as the code indexes them; the wrapper's seed note only calls the numbers the book's at the book's
// seed and settings; dropout's expected row sum from the rate; no speed claim for MultiHeadAttention's
// one matmul that `bench` contradicts; gqa's cache ratio and where its parameters differ, computed.
#include <doctest/doctest.h>

#include <regex>
#include <string>
#include <vector>

#include "run_cli.h"

namespace {

std::string notes(const std::string& args) {
  const CliResult r = run_cli(args + " --explain --color never");
  REQUIRE_MESSAGE(r.exit_code == 0, args << ": " << r.err);
  // the notes wrap at 80 columns: join the comment lines so a phrase split across lines is found
  std::string joined;
  size_t start = 0;
  while (start < r.out.size()) {
    size_t end = r.out.find('\n', start);
    if (end == std::string::npos) end = r.out.size();
    const std::string line = r.out.substr(start, end - start);
    if (line.rfind("# ", 0) == 0)
      joined += (joined.empty() || joined.back() == '\n' ? "" : " ") + line.substr(2);
    else
      joined += "\n";
    start = end + 1;
  }
  return joined;
}

bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

}  // namespace

TEST_CASE("notes: rows, heads and sentences are counted from 0, as the code indexes them") {
  // causal-mask: "journey" is attn_weights[1]; the old note said "(row 2)", and attn_scores[2] is "starts"
  const std::string mask = notes("causal-mask");
  CHECK(has(mask, "\"journey\" (row 1: rows count from 0, as the code does) may look at \"Your\" (row 0)"));
  CHECK(!has(mask, "(row 2)"));
  CHECK(has(mask, "row 0 keeps only \"Your\"'s own share"));
  CHECK(has(mask, "Row 0 has a single finite score"));
  const std::string mask_zh = notes("causal-mask --lang zh");
  CHECK(has(mask_zh, "\"journey\"（第 1 行：行号和代码一样从 0 数起）只能看到 \"Your\"（第 0 行）"));
  CHECK(!has(mask_zh, "（第 2 行）"));

  CHECK(has(notes("naive-scores"), "row 1, attn_scores[1], is attn_scores_2 again"));
  CHECK(has(notes("softmax"), "Row 1, attn_weights[1], is attn_weights_2"));
  CHECK(has(notes("wrapper"), "the first 2 columns are head 0, the next 2 head 1"));
  CHECK(!has(notes("wrapper"), "columns 1.."));
  const std::string d2l = notes("d2l-mha"), d2l_zh = notes("d2l-mha --lang zh");
  CHECK(has(d2l, "(sentence 0, head 0), (sentence 0, head 1), (sentence 1, head 0), (sentence 1, head 1)"));
  CHECK(has(d2l, "head 0 takes features 0-1 of every word, head 1 features 2-3"));
  CHECK(has(d2l_zh, "（句子 0, 头 0）、（句子 0, 头 1）、（句子 1, 头 0）、（句子 1, 头 1）"));
  CHECK(!has(d2l_zh, "头 2 的"));
  const std::string gqa = notes("gqa");
  CHECK(has(gqa, "[K0, K1] into [K0, K0, K1, K1]"));
  CHECK(!has(gqa, "K2"));
  // kv-cache with context_length 6: the 7th token is index 6 and needs row 6, one past rows 0..5
  CHECK(has(notes("kv-cache"), "context_length = 6 rows, rows 0..5. The next token, at index 6, would need row 6"));

  // every lesson, both languages: none of the 1-based phrasings the notes had
  for (const char* lesson : {"naive-scores", "softmax", "trainable", "causal-mask", "wrapper", "mha", "d2l-mha"}) {
    for (const char* lang : {"en", "zh"}) {
      CAPTURE(lesson);
      CAPTURE(lang);
      const std::string text = notes(std::string(lesson) + " --lang " + lang);
      for (const char* old : {"row 2 is", "Row 2 is", "row 2 as printed", "row 2 need", "row 2 no longer", "Row 1 is",
                              "row 1 keeps", "Row 1 has", "row 1 becomes", "第 2 行", "任务 1", "句子 2", "task 1"})
        CHECK_MESSAGE(!has(text, old), old);
    }
  }
}

TEST_CASE("notes: the wrapper calls its numbers the book's only at the book's seed and settings") {
  const std::string book = "is what makes these numbers the book's";
  CHECK(has(notes("wrapper"), book));
  CHECK(has(notes("wrapper --seed 123"), book));
  for (const char* other : {"wrapper --seed 5", "wrapper --num-heads 3", "wrapper --d-out 4", "wrapper --dropout 0.5",
                            "wrapper --qkv-bias", "wrapper --tokens 'a b c'"}) {
    CAPTURE(other);
    const std::string text = notes(other);
    CHECK(!has(text, book));
    CHECK(has(text, "is what fixes these numbers, the same on every run"));
  }
  CHECK(has(notes("wrapper --seed 5 --lang zh"), "torch.manual_seed(5) 固定了这些数值"));
  CHECK(has(notes("wrapper --lang zh"), "torch.manual_seed(123) 正是这些数值与书中一致的原因"));
}

TEST_CASE("notes: dropout's expected row sum follows the rate (1 below p = 1, 0 at p = 1)") {
  const std::string all = notes("dropout --dropout 1");
  CHECK(!has(all, "expected row sum is still 1"));
  CHECK(has(all, "With Dropout(1.0) every weight is dropped: every row sums to 0, and so does its expected value"));
  CHECK(!has(notes("dropout --dropout 1 --lang zh"), "期望值仍为 1"));
  const std::string half = notes("dropout --dropout 0.5");
  CHECK(has(half, "Only the expected row sum is still 1: at p = 0.5 each weight is kept with probability 1-p"));
  CHECK(has(notes("dropout --dropout 0.999"), "Only the expected row sum is still 1: at p = 0.999"));
}

TEST_CASE("notes: mha's one matmul per role claims no speed that bench contradicts") {
  const std::string mha = notes("mha");
  CHECK(!has(mha, "cheaper"));
  CHECK(!has(mha, "faster"));
  CHECK(has(mha, "the same multiply-adds, in fewer and larger products (fewer kernel launches)"));
  CHECK(has(mha, "`attn-tutor bench` times it"));
  CHECK(!has(notes("mha --lang zh"), "更高效"));
}

TEST_CASE("notes: gqa's cache ratio and parameter difference are computed, out_proj's bias named") {
  // num_kv_groups = num_heads: plain multi-head attention, and the 8 of 136 vs 144 are out_proj's bias
  const std::string same = notes("gqa --num-heads 4 --num-kv-groups 4");
  CHECK(!has(same, "1 times fewer"));
  CHECK(has(same,
            "136 parameters against 144 for MultiHeadAttention, and 16 numbers cached per token and layer "
            "against 16: the same number: with --num-kv-groups equal to the number of heads this is plain "
            "multi-head attention. The 8 parameters fewer are entirely out_proj's bias"));
  CHECK(!has(notes("gqa --num-heads 4 --num-kv-groups 4 --lang zh"), "1 倍"));
  // otherwise: W_key and W_value give 2 x (d_in [+ 1 with bias]) x (d_out - num_kv_groups x head_dim), out_proj d_out
  struct Case {
    const char* args;
    int gqa, mha, kv, bias;
  };
  for (const Case& c :
       {Case{"gqa", 112, 144, 2 * 3 * (8 - 4), 8}, Case{"gqa --num-kv-groups 1", 100, 144, 2 * 3 * (8 - 2), 8},
        Case{"gqa --qkv-bias", 128, 168, 2 * 4 * (8 - 4), 8},
        // d_in 3, d_out 16, head_dim 4: 48 + 2 x 24 + 256 against 3 x 48 + 256 + 16
        Case{"gqa --d-out 16 --num-heads 4 --num-kv-groups 2", 352, 416, 2 * 3 * (16 - 8), 16}}) {
    CAPTURE(c.args);
    const std::string text = notes(c.args);
    CHECK(c.mha - c.gqa == c.kv + c.bias);
    CHECK(has(text, std::to_string(c.gqa) + " parameters against " + std::to_string(c.mha)));
    CHECK(has(text, "Of the " + std::to_string(c.mha - c.gqa) + " parameters fewer, " + std::to_string(c.kv) +
                        " are in W_key and W_value"));
    CHECK(has(text, "and " + std::to_string(c.bias) + " are out_proj's bias"));
  }
}

TEST_CASE("notes: at dropout rate 0 or 1 the Intel confusion says every machine prints the same") {
  for (const char* rate : {"0", "1"}) {
    CAPTURE(rate);
    const CliResult r = run_cli(std::string("dropout --color never --dropout ") + rate);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("so Intel prints the same here") != std::string::npos);
    CHECK(r.out.find("reproduces the Intel masks") == std::string::npos);
  }
  const CliResult book = run_cli("dropout --color never");
  CHECK(book.out.find("so Intel prints the same here") == std::string::npos);
  CHECK(book.out.find("reproduces the Intel masks") != std::string::npos);
}
