#include "step_mode.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "lessons/ui_text.h"
#include "notebook/text_pages.h"
#include "notebook/text_width.h"
#include "terminal.h"

namespace attn {
namespace {

bool starts_cell(const std::string& plain) { return plain.rfind("In [", 0) == 0; }
bool starts_heading(const std::string& plain) { return plain.rfind("== ", 0) == 0; }

// The N of the first "In [N]:" line of a cell's text, or 0.
int cell_number(const std::string& cell) {
  std::istringstream lines(cell);
  for (std::string line; std::getline(lines, line);) {
    const std::string plain = strip_escapes(line);
    if (starts_cell(plain)) return std::atoi(plain.c_str() + 4);
  }
  return 0;
}

// What the prompt counts: the cell shown (its In number, of the notebook's last), and the page of it.
std::string step_counter(Lang lang, int cell, int last_cell, size_t page, size_t pages) {
  std::string text = ui("app.step.cell", lang, {std::to_string(cell), std::to_string(last_cell)});
  if (pages > 1) text += ui("app.step.page", lang, {std::to_string(page), std::to_string(pages)});
  return text;
}

// The prompt under each page, in the lesson's language: the keys in words when it fits one screen row,
// else the short form.
std::string step_prompt(Lang lang, const std::string& counter, bool clearing, size_t columns) {
  const std::string state = ui(clearing ? "app.step.on" : "app.step.off", lang);
  const std::string full = ui("app.step.prompt", lang, {counter, state});
  if (display_width(full) < columns) return full;
  return ui("app.step.prompt-short", lang, {counter, state});
}

const char* kClearScreen = "\x1b[H\x1b[2J";

// The loop both readers share: `read_key` gives the next key.
void step_loop(const std::vector<std::string>& cells, const std::function<StepKey()>& read_key, std::ostream& out,
               Lang lang, const StepScreen& screen, int last_cell) {
  size_t k = 0, page = 0;
  bool clearing = false, draw = true, redraw = false, last_page = false;
  while (k < cells.size()) {
    const size_t columns = std::max<size_t>(1, screen.columns()), rows = std::max<size_t>(2, screen.rows());
    int number = cell_number(cells[k]);
    if (number == 0) number = static_cast<int>(k) + 1;
    // the prompt's rows (the longest counter) come off the page
    const std::string widest_prompt =
        step_prompt(lang, step_counter(lang, number, last_cell, 99, 99), clearing, columns);
    const size_t prompt_rows = screen_rows(widest_prompt, columns);
    const std::vector<std::string> pages = screen_pages(cells[k], rows > prompt_rows ? rows - prompt_rows : 1, columns);
    if (page >= pages.size() || last_page) page = pages.size() - 1;
    last_page = false;
    if (draw) {
      if ((clearing || redraw) && screen.can_clear) out << kClearScreen;
      out << pages[page]
          << step_prompt(lang, step_counter(lang, number, last_cell, page + 1, pages.size()), clearing, columns)
          << std::flush;
    }
    draw = true;
    redraw = false;
    switch (read_key()) {
      case StepKey::Quit:
        out << "\n" << std::flush;
        return;
      case StepKey::Forward:
        out << "\n";
        if (++page >= pages.size()) {
          ++k;
          page = 0;
        }
        break;
      case StepKey::Next:
        out << "\n";
        ++k;
        page = 0;
        break;
      case StepKey::PageBack:  // the page before, drawn on a clear screen
        out << "\n";
        redraw = true;
        if (page > 0) {
          --page;
        } else if (k > 0) {
          --k;
          last_page = true;
        }
        break;
      case StepKey::Back:  // the cell before, from its top, on a clear screen
        out << "\n";
        redraw = true;
        if (k > 0) --k;
        page = 0;
        break;
      case StepKey::Clear:
        out << "\n";
        clearing = screen.can_clear && !clearing;
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
    case ' ':
    case '\n':
    case '\r':
      return StepKey::Forward;
    case 'n':
      return StepKey::Next;
    case 'b':
      return StepKey::Back;
    case 'c':
      return StepKey::Clear;
    case 'q':
    case -1:
    case 4:
      return StepKey::Quit;  // 4: Ctrl-D in raw mode
    default:
      return StepKey::None;
  }
}

StepKey read_step_key(const std::function<int()>& read_byte) {
  const int c = read_byte();
  if (c != 27) return step_key(c);
  const int second = read_byte();  // ESC [ or ESC O starts a sequence; ESC and another key: that key
  if (second != '[' && second != 'O') return step_key(second);
  std::string body;
  for (int b = read_byte();; b = read_byte()) {
    if (b < 0) return StepKey::None;  // cut short: no key (the next read ends the input)
    if (b >= 0x40 && b <= 0x7e) {     // the final byte
      body += static_cast<char>(b);
      break;
    }
    if (body.size() < 16) body += static_cast<char>(b);
  }
  if (body == "5~") return StepKey::PageBack;
  if (body == "6~") return StepKey::Forward;
  return StepKey::None;
}

std::vector<std::string> split_cells(const std::string& text) {
  std::vector<std::string> pages(1);
  std::istringstream lines(text);
  bool heading_pending = false;  // a heading opened the current page; its cell joins it
  for (std::string line; std::getline(lines, line);) {
    const std::string plain = strip_escapes(line);
    const bool boundary = starts_heading(plain) || (starts_cell(plain) && !heading_pending);
    if (boundary && !pages.back().empty()) pages.emplace_back();
    if (starts_heading(plain))
      heading_pending = true;
    else if (starts_cell(plain))
      heading_pending = false;
    pages.back() += line + "\n";
  }
  // A page that is only blank lines (the text's leading newline) is dropped.
  std::vector<std::string> kept;
  for (const std::string& p : pages)
    if (p.find_first_not_of("\n") != std::string::npos) kept.push_back(p);
  return kept;
}

void step_through(const std::vector<std::string>& cells, std::istream& in, std::ostream& out, Lang lang,
                  const StepScreen& screen, int last_cell) {
  const auto read_line_key = [&in]() -> StepKey {
    std::string answer;
    if (!std::getline(in, answer)) return StepKey::Quit;
    if (answer.empty()) return StepKey::Forward;  // Enter
    size_t at = 0;  // the line's first key (an escape sequence typed before Enter counts as one)
    return read_step_key(
        [&answer, &at]() -> int { return at < answer.size() ? static_cast<unsigned char>(answer[at++]) : -1; });
  };
  step_loop(cells, read_line_key, out, lang, screen, last_cell);
}

void step_through_terminal(const std::vector<std::string>& cells, std::ostream& out, Lang lang, int last_cell) {
  StepScreen screen;
  screen.rows = output_rows;
  screen.columns = output_columns;
  screen.can_clear = is_terminal(STDOUT_FILENO);
  TerminalKeys keys;
  if (!keys.active()) {
    step_through(cells, std::cin, out, lang, screen, last_cell);
    return;
  }
  const auto read_key = [&keys]() -> StepKey { return read_step_key([&keys]() -> int { return keys.read_key(); }); };
  step_loop(cells, read_key, out, lang, screen, last_cell);
}

}  // namespace attn
