#include "notebook/picture_text.h"

namespace attn {

const std::string& embedded_picture_text();  // generated from lib/notebook/text.txt

const TextTable& picture_text() {
  static const TextTable table("lib/notebook/text.txt", embedded_picture_text());
  return table;
}

std::string picture_say(const std::string& key, Lang lang, std::vector<Prose> args) {
  return picture_text().render(text(key, std::move(args)), lang);
}

}  // namespace attn
