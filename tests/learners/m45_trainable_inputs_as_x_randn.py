# trainable 3.4.1 with the book's inputs under a name of the learner's own (x) and torch.randn weights:
# the inputs are the evidence that it is the lesson, the weights the mistake.
import torch
x = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                  [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
torch.manual_seed(123)
W_query = torch.nn.Parameter(torch.randn(3, 2), requires_grad=False)
W_key = torch.nn.Parameter(torch.randn(3, 2), requires_grad=False)
W_value = torch.nn.Parameter(torch.randn(3, 2), requires_grad=False)
query_2 = x[1] @ W_query
keys = x @ W_key
values = x @ W_value
attn_scores_2 = query_2 @ keys.T
attn_weights_2 = torch.softmax(attn_scores_2 / keys.shape[-1]**0.5, dim=-1)
context_vec_2 = attn_weights_2 @ values
print(context_vec_2)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"W_query": W_query, "W_key": W_key, "W_value": W_value, "query_2": query_2, "keys": keys,
        "context_vec_2": context_vec_2}, "trainable", "export.json")
# --- end export ---
