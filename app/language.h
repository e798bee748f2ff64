#pragma once
// --lang: English or Chinese for annotations, titles and help text.
#include <string>
#include <vector>

#include "notebook/notebook.h"

namespace attn {

// From --lang on the command line (read before parsing, so --help can use it), else LC_ALL,
// LC_MESSAGES or LANG starting with "zh", else English.
Lang choose_language(int argc, char** argv);

// The text in the help language chosen at start-up.
void set_help_language(Lang lang);
Lang help_language();
// The sentence `key` of app/text.txt (or any command's text.txt, lessons/ui_text.h) in that language.
std::string tr(const std::string& key, std::vector<Prose> args = {});

}  // namespace attn
