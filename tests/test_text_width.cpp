// Wrapping annotations: English at spaces, Chinese between characters, by display width.
#include <doctest/doctest.h>

#include <sstream>

#include "notebook/text_width.h"

using namespace attn;

TEST_CASE("text: display width counts CJK characters as two columns") {
  CHECK(display_width("abc") == 3);
  CHECK(display_width("注意力") == 6);
  CHECK(display_width("d_k 是 2") == 8);
}

TEST_CASE("text: wrapping keeps every line within the width, in both languages") {
  const std::string en =
      "Dividing by sqrt(d_k) keeps the scores from growing with the embedding size, so softmax "
      "does not saturate into a one-hot vector with vanishing gradients.";
  const std::string zh =
      "除以 sqrt(d_k) 可以防止注意力分数随嵌入维度增大而变大，这样 softmax 就不会饱和成独热向量，"
      "梯度也不会消失。在类 GPT 大语言模型中，嵌入维度通常大于 1000。";
  for (const std::string& text : {en, zh}) {
    const std::string wrapped = wrap_text(text, "# ", 40);
    std::istringstream lines(wrapped);
    int count = 0;
    for (std::string line; std::getline(lines, line); ++count) {
      CAPTURE(line);
      CHECK(display_width(line) <= 40);
      CHECK(line.rfind("# ", 0) == 0);
      CHECK(line.find("# ，") == std::string::npos);  // never a line starting with a comma
    }
    CHECK(count >= 3);
  }
  CHECK(wrap_text("a b", "# ", 80) == "# a b\n");
}

namespace {

std::vector<std::string> wrapped_lines(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::istringstream in(wrap_text(text, "# ", width));
  for (std::string line; std::getline(in, line);) lines.push_back(line.substr(2));
  return lines;
}

// The text again from its lines: joined with a space where the break was at one, else directly.
bool every_token_whole(const std::vector<std::string>& lines, const std::vector<std::string>& tokens) {
  for (const std::string& t : tokens) {
    bool found = false;
    for (const std::string& line : lines) found = found || line.find(t) != std::string::npos;
    if (!found) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("text: wrapping never splits a number, in English or inside Chinese") {
  const std::vector<std::string> numbers = {"0.4419", "-1.2e-05", "1.4285714285714286", "sqrt(d_k)"};
  const std::string en =
      "The scale is 1.4285714285714286 and the smallest weight -1.2e-05, next to 0.4419 in the "
      "row; the scores are divided by sqrt(d_k) first.";
  const std::string zh =
      "缩放因子是1.4285714285714286，最小的注意力权重是-1.2e-05，旁边的数值是0.4419，而注意力分数先除以"
      "sqrt(d_k)，再做softmax得到tensor([0.4419, 0.6515])这样的结果。";
  for (size_t width = 12; width <= 80; ++width) {
    CAPTURE(width);
    for (const std::string& text : {en, zh}) {
      const std::vector<std::string> lines = wrapped_lines(text, width);
      CHECK(every_token_whole(lines, numbers));
      // only a token wider than the line itself ("1.4285714285714286，") may overflow it
      for (const std::string& line : lines) CHECK(display_width(line) <= std::max<size_t>(width - 2, 20));
    }
    CHECK(every_token_whole(wrapped_lines(zh, width), {"tensor([0.4419,", "0.6515])"}));
  }
}

TEST_CASE("text: Chinese breaks after punctuation, not inside a word such as 乘法") {
  // The note of softmax --explain that once ended a line in 乘 and began the next with 法.
  const std::string zh =
      "矩阵乘法 inputs @ inputs.T 一次算出所有注意力分数，这比两层 for 循环快得多：每一行都是一个查询与"
      "所有键的点积，所以结果是一个 6×6 的矩阵，第 i 行第 j 列是词元 i 与词元 j 的相似度。";
  for (size_t width = 20; width <= 80; ++width) {
    CAPTURE(width);
    const std::vector<std::string> lines = wrapped_lines(zh, width);
    REQUIRE(!lines.empty());
    for (size_t i = 0; i + 1 < lines.size(); ++i) {
      CAPTURE(lines[i]);
      const std::string& l = lines[i];
      CHECK(l.substr(l.size() >= 3 ? l.size() - 3 : 0) != "乘");  // never 乘 / 法
      CHECK(lines[i + 1].rfind("，", 0) != 0);
      CHECK(lines[i + 1].rfind("。", 0) != 0);
    }
    CHECK(every_token_whole(lines, {"乘法", "inputs.T", "6×6"}));
  }
  // Where a punctuation mark or a space falls within the width, the break is there.
  const std::vector<std::string> lines = wrapped_lines("第一句话说完了，第二句话也说完了。", 22);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "第一句话说完了，");
  CHECK(lines[1] == "第二句话也说完了。");
  // A run wider than a whole line, with no punctuation: broken between characters, never inside ASCII.
  const std::vector<std::string> long_run =
      wrapped_lines("这是一个没有任何标点符号而且非常非常长的中文句子里面还有变量attn_weights", 20);
  CHECK(long_run.size() >= 3);
  CHECK(every_token_whole(long_run, {"attn_weights"}));
}

TEST_CASE("text: colour sequences take no columns") {
  CHECK(attn::strip_escapes("\x1b[48;5;22m 0.25 \x1b[0m|") == " 0.25 |");
  CHECK(attn::visible_width("\x1b[38;2;1;2;3m乘法\x1b[0m ab") == 7);
  CHECK(attn::visible_width("plain") == 5);
}
