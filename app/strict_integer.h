#pragma once
// Integer options read strictly: decimal digits with an optional leading '-', nothing else (no hex or
// octal prefixes, no '+', spaces, underscores or exponent, not empty) and within int64_t.
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace attn {

// The value of `text` when it is such an integer.
bool strict_integer(const std::string& text, int64_t& value);

// For CLI11's transform(): refuses any other text before CLI11 converts it (CLI11 itself reads "0x10"
// as 16, "016" as 14 and "" as 0) and passes on the canonical spelling ("016" -> "16"). With a range it
// fails as CLI::Range does ("... not in range MIN to MAX"), so the message names the range; without
// one it says "not a whole number" or "too many digits" (app/parse_errors.cpp words them).
CLI::Validator strict_integer_check();
CLI::Validator strict_integer_check(int64_t min, int64_t max);

}  // namespace attn
