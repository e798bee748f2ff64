"""The course's multi-head attention (the course's hyper-parameters as globals, `Attention`,
`MultiHeadAttention`), as the course writes them (but for `trace`, which only records, and one line
for the three projections); for tools/gen_course_fixtures.py.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

# Hyperparameters (set per case by set_hyperparameters; the classes read them at call time, as in the course)
context_length = 128  # Length of the token chunk each batch
d_model = 512  # The size of our model token embeddings
num_blocks = 12  # Number of transformer blocks
num_heads = 8  # Number of heads in Multi-head attention
dropout = 0.1  # Dropout rate

def set_hyperparameters(cfg):
    global context_length, d_model, num_heads, dropout
    context_length, d_model, num_heads, dropout = (cfg["context_length"], cfg["d_model"], cfg["num_heads"],
                                                   cfg["dropout"])

class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        # the course's three lines, Wq, Wk and Wv in this order, each nn.Linear(d_model, d_model // num_heads, bias=False)
        self.Wq, self.Wk, self.Wv = [nn.Linear(d_model, d_model // num_heads, bias=False) for _ in range(3)]
        self.register_buffer('mask', torch.tril(torch.ones(context_length, context_length)))
        self.dropout = nn.Dropout(dropout)
        self.trace = None

    def forward(self, x):
        t = self.trace if self.trace is not None else {}
        B, T, C = x.shape
        q, k, v = self.Wq(x), self.Wk(x), self.Wv(x)
        t["q"], t["k"], t["v"], t["scores"] = q, k, v, q @ k.transpose(-2, -1)
        weights = (q @ k.transpose(-2, -1)) / math.sqrt(d_model // num_heads)
        t["scaled"], t["mask"], t["mask_is_zero"] = weights, self.mask[:T, :T], self.mask[:T, :T] == 0
        weights = weights.masked_fill(self.mask[:T, :T] == 0, float('-inf'))
        t["masked"] = weights
        weights = F.softmax(weights, dim=-1)
        t["softmaxed"] = weights
        weights = self.dropout(weights)
        t["dropped"] = weights
        output = weights @ v
        t["output"] = output
        return output

class MultiHeadAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleList([Attention() for _ in range(num_heads)])
        self.projection_layer = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)
        self.trace = None

    def forward(self, x):
        t = self.trace if self.trace is not None else {}
        head_outputs = [head(x) for head in self.heads]
        t["head_outputs_list"] = head_outputs
        head_outputs = torch.cat(head_outputs, dim=-1)
        t["head_outputs"] = head_outputs
        out = self.projection_layer(head_outputs)
        t["projected"] = out
        out = self.dropout(out)
        return out
