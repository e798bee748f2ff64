#pragma once
// A lesson's notebook as something to run beside the book: a Python script (the cells in order,
// each under its heading, the notes as comments) and a Jupyter notebook (nbformat 4: markdown cells
// for headings and notes, code cells with the tool's printed output stored as their stdout stream).
// The cells already hold the settings the lesson ran with (seed, inputs, sizes), so the script run
// in PyTorch prints what the tool printed; shape notes are comments, never output.
#include <string>

#include "notebook/notebook.h"

namespace attn {

// The script: `import torch`, `import torch.nn as nn`, then every cell under a `# In [n]:` line, the
// headings and notes as comments in `lang` (with `explain`, the longer explanations too).
std::string export_python(const Notebook& nb, Lang lang, bool explain = false);
// The .ipynb JSON (nbformat 4.4, Python 3 kernel), the headings and notes as Markdown in `lang`.
std::string export_ipynb(const Notebook& nb, Lang lang, bool explain = false);
// The code both exports start with: the imports, and with --bernoulli mkl (the notebook's config) a comment
// saying that the dropout masks are those of PyTorch <= 2.6 with MKL on an Intel CPU, and a check that prints
// a warning on stderr when this PyTorch has no MKL or is 2.7 or later (stdout stays what the tool printed).
std::string export_header(const Notebook& nb, Lang lang);
// Whether the exports carry that warning: the lesson drew its dropout masks on the MKL path.
bool export_needs_mkl(const Notebook& nb);
// What cell `cell`'s code prints, as the tool shows it: its output lines, each ending in '\n'.
std::string cell_stdout(const Notebook& nb, int cell);

}  // namespace attn
