"""The check tools' comparison of the CLI's JSON tensors with real PyTorch's (check_*_against_torch.py and
gen_course_fixtures.py --check): one Stats and one compare for all of them.

A float32 value matches when |cli - torch| <= tol as float32 (a name in `exact`: equal), -inf/inf equal, NaN
equals NaN; a zero of another sign matches and is counted (torch prints -0.0000 where the CLI may print 0.0000,
information only). A name in `zero_pattern` must have its zeros where torch has them (a dropout mask); one in
`masks` (those drawn in this case) is also counted in the mask statistics. Other dtypes compare exactly.
"""
import math
import types
from collections import defaultdict

import numpy as np

import torch_book as tb


def Stats(**counters):
    """A run's counters (the caller's own, such as cases=0, on top): values and floats compared,
    bit_identical, exact_values (in names compared exactly), zero_sign (count; by name in zero_sign_names;
    the cases in zero_sign_cases), max_diff at max_where (and max_accept for the names in `accept`, per_name
    for each name), reprs (printed tensors looked for in the text), mask_tensors / mask_identical /
    mask_entries (dropout masks compared, identical, their dropped entries)."""
    st = types.SimpleNamespace(values=0, floats=0, bit_identical=0, exact_values=0, zero_sign=0,
                               zero_sign_names=defaultdict(int), zero_sign_cases=set(), max_diff=0.0, max_where="",
                               max_accept=0.0, max_accept_where="", per_name=defaultdict(float), reprs=0,
                               mask_tensors=0, mask_identical=0, mask_entries=0)
    for name, value in counters.items():
        setattr(st, name, value)
    return st


def shape_of(v):
    return [len(v)] + shape_of(v[0]) if isinstance(v, list) and v else ([0] if isinstance(v, list) else [])


def expected_values(want):
    """(shape, dtype, flat values) of torch's value: a tensor or a Python int (an int64 scalar)."""
    if isinstance(want, int):
        return [], "int64", [want]
    want = want.detach()
    return list(want.shape), tb.DTYPES[want.dtype], tb.flatten(want.tolist())


def compare(expected, doc, tol, st, label, exact=(), zero_pattern=(), masks=(), accept=(), text=None):
    """The problems of the CLI's document `doc` against torch's `expected`: [(name, value, repr or None)]
    in recording order, value a tensor or an int; a repr is looked for in `text` (the CLI's text output)."""
    problems = []
    for j, where, t in tb.paired([e[0] for e in expected], doc, problems):
        name, want, want_repr = expected[j]
        if want_repr is not None and text is not None:
            st.reprs += 1
            if want_repr not in text:
                problems.append("%s: torch prints\n%s\nwhich is not in the CLI's text output" % (where, want_repr))
        if t is None:
            continue
        wshape, wdtype, wvals = expected_values(want)
        if t.get("shape") != wshape or t.get("dtype") != wdtype:
            problems.append("%s: shape/dtype %s %s vs torch %s %s" % (where, t.get("shape"), t.get("dtype"), wshape,
                                                                     wdtype))
            continue
        cvals = tb.flatten(t["data"])
        if shape_of(t["data"]) != wshape or len(cvals) != len(wvals):
            problems.append("%s: data has shape %s, torch %s" % (where, shape_of(t["data"]), wshape))
            continue
        bad = sum(not same_value(name, where, i, c, w, wdtype, tol, st, label, name in exact, name in accept)
                  for i, (c, w) in enumerate(zip(cvals, wvals)))
        if name in zero_pattern and wdtype == "float32":
            zc, zw = tb.zero_pattern(cvals), tb.zero_pattern(wvals)
            if name in masks:
                st.mask_tensors += 1
                st.mask_entries += sum(zw)
                st.mask_identical += zc == zw
            if zc != zw:
                problems.append("%s: zero pattern (dropout mask) differs at %d entries"
                                % (where, sum(a != b for a, b in zip(zc, zw))))
        if bad:
            problems.append("%s: %d of %d values differ (tol %g%s)" % (where, bad, len(wvals), tol,
                                                                   ", exact" if name in exact else ""))
    return problems


def same_value(name, where, i, c, w, wdtype, tol, st, label, exact, accept):
    """Whether the CLI's value c matches torch's w; updates the counters."""
    st.values += 1
    if wdtype != "float32":
        return c == w
    c = tb.cli_value(c)
    if not isinstance(c, (int, float)) or isinstance(c, bool):
        return False
    c32, w32 = np.float32(c), np.float32(w)
    st.floats += 1
    st.exact_values += exact
    if c32.tobytes() == w32.tobytes():
        st.bit_identical += 1
        return True
    if math.isnan(c32) or math.isnan(w32) or math.isinf(c32) or math.isinf(w32):
        return math.isnan(c32) and math.isnan(w32)  # the same infinity is bit-identical above
    if c32 == 0 and w32 == 0:
        st.zero_sign += 1
        st.zero_sign_names[name] += 1
        st.zero_sign_cases.add(label)
        return True
    d = abs(float(c32) - float(w32))
    at = "%s %s[%d]" % (label, where, i)
    if d > st.max_diff:
        st.max_diff, st.max_where = d, at
    if accept and d > st.max_accept:
        st.max_accept, st.max_accept_where = d, at
    st.per_name[name] = max(st.per_name[name], d)
    return d <= tol and not exact
