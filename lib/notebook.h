#pragma once
// A lesson's record: cells of PyTorch code, what they print, shapes and annotations, and every
// named intermediate for the JSON export. Lessons fill it; render_text and export_json read it.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tensor.h"

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

class Notebook {
 public:
  Notebook(std::string lesson, std::vector<std::string> sections, nlohmann::json config,
           std::vector<std::string> tokens);

  void heading(const std::string& section, const std::string& title);
  // Starts In [n] with the code lines as the book writes them.
  void cell(const std::vector<std::string>& code);
  // print(t): the tensor text, its shape, and the tensor recorded under `name`.
  void show(const std::string& name, const Tensor& t);
  // print("label", t): PyTorch joins with one space; only the first line shifts.
  void show(const std::string& label, const std::string& name, const Tensor& t);
  void print(const std::string& text);  // any other line the code prints
  void record(const std::string& name, const Tensor& t);  // JSON only
  void note(const std::string& text);  // the annotation

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
};

}  // namespace attn
