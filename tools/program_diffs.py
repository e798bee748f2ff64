#!/usr/bin/python3
"""Programs kept as a diff against another program of their folder (tests/learners/, tests/fixtures/traces/programs/).

A program that is another one with one mistake is stored as NAME.diff: a unified diff (3 lines of context)
whose `--- BASE.py` line names the whole program of the same folder it changes; the diff is the mistake.
program_text() gives every program as the learner wrote it, whole, for the tools that run them
(check_learner_programs.py, gen_trace_fixtures.py), which write it into a temporary folder first.

    /usr/bin/python3 tools/program_diffs.py --out DIR FOLDER         # every program of FOLDER, whole, into DIR
    /usr/bin/python3 tools/program_diffs.py --store FOLDER BASE.py EDITED/NAME.py   # (re)write FOLDER/NAME.diff

To change a stored mistake: --out to a scratch folder, edit NAME.py there, --store it again (a diff that no
longer applies to its base, after the base was edited, is an error that names the hunk).
"""
import argparse
import difflib
import os
import re
import sys

HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class DiffError(Exception):
    pass


def make(base_name, base_text, name, text):
    """The diff that turns base_text into text (both end with a newline), with its --- and +++ lines."""
    for n, t in ((base_name, base_text), (name, text)):
        if not t.endswith("\n"):
            raise DiffError("%s: the last line has no newline; add one" % n)
    return "".join(difflib.unified_diff(base_text.splitlines(True), text.splitlines(True), base_name, name, n=3))


def apply(diff_name, diff_text, base_text):
    """base_text with the diff's hunks applied; every context and removed line must be the base's."""
    base, out, at = base_text.splitlines(True), [], 0
    lines = diff_text.splitlines(True)
    if len(lines) < 3 or not lines[0].startswith("--- ") or not lines[1].startswith("+++ "):
        raise DiffError("%s: not a unified diff (it starts with --- BASE and +++ NAME lines)" % diff_name)
    i = 2
    while i < len(lines):
        m = HUNK.match(lines[i])
        if not m:
            raise DiffError("%s line %d: expected a hunk header @@ -l,n +l,n @@" % (diff_name, i + 1))
        start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
        if start < at:
            raise DiffError("%s line %d: hunks out of order" % (diff_name, i + 1))
        out += base[at:start]
        at = start
        i += 1
        while i < len(lines) and not lines[i].startswith("@@"):
            tag, line = lines[i][:1], lines[i][1:]
            if tag in (" ", "-"):
                if at >= len(base) or base[at] != line:
                    raise DiffError("%s line %d: does not match line %d of its base; regenerate it with --store"
                                    % (diff_name, i + 1, at + 1))
                at += 1
                if tag == " ":
                    out.append(line)
            elif tag == "+":
                out.append(line)
            else:
                raise DiffError("%s line %d: a hunk line starts with ' ', '-' or '+'" % (diff_name, i + 1))
            i += 1
    return "".join(out + base[at:])


def base_of(diff_name, diff_text):
    """The program the diff changes (its --- line)."""
    if not diff_text.startswith("--- ") or "\n+++ " not in diff_text:
        raise DiffError("%s: not a unified diff (it starts with --- BASE and +++ NAME lines)" % diff_name)
    return diff_text.split("\n", 1)[0][4:].strip()


def program_text(folder, name):
    """The program NAME.py of folder, whole: the file itself, or its NAME.diff applied to its base."""
    path = os.path.join(folder, name + ".py")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return f.read()
    diff_path = os.path.join(folder, name + ".diff")
    with open(diff_path, encoding="utf-8") as f:
        diff_text = f.read()
    base = base_of(diff_path, diff_text)
    if not base.endswith(".py") or os.sep in base or not os.path.exists(os.path.join(folder, base)):
        raise DiffError("%s: its base %r is not a whole program of %s" % (diff_path, base, folder))
    with open(os.path.join(folder, base), encoding="utf-8") as f:
        return apply(diff_path, diff_text, f.read())


def program_names(folder):
    """Every program of folder (NAME without .py), whole or stored as a diff, sorted."""
    return sorted(f[:-3] if f.endswith(".py") else f[:-5] for f in os.listdir(folder) if f.endswith((".py", ".diff")))


def write_program(folder, name, dest):
    """Writes the program whole as dest/NAME.py; returns that path."""
    path = os.path.join(dest, name + ".py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(program_text(folder, name))
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", nargs=2, metavar=("DIR", "FOLDER"), help="write every program of FOLDER whole into DIR")
    ap.add_argument("--store", nargs=3, metavar=("FOLDER", "BASE", "PROGRAM"),
                    help="store PROGRAM (a whole .py) as FOLDER/NAME.diff against FOLDER/BASE")
    args = ap.parse_args()
    try:
        if args.out:
            dest, folder = args.out
            texts = {name: program_text(folder, name) for name in program_names(folder)}  # all apply, or none written
            os.makedirs(dest, exist_ok=True)
            for name, text in texts.items():
                with open(os.path.join(dest, name + ".py"), "w", encoding="utf-8") as f:
                    f.write(text)
            print("wrote %d programs of %s into %s" % (len(texts), folder, dest))
        elif args.store:
            folder, base, program = args.store
            base = os.path.basename(base)
            name = os.path.basename(program)
            with open(os.path.join(folder, base), encoding="utf-8") as f:
                base_text = f.read()
            with open(program, encoding="utf-8") as f:
                text = f.read()
            diff = make(base, base_text, name, text)
            if apply(name, diff, base_text) != text:
                raise DiffError("%s: the diff does not give the program back" % program)
            with open(os.path.join(folder, name[:-3] + ".diff"), "w", encoding="utf-8") as f:
                f.write(diff)
            print("stored %s as %s.diff against %s (%d lines)" % (name, name[:-3], base, diff.count("\n")))
        else:
            ap.error("give --out DIR FOLDER or --store FOLDER BASE PROGRAM")
    except (OSError, DiffError) as e:
        sys.exit("program_diffs.py: %s" % e)


if __name__ == "__main__":
    main()
