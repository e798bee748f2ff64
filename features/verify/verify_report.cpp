// What `attn-tutor verify` prints, in the learner's language (features/verify/text.txt).
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <vector>

#include "features/verify/verify.h"
#include "lessons/ui_text.h"
#include "notebook/text_width.h"

namespace attn {

std::string learner_source(const ReferenceEntry& entry, Lang lang) {
  std::istringstream words(entry.shown);  // KIND WHERE [NOTE]
  std::string kind, where, note;
  words >> kind >> where >> note;
  std::string out = ui("verify.src." + kind, lang, {where});
  if (!note.empty()) out += ui("verify.note." + note, lang);
  return out;
}

std::string max_diff_text(const VerifyResult& r, Lang lang) {
  char diff[32];
  if (r.max_diff < 0)
    std::snprintf(diff, sizeof diff, "%s", ui("verify.no-diff", lang).c_str());
  else
    std::snprintf(diff, sizeof diff, "%.4g", r.max_diff);
  return diff;
}

std::string entry_source(const ReferenceEntry& e, Lang lang) {
  std::string where = learner_source(e, lang);
  if (!e.options.empty()) where += ui("verify.with-options", lang, {e.options});
  return where;
}

namespace {

// `source` on lines of at most `width` columns, each starting with `indent`, broken after its commas
// (", " or "，") so an option stays with its value ("--num-kv-groups 1"); a piece wider than a line
// is wrapped at its spaces.
std::string source_lines(const std::string& source, const std::string& indent, size_t width) {
  std::vector<std::string> pieces(1);
  for (size_t i = 0; i < source.size();) {
    const bool ascii_comma = source.compare(i, 2, ", ") == 0, wide_comma = source.compare(i, 3, "\uff0c") == 0;
    const size_t len = ascii_comma ? 2 : wide_comma ? 3 : 1;
    pieces.back() += source.substr(i, len);
    i += len;
    if (ascii_comma || wide_comma) pieces.emplace_back();
  }
  std::string out, line;
  const size_t room = width - std::min(width, display_width(indent));
  for (const std::string& piece : pieces) {
    if (!line.empty() && display_width(line + piece) > room) {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += display_width(line) > room ? wrap_text(line, indent, width) : indent + line + "\n";
      line.clear();
    }
    line += piece;
  }
  if (!line.empty()) out += display_width(line) > room ? wrap_text(line, indent, width) : indent + line + "\n";
  return out;
}

}  // namespace

std::string render_verify(const std::vector<VerifyResult>& results, Lang lang, size_t page_width) {
  std::string out;
  int passed = 0, failed = 0;
  for (const VerifyResult& r : results) {
    const ReferenceEntry& e = *r.entry;
    const std::string line = (r.ok ? "\u2713 " : "\u2717 ") + e.lesson + "  " + e.name + "  " + r.shape + "  " +
                             ui("verify.max-diff", lang, {max_diff_text(r, lang)});
    const std::string source = "[" + entry_source(e, lang) + "]";
    if (display_width(line) + 2 + display_width(source) <= page_width)
      out += line + "  " + source + "\n";
    else  // the source on its own lines below, indented
      out += line + "\n" + source_lines(source, "    ", std::max<size_t>(page_width, 40));
    if (!r.ok) {
      const std::string actual = r.missing ? ui("verify.missing", lang, {e.name}) : r.actual;
      out += ui("verify.expected", lang) + "\n" + e.text + "\n" + ui("verify.printed", lang) + "\n" + actual + "\n";
    }
    (r.ok ? passed : failed)++;
  }
  out += ui("verify.summary", lang, {std::to_string(passed), std::to_string(failed)}) + "\n";
  return out;
}

}  // namespace attn
