#pragma once
// Text from the learner (file names, option values, tokens of a file) shown back in a message:
// control characters and bytes that are not UTF-8 escaped, long values shortened with "…", so a
// message stays one short line and cannot move the terminal's cursor or change its colours.
#include <cstddef>
#include <string>
#include <utility>

namespace attn {

// The code point starting at text[i] and its length in bytes, or length 0 when text[i] does not start
// a valid UTF-8 sequence (overlong forms, surrogates and values past U+10FFFF are not valid).
std::pair<char32_t, std::size_t> decode_utf8(const std::string& text, std::size_t i);

// `value` with control characters as \n, \t, \r, \e or \xNN, invalid UTF-8 bytes as \xNN, the bidi
// controls that reorder a line (U+202E, U+2067, ...) as \u202e, and
// at most `max_chars` characters: a longer value keeps its start and end around "…".
std::string echo(const std::string& value, std::size_t max_chars = 40);

// A whole one-line message made safe for the terminal: the escapes of echo() everywhere, every run
// of more than 64 characters without a space (or a Chinese character, U+0800 and above) shortened
// to its start and end around "…", and at most about 1000 characters in all (the start and the
// end, where the fix is, are kept).
std::string clean_message(const std::string& message);

// True when `text` is valid UTF-8 without control characters (tokens printed in tables; a bidi control
// is allowed in a token: every place that shows one escapes it, echo() and label_text()).
bool is_printable_utf8(const std::string& text);

}  // namespace attn
