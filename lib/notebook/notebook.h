#pragma once
// A lesson's record: cells of PyTorch code, what they print, shapes and annotations, and every
// named intermediate for the JSON export. Lessons fill it; render_text and export_json read it.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/tensor.h"

namespace attn {

struct NamedTensor {
  std::string name;  // the book's variable name or printed expression
  int cell = 0;      // In [n]
  std::string code;  // the line that produced it
  Tensor tensor;
};

struct NotebookItem {
  enum class Kind { Heading, Code, Output, Shape, Note };
  Kind kind;
  std::string text;
  int cell = 0;
  int tensor = -1;  // Output of show(): index into tensors()
};

enum class Lang { En, Zh };

class Notebook {
 public:
  Notebook(std::string lesson, std::vector<std::string> sections, nlohmann::json config,
           std::vector<std::string> tokens);

  // Language of the annotations and titles, and whether --explain's longer notes are shown.
  void set_language(Lang lang, bool explain);

  void heading(const std::string& section, const std::string& title);
  void heading(const std::string& section, const std::string& title_en, const std::string& title_zh);
  // Starts In [n] with the code lines as the book writes them.
  void cell(const std::vector<std::string>& code);
  // print(t): the tensor text, its shape, and the tensor recorded under `name`.
  void show(const std::string& name, const Tensor& t);
  // print("label", t): PyTorch joins with one space; only the first line shifts.
  void show(const std::string& label, const std::string& name, const Tensor& t);
  void print(const std::string& text);  // any other line the code prints
  void record(const std::string& name, const Tensor& t);  // JSON only
  void note(const std::string& text);  // the annotation (English only: counted as untranslated)
  void note(const std::string& en, const std::string& zh);
  // --explain only: the longer explanation of the cell.
  void explain(const std::string& en, const std::string& zh);
  // A well-known confusion, where it arises (always shown).
  void confusion(const std::string& en, const std::string& zh);
  // Annotations or titles given in one language only, and cells with no annotation at all.
  int untranslated() const { return untranslated_; }
  std::vector<int> cells_without_note() const;
  std::vector<int> cells_without_explanation() const;

  const std::string& lesson() const { return lesson_; }
  const std::vector<std::string>& sections() const { return sections_; }
  const nlohmann::json& config() const { return config_; }
  const std::vector<std::string>& tokens() const { return tokens_; }
  const std::vector<NotebookItem>& items() const { return items_; }
  const std::vector<NamedTensor>& tensors() const { return tensors_; }
  // Appends another notebook's items and tensors (for `all`), renumbering its cells.
  void append(const Notebook& other);

 private:
  std::string code_for(const std::string& name) const;

  std::string lesson_;
  std::vector<std::string> sections_;
  nlohmann::json config_;
  std::vector<std::string> tokens_;
  std::vector<NotebookItem> items_;
  std::vector<NamedTensor> tensors_;
  std::vector<std::string> cell_code_;
  int cell_ = 0;
  Lang lang_ = Lang::En;
  bool explain_ = false;
  int untranslated_ = 0;
  std::vector<int> noted_cells_;
  std::vector<int> explained_cells_;
};

}  // namespace attn
