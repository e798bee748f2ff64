#!/usr/bin/python3
"""The learner programs (tests/learners/, tests/fixtures/traces/programs/) as they are stored, and whole.

Each piece of code is stored once:
- A program that copies one of the book's classes (or its embeddings) verbatim holds the line
  `# <book: NAME>` in its place: program_text() puts there the text of NAME in tools/book_listings.py (the
  book's code, verbatim; `# <book: NAME.__init__>`: the class with its constructor only).
- A program that is another one with a change (a mistake, another header, another setting) is stored as
  NAME.diff: a unified diff (3 lines of context) whose `--- BASE.py` line names the program it changes
  (whole, or itself a diff): BASE.py of the same folder, or a path with a "/" from the repository's root
  (tests/learners/c10_wrapper_loop.py).
program_text() gives every program as the learner wrote it, whole, for the tools that run them
(check_learner_programs.py, gen_trace_fixtures.py), which write it into a temporary folder first.

    /usr/bin/python3 tools/program_diffs.py --out DIR FOLDER         # every program of FOLDER, whole, into DIR
    /usr/bin/python3 tools/program_diffs.py --store FOLDER BASE.py EDITED/NAME.py   # (re)write FOLDER/NAME.diff
    (BASE.py: a program of FOLDER, or its path from the repository's root, tests/learners/c11_wrapper_dropout.py)

To change a stored program: --out to a scratch folder, edit NAME.py there, --store it again (a diff that no
longer applies to its base, after the base was edited, is an error that names the hunk); a whole program's
`# <book: ...>` lines stay as they are in the file.
"""
import argparse
import ast
import difflib
import os
import re
import sys

HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
BOOK_LINE = re.compile(r"# <book: (\w+)(\.__init__)?>\n?$")
TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
BOOK = os.path.join(TOOLS, "book_listings.py")


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


def book_text(name, init_only=False, book=BOOK):
    """The text of the top-level class or variable NAME of book (tools/book_listings.py) as it stands there;
    init_only: the class's lines up to the end of its __init__. None when book has no such NAME."""
    with open(book, encoding="utf-8") as f:
        source = f.read()
    lines = source.splitlines(True)
    for node in ast.parse(source, book).body:
        if isinstance(node, ast.ClassDef):
            names = [node.name]
        elif isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        else:
            continue
        if name not in names:
            continue
        end = node.end_lineno
        if init_only:
            init = [n for n in getattr(node, "body", []) if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
            if not init:
                return None
            end = init[0].end_lineno
        return "".join(lines[node.lineno - 1:end])
    return None


def expand(path, text):
    """text with each line `# <book: NAME>` (or `# <book: NAME.__init__>`) replaced by that code of the book."""
    out = []
    for i, line in enumerate(text.splitlines(True)):
        m = BOOK_LINE.match(line)
        if not m:
            out.append(line)
            continue
        code = book_text(m.group(1), bool(m.group(2)))
        if code is None:
            raise DiffError("%s line %d: tools/book_listings.py has no %s; name one of its classes or variables"
                            % (path, i + 1, m.group(1) + (m.group(2) or "")))
        out.append(code)
    return "".join(out)


def whole_text(path):
    """The whole program stored as the file path (.py), its `# <book: ...>` lines expanded."""
    with open(path, encoding="utf-8") as f:
        return expand(path, f.read())


def base_path(folder, base):
    """Where the base a diff names lies: BASE.py of folder, or a path with a "/" from the repository's root."""
    return os.path.join(ROOT, *base.split("/")) if "/" in base else os.path.join(folder, base)


def program_text(folder, name, _within=()):
    """The program NAME.py of folder, whole: the file itself, or its NAME.diff applied to its base, itself whole
    (each with its `# <book: ...>` lines expanded)."""
    path = os.path.join(folder, name + ".py")
    if os.path.exists(path):
        return whole_text(path)
    diff_path = os.path.join(folder, name + ".diff")
    with open(diff_path, encoding="utf-8") as f:
        diff_text = f.read()
    base = base_of(diff_path, diff_text)
    where = base_path(folder, base)
    base_folder, base_name = os.path.dirname(where), os.path.basename(where)[:-3]
    if not base.endswith(".py") or ".." in base.split("/") or os.sep in base.replace("/", "") or not any(
            os.path.isfile(os.path.join(base_folder, base_name + ext)) for ext in (".py", ".diff")):
        raise DiffError("%s: its base %r is not a program of %s (or a path from the repository's root)"
                        % (diff_path, base, folder))
    if os.path.abspath(diff_path) in _within:
        raise DiffError("%s: its bases come back to it; give one of them whole" % diff_path)
    return apply(diff_path, diff_text, program_text(base_folder, base_name, _within + (os.path.abspath(diff_path),)))


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
                    help="store PROGRAM (a whole .py) as FOLDER/NAME.diff against BASE (a program of FOLDER, or a "
                    "path from the repository's root)")
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
            if "/" in base and os.path.dirname(os.path.abspath(os.path.join(ROOT, base))) == os.path.abspath(folder):
                base = os.path.basename(base)  # a program of the same folder goes by its name
            name = os.path.basename(program)
            where = base_path(folder, base)
            base_text = program_text(os.path.dirname(where), os.path.basename(where)[:-3])
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
