#include "language.h"

#include <cstdlib>
#include <cstring>

#include "lessons/ui_text.h"

namespace attn {
namespace {

Lang help_lang = Lang::En;

bool is_zh(const char* value) { return value && std::strncmp(value, "zh", 2) == 0; }

}  // namespace

Lang choose_language(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--lang") == 0 && i + 1 < argc) return is_zh(argv[i + 1]) ? Lang::Zh : Lang::En;
    if (std::strncmp(argv[i], "--lang=", 7) == 0) return is_zh(argv[i] + 7) ? Lang::Zh : Lang::En;
  }
  for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* value = std::getenv(var);
    if (value && *value) return is_zh(value) ? Lang::Zh : Lang::En;  // the first one set decides
  }
  return Lang::En;
}

void set_help_language(Lang lang) { help_lang = lang; }
Lang help_language() { return help_lang; }

std::string tr(const std::string& key, std::vector<Prose> args) { return ui(key, help_lang, std::move(args)); }

}  // namespace attn
