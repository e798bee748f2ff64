// `attn-tutor check FILE --html`: the text report's words as one HTML document, with the differing
// entries of the two tensors marked (<mark class="diff">). Every piece of text is the text report's own
// (check_report_parts.h: names echo()ed and shortened as there) and reaches the HTML through html_escape.
#include "features/check/check_html.h"

#include <algorithm>

#include "core/safe_text.h"
#include "core/tensor_print.h"
#include "features/check/check_report_parts.h"
#include "lessons/ui_text.h"
#include "notebook/html_document.h"
#include "notebook/html_escape.h"

namespace attn {

namespace {

using namespace check_text;
using V = TensorCheck::Verdict;
using E = TensorCheck::Elsewhere;

const char* kCheckStyle = R"css(
h2 small { font-weight: normal; font-size: .75em; color: #555; }
ul.tensors { list-style: none; padding-left: .5em; font-size: .95em; }
ul.tensors li { margin: .15em 0; overflow-wrap: anywhere; }
ul.tensors .name { font-weight: bold; }
ul.tensors .shape { color: #666; font-family: "DejaVu Sans Mono", monospace; font-size: .9em; }
.side-by-side { display: flex; flex-wrap: wrap; gap: 1em; }
.side-by-side .side { flex: 1 1 18em; min-width: 0; }
.side-by-side pre.out { overflow-x: auto; }
mark.diff { background: #ffd7d5; color: #86181d; border-radius: 2px; }
pre.where { background: #fafafa; border-left: 4px solid #ddd; }
pre.fix { background: #eef6fb; border-left: 4px solid #2b7bb9; white-space: pre-wrap; }
.diagnosis h3 { color: #8a4b00; }
)css";

std::string esc(const std::string& text) { return html_escape(text); }

// print(t) with the entries whose index `differs` wrapped in <mark class="diff">; the text between the
// marks is the print's own, byte for byte.
std::string marked_tensor(const Tensor& t, const std::vector<char>& differs) {
  std::vector<ElementSpan> spans;
  PrintSpec spec = print_spec(t);
  spec.autograd.reset();
  spec.parameter = false;
  const std::string text = repr(spec, &spans);
  std::string out;
  size_t at = 0;
  for (const ElementSpan& s : spans) {
    if (!differs[static_cast<size_t>(s.index)]) continue;
    out += esc(text.substr(at, s.begin - at)) + "<mark class=\"diff\">" + esc(text.substr(s.begin, s.end - s.begin)) +
           "</mark>";
    at = s.end;
  }
  return out + esc(text.substr(at));
}

// Which entries of each side differ, as the text report counts them: all of them when the shapes differ.
void differing_entries(const Tensor& yours, const Tensor& ours, std::vector<char>& a_marks,
                       std::vector<char>& b_marks) {
  a_marks.assign(static_cast<size_t>(yours.numel()), 1);
  b_marks.assign(static_cast<size_t>(ours.numel()), 1);
  if (yours.shape() != ours.shape()) return;
  const std::vector<float> a = yours.values(), b = ours.values();
  for (size_t i = 0; i < a.size(); ++i) a_marks[i] = b_marks[i] = values_close(a[i], b[i]) ? 0 : 1;
}

std::string tensor_item(const CheckReport& r, size_t i, Lang lang) {
  const V v = r.checks[i].verdict;
  const std::string line = tensor_line(r, i, Style{false}, "", lang);  // "✓ = In [4]": the mark, then the rest
  const size_t space = line.find(' ');
  const std::string kind = v == V::Match ? "match" : v == V::Differs ? "differ" : "unknown";
  const std::string mark_class = v == V::Match ? "mark-ok" : v == V::Differs ? "mark-bad" : "mark-unknown";
  return "<li class=\"" + kind + "\"><span class=\"" + mark_class + "\">" + esc(line.substr(0, space)) +
         "</span> <span class=\"name\">" + esc(shown_name(r.yours[i].name)) + "</span> <span class=\"shape\">" +
         esc(shape_of(r.yours[i].tensor)) + "</span> " + esc(line.substr(space + 1)) +
         (r.yours[i].origin ? "<br><span class=\"origin\">" + esc(origin_text(r.yours[i], lang)) + "</span>" : "") +
         "</li>\n";
}

std::string tensor_list(const CheckReport& r, Lang lang) {
  const std::vector<char> listed = listed_tensors(r);
  std::string out = "<ul class=\"tensors\">\n";
  int more = 0, more_matched = 0, more_differing = 0, more_unknown = 0;
  size_t first_unlisted = r.checks.size();
  for (size_t i = 0; i < r.checks.size(); ++i) {
    if (listed[i]) continue;
    first_unlisted = std::min(first_unlisted, i);
    ++more;
    more_matched += r.checks[i].verdict == V::Match;
    more_differing += r.checks[i].verdict == V::Differs;
    more_unknown += r.checks[i].verdict == V::NotInLesson;
  }
  for (size_t i = 0; i < r.checks.size(); ++i) {
    if (i == first_unlisted)
      out += "<li class=\"more\">" +
             esc(ui("check.more", lang,
                    {std::to_string(more), std::to_string(more_matched), std::to_string(more_differing),
                     std::to_string(more_unknown)})) +
             "</li>\n";
    if (listed[i]) out += tensor_item(r, i, lang);
  }
  return out + "</ul>\n";
}

std::string diagnosis_html(const Diagnosis& d, const std::string& label, Lang lang) {
  std::string out = "<div class=\"diagnosis\">\n<h3>" + esc(label + d.mistake->title(lang)) + "</h3>\n";
  out += "<p>" +
         esc(d.detail.key.empty() ? ui("check.recomputed", lang) : ui("check.recomputed-detail", lang, {d.detail})) +
         "</p>\n";
  out += "<p>" + esc(d.mistake->explanation(lang)) + "</p>\n";
  out += "<p class=\"fix-label\">" + esc(ui("check.fix", lang)) + "</p>\n<pre class=\"fix\">" +
         esc(d.mistake->fix(lang)) + "</pre>\n</div>\n";
  return out;
}

// The first difference: where the lesson has it, both tensors side by side, how they differ.
std::string difference_section(const CheckReport& r, Lang lang) {
  const LearnerTensor& y = r.yours[r.first_divergence];
  const TensorCheck& c = r.checks[r.first_divergence];
  const Binding& t = r.tool[c.expected];
  const std::string name = shown_name(y.name);
  std::string out = "<section class=\"difference\">\n<h2>" + esc(ui("check.first-difference", lang, {name})) +
                    "<small>" + esc(ui("check.first-in-order", lang)) + "</small></h2>\n";
  if (y.origin)
    out += "<p class=\"origin\">" + esc(ui("check.origin.differs", lang, {origin_text(y, lang), in_cell(t.cell)})) +
           "</p>\n";
  const bool printed = is_print_line(t.code);
  out += "<p class=\"lesson-value\">" +
         esc(printed ? ui("check.lesson-value", lang, {name, in_cell(t.cell)})
                     : ui("check.lesson-value-after", lang, {name, step_text(t.code), in_cell(t.cell)})) +
         "</p>\n";
  if (t.cell > 0 && t.cell < static_cast<int>(r.cells.size())) {
    std::string code;
    for (const std::string& line : lines_of(r.cells[t.cell])) code += code_text(line) + "\n";
    out += "<pre class=\"code\">" + esc(code) + "</pre>\n";
  }
  std::vector<char> a_marks, b_marks;
  differing_entries(y.tensor, t.tensor, a_marks, b_marks);
  out += "<div class=\"side-by-side\">\n<div class=\"side\">\n<h3>" + esc(ui("check.yours", lang)) +
         "</h3>\n<pre class=\"out yours\">" + marked_tensor(y.tensor, a_marks) +
         "</pre>\n</div>\n<div class=\"side\">\n<h3>" + esc(ui("check.attn-tutor", lang)) +
         "</h3>\n<pre class=\"out ours\">" + marked_tensor(t.tensor, b_marks) + "</pre>\n</div>\n</div>\n";
  if (y.tensor.shape() != t.tensor.shape()) {
    out += "<p class=\"summary\">" + esc(ui("check.your-shape", lang, {shape_of(y.tensor), shape_of(t.tensor)})) +
           "</p>\n";
  } else {
    bool all = false;
    out += "<p class=\"summary\">" + esc(values_summary(c, y.tensor, t.tensor, lang, &all)) + "</p>\n";
    if (!all && t.tensor.dim() > 0 && t.tensor.numel() <= 1024)
      out += "<p>" + esc(ui("check.where", lang)) + "</p>\n<pre class=\"where\">" +
             esc(where_map(y.tensor, t.tensor, lang)) + "</pre>\n";
  }
  return out + "</section>\n";
}

// What the learner should do: the stale value, the diagnosis (or the several, or none), what else differs.
std::string verdict_div(const CheckReport& r, Lang lang) {
  const TensorCheck& c = r.checks[r.first_divergence];
  const Binding& t = r.tool[c.expected];
  const std::string name = shown_name(r.yours[r.first_divergence].name);
  std::string out = "<div class=\"verdict differ\">\n";
  if (c.elsewhere == E::Stale || c.elsewhere == E::Unsure) {
    const Binding& o = r.tool[c.other];
    out += "<p class=\"stale\">" +
           esc(ui("check.stale", lang, {name, in_cell(o.cell), step_text(o.code), step_text(t.code)}) +
               (c.elsewhere == E::Stale ? ui("check.stale-sure", lang, {name})
                                        : ui("check.stale-unsure", lang, {name, std::to_string(o.cell)}))) +
           "</p>\n";
  }
  if (c.elsewhere == E::Unsure && !r.diagnoses.empty()) {
    out += "<p>" + esc(ui("check.never-reached-mistakes", lang)) + "</p>\n<ul>\n";
    for (const Diagnosis& d : r.diagnoses)
      out += "<li>" + esc(ui("check.title-detail", lang, {d.mistake->title(lang), d.detail})) + "</li>\n";
    out += "</ul>\n";
  } else if (r.diagnoses.size() == 1) {
    out += diagnosis_html(r.diagnoses[0], ui("check.diagnosis", lang), lang);
  } else if (r.diagnoses.size() > 1) {
    out += "<p>" + esc(ui("check.several", lang, {std::to_string(r.diagnoses.size())})) + "</p>\n";
    for (const Diagnosis& d : r.diagnoses) out += diagnosis_html(d, ui("check.possible-diagnosis", lang), lang);
  } else {
    out += "<p class=\"no-mistake\">" +
           esc(ui(traced(r) ? "check.no-mistake-program" : "check.no-mistake", lang, {r.lesson, in_cell(t.cell)})) +
           "</p>\n";
    if (const int other = equal_under_other_name(r); other >= 0)
      out += "<p class=\"no-mistake\">" + esc(other_name_text(r, other, lang)) + "</p>\n";
  }
  if (!r.diagnoses.empty() && !r.not_reproduced.empty() && c.elsewhere != E::Unsure) {
    out += "<p class=\"later-differ\">" + esc(later_differ(r, lang)) + "</p>\n";
  }
  return out + "</div>\n";
}

}  // namespace

std::string check_html(const CheckReport& r, Lang lang) {
  int matched = 0, differing = 0, unknown = 0;
  for (const TensorCheck& c : r.checks) {
    matched += c.verdict == V::Match;
    differing += c.verdict == V::Differs;
    unknown += c.verdict == V::NotInLesson;
  }
  const std::string header = ui(r.yours.size() == 1 ? "check.header.one" : "check.header.many", lang,
                                {echo(r.source, kSourceColumns), r.lesson, std::to_string(r.yours.size())});
  std::string body = "<main class=\"check\">\n<h1>" + esc(header) + "</h1>\n";
  for (const Prose& note : r.notes) body += "<p class=\"note\">" + esc(ui(note.key, lang, note.args)) + "</p>\n";
  body += tensor_list(r, lang);
  if (r.ok()) {
    body += "<div class=\"verdict match\">\n<p>" +
            esc(ui("check.all-match", lang, {std::to_string(matched)}) +
                (unknown ? ui("check.all-match-unchecked", lang, {std::to_string(unknown)}) : "")) +
            "</p>\n</div>\n";
  } else {
    body += difference_section(r, lang) + verdict_div(r, lang);
    body += "<p class=\"count\">" +
            esc(ui(unknown ? "check.count-unchecked" : "check.count", lang,
                   {std::to_string(matched), std::to_string(differing), std::to_string(unknown)})) +
            "</p>\n";
  }
  return html_document(lang, header, kCheckStyle, body + "</main>\n");
}

}  // namespace attn
