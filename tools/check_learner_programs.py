#!/usr/bin/env python3
"""Run the learner programs of tests/learners/ through `attn-tutor check` three ways and compare each
verdict with tests/learners/expected.json (a maintainer tool: it needs real PyTorch; CI does not run it).

    /usr/bin/python3 tools/check_learner_programs.py [--attn-tutor build/attn-tutor] [--only NAME]
                                                     [--ways export,py,ipynb] [--python PYTHON] [-v]

The three ways, each in a fresh temporary folder that gets the program whole (tools/program_diffs.py: a
program stored as a diff, NAME.diff, applied to its base; a `# <book: NAME>` line, the book's code):
  export  run the program as it is (its `# --- export ---` block writes export.json with
          python/export_pytorch.py), then `attn-tutor check export.json`;
  py      the program without its export block, `attn-tutor check NAME.py --python PYTHON`;
  ipynb   the same code as a Jupyter notebook (nbformat 4, a code cell per blank-line-separated
          top-level block), `attn-tutor check NAME.ipynb --python PYTHON`.

A package program (a manifest entry with "package": its main module's path, e.g. "ch03/main.py") is a
folder, tests/learners/packages/NAME/, its files whole or stored as diffs as above ("package_base": another
package program whose files it has where it has none of its own): the export way runs `python -m
ch03.main`, the py way checks `ch03/main.py` (which runs it as that); it has no ipynb way.

Each verdict is compared with the manifest (exit code, first differing tensor, its cell, the diagnosis
named) and with the other ways (exit code, first tensor, diagnoses). Also flagged: a crash (an exit code
other than 0, 1, 2, or a signal), a non-empty stderr with exit 0 or 1, and untrue reason lines: a reason
that quotes a print(...) statement as the step a value missed (a print never changes a tensor), and a
"never reached" claim for a name the program really did compute at that step (every name except those
listed under "stale" in the manifest). Prints a table; exits 1 on any mismatch, 2 when it cannot run.
"""
import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import program_diffs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "learners")
WAYS = ("export", "py", "ipynb")
BEGIN, END = "# --- export ---", "# --- end export ---"


def die(message):
    print(message, file=sys.stderr)
    sys.exit(2)


def mistake_titles(path):
    """{English title: mistake id} from features/check/mistakes.txt."""
    titles, key = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\[mistake\.([a-z0-9-]+)\.title\]", line.strip())
            if m:
                key = m.group(1)
                continue
            if key and line.startswith("en = "):
                titles[line[5:].strip()] = key
                key = None
    return titles


def strip_export(source, name):
    lines = source.split("\n")
    try:
        b = lines.index(BEGIN)
        e = lines.index(END)
    except ValueError:
        die(f"{name}: no '{BEGIN}' ... '{END}' block")
    if e < b:
        die(f"{name}: the export block ends before it begins")
    return "\n".join(lines[:b] + lines[e + 1:]).rstrip() + "\n"


def notebook_cells(code):
    """Split at blank lines followed by a top-level (unindented) line: one cell per block."""
    cells, cur, blank = [], [], False
    for line in code.rstrip("\n").split("\n"):
        if not line.strip():
            blank = True
            continue
        if blank and cur and not line[0].isspace():
            cells.append(cur)
            cur = []
        elif blank and cur:
            cur.append("")
        blank = False
        cur.append(line)
    if cur:
        cells.append(cur)
    return cells


def notebook(code):
    cells = []
    for i, lines in enumerate(notebook_cells(code)):
        src = [l + "\n" for l in lines]
        src[-1] = src[-1].rstrip("\n")
        cells.append({"cell_type": "code", "execution_count": None, "id": "cell-%d" % i, "metadata": {},
                      "outputs": [], "source": src})
    return {"cells": cells,
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


PACKAGES = os.path.join(CORPUS, "packages")


def package_files(name, entry):
    """{path in the program's folder: text, whole} of package program NAME (its base's files first)."""
    files = package_files(entry["package_base"], {}) if entry.get("package_base") else {}
    top = os.path.join(PACKAGES, name)
    if not os.path.isdir(top):
        die(f"{name}: no folder tests/learners/packages/{name}")
    for folder, _, names in os.walk(top):
        rel = os.path.relpath(folder, top)
        for f in sorted(names):
            if not f.endswith((".py", ".diff")):
                continue
            stem = f.rsplit(".", 1)[0]
            try:
                files[os.path.normpath(os.path.join(rel, stem + ".py"))] = program_diffs.program_text(folder, stem)
            except (OSError, program_diffs.DiffError) as e:
                die(f"{name}: {e}")
    return files


def write_files(dest, files):
    for path, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(dest, path)) or dest, exist_ok=True)
        with open(os.path.join(dest, path), "w", encoding="utf-8") as f:
            f.write(text)


