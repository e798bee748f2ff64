#pragma once
// `attn-tutor verify`: every tensor the book prints, compared with the tool's own output.
#include <functional>
#include <string>
#include <vector>

#include "features/verify/book_reference.h"
#include "notebook/notebook.h"

namespace attn {

struct VerifyResult {
  bool ok = false;
  const ReferenceEntry* entry = nullptr;
  std::string shape;     // "(6, 2)", or "-" for a printed line that is not a tensor
  double max_diff = 0;   // over the printed digits; -1 when the texts hold different counts of numbers
  std::string actual;    // the tool's text (closest candidate) when it differs
  bool missing = false;  // no tensor of that name and no such line in the lesson's output
};

// Runs a lesson with the given extra options (as on the command line) and returns its notebook.
using LessonRunner = std::function<Notebook(const std::string& lesson, const std::string& options)>;

// The entries of `reference` for `only_lesson` (all when empty), each checked against the notebook
// of its lesson and options. A tensor entry passes when a tensor recorded under its name prints as
// exactly the same text; any other entry when the notebook's text contains it.
std::vector<VerifyResult> verify_reference(const std::vector<ReferenceEntry>& reference, const std::string& only_lesson,
                                           const LessonRunner& run);

// Largest |a - b| over the numbers printed in two texts (nan/inf equal to themselves), or -1
// when they hold different counts of numbers.
double max_printed_diff(const std::string& a, const std::string& b);

// One line per entry ("✓ mha  context_vecs  (2, 6, 2)  max|diff| 0  [§3.6.2]"), the texts of a failure
// below its line, and the count, in `lang`; sources named as the learner knows them (ReferenceEntry::shown).
// A line wider than `page_width` columns (display width) puts its [source] on the lines below, indented.
std::string render_verify(const std::vector<VerifyResult>& results, Lang lang, size_t page_width = 80);
// Where an entry comes from, as the learner knows it: "§3.5.1 step (1)", "d2l.ai §11.5".
std::string learner_source(const ReferenceEntry& entry, Lang lang);
// The same with the options it was printed with (", --init randn"), as the text's [...] says it.
std::string entry_source(const ReferenceEntry& entry, Lang lang);
// The largest difference as the text writes it ("0", "2.98e-08", or "n/a" in `lang`).
std::string max_diff_text(const VerifyResult& r, Lang lang);
// The same results as an HTML document (verify_html.cpp):
//   <main class="verify"> <h1>, <table class="verify"> with a <thead> row of <th> and one
//   <tr class="match|differ"> per result: <td class="result"><span class="mark-ok|mark-bad">✓|✗</span>,
//   <td class="lesson">, <td class="tensor"><code>name</code>, <td class="shape">, <td class="max-diff">,
//   <td class="source">; then <div class="verdict match|differ"><p class="summary">N passed, M failed</p>,
//   and for failures <section class="failures"> with per entry <h3>, <pre class="expected">, <pre class="printed">.
std::string verify_html(const std::vector<VerifyResult>& results, Lang lang);

// The reference data compiled into the binary from tests/fixtures/book_reference.txt.
const std::string& embedded_book_reference();

}  // namespace attn
