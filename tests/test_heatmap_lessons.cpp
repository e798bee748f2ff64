// --heatmap over every lesson: every attention matrix (and every head's weights inside a module) gets
// a picture, every line of it fits 80 columns with 16 tokens, its legend is Chinese under --lang zh,
// masked and dropped cells look different, and 1-D weights are bars.
#include <doctest/doctest.h>

#include <regex>
#include <set>

#include "lessons/lesson.h"
#include "notebook/attention_matrix.h"
#include "notebook/heatmap.h"
#include "notebook/text_width.h"
#include "notebook/notebook_maps.h"
#include "notebook/picture_text.h"
#include "run_cli.h"

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The lines --heatmap adds to a lesson's text (every line of the text without it is kept, in order).
std::vector<std::string> heatmap_lines(const std::string& args) {
  const std::vector<std::string> plain = lines_of(run_cli(args).out), heat = lines_of(run_cli(args + " --heatmap").out);
  std::vector<std::string> added;
  size_t p = 0;
  for (const std::string& line : heat) {
    if (p < plain.size() && line == plain[p])
      ++p;
    else
      added.push_back(line);
  }
  CHECK(p == plain.size());
  return added;
}

const char* kSixteen =
    "Your journey starts with one step and then another long-winded excursion through "
    "attention matrices today, friend";

bool same_values(const attn::Tensor& a, const attn::Tensor& b) {
  return a.shape() == b.shape() && a.values() == b.values();
}

}  // namespace

TEST_CASE("heatmap for every lesson: every attention matrix and every head's weights get a picture") {
  for (const attn::LessonInfo& l : attn::lessons()) {
    CAPTURE(l.name);
    const attn::Notebook nb = l.run(attn::LessonOptions{});
    const auto maps = attn::all_maps(nb);
    auto pictured = [&](const attn::Tensor& t) {
      for (const auto& [item, m] : maps)
        if (same_values(m.tensor.tensor, t)) return true;
      return false;
    };
    // Every shown attention matrix or 1-D weights.
    int weights = 0;
    for (const attn::NotebookItem& item : nb.items())
      if (item.tensor >= 0 && attn::has_picture(nb.tensors()[item.tensor])) {
        CHECK(pictured(nb.tensors()[item.tensor].tensor));
        weights += has(nb.tensors()[item.tensor].name, "weights") || has(nb.tensors()[item.tensor].name, "softmax");
      }
    // Every attention weights a forward computes (softmax's or dropout's), shown or not.
    std::vector<attn::Binding> all = nb.timeline();
    all.insert(all.end(), nb.inside_values().begin(), nb.inside_values().end());
    for (const attn::Binding& b : all) {
      const bool is_weights = (has(b.name, "weights") || has(b.name, "softmax")) &&
                              (has(b.code, "softmax") || has(b.code, "dropout")) &&
                              attn::is_attention_matrix({b.name, b.cell, b.code, b.tensor});
      if (!is_weights) continue;
      ++weights;
      CAPTURE(b.name);
      CAPTURE(b.code);
      CHECK(pictured(b.tensor));
    }
    // Every lesson but the first (raw dot products) computes attention weights.
    if (l.name != "naive-scores")
      CHECK_MESSAGE(weights > 0, l.name << " shows no attention weights, so --heatmap draws nothing for it");
  }
}

TEST_CASE("heatmap for every lesson: the lessons that drew nothing now draw their weights, per head") {
  const std::string trainable = run_cli("trainable --heatmap --color never").out;
  check_contains(trainable, {"# heatmap of attn_weights inside the module's forward: rows are queries, columns",
                             "# bars of attn_weights_2: one bar per token\n"});
  const std::string wrapper = run_cli("wrapper --heatmap --color never").out;
  check_contains(wrapper, {"# heatmap of attn_weights inside head 0's forward",
                           "# heatmap of attn_weights inside head 1's forward"});
  CHECK_FALSE(has(wrapper, "inside head 2's"));
  CHECK(has(run_cli("wrapper --heatmap --color never --num-heads 3").out, "inside head 2's forward"));
  const std::string d2l = run_cli("d2l-mha --heatmap --color never").out;
  // (their axes are positions, which the title says: tests/test_heatmap_readable.cpp)
  check_contains(d2l, {"# heatmap of masked_softmax(X, valid_lens): rows are queries, columns keys; rows",
                       "# heatmap of self.attention_weights: rows are queries, columns keys; rows and"});
  const std::string course = run_cli("course-mha --heatmap --color never").out;
  CHECK(has(course, "inside head 1's forward"));
  for (const char* lesson : {"mha", "kv-cache", "gqa", "mla", "swa"}) {
    CAPTURE(lesson);
    CHECK(has(run_cli(std::string(lesson) + " --heatmap --color never").out,
              "# heatmap of attn_weights: rows are queries"));
  }
}