def run(cmd, cwd, env=None, timeout=300):
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                           errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", f"timed out after {timeout} s"


def parse(out, titles):
    """What a check report says: the first differing tensor, its cell, the mistakes named, the reasons."""
    v = {"first": None, "cell": None, "mistakes": [], "stale": [], "print_blamed": [], "no_known": False}
    lines = out.split("\n")
    v["lesson"] = None
    v["sections"] = None
    notes = []  # the header's notes, their wrapped lines joined
    for line in lines[1:]:
        if line.startswith("    ") and notes:
            notes[-1] += " " + line.strip()
        elif line.startswith("  ") and line[2:3] not in ("\u2713", "\u2717", "?", ""):
            notes.append(line)
        else:
            break
    for line in notes:
        m = re.match(r"\s*your program computes these sections of the chapter, .*?: (.*)$", line)
        if m:
            v["sections"] = re.findall(r"([a-z0-9-]+) \(", m.group(1))
    for line in lines[:3]:
        m = re.match(r"attn-tutor check .*: lesson (\S+?),? \d+ tensors?$", line)
        if m:
            v["lesson"] = m.group(1)
    for line in lines:
        m = re.match(r"First difference: (.+?)(?: \(the first|$| \(line| at )", line)
        if m and v["first"] is None:
            v["first"] = m.group(1).strip()
    if v["first"] is not None:
        for line in lines:
            m = re.match(r"\s*✗\s+(.+?)\s+\(.*?In \[(\d+)\]", line)
            if m and m.group(1) == v["first"]:
                v["cell"] = int(m.group(2))
                break
    for line in lines:
        for prefix in ("Diagnosis: ", "Possible diagnosis: "):
            if line.startswith(prefix):
                title = line[len(prefix):].strip()
                v["mistakes"].append(titles.get(title, "?" + title))
        m = re.match(r"\s+(.+?): ", line)
        if m and m.group(1) in titles and titles[m.group(1)] not in v["mistakes"]:
            v["mistakes"].append(titles[m.group(1)])
        m = re.match(r"\s*✗\s+(\S+)\s.*it is still its value before `\s*(.*)`", line)
        if m:
            v["stale"].append(m.group(1))
            if m.group(2).startswith("print("):
                v["print_blamed"].append(m.group(1))
        m = re.search(r"never reached your (\S+?)\.?$", line)
        if m and m.group(1) not in v["stale"]:
            v["stale"].append(m.group(1))
        for m in re.finditer(r"before `\s*(print\(.*?)`", line):
            v["print_blamed"].append(m.group(1)[:40])
        if line.startswith("No known mistake gives your numbers"):
            v["no_known"] = True
    v["print_blamed"] = sorted(set(v["print_blamed"]))
    v["stale"] = sorted(set(v["stale"]))
    return v


def expected_for(entry, way):
    e = {k: entry[k] for k in ("exit", "first", "cell", "mistake", "sections", "says") if k in entry}
    e.update(entry.get("by_way", {}).get(way, {}))
    if e.get("exit") == 0:
        for k in ("first", "cell", "mistake"):
            e.pop(k, None)
    return e


