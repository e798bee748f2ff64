// A note that quotes a figure of a tensor quotes it as the tensor above it prints it: the printer's
// own element_text, so a note and its tensor cannot disagree (fixed or scientific notation alike).
#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "core/inputs.h"
#include "core/tensor_print.h"
#include "lessons/lesson.h"

using namespace attn;

namespace {

// The cells of a printed 1-D tensor, in order: "tensor([0.1000, 2.0000])" -> {"0.1000", "2.0000"}.
std::vector<std::string> printed_cells(const std::string& repr_text) {
  const size_t open = repr_text.find('['), close = repr_text.find(']');
  std::vector<std::string> cells;
  std::string cell;
  for (size_t i = open + 1; i <= close; ++i) {
    const char c = repr_text[i];
    if (c == ',' || c == ']') {
      cells.push_back(cell);
      cell.clear();
    } else if (c != ' ') {
      cell += c;
    }
  }
  return cells;
}

// Every figure in `text` written as print(t) writes a float cell: 4 decimals, or 4 decimals and an
// exponent ("0.2098", "-1.2346e+02").
std::vector<std::string> quoted_figures(const std::string& text) {
  static const std::regex figure(R"((^|[^0-9.])(-?[0-9]+\.[0-9]{4}(e[+-][0-9]{2})?)(?![0-9]))");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), figure); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[2].str());
  return out;
}

// Embeddings whose softmax weights span more than 1000x, so PyTorch prints them in scientific
// notation: a "%.4f" figure in a note would then disagree with the tensor.
Inputs spread_inputs() {
  Inputs in;
  in.tokens = {"a", "b", "c", "d"};
  in.embeddings = Tensor({4, 3}, {3.0f, 0.1f, 2.5f, 2.9f, 0.2f, 2.4f, 0.1f, 0.05f, 0.02f, 1.5f, 2.0f, 0.3f});
  return in;
}

}  // namespace

TEST_CASE("note figures: element_text is the cell print(t) writes, in every print mode") {
  const std::vector<std::vector<float>> rows = {{0.1385f, 0.2379f, 0.2333f, 0.1240f},  // fixed, 4 decimals
                                                {1.0f, 2.0f, -3.0f},                   // integral floats: "1.", "-3."
                                                {1.0e-6f, 0.5f, 123456.0f},            // scientific
                                                {0.0f, -0.0f, 0.25f},                  // zeros in fixed mode
                                                {-INFINITY, 0.5f, 0.25f}};             // -inf beside finite values
  for (const std::vector<float>& v : rows) {
    const Tensor t({static_cast<int64_t>(v.size())}, v);
    const std::vector<std::string> cells = printed_cells(repr(t));
    CAPTURE(repr(t));
    REQUIRE(cells.size() == v.size());
    for (size_t i = 0; i < v.size(); ++i) CHECK(element_text(t, static_cast<int64_t>(i)) == cells[i]);
  }
  const Tensor sci({3}, {1.0e-6f, 0.5f, 123456.0f});
  CHECK(element_text(sci, 1) == "5.0000e-01");
  const Tensor flags({2}, {1.0f, 0.0f}, DType::Bool);
  CHECK(element_text(flags, 0) == "True");
  CHECK_THROWS(element_text(sci, 3));
}

TEST_CASE("note figures: every figure a note quotes is printed by a tensor of the same notebook") {
  std::vector<LessonOptions> settings(2);
  settings[1].inputs = spread_inputs();
  settings[1].custom_inputs = true;
  settings[1].inputs_source = "spread.json";
  int figures = 0, notebooks = 0;
  for (const LessonInfo& lesson : lessons()) {
    for (const LessonOptions& opt : settings) {
      CAPTURE(lesson.name);
      CAPTURE(opt.inputs_source);
      std::optional<Notebook> nb;
      try {
        nb = lesson.run(opt);
      } catch (const std::exception&) {
        continue;  // a lesson that rejects these inputs
      }
      ++notebooks;
      std::string printed;
      for (const NotebookItem& item : nb->items())
        if (item.kind == NotebookItem::Kind::Output) printed += item.text + "\n";
      for (const NotebookItem& item : nb->items()) {
        if (item.kind != NotebookItem::Kind::Note && item.kind != NotebookItem::Kind::Explanation) continue;
        for (Lang lang : {Lang::En, Lang::Zh}) {
          const std::string note = item_text(item, lang);
          for (const std::string& f : quoted_figures(note)) {
            CAPTURE(note);
            CAPTURE(f);
            ++figures;
            CHECK(printed.find(f) != std::string::npos);
          }
        }
      }
    }
  }
  CHECK(notebooks >= static_cast<int>(lessons().size()));
  CHECK(figures > 0);
}
