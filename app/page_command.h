#pragma once
// The command line that makes an HTML page again: `attn-tutor LESSON` and the options given that
// shape the lesson (from the option table, in its order), quoted for a POSIX shell; the language
// also when it came from the environment. Output-only options (--json, --color, ...) are left out.
#include <string>

#include "lesson_command.h"

namespace attn {

std::string reproducing_command(const std::string& lesson, const CliOptions& cli, Lang lang);

// `word` as one word of a POSIX shell: as it is when it is safe, else in single quotes.
std::string shell_word(const std::string& word);

}  // namespace attn