def judge(name, entry, way, rc, out, err, v):
    """The problems of one verdict, as short strings."""
    problems = []
    e = expected_for(entry, way)
    if rc == "timeout":
        return ["timeout"]
    if rc not in (0, 1, 2) or rc < 0:
        problems.append(f"CRASH exit {rc}")
    if rc != e["exit"]:
        problems.append(f"exit {rc}, expected {e['exit']}")
    if rc in (0, 1) and err.strip():
        problems.append("stderr: " + err.strip().split("\n")[-1][:100])
    if rc == 2 and e["exit"] != 2:
        problems.append("error: " + (err.strip().split("\n")[0][:160] if err.strip() else "(no message)"))
    if rc == 2 and e["exit"] == 2 and (e.get("says", "") not in err or len(err.strip().split("\n")) != 1):
        problems.append("refusal without '" + e.get("says", "") + "' on one line: " + err.strip()[:160])
    chapter = ("naive-scores", "softmax", "trainable", "causal-mask", "dropout", "wrapper", "mha")
    lesson = entry.get("by_way", {}).get(way, {}).get("lesson", entry["lesson"])
    if rc in (0, 1) and v["lesson"] != lesson and not (v["lesson"] == "all" and lesson in chapter):
        problems.append(f"lesson {v['lesson']}, expected {lesson}")
    if rc in (0, 1) and e.get("sections") is not None and v["sections"] != e["sections"]:
        problems.append(f"sections {v['sections']}, expected {e['sections']}")
    if rc == 1 and e["exit"] == 1:
        firsts = e["first"] if isinstance(e.get("first"), list) else [e.get("first")]
        if "first" in e and v["first"] not in firsts:
            problems.append(f"first {v['first']}, expected {' or '.join(firsts)}")
        if e.get("cell") is not None and v["first"] == firsts[0] and v["cell"] is not None and v["cell"] != e["cell"]:
            problems.append(f"cell In [{v['cell']}], expected In [{e['cell']}]")
        if "mistake" in e and e["mistake"] is None and v["mistakes"]:
            problems.append(f"diagnosis {','.join(v['mistakes'])}, expected none (no known mistake)")
        elif "mistake" in e and e["mistake"] is not None and e["mistake"] not in v["mistakes"]:
            got = ",".join(v["mistakes"]) or ("none (no known mistake)" if v["no_known"] else "none")
            problems.append(f"diagnosis {got}, expected {e['mistake']}")
    if v["print_blamed"]:
        problems.append("UNTRUE reason blames print: " + "; ".join(v["print_blamed"]))
    untrue_stale = [s for s in v["stale"] if s not in entry.get("stale", [])]
    if untrue_stale:
        problems.append("UNTRUE 'never reached' for " + ", ".join(untrue_stale))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--attn-tutor", default=os.path.join(ROOT, "build", "attn-tutor"))
    ap.add_argument("--only", action="append", help="a program's name (without .py); repeatable, or a prefix")
    ap.add_argument("--ways", default=",".join(WAYS))
    ap.add_argument("--python", default=sys.executable, help="the Python with torch (default: this one)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folders (their paths are printed)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every report that has a problem")
    args = ap.parse_args()

    ways = [w.strip() for w in args.ways.split(",") if w.strip()]
    bad = [w for w in ways if w not in WAYS]
    if bad:
        die(f"--ways {args.ways}: unknown way {bad[0]}; use export, py, ipynb")
    tutor = os.path.abspath(args.attn_tutor)
    if not os.access(tutor, os.X_OK):
        die(f"--attn-tutor {args.attn_tutor}: not an executable; build it first (cmake --build build)")
    if args.python == sys.executable and importlib.util.find_spec("torch") is None:  # the programs need it
        die("this Python has no torch; run the harness with the Python that has it (or pass --python)")
    with open(os.path.join(CORPUS, "expected.json"), encoding="utf-8") as f:
        manifest = json.load(f)["programs"]
    titles = mistake_titles(os.path.join(ROOT, "features", "check", "mistakes.txt"))
    names = sorted(manifest)
    if args.only:
        names = [n for n in names if any(n == o or n.startswith(o) for o in args.only)]
        if not names:
            die(f"--only {', '.join(args.only)}: no such program in tests/learners/expected.json")
    env = dict(os.environ, ATTN_TUTOR_PYTHON=os.path.join(ROOT, "python"), NO_COLOR="1")

    rows, failures, reports = [], 0, []
    for name in names:
        entry = manifest[name]
        package = entry.get("package")
        if package:  # a folder of files; the main module's export block as a script's
            files = package_files(name, entry)
            if package not in files:
                die(f"{name}: its package has no {package}")
            source = files[package]
        else:
            try:  # a program stored as a diff or with `# <book: NAME>` lines is given whole (tools/program_diffs.py)
                source = program_diffs.program_text(CORPUS, name)
            except (OSError, program_diffs.DiffError) as e:
                die(f"{name}: {e}")
        code = strip_export(source, name)
        verdicts = {}
        for way in ways:
            if way not in entry.get("ways", WAYS) or (package and way == "ipynb"):
                verdicts[way] = None
                continue
            tmp = tempfile.mkdtemp(prefix=f"learner-{name}-{way}-")
            if package:
                write_files(tmp, dict(files, **{package: source if way == "export" else code}))
            if way == "export":
                run_it = [args.python, "-m", package[:-3].replace("/", ".")] if package else [args.python, name + ".py"]
                if not package:
                    with open(os.path.join(tmp, name + ".py"), "w", encoding="utf-8") as f:
                        f.write(source)
                prc, pout, perr = run(run_it, tmp, env)
                if prc != 0 or not os.path.exists(os.path.join(tmp, "export.json")):
                    last = (perr.strip().split("\n") or [""])[-1]
                    verdicts[way] = (None, "", "", None, [f"the program itself failed ({prc}): {last[:120]}"])
                    continue
                cmd = [tutor, "check", "export.json", "--color", "never", "--lang", "en"]
            elif way == "py":
                if not package:
                    with open(os.path.join(tmp, name + ".py"), "w", encoding="utf-8") as f:
                        f.write(code)
                cmd = [tutor, "check", package or name + ".py", "--python", args.python, "--color", "never",
                       "--lang", "en"]
            else:
                nb = notebook(code)
                try:  # where nbformat is installed, the notebook is checked against its schema
                    import nbformat
                    nbformat.validate(nbformat.from_dict(nb))
                except ImportError:
                    pass
                with open(os.path.join(tmp, name + ".ipynb"), "w", encoding="utf-8") as f:
                    json.dump(nb, f, indent=1)
                cmd = [tutor, "check", name + ".ipynb", "--python", args.python, "--color", "never",
                       "--lang", "en"]
            rc, out, err = run(cmd, tmp, env)
            v = parse(out, titles)
            problems = judge(name, entry, way, rc, out, err, v)
            verdicts[way] = (rc, out, err, v, problems)
            if problems:
                reports.append((name, way, " ".join(cmd[1:3]), out, err))
            if args.keep:
                print(f"kept {tmp}", file=sys.stderr)
            else:
                shutil.rmtree(tmp, ignore_errors=True)
        # the ways against each other
        agree = []
        done = [(w, verdicts[w]) for w in ways if verdicts.get(w) and verdicts[w][0] is not None]
        for w, (rc, _, _, v, _) in done[1:]:
            w0, (rc0, _, _, v0, _) = done[0]
            e0, e1 = expected_for(entry, w0), expected_for(entry, w)
            if e0.get("exit") != e1.get("exit") or e0.get("mistake") != e1.get("mistake"):
                continue  # the manifest expects other verdicts
            if rc != rc0:
                agree.append(f"{w} exit {rc} vs {w0} {rc0}")
            elif rc == 1 and v["first"] != v0["first"] and e0.get("first") == e1.get("first"):
                agree.append(f"{w} first {v['first']} vs {w0} {v0['first']}")
            elif rc == 1 and sorted(v["mistakes"]) != sorted(v0["mistakes"]):
                agree.append(f"{w} diagnosis {','.join(v['mistakes']) or '-'} vs {w0} {','.join(v0['mistakes']) or '-'}")
        cols = []
        ok_all = not agree
        for way in ways:
            vd = verdicts.get(way)
            if vd is None:
                cols.append("n/a")
                continue
            rc, _, _, v, problems = vd
            if problems:
                ok_all = False
            if rc is None:
                cols.append("RUN FAILED")
            elif not problems:
                cols.append(f"ok ({rc})")
            else:
                cols.append(f"FAIL ({rc})")
        e = expected_for(entry, "export")
        expect = {0: "0", 2: "2 (cannot judge)"}.get(e["exit"], f"1 {e.get('first')} {e.get('mistake')}")
        details = []
        for way in ways:
            vd = verdicts.get(way)
            if vd and vd[4]:
                details.append(f"{way}: " + "; ".join(vd[4]))
        details += ["ways differ: " + a for a in agree]
        rows.append((name, entry["lesson"], expect, cols, details))
        failures += 0 if ok_all else 1

    w_name = max(len(r[0]) for r in rows)
    w_lesson = max(len(r[1]) for r in rows)
    w_exp = min(60, max(len(r[2]) for r in rows))
    header = f"{'program':{w_name}}  {'lesson':{w_lesson}}  {'expected':{w_exp}}  " + "  ".join(f"{w:10}" for w in ways)
    print(header)
    print("-" * len(header))
    for name, lesson, expect, cols, details in rows:
        print(f"{name:{w_name}}  {lesson:{w_lesson}}  {expect[:w_exp]:{w_exp}}  " + "  ".join(f"{c:10}" for c in cols))
        for d in details:
            print(f"{'':{w_name}}    {d}")
    print()
    print(f"{len(rows) - failures} of {len(rows)} programs right in every way "
          f"({', '.join(ways)}); {failures} with a problem.")
    if args.verbose:
        for name, way, what, out, err in reports:
            print(f"\n===== {name} ({way}): attn-tutor {what}")
            print(out.rstrip())
            if err.strip():
                print("--- stderr:\n" + err.rstrip())
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
