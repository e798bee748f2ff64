# §3.4.1 to §3.5.2 in one script: the raw weight matrices, SelfAttention_v2, the causal masks and dropout,
# §3.5.1's `keys = sa_v2.W_key(inputs)` rebinding §3.4's `keys = inputs @ W_key`; each section its lesson's.
import torch
import torch.nn as nn

# <book: inputs>

# ---- 3.4.1 计算注意力权重 ----
x_2 = inputs[1]
d_in = inputs.shape[1]
d_out = 2
torch.manual_seed(123)
W_query = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_key   = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_value = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
query_2 = x_2 @ W_query
keys = inputs @ W_key
values = inputs @ W_value
print("keys.shape:", keys.shape)
attn_scores_2 = query_2 @ keys.T
d_k = keys.shape[-1]
attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)
context_vec_2 = attn_weights_2 @ values
print(context_vec_2)

# ---- 3.4.2 ----
# <book: SelfAttention_v2>

torch.manual_seed(789)
sa_v2 = SelfAttention_v2(d_in, d_out)
print(sa_v2(inputs))

# ---- 3.5.1 ----
queries = sa_v2.W_query(inputs)
keys = sa_v2.W_key(inputs)
attn_scores = queries @ keys.T
attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
print(attn_weights)
context_length = attn_scores.shape[0]
mask_simple = torch.tril(torch.ones(context_length, context_length))
masked_simple = attn_weights*mask_simple
row_sums = masked_simple.sum(dim=-1, keepdim=True)
masked_simple_norm = masked_simple / row_sums
print(masked_simple_norm)
mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)
masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)
print(attn_weights)

# ---- 3.5.2 ----
torch.manual_seed(123)
dropout = torch.nn.Dropout(0.5)
example = torch.ones(6, 6)
print(dropout(example))
torch.manual_seed(123)
print(dropout(attn_weights))

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export([("queries", queries), ("keys", keys), ("attn_scores", attn_scores), ("mask_simple", mask_simple),
        ("masked_simple_norm", masked_simple_norm), ("mask", mask), ("masked", masked), ("attn_weights", attn_weights)],
       "causal-mask", "export.json")
# --- end export ---
