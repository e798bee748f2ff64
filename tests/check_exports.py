"""Checks attn-tutor's exports with the standard library only (ctest, no torch needed):
  FILE.py     parses as Python (ast)
  FILE.ipynb  is nbformat 4 JSON with the keys nbformat requires (and passes nbformat.validate when
              this Python has nbformat: Debian's python3-nbformat)
  FILE.shapes one shape note expression a line: each parses as one Python expression whose
              outermost operation is `.shape` (so `(a @ b).shape`, never `a @ b.shape`)
  FILE.html   parses with html.parser, holds only the report's own tags and no <script>
  --hostile ATTN_TUTOR DIR
              runs attn-tutor in DIR with hostile tokens (quotes, backslashes, newlines, triple quotes, </script>,
              NUL and control bytes, bytes that are not UTF-8, RTL and zero-width characters, long words,
              code that would create DIR/PWNED) through --tokens and through --inputs FILE, writing --py,
              --ipynb, --html and --json at once. Each run either is refused (exit 2, one line on stderr,
              no file written) or writes exports that all pass the checks above, whose `tokens = ...`
              evaluates (with ast, nothing run) to exactly the tokens given, whose JSON holds them, and
              that call nothing a token could smuggle in (__import__, eval, exec, open, ...), and whose notebook
              text on stdout holds no raw control or bidi character; PWNED never appears.
              Prints how many runs were refused and how many exported.
  --tokens-of FILE.py JSON_LIST
              the script's checks of --hostile alone: its `tokens = ...` gives the list, it names no __import__
Prints one line per problem and exits 1 when there is any."""
import ast
import html.parser
import json
import os
import re
import subprocess
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


# The tags html_report writes; anything else in a report came from the data.
REPORT_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "nav", "strong", "ul", "li", "a",
               "br", "span", "table", "tr", "th", "td", "pre", "figure", "figcaption", "div", "svg", "text", "rect"}


class TagCollector(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)


def check_html(path):
    try:
        text = open(path, encoding="utf-8").read()
    except UnicodeDecodeError as e:
        problems.append(f"{path}: not UTF-8: {e}")
        return
    parser = TagCollector()
    parser.feed(text)
    parser.close()
    if parser.tags - REPORT_TAGS:
        problems.append(f"{path}: tags the report does not write: {sorted(parser.tags - REPORT_TAGS)}")
    if re.search(r"<\s*/?\s*script", text, re.I):
        problems.append(f"{path}: a <script> in the report")


def check(path):
    {"py": check_py, "ipynb": check_ipynb, "shapes": check_shapes, "html": check_html}[path.rsplit(".", 1)[-1]](path)


# Names a script built from tokens never calls: a token that reached code as code would.
FORBIDDEN_NAMES = {"__import__", "eval", "exec", "open", "compile", "getattr", "globals", "breakpoint", "input"}


