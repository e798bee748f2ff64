#!/usr/bin/python3
"""Print extra RNG test vectors from real PyTorch (1.13, x86-64, default bernoulli path).

The values end up in tests/test_rng.cpp as float32 bit patterns; the tests never need torch.
Usage: /usr/bin/python3 tools/gen_rng_vectors.py
"""
import struct

import torch


def hexbits(t):
    """Row-major float32 bit patterns of a tensor, as C++ hex literals."""
    vals = t.detach().contiguous().view(-1).tolist()
    return ", ".join("0x%08x" % struct.unpack("<I", struct.pack("<f", v))[0] for v in vals)


def fnv1a64(t):
    """FNV-1a (64-bit) over the little-endian bytes of the float32 bit patterns, row-major."""
    h = 0xCBF29CE484222325
    for byte in t.detach().contiguous().view(-1).numpy().tobytes():
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def show_hash(name, t):
    print("// %s: FNV-1a 64 of the bits" % name)
    print("0x%016x" % fnv1a64(t))


def show(name, t, draws_note=""):
    print("// %s%s" % (name, draws_note))
    print("{%s}" % hexbits(t))


def main():
    print("// torch", torch.__version__)

    torch.manual_seed(7)
    show("seed 7, randn(17): 16-wide path with a redrawn tail", torch.randn(17))

    torch.manual_seed(3)
    show("seed 3, randn(5): scalar double path", torch.randn(5))

    torch.manual_seed(11)
    lin = torch.nn.Linear(5, 4, bias=True)
    show("seed 11, Linear(5,4).weight", lin.weight)
    show("seed 11, Linear(5,4).bias", lin.bias)

    torch.manual_seed(9)
    drop = torch.nn.Dropout(0.2)
    drop.train()
    show("seed 9, Dropout(0.2)(ones(5,7)), default path", drop(torch.ones(5, 7)))

    torch.manual_seed(5)
    show("seed 5, empty(20).normal_(0.5, 2.0): 16-wide path, mean/std",
         torch.empty(20).normal_(0.5, 2.0))
    show("then empty(3).normal_(-1.0, 0.25): scalar path", torch.empty(3).normal_(-1.0, 0.25))

    torch.manual_seed(13)
    show("seed 13, empty(6).uniform_(-2.0, 3.0)", torch.empty(6).uniform_(-2.0, 3.0))

    # Large tensors as hashes: rare last-bit differences (a missing fusion) show up here.
    torch.manual_seed(2024)
    show_hash("seed 2024, randn(100003)", torch.randn(100003))
    show_hash("then Linear(768, 64).weight and .bias", torch.cat(
        [p.view(-1) for p in torch.nn.Linear(768, 64).parameters()]))
    show_hash("then randn(7) x3", torch.cat([torch.randn(7) for _ in range(3)]))
    drop = torch.nn.Dropout(0.1)
    drop.train()
    show_hash("then Dropout(0.1)(randn(50, 50))", drop(torch.randn(50, 50)))
    show_hash("then empty(1000).normal_(0.3, 1.7)", torch.empty(1000).normal_(0.3, 1.7))
    show_hash("then empty(9).normal_(0.3, 1.7)", torch.empty(9).normal_(0.3, 1.7))


if __name__ == "__main__":
    main()
