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
  const std::string en = "Dividing by sqrt(d_k) keeps the scores from growing with the embedding size, so softmax "
                         "does not saturate into a one-hot vector with vanishing gradients.";
  const std::string zh = "除以 sqrt(d_k) 可以防止注意力分数随嵌入维度增大而变大，这样 softmax 就不会饱和成独热向量，"
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
