#!/usr/bin/python3
"""Regenerate the fixtures made with real PyTorch: one generator, or all, each with its committed arguments.

    /usr/bin/python3 tools/gen_fixtures.py NAME|all [--into DIR] [--list]

NAME is a row of GENERATORS below. The files go where the repository keeps them; with --into DIR they go to
the same paths below DIR instead (the repository is left as it is), so that

    /usr/bin/python3 tools/gen_fixtures.py all --into /tmp/fx && \\
        for f in $(cd /tmp/fx && find . -type f); do cmp /tmp/fx/$f $f; done

shows that the committed fixtures are what the generators make. Needs torch, numpy and a built
build/attn-tutor (or $ATTN_TUTOR): the command lines of the cases come from its option table.
The lesson traces hold what the tracer saw of `attn-tutor LESSON --py`, so they change with the binary.
What a generator prints instead of writing (verify's reference entries with --reference, gen_rng_vectors.py's
test vectors, the .inc tables of lib/) is pasted by hand and not run here.
"""
import argparse
import os
import subprocess
import sys

import common

FX = "tests/fixtures"
# name: (script, its arguments; "{out}" is the repository, or --into DIR)
GENERATORS = {
    "trainable": ("gen_trainable_fixtures.py", ["--cases", "60", "--out", "{out}/%s/trainable_pytorch.json" % FX]),
    "chapter": ("gen_chapter_fixtures.py", ["--out", "{out}/%s/chapter_pytorch.json" % FX]),
    "course": ("gen_course_fixtures.py", ["--out", "{out}/%s/course_pytorch.json" % FX]),
    "d2l": ("gen_d2l_fixtures.py", ["--out", "{out}/%s/d2l_pytorch.json" % FX]),
    "bonus": ("gen_bonus_fixtures.py", ["--cases", "30", "--out", "{out}/%s/bonus_pytorch.json" % FX,
                                        "--exports", "{out}/%s/mistakes" % FX]),
    "mha-forms": ("gen_mha_forms_fixtures.py", ["--out", "{out}/%s/mha_forms_pytorch.json" % FX,
                                                "--exports", "{out}/%s/mistakes" % FX]),
    "mistakes": ("gen_mistake_fixtures.py", ["--out", "{out}/%s/mistakes" % FX]),
    "traces": ("gen_trace_fixtures.py", ["--out", "{out}/%s/traces" % FX]),
    "lesson-traces": ("gen_lesson_traces.py", ["--out", "{out}/%s/traces/lessons" % FX]),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("name", nargs="?", help="one of GENERATORS, or all")
    ap.add_argument("--into", help="write below this folder instead of the repository")
    ap.add_argument("--list", action="store_true", help="print each generator's command line and stop")
    args = ap.parse_args()
    if args.list:
        args.name = args.name or "all"
    if args.name != "all" and args.name not in GENERATORS:
        sys.exit("gen_fixtures.py %s: not a generator; give all or one of: %s" % (args.name, ", ".join(GENERATORS)))
    out = os.path.abspath(args.into) if args.into else common.ROOT
    for name, (script, argv) in GENERATORS.items():
        if args.name not in ("all", name):
            continue
        cmd = [sys.executable, os.path.join(common.ROOT, "tools", script)] + [a.format(out=out) for a in argv]
        print("==", name + ":", " ".join(cmd), flush=True)
        if args.list:
            continue
        for a in argv:
            if a.startswith("{out}/"):  # the folder a generator writes into exists
                path = a.format(out=out)
                os.makedirs(path if not path.endswith(".json") else os.path.dirname(path), exist_ok=True)
        env = dict(os.environ, ATTN_TUTOR=common.attn_tutor_exe())
        if subprocess.run(cmd, cwd=common.ROOT, env=env).returncode != 0:
            sys.exit("gen_fixtures.py: %s failed" % name)


if __name__ == "__main__":
    main()
