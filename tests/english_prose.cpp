#include "english_prose.h"

#include <set>
#include <sstream>

namespace {

enum class Word { None, Keyword, Prose };

Word word_kind(std::string w) {
  static const std::set<std::string> python = {"and", "as",   "assert", "class",  "def",  "del",   "elif",   "else",
                                               "for", "from", "if",     "import", "in",   "is",    "lambda", "not",
                                               "or",  "pass", "return", "while",  "with", "yield", "print",  "range",
                                               "len", "self", "super",  "None",   "True", "False"};
  while (!w.empty() && (w.front() == '(' || w.front() == '[')) w.erase(0, 1);
  while (!w.empty() && std::string(",.;:!?)]").find(w.back()) != std::string::npos) w.pop_back();
  if (python.count(w) || w == "a" || w == "A" || w == "I") return Word::Keyword;  // continue a run, not count
  if (w.size() < 2) return Word::None;
  for (size_t i = 0; i < w.size(); ++i) {
    const char c = w[i];
    const bool lower = c >= 'a' && c <= 'z';
    const bool capital_first = i == 0 && c >= 'A' && c <= 'Z';
    const bool apostrophe = c == '\'' && i > 0 && i + 1 < w.size();
    if (!lower && !capital_first && !apostrophe) return Word::None;
  }
  return Word::Prose;
}

// The line without its quoted spans, each replaced by a marker that breaks a run. `open` is the
// closing quote still awaited from the line before ("" when none); it is updated for the next line.
std::string without_quotes(const std::string& line, std::string& open) {
  static const std::string left = "\u201c", right = "\u201d";
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    if (!open.empty()) {
      if (line.compare(i, open.size(), open) == 0) {
        i += open.size() - 1;
        open.clear();
        out += " \x01 ";
      }
      continue;
    }
    if (line[i] == '`' || line[i] == '"') {
      open = std::string(1, line[i]);
    } else if (line.compare(i, left.size(), left) == 0) {
      open = right;
      i += left.size() - 1;
    } else {
      out += line[i];
    }
  }
  return out;
}

bool is_code_or_output(const std::string& line, bool lesson) {
  if (line.rfind("    ", 0) == 0) return true;
  const size_t start = line.find_first_not_of(' ');
  if (start == std::string::npos) return true;
  const std::string t = line.substr(start);
  if (lesson && t.rfind("# ", 0) != 0 && t.rfind("== ", 0) != 0) return true;
  for (const char* prefix : {">>> ", "...", "In [", "tensor(", "Parameter", "[", "torch.Size"})
    if (t.rfind(prefix, 0) == 0) return true;
  const size_t colon = t.find("Error: ");
  return colon != std::string::npos && t.find(' ') > colon;  // RuntimeError: ...
}

}  // namespace

std::vector<std::string> english_prose_lines(const std::string& text, bool lesson) {
  std::vector<std::string> found;
  std::istringstream lines(text);
  std::string open;  // a quote a note carries over to its next line
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("# ", 0) != 0) open.clear();
    if (is_code_or_output(line, lesson)) continue;
    std::istringstream words(without_quotes(line, open));
    int run = 0;  // prose words in a row; Python's keywords continue a run but do not count
    for (std::string w; words >> w;) {
      const Word kind = word_kind(w);
      run = kind == Word::None ? 0 : run + (kind == Word::Prose);
      if (run < 3 && w.back() == ',') run = 0;  // a list of names (keys, queries, values) is not a sentence
      if (run >= 3) {
        found.push_back(line);
        break;
      }
    }
  }
  return found;
}
