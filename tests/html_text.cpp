#include "html_text.h"

std::vector<std::string> html_elements(const std::string& html, const std::string& open, const std::string& close) {
  std::vector<std::string> out;
  for (size_t at = html.find(open); at != std::string::npos; at = html.find(open, at)) {
    const size_t begin = at + open.size();
    const size_t end = html.find(close, begin);
    if (end == std::string::npos) break;
    out.push_back(html.substr(begin, end - begin));
    at = end + close.size();
  }
  return out;
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

std::string html_text(const std::string& html) {
  std::string text;
  bool in_tag = false;
  for (char c : html) {
    if (c == '<')
      in_tag = true;
    else if (c == '>' && in_tag)
      in_tag = false;
    else if (!in_tag)
      text += c;
  }
  std::string out;
  const std::pair<const char*, char> entities[] = {
      {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''}, {"&amp;", '&'}};
  for (size_t i = 0; i < text.size();) {
    bool done = false;
    for (const auto& [name, c] : entities) {
      const std::string e = name;
      if (text.compare(i, e.size(), e) == 0) {
        out += c;
        i += e.size();
        done = true;
        break;
      }
    }
    if (!done) out += text[i++];
  }
  return out;
}

std::string html_prose(const std::string& html) {
  const size_t body = html.find("<body>");
  std::string rest = body == std::string::npos ? html : html.substr(body);
  for (const char* tag : {"pre", "code", "svg"}) {
    const std::string open = std::string("<") + tag, close = std::string("</") + tag + ">";
    for (size_t at = rest.find(open); at != std::string::npos; at = rest.find(open, at)) {
      const char after = rest[at + open.size()];
      if (after != ' ' && after != '>') {
        at += open.size();
        continue;
      }
      const size_t end = rest.find(close, at);
      if (end == std::string::npos) break;
      rest.replace(at, end + close.size() - at, "\n");
    }
  }
  return html_text(rest);
}
