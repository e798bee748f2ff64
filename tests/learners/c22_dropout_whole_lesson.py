# dropout lesson as the book runs it: nn.Dropout(0.5) on ones and on the weights (re-seeded), then
# CausalAttention (dropout 0.0) on the batch.
import torch
import torch.nn as nn

# <book: inputs>

torch.manual_seed(789)
W_query = nn.Linear(3, 2, bias=False)
W_key = nn.Linear(3, 2, bias=False)
W_value = nn.Linear(3, 2, bias=False)
queries, keys = W_query(inputs), W_key(inputs)
attn_scores = queries @ keys.T
mask = torch.triu(torch.ones(6, 6), diagonal=1)
masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=1)

torch.manual_seed(123)
dropout = torch.nn.Dropout(0.5)
example = torch.ones(6, 6)
dropped_example = dropout(example)
torch.manual_seed(123)
dropped = dropout(attn_weights)
print(dropped)

batch = torch.stack((inputs, inputs), dim=0)


# <book: CausalAttention>


torch.manual_seed(123)
ca = CausalAttention(3, 2, batch.shape[1], 0.0)
context_vecs = ca(batch)
print(context_vecs.shape)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export([("attn_weights", attn_weights), ("example", example), ("dropout(example)", dropped_example),
        ("dropout(attn_weights)", dropped), ("batch", batch), ("context_vecs", context_vecs)],
       "dropout", "export.json")
# --- end export ---
