#pragma once
// The one place numbers become text the way Python and PyTorch write them.
#include <string>
#include <utility>
#include <vector>

namespace attn {

// Python's repr of a float (a double): the shortest digits that read back, "0.5", "1.4285714285714286",
// "1e-05", "1e+16", "-0.0", "inf", "nan".
std::string py_float(double v);

// Python's repr() of the str whose UTF-8 bytes are `text`, quotes included: 'journey', "it's",
// 'say "hi"', 'a\\b\n', '\u202e' — the one way user text (tokens, names) becomes Python code. Quotes as
// repr chooses them (single unless the text has ' and no "); \\ \n \r \t \xNN \uNNNN \UNNNNNNNN for what
// str.isprintable() refuses (tools/gen_py_printable.py); printable non-ASCII as it is. A byte that is not
// UTF-8 is written as the surrogate escape \udcNN, so the literal read back and encoded with
// .encode("utf-8", "surrogateescape") gives `text`'s bytes again.
std::string py_str(const std::string& text);

// `text` made safe for a Python comment line: every character py_str escapes except the spaces
// (control characters, line and paragraph separators, bidi and zero-width format characters,
// undecodable bytes) written as py_str writes it, so nothing in it can end the comment or reorder
// the code around it on screen. Backslashes and quotes stay as they are.
std::string py_comment(const std::string& text);

// True when Python's `" ".join(words).split() == words` holds: no word is empty and none holds a
// character str.split() splits at (ASCII and Unicode white space).
bool py_splits_back(const std::vector<std::string>& words);

// The shortest decimal digits that read back as the same float32: "0.43", "1", "-0", "1e-07".
std::string float32_text(float v);

}  // namespace attn
