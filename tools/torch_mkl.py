"""The MKL bernoulli path of nn.Dropout (docs/spec/torch-rng.md §7.2) as an independent model, for the
fixture generators (tools/gen_*_fixtures.py) and tools/check_chapter_against_torch.py.

The MKL dropout path (--bernoulli mkl) cannot run in torch on this
machine (a Debian build without MKL, on an AMD CPU). Its cases use an independent model instead: the
book code still runs in torch, but nn.Dropout's bernoulli_ is replaced by (1) ONE draw from torch's own
generator (torch.randint(0, 2**32 - 1, ()) consumes exactly one 32-bit mt19937 draw; the draw
2**32 - 1 would read as 0, and both give x0 = 1 below, so this is exact), (2) MCG31m1 in plain Python
(x0 = seed mod (2^31 - 1) or 1, x_{k+1} = 1132489760 x_k mod (2^31 - 1), kept iff x_k / m < 1 - p),
then torch's own noise.div_(1 - p) and input * noise. Because the generator is torch's, every later draw
is shifted exactly as on the real MKL path (1 draw per dropout instead of 2 * numel). The model is
self-checked against the spec's test vector (seed 123, Dropout(0.5)(ones(6, 6))), and for the dropout
lesson the seed draw is cross-checked against numpy's MT19937 (np.random.RandomState(seed mod 2^32)).
"""
import contextlib

import numpy as np
import torch
import torch.nn as nn

# ---- the MKL bernoulli path (spec §7.2), an independent model ----------------------------------

MCG_M = 2**31 - 1
MCG_A = 1132489760


def mcg31_keep(seed32, n, q):
    """viRngBernoulli(ICDF) over MCG31m1 seeded with seed32: the 0/1 keep mask of n elements."""
    x = seed32 % MCG_M
    if x == 0:
        x = 1
    keep = []
    for _ in range(n):
        keep.append(1.0 if x / MCG_M < q else 0.0)
        x = (x * MCG_A) % MCG_M
    return keep


def one_raw_draw():
    """Exactly one 32-bit draw from torch's default generator (random() % (2^32 - 1), see the docstring)."""
    return int(torch.randint(0, 2**32 - 1, ()).item())


MKL_SEED_LOG = []  # the seeds the MKL model drew, in order (for the numpy cross-check)
# Counter-model for the shift check: when True, an MKL dropout consumes 2 * numel draws (as the default
# path does) instead of exactly one; the CLI must NOT agree with it when a later draw matters.
MKL_NO_SHIFT = False


def _mkl_dropout_forward(self, input):
    # at::native::_dropout_impl of 1.13 with bernoulli_(1 - p) on the MKL path.
    p = self.p
    if p == 0 or not self.training or input.numel() == 0:
        return input
    if p == 1:
        return input * torch.zeros((), dtype=input.dtype)
    seed = one_raw_draw()
    MKL_SEED_LOG.append(seed)
    if MKL_NO_SHIFT:
        torch.randint(0, 2**32 - 1, (2 * input.numel() - 1,))
    noise = torch.tensor(mcg31_keep(seed, input.numel(), 1 - p), dtype=input.dtype).reshape(input.shape)
    noise.div_(1 - p)
    return input * noise


@contextlib.contextmanager
def bernoulli_path(path):
    if path == "default":
        yield
        return
    assert path == "mkl"
    saved = nn.Dropout.forward
    nn.Dropout.forward = _mkl_dropout_forward
    try:
        yield
    finally:
        nn.Dropout.forward = saved


@contextlib.contextmanager
def no_shift():
    """Within: the counter-model, where an MKL dropout consumes 2 * numel draws."""
    global MKL_NO_SHIFT
    MKL_NO_SHIFT = True
    try:
        yield
    finally:
        MKL_NO_SHIFT = False


def self_check_mkl():
    """The spec's test vector: seed 123, Dropout(0.5)(ones(6, 6)) on the MKL path, and its seed draw."""
    want = ["2 2 2 2 2 2", "0 2 0 0 0 0", "0 0 2 0 2 0", "2 2 0 0 0 2", "2 0 0 0 0 2", "0 2 0 0 0 0"]
    assert np.random.RandomState(123).randint(0, 2**32, dtype=np.uint32) == 2991312382
    with bernoulli_path("mkl"):
        torch.manual_seed(123)
        out = nn.Dropout(0.5)(torch.ones(6, 6))
    got = [" ".join("%d" % v for v in row) for row in out.tolist()]
    assert got == want, got
    x = 2991312382 % MCG_M
    xs = []
    for _ in range(6):
        xs.append(x)
        x = x * MCG_A % MCG_M
    assert xs == [843828735, 459765758, 453103405, 257879217, 726883821, 711251137], xs


def numpy_first_draw(seed):
    """The first mt19937 output after torch.manual_seed(seed), from numpy's own MT19937."""
    return int(np.random.RandomState(seed % 2**32).randint(0, 2**32, dtype=np.uint32))
