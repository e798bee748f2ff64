#include "lessons/ui_text.h"

#include <deque>
#include <stdexcept>

#include "lessons/embedded_texts.h"

namespace attn {

namespace {

const std::deque<TextTable>& tables() {
  // Never destroyed: the exit handler of app/output_file.h renders an error after static destructors ran.
  static const std::deque<TextTable>& all = *[] {
    auto* out = new std::deque<TextTable>;  // a deque keeps each table where it is, so the fallbacks stay valid
    for (const auto& [name, source] : embedded_text_tables()) {
      if (name.rfind("ui:", 0) != 0) continue;
      const TextTable* before = out->empty() ? nullptr : &out->back();
      out->emplace_back(name.substr(3), source, before);
    }
    if (out->empty()) throw std::logic_error("no features/*/*.txt, app/text.txt or lib/core/text.txt compiled in");
    return out;
  }();
  return all;
}

}  // namespace

const TextTable& ui_text() { return tables().back(); }

std::vector<const TextTable*> ui_tables() {
  std::vector<const TextTable*> out;
  for (const TextTable& t : tables()) out.push_back(&t);
  return out;
}

std::string error_message(const ErrorText& error, Lang lang) { return ui_text().render(error, lang); }

std::string error_message(const UsageError& error, Lang lang) { return error_message(error.text(), lang); }

std::string ui(const std::string& key, Lang lang, std::vector<Prose> args) {
  return ui_text().render(text(key, std::move(args)), lang);
}

}  // namespace attn
