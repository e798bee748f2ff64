#pragma once
// Reading the HTML the commands write (tests only): elements by their opening tag, text without tags.
#include <string>
#include <vector>

// The contents of every element opened by `open` (e.g. `<pre class="out yours">`) up to its `close`.
std::vector<std::string> html_elements(const std::string& html, const std::string& open, const std::string& close);
// How many times `needle` occurs in `text`.
size_t count_of(const std::string& text, const std::string& needle);
// `html` without its tags, the five entities html_escape writes decoded.
std::string html_text(const std::string& html);
// The document's prose: the <body> without <pre>, <code>, <svg> elements (code, tensors, pictures), as text.
std::string html_prose(const std::string& html);
