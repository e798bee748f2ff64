#pragma once
// Finds English prose in output that should be Chinese (tests only).
//
// The rule: a line is English prose when it holds a run of three or more consecutive *prose words*
// (whitespace-separated; a comma ends a run, so a list of names such as "keys, queries, values" is
// none). A prose word is two or more letters, all lower case after an optional
// capital ("the", "Diagnosis:", "reader's"), with at most an opening bracket before it and closing
// punctuation after it. Not words, so never part of a run: anything with a digit, '_', '.', '/', '-',
// '=', '|' or a bracket inside (attn_weights, torch.Size, --init, 0.4419, Intel/Windows, max|diff|),
// single letters (the dimensions b, T, N; the articles a and I continue a run without counting), CamelCase and acronyms (PyTorch, MultiHeadAttention, GPT),
// Python's keywords and builtins (for, in, if, not, return, print, range, None, ...: they continue a
// run but do not count, so code such as "for head in self.heads" never makes one), and text in quotes: `...`, "..." and “...”, which
// a note may carry over to its next line (quoted code, token strings and PyTorch's own messages).
// Three words: a Chinese sentence may name one or two English terms in a row (dropout, softmax,
// Transformer), never three. Short English lines ("85 passed, 0 failed") escape the rule; the
// snapshot test holds the Chinese reports of verify and check byte for byte.
//
// Lines that are not prose are skipped whole: code and tensors (the prompts ">>> " and "...", cell
// labels "In [n]:", tensor text, anything indented four or more spaces: check's listings and maps,
// tensor rows), Python's error lines ("RuntimeError: ..."), and in a lesson's output every line but
// its notes ("# ...") and headings ("== ..."): the rest is what the displayed Python code prints.
#include <string>
#include <vector>

// The lines of `text` that hold English prose by the rule above; `lesson`: a lesson's output.
std::vector<std::string> english_prose_lines(const std::string& text, bool lesson = false);