def assigned_tokens(tree):
    """The value of the first `tokens = ...` (a list of str, or a str literal's .split()), read with ast."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "tokens" for t in node.targets):
            v = node.value
            if (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "split"
                    and not v.args and not v.keywords and isinstance(v.func.value, ast.Constant)
                    and isinstance(v.func.value.value, str)):
                return v.func.value.value.split()
            return ast.literal_eval(v)  # a list of str literals, nothing else
    return None


def check_script_tokens(label, source, tokens):
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        problems.append(f"{label}: not Python: {e.msg}")
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in FORBIDDEN_NAMES:
            problems.append(f"{label}: the script names {node.id}")
    try:
        got = assigned_tokens(tree)
    except ValueError as e:
        problems.append(f"{label}: `tokens = ...` is not a literal: {e}")
        return
    if got != tokens:
        problems.append(f"{label}: `tokens = ...` gives {got!r}, not {tokens!r}")


def run_tool(exe, cwd, args):
    return subprocess.run([exe] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)


def hostile(exe, base):
    exe = os.path.abspath(exe)
    pwn = 'x"if(__import__("pathlib").Path("PWNED").touch())else"x'
    strings = [
        ("quotes", 'He said "hi" to me'), ("single", "it's Bob's"), ("both", "it's \"both\""),
        ("backslash", "a\\b c\\"), ("triple", '"""x""" \'\'\'y\'\'\''), ("script", "</script><script>alert(1)</script> b"),
        ("pwned", pwn + " y"), ("pwned2", "x'if(__import__('pathlib').Path('PWNED').touch())else'x y"),
        ("newline", "a\nb c"), ("cr", "a\rb c"), ("nul", "a\x00b c"), ("bell", "a\x07 b\x1b[2J"),
        ("c1", "a\u0085b c"), ("rtl", "abc\u202edcba \u2067x\u2069"), ("zwsp", "a\u200bb \ufeffc"),
        ("wide", "\u3000a \u00a0b c"), ("lsep", "a\u2028b c"), ("emoji", "\U0001F600 \u4f60\u597d"),
        ("hash", "# x\\ y"), ("long-ok", "a" * 1000 + " b"), ("long", "a" * 10000 + " b"),
        ("many-long", " ".join(["y" * 1000] * 16)), ("markdown", "`<img src=x onerror=alert(1)>` *b* [c](d) &amp;"),
    ]
    # As bytes too: not UTF-8 (a lone byte, a surrogate's encoding, a cut sequence).
    byte_strings = [("latin1", b"caf\xe9 ok"), ("surrogate", b"a\xed\xa0\x80 b"), ("cut", b"a\xe2\x82 b")]
    cases = [(name, text.encode("utf-8", "surrogatepass")) for name, text in strings] + byte_strings
    lessons = ["naive-scores", "kv-cache"]
    n_refused = n_exported = 0
    for name, raw in cases:
        for how in ("tokens", "inputs"):
            for lesson in lessons:
                label = f"{name}/{how}/{lesson}"
                d = os.path.join(base, label.replace("/", "-"))
                os.makedirs(d)
                if how == "tokens":
                    if b"\x00" in raw:
                        continue  # argv cannot hold NUL; the file case below carries it
                    # attn-tutor splits at ASCII white space, as the shell user expects
                    expect = [t.decode("utf-8", "surrogateescape") for t in re.split(rb"[ \t\n\v\f\r]+", raw) if t]
                    args = [lesson, "--tokens", raw]
                else:
                    toks = raw.split(b" ")
                    expect = [t.decode("utf-8", "surrogateescape") for t in toks]
                    # JSON from bytes: valid text as JSON strings, other bytes raw inside the quotes
                    items = []
                    for t in toks:
                        try:
                            items.append(json.dumps(t.decode("utf-8")).encode())
                        except UnicodeDecodeError:
                            items.append(b'"' + t + b'"')
                    rows = b", ".join(b"[%d, %d, %d]" % (i + 1, i + 2, i + 3) for i in range(len(toks)))
                    with open(os.path.join(d, "in.json"), "wb") as f:
                        f.write(b'{"tokens": [' + b", ".join(items) + b'], "inputs": [' + rows + b"]}")
                    args = [lesson, "--inputs", "in.json"]
                    if len(toks) < 2:
                        continue
                outs = ["--py", "s.py", "--ipynb", "s.ipynb", "--html", "s.html", "--json", "s.json"]
                r = run_tool(exe, d, args + outs)
                made = {f for f in os.listdir(d) if f.startswith("s.")}
                if os.path.exists(os.path.join(d, "PWNED")):
                    problems.append(f"{label}: PWNED was created")
                if r.returncode == 2:
                    err = r.stderr.decode("utf-8", "replace")
                    if err.count("\n") != 1 or not err.startswith("attn-tutor: error: "):
                        problems.append(f"{label}: refused, but not with one error line: {err[:200]!r}")
                    if any(b < 0x20 and b != 0x0A for b in r.stderr):
                        problems.append(f"{label}: a raw control byte in the error line")
                    if made:
                        problems.append(f"{label}: refused, yet wrote {sorted(made)}")
                    n_refused += 1
                    continue
                if r.returncode != 0:
                    problems.append(f"{label}: exit {r.returncode}: {r.stderr[-300:]!r}")
                    continue
                screen = r.stdout.decode("utf-8", "replace")
                if any(ord(c) < 0x20 and c != "\n" for c in screen) or re.search("[\u202a-\u202e\u2066-\u2069\ufffd]", screen):
                    problems.append(f"{label}: the notebook text on stdout holds a raw control, bidi or non-UTF-8 character")
                if made != {"s.py", "s.ipynb", "s.html", "s.json"}:
                    problems.append(f"{label}: wrote {sorted(made)}, not the four exports")
                    continue
                for f in ("s.py", "s.ipynb", "s.html"):
                    check(os.path.join(d, f))
                check_script_tokens(f"{label}: s.py", open(os.path.join(d, "s.py"), encoding="utf-8").read(), expect)
                nb = json.load(open(os.path.join(d, "s.ipynb"), encoding="utf-8"))
                cells = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
                check_script_tokens(f"{label}: s.ipynb", cells, expect)
                exported = json.load(open(os.path.join(d, "s.json"), encoding="utf-8", errors="surrogateescape"))
                if exported.get("tokens") != expect:
                    problems.append(f"{label}: s.json tokens {exported.get('tokens')!r}, not {expect!r}")
                # the pictures and headings name tokens shortly: no report grows with the tokens' length
                n_exported += 1
                size = os.path.getsize(os.path.join(d, "s.html"))
                if size > 600_000 + 2 * len(raw):
                    problems.append(f"{label}: s.html is {size} bytes")
    print(f"hostile: {n_refused} runs refused, {n_exported} exported")


if len(sys.argv) == 4 and sys.argv[1] == "--hostile":
    hostile(sys.argv[2], sys.argv[3])
elif len(sys.argv) == 4 and sys.argv[1] == "--tokens-of":  # --tokens-of SCRIPT.py '["a", "b"]': the checks above
    check_script_tokens(sys.argv[2], open(sys.argv[2], encoding="utf-8").read(), json.loads(sys.argv[3]))
else:
    for path in sys.argv[1:]:
        check(path)
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
