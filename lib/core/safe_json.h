#pragma once
// JSON from a learner's file, parsed without trusting it: nesting at most `max_depth` levels (so
// nothing downstream recurses deeper), and every error in our own words with its line and column.
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "core/usage_error.h"

namespace attn {

struct JsonRules {
  std::string source;       // the start of every message, e.g. "--inputs x.json"
  ErrorText fix;            // how to write a valid file, the end of a syntax error's message
  ErrorText nonfinite_fix;  // what to write instead of NaN, Infinity or a number like 1e309
  ErrorText depth_fix;      // how deep the file needs to nest
  int max_depth = 64;
  // At most this many values (numbers, strings, literals, arrays and objects: the document's memory
  // grows with their count); 0: no limit. `values_fix` says what the file needs.
  std::size_t max_values = 0;
  ErrorText values_fix;
};

// Throws UsageError (keys core.json.*): "<source>: not valid JSON at line L, column C: <what is wrong>; <fix>", or
// "<source>: nested more than N levels deep at line L, column C; <depth_fix>", or "<source>: more than N
// values ...; <values_fix>". Each limit stops the parse where it is passed: no more is built.
nlohmann::json parse_json_safely(const std::string& text, const JsonRules& rules);

}  // namespace attn
