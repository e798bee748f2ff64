# attn-tutor's tracer (docs/trace-json.md): runs a learner's .py or .ipynb with sys.settrace and writes
# every torch.Tensor bound to a name, in order, with its file/cell and line, as "attn-tutor-trace/1".
# Embedded in the binary and given to the learner's Python with -c: argv[1] the program, argv[2] the trace.
# Standard library and torch only.
import ast
import gc
import json
import math
import os
import re
import sys
import traceback

SCHEMA = "attn-tutor-trace/1"
MAX_EVENTS = 20000          # tensor events recorded at most (then "truncated")
MAX_ELEMENTS = 65536        # a tensor with more values is recorded by its shape only ("skipped")
MAX_VALUES = 1000000        # values recorded in all (then "truncated")
MAX_SCALARS = 64            # module arguments kept per construction
FULL_SCAN = 400             # up to this many globals every line looks at all of them; beyond, at the names it uses
MAX_GROUP = 256             # names looked at with one that shares their tensor (a view, an alias) or module
# Globals that name a lesson's setting (d_out = 8 at module level, for code without a module class).
_SETTINGS = {"d_out", "num_heads", "n_heads", "num_kv_groups", "n_kv_groups", "latent_dim", "window", "window_size",
             "sliding_window_size", "context_length", "num_hiddens", "d_model"}

_prog, _out = sys.argv[1], sys.argv[2]
_doc = {"schema": SCHEMA, "program": os.path.basename(_prog), "kind": "notebook" if _prog.endswith(".ipynb") else "script",
        "status": "ok", "python": sys.version.split()[0], "events": [], "seeds": [], "modules": [], "settings": {},
        "truncated": False, "skipped": 0}


_exit = os._exit
_pid = os.getpid()


def _cannot_write(e):
    """The trace cannot be written (a full disk, the folder gone): said on stderr's last line for attn-tutor."""
    sys.stdout.flush()
    sys.stderr.write("\nattn-tutor-tracer: cannot write the trace (errno %s)\n" % getattr(e, "errno", 0))
    sys.stderr.flush()
    _exit(3)


def _write():
    tmp = _out + ".part"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(_doc, f, ensure_ascii=True, allow_nan=False)
        os.replace(tmp, _out)
    except OSError as e:
        _cannot_write(e)
    try:
        os.remove(_out + ".started")
    except OSError:
        pass


def _finish(status, message=None, lines=None):
    _doc["status"] = status
    if message is not None:
        _doc["message"] = message
    if lines is not None:
        _doc["traceback"] = lines
    _write()
    sys.stdout.flush()
    _exit(0)


try:  # the mark that the tracer ran (a run without it never started the tracer)
    open(_out + ".started", "w").close()
except OSError as _e:
    _cannot_write(_e)

try:
    import torch
except BaseException as e:  # noqa: B902 -- any failure to import torch means the same thing here
    _finish("no-torch", "%s: %s" % (type(e).__name__, e))

_TENSOR = torch.Tensor
_sources = {}   # code filename -> (cell number or None, [source lines])
_siblings = {}  # the other files of the program's package that are traced too: code filename -> shown name
_order = [0]    # the next event's sequence number
_values = [0]


def _seq():
    _order[0] += 1
    return _order[0]


