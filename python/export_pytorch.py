"""Export your own PyTorch tensors for `attn-tutor check` (schema "attn-tutor/1", README "JSON export").

    import sys; sys.path.insert(0, "path/to/attn-tutor/python")
    from export_pytorch import export
    export({"attn_weights": attn_weights, "context_vecs": context_vecs}, "dropout", "mine.json")

then `attn-tutor check mine.json`. Name each tensor as the lesson does (`attn-tutor LESSON --json -`
lists the names).

Order matters: list the tensors in the order your program computed them (a dict keeps the order you
write it in). A name the lesson gives several values (attn_weights before and after dropout, attn_scores
before and after masked_fill_, keys after W_key, view and transpose) is compared with the value it has at
that point: going back from your last tensor, each takes the latest value of its name (of its shape) that
comes before the next tensor's. A tensor you took at another point is still recognised (a ✓ with a note)
when nothing you exported after it differs (what follows matches, or nothing follows); one that only equals
an earlier value, with what follows it differing, is a difference (stale when one step lay between: it never
reached it). To say exactly where a value comes
from, pass cells={"attn_weights": 10}: the value the lesson has in its In [10]. To export one name twice
(say attn_weights before and after the mask), pass a list of (name, tensor) pairs instead of a dict:
    export([("attn_weights", w_unmasked), ("masked", masked), ("attn_weights", w)], "causal-mask", "mine.json")

Give the settings you ran with as keyword arguments, with the CLI's names: seed (the
one integer you passed to every torch.manual_seed, when it is not the book's), inputs (your embeddings,
a tensor or nested list; the book's six when omitted), tokens (their words, a list or a sentence; alone,
without inputs, they mean the lesson's --tokens embeddings), and any of CONFIG_KEYS below (d_in, d_out,
num_heads, dropout, ...: the CLI's settings, written into this file from the tool's option table; a lesson's
--help lists the ones it takes). `attn-tutor check` checks their values as the command line does.

Standard library and torch only. Writes atomically; path "-" writes to stdout.
"""
import json
import math
import os
import struct
import sys
import tempfile

import torch

SCHEMA = "attn-tutor/1"
# generated from lessons/options.txt and lessons/registry.cpp by lessons/option_docs.cpp: begin
CONFIG_KEYS = ("d_in", "d_out", "qkv_bias", "init", "num_heads", "dropout", "context_length", "bernoulli",
               "no_reseed", "preset", "d_model", "num_hiddens", "valid_lens", "gpt2", "num_kv_groups", "latent_dim",
               "window")
# generated: end


def _f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def float_text(x):
    """The shortest decimal that reads back as the same float32, always with '.' or an exponent;
    non-finite values as the strings "inf", "-inf", "nan"."""
    x = float(x)
    if math.isnan(x):
        return '"nan"'
    if math.isinf(x):
        return '"inf"' if x > 0 else '"-inf"'
    f = _f32(x)
    for digits in range(1, 10):
        s = "%.*g" % (digits, f)
        if _f32(float(s)) == f:
            break
    if "." not in s and "e" not in s and "inf" not in s:
        s += ".0"  # keeps it a float, and -0.0 its sign
    return s


def _data_text(v, dtype):
    if isinstance(v, list):
        return "[" + ", ".join(_data_text(x, dtype) for x in v) + "]"
    if dtype == "bool":
        return "true" if v else "false"
    if dtype == "int64":
        return str(int(v))
    return float_text(v)


def _dtype(t):
    if t.dtype == torch.bool:
        return "bool"
    if not t.dtype.is_floating_point and not t.dtype.is_complex:
        return "int64"
    return "float32"


def _as_tensor(name, value):
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, (bool, int, float, list, tuple)):
        return torch.tensor(value)
    raise TypeError("tensor %r: expected a torch.Tensor, a number or a nested list, got %s" % (name, type(value).__name__))


def _seed_value(seed):
    if seed is None:
        return None
    seed = int(seed)
    if not -(2**63) <= seed <= 2**64 - 1:
        raise ValueError("seed %d: torch.manual_seed accepts -2^63 .. 2^64-1" % seed)
    return seed


