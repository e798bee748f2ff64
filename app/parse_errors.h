#pragma once
// CLI11's parse errors as one line that names the option (or word) first and the fix: unknown
// options with a suggestion from the command's own options, options a lesson does not take,
// options before the lesson, missing or bad values.
#include <exception>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace attn {

// `args`: the command line without the program name. `error`: what app.parse threw (a CLI::ParseError,
// or another exception CLI11 let through, e.g. a flag given "=value").
std::string parse_error_message(CLI::App& app, const std::vector<std::string>& args, const std::exception& error);

}  // namespace attn
