// The sources as .clang-format leaves them: the JavaScript inside EM_JS and EM_ASM is not C++, and
// clang-format would break it (`===` becomes `== =`), so each such block stands between
// `// clang-format off` and `// clang-format on`.
#include <doctest/doctest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> lines_of_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Where the rule is broken in `lines`: "LINE: why" for each EM_JS/EM_ASM block outside a clang-format
// off region and for each JavaScript comparison split apart.
std::vector<std::string> format_problems(const std::vector<std::string>& lines) {
  std::vector<std::string> problems;
  bool off = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.rfind("// clang-format off", 0) == 0) off = true;
    if (l.rfind("// clang-format on", 0) == 0) off = false;
    if ((l.rfind("EM_JS(", 0) == 0 || l.rfind("EM_ASM", 0) == 0) && !off)
      problems.push_back(std::to_string(i + 1) + ": JavaScript block outside // clang-format off");
    if (l.find("== =") != std::string::npos || l.find("!= =") != std::string::npos)
      problems.push_back(std::to_string(i + 1) + ": a === or !== split apart");
  }
  return problems;
}

// Whether `code` names `call` as a whole word (printf( but not snprintf( or book_inputs().
bool has_call(const std::string& code, const std::string& call) {
  for (size_t i = code.find(call); i != std::string::npos; i = code.find(call, i + 1)) {
    const char before = i == 0 ? ' ' : code[i - 1];
    if (!std::isalnum(static_cast<unsigned char>(before)) && before != '_') return true;
  }
  return false;
}

// The functions of `lines` (a clang-formatted file) longer than `most` lines, as "LINE: N lines": each
// definition at namespace level, from its signature's first line to the `}` that closes it at column 0.
std::vector<std::string> long_functions(const std::vector<std::string>& lines, size_t most) {
  std::vector<std::string> found;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty() || lines[i].back() != '{') continue;
    size_t start = i;  // the signature's first line
    while (start > 0 && !lines[start - 1].empty() && lines[start - 1].rfind("//", 0) != 0 &&
           lines[start - 1].rfind("#", 0) != 0 && std::string(";{}").find(lines[start - 1].back()) == std::string::npos)
      --start;
    const std::string& l = lines[start];
    if (std::isspace(static_cast<unsigned char>(l[0])) || l.rfind("namespace", 0) == 0 || l.rfind("struct ", 0) == 0 ||
        l.rfind("class ", 0) == 0 || l.rfind("enum ", 0) == 0 || l.rfind("extern ", 0) == 0)
      continue;
    size_t end = i + 1;
    while (end < lines.size() && lines[end] != "}" && lines[end].rfind("};", 0) != 0) ++end;
    if (end - start + 1 > most)
      found.push_back(std::to_string(start + 1) + ": " + std::to_string(end - start + 1) + " lines");
    i = end;
  }
  return found;
}

}  // namespace

TEST_CASE("format: the rule finds an unguarded EM_JS block and a split ===") {
  CHECK(format_problems({"EM_JS(int, f, (), {", "  return a === b;", "});"}).size() == 1);
  CHECK(
      format_problems({"// clang-format off", "EM_JS(int, f, (), {", "  return a == = b;", "});", "// clang-format on"})
          .size() == 1);
  CHECK(
      format_problems({"// clang-format off", "EM_JS(int, f, (), {", "  return a === b;", "});", "// clang-format on"})
          .empty());
}

TEST_CASE("format: every EM_JS and EM_ASM block is kept from clang-format") {
  int blocks = 0;
  for (const char* dir : {"app", "lib", "lessons", "features"})
    for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(ATTN_SOURCE_DIR) + "/" + dir)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".h") continue;
      const std::vector<std::string> lines = lines_of_file(entry.path());
      for (const std::string& l : lines) blocks += l.rfind("EM_JS(", 0) == 0 || l.rfind("EM_ASM", 0) == 0;
      const std::string where = entry.path().string();
      CAPTURE(where);
      CHECK(format_problems(lines).empty());
    }
  CHECK(blocks >= 8);  // node's file access, terminal, process and bounded reads
}

TEST_CASE("layers: a print is found as a whole word only") {
  CHECK(has_call("  std::printf(\"x\");", "printf("));
  CHECK(has_call("printf(\"x\");", "printf("));
  CHECK_FALSE(has_call("std::snprintf(buf, 8, \"x\");", "printf("));
  CHECK_FALSE(has_call("Inputs book_inputs() {", "puts("));
}

TEST_CASE("layers: app -> features -> lessons -> lib, and lib neither prints nor ends the process") {
  // Which includes each layer may not have: the layers above it, and CLI11 outside app/.
  const std::vector<std::pair<std::string, std::vector<std::string>>> layers = {
      {"lib", {"#include \"lessons/", "#include \"features/", "#include <CLI/"}},
      {"lessons", {"#include \"features/", "#include <CLI/"}},
      {"features", {"#include <CLI/"}}};
  const std::vector<std::string> printing = {"std::cout", "std::cerr", "STDOUT_FILENO", "STDERR_FILENO",
                                             "printf(",   "puts(",     "std::exit(",    "_Exit("};
  int files = 0;
  for (const auto& layer : layers)
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(std::string(ATTN_SOURCE_DIR) + "/" + layer.first)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".h") continue;
      ++files;
      const std::vector<std::string> lines = lines_of_file(entry.path());
      for (size_t i = 0; i < lines.size(); ++i) {
        const std::string where = entry.path().string() + ":" + std::to_string(i + 1);
        CAPTURE(where);
        for (const std::string& banned : layer.second) CHECK(lines[i].rfind(banned, 0) != 0);
        if (layer.first != "lib") continue;
        const std::string code = lines[i].substr(0, lines[i].find("//"));
        for (const std::string& call : printing) CHECK(!has_call(code, call));
      }
    }
  CHECK(files > 100);
}

TEST_CASE("format: the length rule finds a function past its limit, its signature counted") {
  std::vector<std::string> text = {"// a comment", "int f(int a,", "      int b) {"};
  for (int i = 0; i < 58; ++i) text.push_back("  a += b;");
  text.push_back("}");
  CHECK(long_functions(text, 61).empty());
  CHECK(long_functions(text, 60) == std::vector<std::string>{"2: 61 lines"});
  CHECK(long_functions({"namespace attn {", "", "}  // namespace attn"}, 1).empty());
}

TEST_CASE("format: no function of check's stages, features/check, is longer than 60 lines") {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ATTN_SOURCE_DIR) + "/features/check")) {
    if (entry.path().extension() != ".cpp") continue;
    ++files;
    CAPTURE(entry.path().string());
    std::string found;
    for (const std::string& f : long_functions(lines_of_file(entry.path()), 60)) found += f + "\n";
    CAPTURE(found);
    CHECK(found.empty());
  }
  CHECK(files > 20);
}
