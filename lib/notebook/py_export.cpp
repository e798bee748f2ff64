#include "notebook/py_export.h"

#include "notebook/text_width.h"

namespace attn {
namespace {

using Kind = NotebookItem::Kind;

bool is_prose(Kind k) { return k == Kind::Note || k == Kind::Confusion; }

// `text` split after each '\n' (nbformat's multi-line strings), the last piece without one.
nlohmann::json source_lines(const std::string& text) {
  nlohmann::json lines = nlohmann::json::array();
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start + 1));
    start = end + 1;
  }
  return lines;
}

const char* kHeader = "import torch\nimport torch.nn as nn\n";

}  // namespace

std::string cell_stdout(const Notebook& nb, int cell) {
  std::string out;
  for (const NotebookItem& item : nb.items())
    if (item.kind == Kind::Output && item.cell == cell) out += item.text + "\n";
  return out;
}

std::string export_python(const Notebook& nb, Lang lang) {
  std::string out = "# attn-tutor " + nb.lesson() + "\n";
  out += kHeader;
  for (const NotebookItem& item : nb.items()) {
    if (item.kind == Kind::Heading) {
      out += "\n# == " + item_text(item, lang) + "\n";
    } else if (item.kind == Kind::Code) {
      out += "\n# In [" + std::to_string(item.cell) + "]:\n" + item.text + "\n";
    } else if (is_prose(item.kind)) {
      out += wrap_text(item_text(item, lang), "# ", 100);
    }
  }
  return out;
}

std::string export_ipynb(const Notebook& nb, Lang lang) {
  nlohmann::json cells = nlohmann::json::array();
  auto markdown = [&](const std::string& text) {
    // Notes in a row share one markdown cell, one paragraph each.
    if (!cells.empty() && cells.back().contains("note")) {
      nlohmann::json& last = cells.back();
      std::string joined;
      for (const auto& piece : last["source"]) joined += piece.get<std::string>();
      last["source"] = source_lines(joined + "\n\n" + text);
      return;
    }
    cells.push_back({{"cell_type", "markdown"}, {"metadata", nlohmann::json::object()}, {"source", source_lines(text)}});
  };
  cells.push_back({{"cell_type", "code"},
                   {"execution_count", nullptr},
                   {"metadata", nlohmann::json::object()},
                   {"outputs", nlohmann::json::array()},
                   {"source", source_lines(std::string(kHeader).substr(0, std::string(kHeader).size() - 1))}});
  for (const NotebookItem& item : nb.items()) {
    if (item.kind == Kind::Heading) {
      markdown("## " + item_text(item, lang));
    } else if (item.kind == Kind::Code) {
      nlohmann::json outputs = nlohmann::json::array();
      const std::string printed = cell_stdout(nb, item.cell);
      if (!printed.empty())
        outputs.push_back({{"output_type", "stream"}, {"name", "stdout"}, {"text", source_lines(printed)}});
      cells.push_back({{"cell_type", "code"},
                       {"execution_count", item.cell},
                       {"metadata", nlohmann::json::object()},
                       {"outputs", outputs},
                       {"source", source_lines(item.text)}});
    } else if (is_prose(item.kind)) {
      markdown(item_text(item, lang));
      cells.back()["note"] = true;  // a marker while building, removed below
    }
  }
  for (auto& cell : cells) cell.erase("note");
  nlohmann::json doc = {{"cells", cells},
                        {"metadata",
                         {{"kernelspec", {{"display_name", "Python 3"}, {"language", "python"}, {"name", "python3"}}},
                          {"language_info", {{"name", "python"}}}}},
                        {"nbformat", 4},
                        {"nbformat_minor", 4}};
  return doc.dump(1) + "\n";
}

}  // namespace attn
