#pragma once
// The text tables compiled into the binary, generated at build time by cmake/embed_texts.cmake:
// {"FOLDER", contents} for every lessons/FOLDER/text.txt, {"FOLDER/FILE.txt", ...} for a lesson's other
// tables (its listings), {"options.txt", ...}, and {"ui:PATH", ...} for the commands' own tables
// (features/NAME/*.txt, app/text.txt, lessons/errors.txt, lib/core/text.txt).
#include <string>
#include <utility>
#include <vector>

namespace attn {

const std::vector<std::pair<std::string, std::string>>& embedded_text_tables();

}  // namespace attn
