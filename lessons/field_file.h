#pragma once
// The compiled-in files written as "field = value" lines (lessons/options.txt, lessons/NAME/lesson.txt),
// and the lookup of one compiled-in file by its name.
#include <string>
#include <vector>

namespace attn {

// The compiled-in file `name` ("options.txt", "mha/lesson.txt", "mha/listings.txt"); std::logic_error
// naming lessons/NAME when it is not compiled in.
const std::string& embedded_text(const std::string& name);

// One "field = value" line; `section` is the [header] above it, without brackets ("" before any).
struct FieldLine {
  int number = 0;  // its line number in the file
  std::string section, field, value;
};

// The field lines of `source` (the file `file`, for messages): blank lines and # comments skipped,
// each other line a [section] header or split at its first " = "; std::logic_error for any other line.
std::vector<FieldLine> field_lines(const std::string& source, const std::string& file);

}  // namespace attn
