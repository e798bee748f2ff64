"""Checks attn-tutor's exports with the standard library only (ctest, no torch needed):
  FILE.py     parses as Python (ast)
  FILE.ipynb  is nbformat 4 JSON with the keys nbformat requires (and passes nbformat.validate when
              this Python has nbformat: Debian's python3-nbformat)
  FILE.shapes one shape note expression a line: each parses as one Python expression whose
              outermost operation is `.shape` (so `(a @ b).shape`, never `a @ b.shape`)
Prints one line per problem and exits 1 when there is any."""
import ast
import json
import sys

problems = []


def check_py(path):
    try:
        ast.parse(open(path, encoding="utf-8").read(), path)
    except SyntaxError as e:
        problems.append(f"{path}:{e.lineno}: not Python: {e.msg}: {e.text!r}")


def check_ipynb(path):
    try:
        nb = json.load(open(path, encoding="utf-8"))
    except ValueError as e:
        problems.append(f"{path}: not JSON: {e}")
        return
    for key in ("cells", "metadata", "nbformat", "nbformat_minor"):
        if key not in nb:
            problems.append(f"{path}: no '{key}'")
    if nb.get("nbformat") != 4:
        problems.append(f"{path}: nbformat is {nb.get('nbformat')!r}, not 4")
    for i, cell in enumerate(nb.get("cells", [])):
        kind = cell.get("cell_type")
        need = {"markdown": ("metadata", "source"), "code": ("metadata", "source", "outputs", "execution_count")}
        if kind not in need:
            problems.append(f"{path}: cell {i}: cell_type {kind!r}")
            continue
        for key in need[kind]:
            if key not in cell:
                problems.append(f"{path}: cell {i}: no '{key}'")
        if not all(isinstance(s, str) for s in cell.get("source", [])):
            problems.append(f"{path}: cell {i}: source is not a list of strings")
        if kind == "code":
            try:
                ast.parse("".join(cell["source"]))
            except SyntaxError as e:
                problems.append(f"{path}: cell {i}: not Python: {e.msg}")
            for out in cell.get("outputs", []):
                if out.get("output_type") != "stream" or out.get("name") != "stdout" or "text" not in out:
                    problems.append(f"{path}: cell {i}: an output that is not a stdout stream")
    try:
        import nbformat
    except ImportError:
        return
    try:
        nbformat.validate(nbformat.reads(open(path, encoding="utf-8").read(), as_version=4))
    except Exception as e:  # nbformat.ValidationError and its reader's errors
        problems.append(f"{path}: nbformat.validate: {str(e).splitlines()[0]}")


def check_shapes(path):
    for n, line in enumerate(open(path, encoding="utf-8").read().splitlines(), 1):
        try:
            node = ast.parse(line, mode="eval").body
        except SyntaxError as e:
            problems.append(f"{path}:{n}: shape note {line!r} is not Python: {e.msg}")
            continue
        if not (isinstance(node, ast.Attribute) and node.attr == "shape"):
            problems.append(f"{path}:{n}: shape note {line!r} is not the .shape of one expression")


for path in sys.argv[1:]:
    {"py": check_py, "ipynb": check_ipynb, "shapes": check_shapes}[path.rsplit(".", 1)[-1]](path)
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
