# CausalAttention's steps with raw nn.Linear layers and the learner's own short names (Q, K, V, scores, w,
# ctx): only the mask has a name of the book's, so a ✓ would say nothing of the attention.
import torch
import torch.nn as nn

inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
batch = torch.stack((inputs, inputs), dim=0)
torch.manual_seed(123)
W_q = nn.Linear(3, 2, bias=False)
W_k = nn.Linear(3, 2, bias=False)
W_v = nn.Linear(3, 2, bias=False)
Q, K, V = W_q(batch), W_k(batch), W_v(batch)
scores = Q @ K.transpose(1, 2)
mask = torch.triu(torch.ones(6, 6), diagonal=1).bool()
scores = scores.masked_fill(mask, -torch.inf)
w = torch.softmax(scores / K.shape[-1]**0.5, dim=-1)
ctx = w @ V
print(ctx)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"mask": mask, "Q": Q, "K": K, "V": V, "scores": scores, "w": w, "ctx": ctx}, "dropout", "export.json")
# --- end export ---
