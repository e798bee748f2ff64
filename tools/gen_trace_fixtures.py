"""Traces of learner programs, made with real torch, for `attn-tutor check`'s tests (tests/test_check_program.cpp).

    /usr/bin/python3 tools/gen_trace_fixtures.py

Runs each program of tests/fixtures/traces/programs/ (given whole by tools/program_diffs.py: a NAME.diff there
applied to its base, a `# <book: NAME>` line expanded) and seventeen of tests/learners/ (FROM_LEARNERS) (a .py, and the notebook made from it: one code cell per
"# %%" block) under check's tracer (python/tracer.py, the one the binary embeds) with this Python, and
writes its "attn-tutor-trace/1" document (docs/trace-json.md) to tests/fixtures/traces/NAME.json (the notebook's
NAME-ipynb.json). CI has no torch: the tests check these documents with `attn-tutor check TRACE.json`.
Needs torch.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import torch  # noqa: F401 -- the traces need real torch

import program_diffs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRACER = os.path.join(ROOT, "python", "tracer.py")
PROGRAMS = os.path.join(ROOT, "tests", "fixtures", "traces", "programs")
OUT = os.path.join(ROOT, "tests", "fixtures", "traces")


def notebook_of(py_path, nb_path):
    """The program as a notebook: a markdown cell, then a code cell per "# %%" block (the marker line dropped)."""
    with open(py_path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, block = [], []
    for ln in lines:
        if ln.startswith("# %%"):
            blocks.append(block)
            block = []
        else:
            block.append(ln)
    blocks.append(block)
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# " + os.path.basename(py_path)]}]
    for b in blocks:
        body = "\n".join(b).strip("\n")
        if body:
            src = body.split("\n")
            cells.append({"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                          "source": [ln + "\n" for ln in src[:-1]] + [src[-1]]})
    with open(nb_path, "w", encoding="utf-8") as f:
        json.dump({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}, f, indent=1)
        f.write("\n")


def trace(program, out):
    subprocess.run([sys.executable, TRACER, program, out], cwd=os.path.dirname(program), check=True,
                   stdout=subprocess.DEVNULL)
    with open(out, encoding="utf-8") as f:
        doc = json.load(f)
    if doc["status"] != "ok":
        sys.exit("%s: %s %s" % (program, doc["status"], doc.get("message")))
    doc["python"] = "3"  # the fixture does not depend on the Python that made it
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", out, len(doc["events"]), "events")


# Programs of the learner corpus (tests/learners/), traced as they are without their export block, under
# the fixture's name.
FROM_LEARNERS = {"kv-mask-row0": "m25_kv_mask_row0", "swa-cache-oldest": "m24_swa_cache_oldest",
                 "mha-eval-mode": "m12_mha_eval_mode", "sa-v2-no-scaling": "m33_sa_v2_no_scaling",
                 "sa-classes-book": "c23_sa_classes_book", "sections-33-34": "c25_sections_33_34",
                 "sections-33-query-first": "m39_sections_33_query_first",
                 "sections-34-to-352": "c26_sections_34_to_352",
                 "sections-351-triu": "m41_sections_351_triu_diagonal", "dropout-seed-42": "c27_dropout_seed_42",
                 "mha-dropout-other-masks": "c28_mha_dropout_other_masks", "blog-own-sizes": "n01_blog_own_sizes",
                 "causal-own-names": "n02_causal_own_names", "trainable-inputs-as-x": "m45_trainable_inputs_as_x_randn",
                 "wrapper-several-masks": "c31_wrapper_dropout_other_masks", "mha-gpt2-no-reseed": "m46_mha_gpt2_no_reseed",
                 "causal-forward-softmax-dim1": "m47_causal_forward_softmax_dim1"}


def main():
    from check_learner_programs import strip_export  # noqa: E402 -- a sibling tool
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=OUT, help="the traces' folder (default tests/fixtures/traces); the "
                    "notebooks made from the programs go to its programs/")
    out = ap.parse_args().out
    os.makedirs(os.path.join(out, "programs"), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for stem, learner in sorted(FROM_LEARNERS.items()):
            code = strip_export(program_diffs.program_text(os.path.join(ROOT, "tests", "learners"), learner), learner)
            py = os.path.join(tmp, stem + ".py")
            with open(py, "w", encoding="utf-8") as f:
                f.write(code)
            trace(py, os.path.join(out, stem + ".json"))
        for stem in program_diffs.program_names(PROGRAMS):  # whole, or a diff against another (applied)
            py = program_diffs.write_program(PROGRAMS, stem, tmp)
            trace(py, os.path.join(out, stem + ".json"))
            if stem.startswith(("causal", "trainable")):
                nb = os.path.join(out, "programs", stem + ".ipynb")
                notebook_of(py, nb)
                trace(nb, os.path.join(out, stem + "-ipynb.json"))


if __name__ == "__main__":
    main()
