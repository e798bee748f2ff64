// What `attn-tutor verify` prints, in the learner's language (features/verify/text.txt).
#include <cstdio>
#include <sstream>

#include "features/verify/verify.h"
#include "lessons/ui_text.h"

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
  if (r.max_diff < 0) std::snprintf(diff, sizeof diff, "%s", ui("verify.no-diff", lang).c_str());
  else std::snprintf(diff, sizeof diff, "%.4g", r.max_diff);
  return diff;
}

std::string entry_source(const ReferenceEntry& e, Lang lang) {
  std::string where = learner_source(e, lang);
  if (!e.options.empty()) where += ui("verify.with-options", lang, {e.options});
  return where;
}

std::string render_verify(const std::vector<VerifyResult>& results, Lang lang) {
  std::string out;
  int passed = 0, failed = 0;
  for (const VerifyResult& r : results) {
    const ReferenceEntry& e = *r.entry;
    out += (r.ok ? "\u2713 " : "\u2717 ") + e.lesson + "  " + e.name + "  " + r.shape + "  " +
           ui("verify.max-diff", lang, {max_diff_text(r, lang)}) + "  [" + entry_source(e, lang) + "]\n";
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