def _plain(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def _where(code_file, line):
    cell, lines = _sources.get(code_file, (None, []))
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    w = {"line": line, "code": text[:200]}
    if cell is not None:
        w["cell"] = cell
    if code_file in _siblings:  # another file of the program's package: named from the package's folder
        w["file"] = _siblings[code_file]
    return w


def _record(kind, name, scope, function, code_file, line, t, owner=None):
    if len(_doc["events"]) >= MAX_EVENTS:  # the trace is full: the program runs on untraced, at its own speed
        _doc["truncated"] = True
        _stopped[0] = True
        sys.settrace(None)
        return
    ev = {"seq": _seq(), "kind": kind, "name": name, "scope": scope, "function": function[0], "def_line": function[1],
          "call": function[2]}
    if owner is not None:
        ev["owner"] = owner
    ev.update(_where(code_file, line))
    try:
        ev["shape"] = list(t.shape)
        ev["dtype"] = str(t.dtype).replace("torch.", "")
        n = t.numel()
        if t.is_complex() or n > MAX_ELEMENTS or _values[0] + n > MAX_VALUES:
            ev["skipped"] = "too large" if n > MAX_ELEMENTS else "complex" if t.is_complex() else "budget"
            _doc["skipped"] += 1
            if _values[0] + n > MAX_VALUES:
                _doc["truncated"] = True
        else:
            _values[0] += n
            ev["data"] = _plain(t.detach().cpu().tolist())
    except Exception as e:  # a tensor subclass that cannot be read: its name and place only
        ev["skipped"] = "unreadable: %s" % type(e).__name__
        _doc["skipped"] += 1
    _doc["events"].append(ev)


class _Globals:
    """What the tracer knows of one globals dict (a notebook's cells share theirs)."""
    __slots__ = ("seen", "order", "size", "next", "groups", "root", "dirty")

    def __init__(self):
        self.seen = {}     # name -> (id, version, value) as last looked at
        self.order = None  # name -> its place in the dict's order (None: never looked at all of it)
        self.size = 0      # len(dict) then
        self.next = 0
        self.groups = {}   # id(a tensor's base, or a module) -> the names bound to it (or to a view of it)
        self.root = {}     # name -> its group's key
        self.dirty = set()  # names the learner's functions called since the last module line can use


class _Frame:
    __slots__ = ("seen", "line", "function", "scope", "file", "globals")

    def __init__(self, frame, scope):
        # a notebook's cells share their globals: what one cell bound is not new in the next
        self.globals = _module_state.setdefault(id(frame.f_globals), _Globals()) if scope == "module" else None
        self.seen = self.globals.seen if scope == "module" else {}
        self.line = frame.f_lineno
        _calls[0] += 1
        self.function = (frame.f_code.co_name, frame.f_code.co_firstlineno, _calls[0])
        self.scope = scope
        self.file = frame.f_code.co_filename


_state = {}  # id(frame) -> _Frame
_assigns = {}  # code filename -> {line: (first line, last line, names)}: the simple assignment statement on a line
_spans = {}  # code filename -> {line: (first line, last line)} of the statement over several lines it is in
_module_state = {}  # id(globals) -> _Globals
_self_seen = {}  # id(self) -> (self, its attributes seen)
_calls = [0]  # the calls of the learner's functions so far (each event names its call)


def _targets(node, out):
    if isinstance(node, ast.Name):
        out.add(node.id)
    elif isinstance(node, (ast.Tuple, ast.List)):
        for e in node.elts:
            _targets(e, out)
    elif isinstance(node, ast.Starred):
        _targets(node.value, out)


def _statements(tree):
    """Every statement of the tree, each list's in order (statements are only in statement lists)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, field, None) or ():
                if isinstance(child, ast.stmt):
                    yield child
                todo.append(child)


def _assignments(tree, spans):
    """{line: (first line, last line, names)}: the names each assignment statement binds, on each of its lines.
    Fills spans {line: (first, last)}: the lines of the statement (or compound statement's header) it is in."""
    lines = {}
    for node in _statements(tree):
        last = getattr(node, "end_lineno", None) or node.lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            last = max(node.lineno, body[0].lineno - 1)  # a compound statement: its header
        if last > node.lineno:
            for ln in range(node.lineno, last + 1):
                spans[ln] = (node.lineno, last)
        names = set()
        if isinstance(node, ast.Assign):
            for t in node.targets:
                _targets(t, names)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            _targets(node.target, names)
        if names:
            for ln in range(node.lineno, last + 1):
                lines[ln] = (node.lineno, last, names)
    return lines


def _rebound(frame, st):
    """The names the statement that just ran (on st.line) assigned: a name bound again to the tensor it held
    (`attn_weights = self.dropout(attn_weights)` in eval mode) is a binding all the same."""
    stmt = _assigns.get(st.file, {}).get(st.line)
    if stmt is None or stmt[0] <= frame.f_lineno <= stmt[1]:
        return ()  # no assignment there, or still inside it (a statement over several lines)
    return stmt[2]


def _module_attributes(k, v, st, items):
    """A module bound to a global: its tensor attributes and buffers (not its parameters) as NAME.ATTR, each
    time one changes (a KV cache a call filled), before the line's own names (the call ran first)."""
    d = getattr(v, "__dict__", None)
    if not isinstance(d, dict):
        return
    pools = [d] + ([d["_buffers"]] if isinstance(d.get("_buffers"), dict) else [])
    n = 0
    for pool in pools:
        for a, t in list(pool.items()):
            if isinstance(t, _TENSOR) and isinstance(a, str) and not isinstance(t, _PARAMETER) and n < 64:
                n += 1
                items.append(("%s.%s" % (k, a), t, k))


# Names on a line that can bind or change globals the line does not name: then all are looked at.
_DYNAMIC = {"globals", "vars", "locals", "exec", "eval", "setattr", "delattr", "__import__", "__dict__", "*"}
_IDENT = re.compile(r"[^\W\d]\w*")
_line_names = {}  # (code filename, first line) -> the words on the statement's lines ("*": an import *)


def _names_on(file, line):
    """The identifiers written on the statement at `line` (more than it uses: words in strings count too)."""
    first, last = _spans.get(file, {}).get(line, (line, line))
    got = _line_names.get((file, first))
    if got is None:
        lines = _sources.get(file, (None, []))[1]
        text = "\n".join(lines[first - 1:last])
        got = set(_IDENT.findall(text))
        if "import" in got and "*" in text:
            got.add("*")
        _line_names[(file, first)] = got
    return got


def _group(gs, k, v):
    """Files name k under its tensor's base (a view shares its base's version) or its module."""
    key = None
    if isinstance(v, _TENSOR):
        b = getattr(v, "_base", None)
        key = id(b if b is not None else v)
    elif isinstance(v, _MODULE):
        key = id(v)
    old = gs.root.get(k)
    if old == key:
        return
    if old is not None:
        members = gs.groups.get(old)
        if members is not None:
            members.discard(k)
            if not members:
                del gs.groups[old]
    if key is None:
        gs.root.pop(k, None)
    else:
        gs.root[k] = key
        gs.groups.setdefault(key, set()).add(k)


def _all_globals(g, gs):
    """Every global, in the dict's order (and what is known of the dict made anew)."""
    pairs = list(g.items())
    gs.order = {k: i for i, (k, _) in enumerate(pairs)}
    gs.size = gs.next = len(pairs)
    gs.groups, gs.root = {}, {}
    for k, v in pairs:
        if isinstance(v, (_TENSOR, _MODULE)):
            _group(gs, k, v)
    return pairs


def _place_new(g, gs, new):
    """Gives the names new in the dict their places (they are its last keys); False when they are not there."""
    need, found = set(new), []
    try:
        walked = 0
        for k in reversed(g):
            walked += 1
            if k in need:
                found.append(k)
                if len(found) == len(need):
                    break
            if walked > 4 * len(need) + 64:
                return False
    except TypeError:  # a Python before 3.8: no reversed() of a dict
        return False
    if len(found) != len(need):
        return False
    for k in reversed(found):
        gs.order[k] = gs.next
        gs.next += 1
    return True


def _module_pairs(g, st):
    """The globals the line that ran (st.line) can have bound or changed, in the dict's order: all of them in a
    small program, else the names its instructions and the learner's functions it called use, with the names
    sharing their tensor or module. A change the names do not explain (a new global they do not name) or a
    line that reaches the dict itself (globals(), exec) looks at all."""
    gs = st.globals
    cands = set(_names_on(st.file, st.line))
    cands |= gs.dirty
    gs.dirty = set()
    if gs.order is None or len(g) <= FULL_SCAN or not cands.isdisjoint(_DYNAMIC):
        return _all_globals(g, gs)
    new = [k for k in cands if k in g and k not in gs.order]
    gone = [k for k in cands if k not in g and k in gs.order]
    if len(g) != gs.size + len(new) - len(gone) or (new and not _place_new(g, gs, new)):
        return _all_globals(g, gs)
    for k in gone:
        del gs.order[k]
    gs.size = len(g)
    for k in list(cands):
        if k in g:
            _group(gs, k, g[k])
            members = gs.groups.get(gs.root.get(k))
            if members is not None and len(members) <= MAX_GROUP:
                cands |= members
    place = gs.order
    return [(k, g[k]) for k in sorted((k for k in cands if k in g), key=lambda k: place.get(k, 1 << 62))]


def _scan(frame, st, returning=False):
    """The names of `frame` (and self's attributes) whose tensor is new or changed since the last look."""
    items = []
    owned = []  # (NAME.ATTR, tensor, NAME): the attributes of the modules bound to globals
    pairs = _module_pairs(frame.f_globals, st) if st.scope == "module" else list(frame.f_locals.items())
    for k, v in pairs:
        if isinstance(v, _TENSOR):
            items.append((k, v))
        elif st.scope == "module" and k in _SETTINGS and isinstance(v, (bool, int, float)):
            if not isinstance(v, float) or math.isfinite(v):  # a setting as a global: its last value
                _doc["settings"][k] = v
        elif st.scope == "module" and isinstance(v, _MODULE) and isinstance(k, str):
            old = st.seen.get(k)
            if old is None or old[0] != id(v):  # a module bound to a name: its weights as NAME.PATH, once
                st.seen[k] = (id(v), 0, v)
                try:
                    params = list(v.named_parameters())[:64]
                except Exception:
                    params = []
                for pname, p in params:
                    _record("bind", "%s.%s" % (k, pname), "module", st.function, st.file, st.line, p)
            _module_attributes(k, v, st, owned)
    me = frame.f_locals.get("self") if st.scope == "local" else None
    if me is not None:
        d = getattr(me, "__dict__", None)
        if isinstance(d, dict):
            pools = [d] + [d[p] for p in ("_parameters", "_buffers") if isinstance(d.get(p), dict)]
            for pool in pools:
                for k, v in list(pool.items()):
                    if isinstance(v, _TENSOR) and isinstance(k, str):
                        items.append(("self." + k, v))
    # self's attributes are the object's, seen across its methods' calls; the rest are this frame's names
    mine = _self_seen.setdefault(id(me), (me, {}))[1] if me is not None else None
    rebound = _rebound(frame, st) if not returning else _assigns.get(st.file, {}).get(st.line, (0, 0, ()))[2]
    for k, v, owner in owned:
        version = getattr(v, "_version", 0)
        old = st.seen.get(k)
        if old is None or old[0] != id(v) or old[1] != version:
            st.seen[k] = (id(v), version, v)
            _record("bind" if old is None or old[0] != id(v) else "in_place", k, "module", st.function, st.file,
                    st.line, v, owner)
    for k, v in items:
        seen = mine if k.startswith("self.") else st.seen
        version = getattr(v, "_version", 0)
        old = seen.get(k)
        if old is None or old[0] != id(v) or (k in rebound and old[1] == version):
            seen[k] = (id(v), version, v)
            _record("bind", k, "self" if k.startswith("self.") else st.scope, st.function, st.file, st.line, v)
        elif old[1] != version:
            seen[k] = (id(v), version, v)
            _record("in_place", k, "self" if k.startswith("self.") else st.scope, st.function, st.file, st.line, v)


_stopped = [False]  # the trace is full: no frame is looked at any more


def _local(frame, event, arg):
    if _stopped[0]:
        return None
    st = _state.get(id(frame))
    if st is None:
        return _local
    if event in ("line", "return"):
        _scan(frame, st, event == "return")
        st.line = frame.f_lineno
        if event == "return":
            _state.pop(id(frame), None)
    return _local


_MODULE = torch.nn.Module
_PARAMETER = getattr(torch.nn, "Parameter", None) or getattr(torch, "Parameter", ())


def _global(frame, event, arg):
    if event != "call" or frame.f_code.co_filename not in _sources:
        return None
    scope = "module" if frame.f_globals is frame.f_locals else "local"
    st = _state[id(frame)] = _Frame(frame, scope)
    code = frame.f_code
    gs = _module_state.get(id(frame.f_globals)) if scope == "local" else None
    if gs is not None:  # the globals it can bind or change are looked at on the module's line that called it
        gs.dirty.update(code.co_names)
    # The arguments are the caller's values (recorded there when named): not new here unless changed.
    nargs = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 4) + bool(code.co_flags & 8)
    for p in code.co_varnames[:nargs] if scope == "local" else ():
        v = frame.f_locals.get(p)
        if isinstance(v, _TENSOR):
            st.seen[p] = (id(v), getattr(v, "_version", 0), v)
    me = frame.f_locals.get("self")
    if code.co_name == "__init__" and isinstance(me, _MODULE) and len(_doc["modules"]) < 1000:
        args = {}
        for p in code.co_varnames[1:code.co_argcount + code.co_kwonlyargcount][:MAX_SCALARS]:
            v = frame.f_locals.get(p)
            if isinstance(v, bool) or v is None or isinstance(v, (int, str)) or isinstance(v, float):
                args[p] = v if not isinstance(v, float) or math.isfinite(v) else str(v)
                if isinstance(v, str):
                    args[p] = v[:200]
        m = {"seq": _seq(), "class": type(me).__name__, "args": args}
        back = frame.f_back
        while back is not None and back.f_code.co_filename not in _sources:
            back = back.f_back
        m.update(_where(back.f_code.co_filename, back.f_lineno) if back is not None else {"line": 0, "code": ""})
        _doc["modules"].append(m)
    return _local


_seed = torch.manual_seed


def _manual_seed(seed, *a, **k):
    f = sys._getframe(1)
    if f.f_code.co_filename in _sources and len(_doc["seeds"]) < 10000:
        s = {"seq": _seq(), "seed": int(seed) if isinstance(seed, int) else str(seed)}
        s.update(_where(f.f_code.co_filename, f.f_lineno))
        _doc["seeds"].append(s)
    return _seed(seed, *a, **k)


def _programs():
    """[(code filename, cell number or None, source)] of the program: a script's code, a notebook's code cells."""
    with open(_prog, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8", errors="replace")
    if not _prog.endswith(".ipynb"):
        return [(os.path.abspath(_prog), None, text)]
    try:
        nb = json.loads(text)
    except ValueError as e:
        _finish("bad-notebook", "not JSON: %s" % e)
    except RecursionError:
        _finish("bad-notebook", "JSON nested too deeply to read")
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        _finish("bad-notebook", "no \"cells\" list (nbformat 4)")
    out = []
    number = 0
    for c in cells:
        if not isinstance(c, dict):
            _finish("bad-notebook", "a cell that is not an object")
        if c.get("cell_type") != "code":
            continue
        number += 1
        src = c.get("source", "")
        if isinstance(src, list) and all(isinstance(s, str) for s in src):
            src = "".join(src)
        if not isinstance(src, str):
            _finish("bad-notebook", "code cell %d: \"source\" is not text" % number)
        if src.lstrip().startswith("%%"):
            continue  # a cell magic: not Python
        lines = [("" if ln.lstrip().startswith(("!", "%")) else ln) for ln in src.split("\n")]
        out.append(("%s#cell%d" % (os.path.abspath(_prog), number), number, "\n".join(lines)))
    return out


def _package_of(path):
    """The dotted package a script sits in (its folder and those above it holding __init__.py) and the folder
    that holds the top one, as `python -m pkg.main` runs it: ("pkg.sub", "/w") for /w/pkg/sub/main.py,
    (None, its folder) for a script outside a package."""
    folder = os.path.dirname(os.path.abspath(path))
    parts = []
    while os.path.isfile(os.path.join(folder, "__init__.py")) and len(parts) < 16:
        parts.insert(0, os.path.basename(folder))
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return (".".join(parts) or None), folder


def _package_files(package, root):
    """[(code filename, source)] of the package's other .py files (at most 64 of 1 MB each): traced as the
    program's own when it imports them (`from .attention import MultiHeadAttention`)."""
    out = []
    top = os.path.join(root, package.split(".")[0])
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
        for name in sorted(files):
            path = os.path.abspath(os.path.join(folder, name))
            if not name.endswith(".py") or path == os.path.abspath(_prog) or len(out) >= 64:
                continue
            try:
                if os.path.getsize(path) <= (1 << 20):
                    with open(path, "rb") as f:
                        out.append((path, f.read().decode("utf-8", errors="replace")))
            except OSError:
                continue
    return out


def _program_exit(code):
    """os._exit in the program: its trace is written first (in the traced process; a forked child just exits)."""
    if os.getpid() != _pid:
        _exit(code)
    sys.settrace(None)
    if code == 0:
        _finish("ok")
    f = sys._getframe(1)
    where = [_where(f.f_code.co_filename, f.f_lineno)] if f.f_code.co_filename in _sources else []
    _finish("raised", "os._exit(%s)" % code, where)


def _learner_lines(tb):
    """The traceback's last lines, the learner's frames only, in the learner's terms."""
    lines = []
    for fs in traceback.extract_tb(tb):
        if fs.filename in _sources:
            lines.append(_where(fs.filename, fs.lineno))
    return lines[-3:]


def _main():
    programs = _programs()
    for filename, cell, source in programs:
        _sources[filename] = (cell, source.split("\n"))
    compiled = []
    gc.disable()  # parsing makes many objects at once: collecting them while it runs made it 3 times slower
    for filename, cell, source in programs:
        try:
            tree = ast.parse(source, filename)  # parsed once: for the assignments and the code
            _spans[filename] = {}
            _assigns[filename] = _assignments(tree, _spans[filename])
            compiled.append(compile(tree, filename, "exec"))
            del tree  # its nodes, kept, would be traversed by every collection while the program runs
        except SyntaxError as e:
            w = {"line": e.lineno or 0, "code": (e.text or "").strip()[:200]}
            if cell is not None:
                w["cell"] = cell
            _finish("raised", "SyntaxError: %s" % e.msg, [w])
        except (RecursionError, MemoryError, ValueError) as e:  # too deep for this Python's compiler, a NUL byte
            _finish("raised", "%s: %s" % (type(e).__name__, e), [])
    package, root = _package_of(_prog) if not _prog.endswith(".ipynb") else (None, None)
    for filename, source in _package_files(package, root) if package else ():
        try:  # parsed for its assignments, run only when the program imports it
            tree = ast.parse(source, filename)
            _spans[filename] = {}
            _assigns[filename] = _assignments(tree, _spans[filename])
            _sources[filename] = (None, source.split("\n"))
            _siblings[filename] = os.path.relpath(filename, root)
        except (SyntaxError, RecursionError, MemoryError, ValueError):
            continue  # its import raises, as Python's would
    gc.enable()
    main = {"__name__": "__main__", "__builtins__": __builtins__, "__file__": os.path.abspath(_prog),
            "__package__": package}
    if _prog.endswith(".ipynb"):  # Jupyter's display(), printed as the notebook would show it
        main["display"] = lambda *objs, **kw: print(*objs)
    sys.argv = [_prog]
    if package:  # its relative imports resolve from the folder above the package, as under python -m
        sys.path.insert(0, root)
    sys.path.insert(0, os.path.dirname(os.path.abspath(_prog)))
    torch.manual_seed = _manual_seed
    os._exit = _program_exit
    sys.settrace(_global)
    try:
        for code in compiled:
            exec(code, main)
    except SystemExit as e:
        sys.settrace(None)
        if e.code not in (None, 0):
            _finish("raised", "SystemExit: %s" % e.code, [])
    except BaseException as e:  # noqa: B902 -- KeyboardInterrupt too: the run ended there
        sys.settrace(None)
        _finish("raised", ("%s: %s" % (type(e).__name__, e))[:500], _learner_lines(e.__traceback__))
    sys.settrace(None)
    _finish("ok")


_main()
