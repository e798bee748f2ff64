"""Traces of every lesson's own program, made with real torch, for `attn-tutor check`'s tests
(tests/test_check_lessons_traced.cpp): each lesson's `--py` output (and the whole chapter's, `all --py` and
`all --ipynb`) run under check's tracer must check clean (exit 0) against its own lesson; one chapter
program with a mistake (3.5.1's mask without diagonal=1) must name it.

    /usr/bin/python3 tools/gen_lesson_traces.py [--attn-tutor build/attn-tutor]

Writes tests/fixtures/traces/lessons/NAME.json ("attn-tutor-trace/1", docs/trace-json.md). CI has no
torch: the tests check these documents with `attn-tutor check TRACE.json`. Needs torch.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import torch  # noqa: F401 -- the traces need real torch

from gen_trace_fixtures import trace  # noqa: E402  (the same tracer run and the same fixture form)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "traces", "lessons")
LESSONS = ["naive-scores", "softmax", "trainable", "causal-mask", "dropout", "wrapper", "mha", "course-mha",
           "d2l-mha", "kv-cache", "gqa", "mla", "swa"]
BOOK_MASK = "mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--attn-tutor", default=os.path.join(ROOT, "build", "attn-tutor"))
    ap.add_argument("--out", default=OUT, help="the traces' folder (default tests/fixtures/traces/lessons)")
    args = ap.parse_args()
    out = args.out
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for lesson in LESSONS + ["all"]:
            name = "chapter" if lesson == "all" else lesson
            py = os.path.join(tmp, name + ".py")
            subprocess.run([args.attn_tutor, lesson, "--py", py], check=True, stdout=subprocess.DEVNULL)
            trace(py, os.path.join(out, name + ".json"))
        nb = os.path.join(tmp, "chapter.ipynb")
        subprocess.run([args.attn_tutor, "all", "--ipynb", nb, "--lang", "en"], check=True, stdout=subprocess.DEVNULL)
        trace(nb, os.path.join(out, "chapter-ipynb.json"))
        # The chapter with one mistake: 3.5.1's mask (its first line of that code) without diagonal=1.
        with open(os.path.join(tmp, "chapter.py"), encoding="utf-8") as f:
            src = f.read()
        if BOOK_MASK not in src:
            sys.exit("the chapter's program has no line %r" % BOOK_MASK)
        wrong = os.path.join(tmp, "chapter-triu.py")
        with open(wrong, "w", encoding="utf-8") as f:
            f.write(src.replace(BOOK_MASK, BOOK_MASK.replace(", diagonal=1)", ")"), 1))
        trace(wrong, os.path.join(out, "chapter-triu.json"))
        # The wrapper's heads concatenated in reverse (its forward's one line).
        heads = "torch.cat([head(x) for head in self.heads], dim=-1)"
        if src.count(heads) != 1:
            sys.exit("the chapter's program has not one line %r" % heads)
        reversed_heads = os.path.join(tmp, "chapter-heads-reversed.py")
        with open(reversed_heads, "w", encoding="utf-8") as f:
            f.write(src.replace(heads, heads.replace("in self.heads", "in reversed(self.heads)")))
        trace(reversed_heads, os.path.join(out, "chapter-heads-reversed.json"))
        # A learner's chapter that writes CausalAttention once (3.5.3) and uses it again in 3.6.1's wrapper,
        # without the scaling: in the class and in 3.5.3's step-by-step cell alike.
        trace(write_chapter_noscale(src, tmp), os.path.join(out, "chapter-noscale.json"))


def write_chapter_noscale(src, tmp):
    lines = src.split("\n")
    classes = [i for i, ln in enumerate(lines) if ln.startswith("class CausalAttention(")]
    wrapper = [i for i, ln in enumerate(lines) if ln.startswith("class MultiHeadAttentionWrapper(")]
    if len(classes) != 2 or len(wrapper) != 1 or not classes[1] < wrapper[0]:
        sys.exit("the chapter's program has not two CausalAttention classes before the wrapper")
    lines = lines[:classes[1]] + lines[wrapper[0]:]  # 3.6.1 reuses 3.5.3's class
    scaled = "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)"
    first = next(i for i in range(classes[0], len(lines)) if scaled in lines[i])  # the class's forward
    step = next(i for i in range(first + 1, len(lines)) if lines[i] == scaled)  # 3.5.3's step-by-step cell
    for i in (first, step):
        lines[i] = lines[i].replace(scaled, "attn_weights = torch.softmax(attn_scores, dim=-1)")
    path = os.path.join(tmp, "chapter-noscale.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    return path


if __name__ == "__main__":
    main()
