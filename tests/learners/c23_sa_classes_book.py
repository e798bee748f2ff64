# §3.4.2 as a learner writes it: the book's SelfAttention_v1 and SelfAttention_v2, each called on the inputs.
import torch
import torch.nn as nn

# <book: inputs>
d_in = inputs.shape[1]
d_out = 2

# <book: SelfAttention_v1>

torch.manual_seed(123)
sa_v1 = SelfAttention_v1(d_in, d_out)
print(sa_v1(inputs))

# <book: SelfAttention_v2>

torch.manual_seed(789)
sa_v2 = SelfAttention_v2(d_in, d_out)
print(sa_v2(inputs))

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export([("sa_v1.W_query", sa_v1.W_query), ("sa_v1(inputs)", sa_v1(inputs)),
        ("sa_v2.W_query.weight", sa_v2.W_query.weight), ("sa_v2(inputs)", sa_v2(inputs))],
       "trainable", "export.json")
# --- end export ---
