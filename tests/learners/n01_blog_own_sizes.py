# Not a lesson: a blog's scaled dot-product attention on its own random data (4 tokens of 8, not the
# book's 6 of 3); it shares the names attn_scores and attn_weights with the chapter, none of its values.
import torch

torch.manual_seed(0)
x = torch.randn(4, 8)
W_q, W_k, W_v = torch.randn(8, 8), torch.randn(8, 8), torch.randn(8, 8)
queries = x @ W_q
keys = x @ W_k
values = x @ W_v
attn_scores = queries @ keys.T / 8**0.5
attn_weights = torch.softmax(attn_scores, dim=-1)
context = attn_weights @ values
print(context)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"attn_scores": attn_scores, "attn_weights": attn_weights}, "naive-scores", "export.json")
# --- end export ---