TEST_CASE("heatmap for every lesson: every line fits 80 columns with 16 tokens, in both languages and in colour") {
  const std::string tokens = std::string(" --tokens '") + kSixteen + "'";
  for (const attn::LessonInfo& l : attn::lessons()) {
    for (const char* lang : {"en", "zh"}) {
      CAPTURE(l.name);
      CAPTURE(lang);
      const std::string args = l.name + tokens + " --lang " + lang;
      const std::vector<std::string> added = heatmap_lines(args + " --color never");
      CHECK(added.size() > 5);
      for (const std::string& line : added) {
        CAPTURE(line);
        CHECK(attn::visible_width(line) <= 80);
      }
      for (const std::string& line : lines_of(run_cli(args + " --heatmap --color always").out))
        if (has(line, "\x1b[48;")) CHECK(attn::visible_width(line) <= 80);
    }
  }
  // Wide (CJK) tokens take two columns each.
  for (const char* lesson : {"causal-mask", "d2l-mha", "trainable"}) {
    CAPTURE(lesson);
    for (const std::string& line : heatmap_lines(
             std::string(lesson) + " --color never --lang zh --tokens '你的 旅程 从 "
                                   "一步 开始 然后 又是 另一个 很长很长的 远足 穿过 注意力 矩阵 今天 朋友 再见'"))
      CHECK(attn::visible_width(line) <= 80);
  }
  // 16 tokens of 6-digit values: no values, numbered columns, and a legend that says so.
  const std::string r = run_cli(std::string("causal-mask --heatmap --color never") + tokens).out;
  CHECK(has(r, "# shading only, to fit 80 columns; columns are numbered like the rows\n"));
  CHECK(has(r, "            0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15\n"));
}

TEST_CASE("heatmap legends under --lang zh: Chinese prose, no English words") {
  // Words a Chinese legend may hold: code (dropout, forward are names in the code), values.
  const std::set<std::string> code_words = {"dropout", "forward", "inf", "True", "False"};
  const std::regex word("[A-Za-z]{2,}");
  for (const attn::LessonInfo& l : attn::lessons()) {
    CAPTURE(l.name);
    const attn::Notebook nb = l.run(attn::LessonOptions{});
    std::vector<std::string> names;
    for (const auto& [item, m] : attn::all_maps(nb)) names.push_back(m.tensor.name);
    std::sort(names.begin(), names.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    int legends = 0;
    for (std::string line : heatmap_lines(l.name + " --lang zh --color never")) {
      if (line.rfind("# ", 0) != 0) {  // a grid's caption ("批次 0，头 1:") or rows
        if (line.back() == ':') CHECK_FALSE(std::regex_search(line, word));
        continue;
      }
      ++legends;
      for (const std::string& n : names)
        for (size_t at = line.find(n); at != std::string::npos; at = line.find(n)) line.erase(at, n.size());
      for (auto it = std::sregex_iterator(line.begin(), line.end(), word); it != std::sregex_iterator(); ++it) {
        CAPTURE(line);
        CHECK(code_words.count(it->str()) == 1);
      }
    }
    if (l.name != "all") CHECK(legends > 0);
  }
  CHECK(has(run_cli("mha --heatmap --color never --lang zh").out, "批次 0，头 1:\n"));
}

TEST_CASE("heatmap marks: dropped and masked cells have their own glyph and legend entry") {
  const std::string out = run_cli("dropout --heatmap --color never --dropout 0.5").out;
  CHECK(has(out, "\u00b7 masked (never attended)  \u00d7 dropped by dropout\n"));
  CHECK(has(out, "journey \u00d7 0.0000 \u00d7 0.0000 \u00b7 0.0000"));  // dropped below the diagonal, masked above
  // d2l's dropout of masked_softmax's weights (no causal triangle): masked where the weights were 0.
  const std::string d2l = run_cli("d2l-mha --heatmap --color never --dropout 0.5").out;
  CHECK(has(d2l, "# heatmap of self.dropout(self.attention_weights)"));
  CHECK(has(d2l, "0 \u2591 0.6667 \u2591 0.6667 \u2591 0.6667 \u00b7 0.0000 \u00b7 0.0000 \u00b7 0.0000\n"));
  CHECK(has(d2l, "1 \u00d7 0.0000 \u2591 0.6667 \u2591 0.6667 \u00b7 0.0000"));
  const std::string zh = run_cli("dropout --heatmap --color never --dropout 0.5 --lang zh").out;
  CHECK(has(zh, "\u00b7 已遮蔽（不参与注意力）  \u00d7 被 dropout 丢弃\n"));
}

TEST_CASE("heatmap bars: one bar per token for 1-D weights, scaled to the largest") {
  const std::string out = run_cli("trainable --heatmap --color never").out;
  CHECK(has(out,
            "tensor([0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820])\n"
            "# bars of attn_weights_2: one bar per token\n"
            "# bar length 0\u20260.2264 (the largest value)\n"
            "Your    0.1500 \u2588"));
  const std::vector<std::string> lines = lines_of(out);
  const auto at = std::find(lines.begin(), lines.end(), "# bars of attn_weights_2: one bar per token");
  REQUIRE(at != lines.end());
  CHECK(at[3] == "journey 0.2264 " + [] {
    std::string s;
    for (int i = 0; i < 40; ++i) s += "\u2588";
    return s;
  }());
  for (int i = 2; i < 8; ++i) CHECK(has(at[i], "\u2588"));
  CHECK(has(run_cli("softmax --heatmap --color never").out, "# bars of attn_weights_2: one bar per token\n"));
}

TEST_CASE("the pictures' text table: every key in English and Chinese") {
  CHECK(attn::picture_text().incomplete().empty());
  CHECK(attn::picture_say("map.masked", attn::Lang::Zh) == "已遮蔽（不参与注意力）");
  CHECK(attn::picture_text().keys().size() > 20);
}
