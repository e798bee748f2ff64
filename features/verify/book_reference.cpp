#include "features/verify/book_reference.h"

#include <sstream>
#include <stdexcept>

namespace attn {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(' ');
  const auto e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

std::vector<ReferenceEntry> parse_reference(const std::string& file_text) {
  std::vector<ReferenceEntry> entries;
  std::istringstream lines(file_text);
  std::string line;
  bool in_entry = false;
  while (std::getline(lines, line)) {
    if (line.rfind("=== ", 0) == 0) {
      std::vector<std::string> fields;
      std::istringstream header(line.substr(4));
      std::string field;
      while (std::getline(header, field, '|')) fields.push_back(trim(field));
      if (fields.size() != 5) throw std::runtime_error("reference: malformed header: " + line);
      entries.push_back({fields[0], fields[1], fields[2] == "-" ? "" : fields[2], fields[3], fields[4], ""});
      in_entry = true;
    } else if (!line.empty() && line[0] == '#') {
      in_entry = false;
    } else if (in_entry) {
      std::string& text = entries.back().text;
      text += (text.empty() ? "" : "\n") + line;
    }
  }
  // Blank lines inside 3-D tensors belong to the text; trailing ones do not.
  for (ReferenceEntry& e : entries)
    while (!e.text.empty() && e.text.back() == '\n') e.text.pop_back();
  return entries;
}

}  // namespace attn
