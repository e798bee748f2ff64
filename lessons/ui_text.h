#pragma once
// The commands' own prose, beside the lessons': check, verify, bench and kv-memory
// (features/NAME/*.txt) and the command line itself (app/text.txt: the lesson list, help, the
// step-mode prompt, errors) and lib/core's errors (lib/core/text.txt). The same format as a
// lesson's text.txt: [key], en = ..., zh = ...
#include <string>
#include <vector>

#include "core/usage_error.h"
#include "notebook/prose.h"

namespace attn {

// Every command's table, each falling back to the one before, so one lookup finds any key.
const TextTable& ui_text();
// Every table on its own (for the test that each key has both languages).
std::vector<const TextTable*> ui_tables();
// The sentence `key` in `lang` with its values filled in.
std::string ui(const std::string& key, Lang lang, std::vector<Prose> args = {});
// An error raised below the app (core/usage_error.h) in `lang`: its key rendered with its values.
std::string error_message(const ErrorText& error, Lang lang);
std::string error_message(const UsageError& error, Lang lang);

}  // namespace attn
