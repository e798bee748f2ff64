#pragma once
// `attn-tutor check FILE --html`: the report (check_report.h) as one self-contained HTML document, in `lang`.
//   <main class="check"> <h1> the header line
//   <ul class="tensors"> one <li class="match|differ|unknown|more"> per listed tensor: its mark
//     (<span class="mark-ok|mark-bad|mark-unknown">), <span class="name">, <span class="shape">, the rest
//   all match: <div class="verdict match"><p>...</p></div>
//   else: <section class="difference"> (<h2>, <p class="lesson-value">, <pre class="code">, the tensors in
//     <div class="side-by-side"><div class="side"><h3>yours:</h3><pre class="out yours">, the same with
//     <pre class="out ours">, <p class="summary">, the map <pre class="where">), then <div class="verdict differ">
//     (<p class="stale">, <div class="diagnosis"> with <h3> title, <p>s and <pre class="fix">,
//     <p class="no-mistake">, <p class="later-differ">), then <p class="count">.
// In both tensors every differing entry (values_close, as the text report counts them; all of them when
// the shapes differ) is <mark class="diff">; the text around the marks is print(t), byte for byte.
#include <string>

#include "features/check/check.h"

namespace attn {

std::string check_html(const CheckReport& r, Lang lang);

}  // namespace attn