def _entries(tensors, cells):
    """(name, tensor, cell or None) in order, from a dict or a list of (name, tensor[, cell]) pairs."""
    if isinstance(tensors, dict):
        items = [(name, value, None) for name, value in tensors.items()]
    elif isinstance(tensors, (list, tuple)) and all(isinstance(p, (list, tuple)) and len(p) in (2, 3) for p in tensors):
        items = [(p[0], p[1], p[2] if len(p) == 3 else None) for p in tensors]
    else:
        items = []
    if not items:
        raise TypeError("tensors: a dict of name -> tensor, e.g. {\"context_vecs\": context_vecs}, or a list of "
                        "(name, tensor) pairs")
    cells = cells or {}
    unknown = sorted(set(cells) - set(name for name, _, _ in items))
    if unknown:
        raise TypeError("cells: %s not among the tensors" % ", ".join(unknown))
    out = []
    for name, value, cell in items:
        cell = cell if cell is not None else cells.get(name)
        if cell is not None and (not isinstance(cell, int) or cell < 1):
            raise ValueError("cell of %r: the lesson's In [n], a whole number from 1" % name)
        out.append((name, value, cell))
    return out


def document(tensors, lesson, seed=None, inputs=None, tokens=None, cells=None, **config):
    """The export as JSON text (what export() writes)."""
    unknown = sorted(set(config) - set(CONFIG_KEYS))
    if unknown:
        raise TypeError("unknown setting(s) %s; the settings are seed, inputs, tokens, cells, %s"
                        % (", ".join(unknown), ", ".join(CONFIG_KEYS)))
    entries = _entries(tensors, cells)
    if isinstance(tokens, str):
        tokens = tokens.split()
    cfg = {"seed": _seed_value(seed)}
    if inputs is not None:
        rows = _as_tensor("inputs", inputs).to(torch.float32)
        if rows.dim() != 2:
            raise ValueError("inputs: a (num_tokens, d_in) tensor, got shape %s" % list(rows.shape))
        cfg["inputs"] = "data"
        cfg["inputs_data"] = rows.tolist()
        cfg["d_in"], cfg["num_tokens"] = rows.shape[1], rows.shape[0]
        if tokens is not None and len(tokens) != rows.shape[0]:
            raise ValueError("tokens: %d words for %d input rows" % (len(tokens), rows.shape[0]))
    elif tokens is not None:
        cfg["inputs"] = "tokens"
        cfg["num_tokens"] = len(tokens)
    else:
        cfg["inputs"] = "book"
    for key in CONFIG_KEYS:
        if key in config and config[key] is not None:
            cfg[key] = config[key]
    if tokens is None and inputs is None:
        tokens = ["Your", "journey", "starts", "with", "one", "step"]
    elif tokens is None:
        tokens = ["x%d" % (i + 1) for i in range(cfg["num_tokens"])]  # as attn-tutor labels unnamed rows

    cfg_text = json.dumps({k: v for k, v in cfg.items() if k != "inputs_data"})
    if "inputs_data" in cfg:  # the embeddings as float32 text, like every tensor
        cfg_text = cfg_text[:-1] + ', "inputs_data": ' + _data_text(cfg["inputs_data"], "float32") + "}"
    parts = []
    for name, value, cell in entries:
        t = _as_tensor(name, value)
        dtype = _dtype(t)
        if dtype == "float32":
            t = t.to(torch.float32)
        where = "" if cell is None else '"cell": %d, ' % cell
        parts.append('{"name": %s, %s"shape": %s, "dtype": "%s", "data": %s}'
                     % (json.dumps(str(name)), where, json.dumps(list(t.shape)), dtype, _data_text(t.tolist(), dtype)))
    return ('{"schema": "%s", "exporter": "python/export_pytorch.py", "torch": %s, "lesson": %s,\n'
            ' "config": %s,\n "tokens": %s,\n "tensors": [\n  %s\n ]}\n'
            % (SCHEMA, json.dumps(torch.__version__), json.dumps(lesson), cfg_text, json.dumps(tokens),
               ",\n  ".join(parts)))


def export(tensors, lesson, path, seed=None, inputs=None, tokens=None, cells=None, **config):
    """Writes `tensors` (a dict name -> tensor, or a list of (name, tensor) pairs, in the order your program
    computed them) for `attn-tutor check`; returns path. cells: {name: n} for a value taken at In [n]."""
    text = document(tensors, lesson, seed=seed, inputs=inputs, tokens=tokens, cells=cells, **config)
    if path == "-":
        sys.stdout.write(text)
        return path
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".export-", suffix=".json", dir=folder)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; a plain file is readable
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path
