# §3.3 and §3.4.1 in one script, as a learner's file often is: the §3.3 loop and the §3.4 cells bind the
# same names (attn_scores_2, attn_weights_2, context_vec_2), each section checked against its own lesson.
import torch

# <book: inputs>

# 3.3.1 一个简单的注意力机制
query = inputs[1]
attn_scores_2 = torch.empty(inputs.shape[0])
for i, x_i in enumerate(inputs):
    attn_scores_2[i] = torch.dot(x_i, query)
print(attn_scores_2)

attn_weights_2 = torch.softmax(attn_scores_2, dim=0)
print(attn_weights_2)

context_vec_2 = torch.zeros(query.shape)
for i, x_i in enumerate(inputs):
    context_vec_2 += attn_weights_2[i] * x_i
print(context_vec_2)

# 3.4.1 逐步计算注意力权重
x_2 = inputs[1]
d_in = inputs.shape[1]
d_out = 2
torch.manual_seed(123)
W_query = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_key = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_value = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
query_2 = x_2 @ W_query
keys = inputs @ W_key
values = inputs @ W_value
attn_scores_2 = query_2 @ keys.T
d_k = keys.shape[-1]
attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)
context_vec_2 = attn_weights_2 @ values
print(context_vec_2)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export([("x_2", x_2), ("W_query", W_query), ("W_key", W_key), ("W_value", W_value), ("query_2", query_2),
        ("keys", keys), ("values", values), ("attn_scores_2", attn_scores_2), ("attn_weights_2", attn_weights_2),
        ("context_vec_2", context_vec_2)],
       "trainable", "export.json")
# --- end export ---
