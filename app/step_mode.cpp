#include "step_mode.h"

#include <unistd.h>

#include <functional>
#include <iostream>
#include <sstream>

#include "lessons/ui_text.h"
#include "notebook/text_width.h"
#include "terminal.h"

namespace attn {
namespace {

bool starts_cell(const std::string& plain) { return plain.rfind("In [", 0) == 0; }
bool starts_heading(const std::string& plain) { return plain.rfind("== ", 0) == 0; }

// The prompt under each page, in the lesson's language.
std::string step_prompt(Lang lang, size_t page, size_t pages, bool clearing) {
  return ui(clearing ? "app.step.prompt-clearing" : "app.step.prompt", lang,
            {std::to_string(page) + "/" + std::to_string(pages)});
}

const char* kClearScreen = "\x1b[H\x1b[2J";

// The loop both readers share: `read_key` gives the next byte, or -1 at the end of input.
void step_loop(const std::vector<std::string>& pages, const std::function<int()>& read_key, std::ostream& out,
               Lang lang, bool can_clear) {
  size_t k = 0;
  bool clearing = false;
  bool draw = true;
  while (k < pages.size()) {
    if (draw) {
      if (clearing) out << kClearScreen;
      out << pages[k] << step_prompt(lang, k + 1, pages.size(), clearing) << std::flush;
    }
    draw = true;
    switch (step_key(read_key())) {
      case StepKey::Quit:
        out << "\n" << std::flush;
        return;
      case StepKey::Back:
        out << "\n";
        k = k == 0 ? 0 : k - 1;
        break;
      case StepKey::Clear:
        out << "\n";
        clearing = can_clear && !clearing;
        break;
      case StepKey::Next:
        out << "\n";
        ++k;
        break;
      case StepKey::None:
        draw = false;  // another key: wait for one that means something
        break;
    }
  }
  out << std::flush;
}

}  // namespace

StepKey step_key(int c) {
  switch (c) {
    case 'n': case ' ': case '\n': case '\r': return StepKey::Next;
    case 'b': return StepKey::Back;
    case 'c': return StepKey::Clear;
    case 'q': case -1: case 4: return StepKey::Quit;  // 4: Ctrl-D in raw mode
    default: return StepKey::None;
  }
}

std::vector<std::string> split_cells(const std::string& text) {
  std::vector<std::string> pages(1);
  std::istringstream lines(text);
  bool heading_pending = false;  // a heading opened the current page; its cell joins it
  for (std::string line; std::getline(lines, line);) {
    const std::string plain = strip_escapes(line);
    const bool boundary = starts_heading(plain) || (starts_cell(plain) && !heading_pending);
    if (boundary && !pages.back().empty()) pages.emplace_back();
    if (starts_heading(plain)) heading_pending = true;
    else if (starts_cell(plain)) heading_pending = false;
    pages.back() += line + "\n";
  }
  // A page that is only blank lines (the text's leading newline) is dropped.
  std::vector<std::string> kept;
  for (const std::string& p : pages)
    if (p.find_first_not_of("\n") != std::string::npos) kept.push_back(p);
  return kept;
}

void step_through(const std::vector<std::string>& pages, std::istream& in, std::ostream& out, Lang lang,
                  bool can_clear) {
  const auto read_line_key = [&in]() -> int {
    std::string answer;
    if (!std::getline(in, answer)) return -1;
    return answer.empty() ? '\n' : static_cast<unsigned char>(answer[0]);
  };
  step_loop(pages, read_line_key, out, lang, can_clear);
}

void step_through_terminal(const std::vector<std::string>& pages, std::ostream& out, Lang lang) {
  const bool can_clear = is_terminal(STDOUT_FILENO);
  TerminalKeys keys;
  if (!keys.active()) {
    step_through(pages, std::cin, out, lang, can_clear);
    return;
  }
  const auto read_byte = [&keys]() -> int { return keys.read_key(); };
  step_loop(pages, read_byte, out, lang, can_clear);
}

}  // namespace attn
