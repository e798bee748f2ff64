#include "notebook/py_export.h"

#include <cctype>

#include "core/py_repr.h"
#include "notebook/picture_text.h"
#include "notebook/text_width.h"

namespace attn {
namespace {

using Kind = NotebookItem::Kind;

// The prose the reader sees: notes and confusions, and with --explain the explanations.
bool is_prose(Kind k, bool explain) {
  return k == Kind::Note || k == Kind::Confusion || (explain && k == Kind::Explanation);
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Prose as Markdown that shows as written: outside `code` spans, the characters Markdown would read as
// emphasis, HTML or an escape (`__init__`, `grad_fn=<MulBackward0>`) are escaped; an underscore
// inside a word (num_tokens) never starts emphasis and stays as it is.
std::string markdown_text(const std::string& text) {
  std::string out;
  bool code = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '`' && !code && text.find('`', i + 1) == std::string::npos) {  // no partner: a plain backtick
      out += "\\`";
      continue;
    }
    if (c == '`') code = !code;
    const bool inside_word = i > 0 && i + 1 < text.size() && word_char(text[i - 1]) && word_char(text[i + 1]);
    const bool special =
        c == '\\' || c == '*' || c == '<' || c == '>' || c == '&' || c == '[' || c == ']' || (c == '_' && !inside_word);
    if (!code && special) out += '\\';
    out += c;
  }
  return out;
}

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

// Whether the lesson drew its dropout masks on the MKL path (--bernoulli mkl; the config says so).
bool mkl_masks(const Notebook& nb) {
  const auto it = nb.config().find("bernoulli");
  return it != nb.config().end() && it->is_string() && it->get<std::string>() == "mkl";
}

}  // namespace

bool export_needs_mkl(const Notebook& nb) { return mkl_masks(nb); }

std::string export_header(const Notebook& nb, Lang lang) {
  if (!mkl_masks(nb)) return kHeader;
  // --bernoulli mkl: the masks of PyTorch <= 2.6 built with MKL on an Intel CPU. Say so at the top, and
  // warn on stderr (stdout stays what the tool printed) where the script cannot draw them.
  std::string out = wrap_text(py_comment(picture_say("export.mkl_comment", lang)), "# ", 100);
  out += kHeader;
  out += "import sys\n";
  out +=
      "if not torch.backends.mkl.is_available() or tuple(int(p) for p in torch.__version__.split(\".\")[:2]) >= (2, "
      "7):\n";
  out += "    print(" + py_str(picture_say("export.mkl_warning", lang)) + ", file=sys.stderr)\n";
  return out;
}

std::string cell_stdout(const Notebook& nb, int cell) {
  std::string out;
  for (const NotebookItem& item : nb.items())
    if (item.kind == Kind::Output && item.cell == cell) out += item.text + "\n";
  return out;
}

std::string export_python(const Notebook& nb, Lang lang, bool explain) {
  std::string out = "# attn-tutor " + nb.lesson() + "\n";
  out += export_header(nb, lang);
  for (const NotebookItem& item : nb.items()) {
    if (item.kind == Kind::Heading) {
      out += "\n# == " + py_comment(item_text(item, lang)) + "\n";
    } else if (item.kind == Kind::Code) {
      out += "\n# In [" + std::to_string(item.cell) + "]:\n" + item.text + "\n";
    } else if (is_prose(item.kind, explain)) {
      out += wrap_text(py_comment(item_text(item, lang)), "# ", 100);  // nothing in it can end the comment
    }
  }
  return out;
}

std::string export_ipynb(const Notebook& nb, Lang lang, bool explain) {
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
    cells.push_back(
        {{"cell_type", "markdown"}, {"metadata", nlohmann::json::object()}, {"source", source_lines(text)}});
  };
  cells.push_back({{"cell_type", "code"},
                   {"execution_count", nullptr},
                   {"metadata", nlohmann::json::object()},
                   {"outputs", nlohmann::json::array()},
                   {"source", source_lines(export_header(nb, lang).substr(0, export_header(nb, lang).size() - 1))}});
  for (const NotebookItem& item : nb.items()) {
    if (item.kind == Kind::Heading) {
      markdown("## " + markdown_text(item_text(item, lang)));
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
    } else if (is_prose(item.kind, explain)) {
      markdown(markdown_text(item_text(item, lang)));
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
  return doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";  // bad bytes: U+FFFD
}

}  // namespace attn
