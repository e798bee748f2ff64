#include "lessons/field_file.h"

#include <sstream>
#include <stdexcept>

#include "lessons/embedded_texts.h"

namespace attn {

const std::string& embedded_text(const std::string& name) {
  for (const auto& table : embedded_text_tables())
    if (table.first == name) return table.second;
  throw std::logic_error("lessons/" + name + " is not compiled in");
}

std::vector<FieldLine> field_lines(const std::string& source, const std::string& file) {
  std::vector<FieldLine> out;
  std::istringstream in(source);
  std::string section;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = line.substr(1, line.size() - 2);
      continue;
    }
    const size_t eq = line.find(" = ");
    if (eq == std::string::npos)
      throw std::logic_error(file + ":" + std::to_string(number) + ": expected [section] or 'field = value'");
    out.push_back({number, section, line.substr(0, eq), line.substr(eq + 3)});
  }
  return out;
}

}  // namespace attn
