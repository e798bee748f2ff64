# CausalAttention as the book writes it, called as a module at dropout 0.0 (the dropout lesson's class).
import torch
import torch.nn as nn

# <book: inputs>

batch = torch.stack((inputs, inputs), dim=0)


# <book: CausalAttention>

torch.manual_seed(123)
context_length = batch.shape[1]
ca = CausalAttention(3, 2, context_length, 0.0)
context_vecs = ca(batch)
print(context_vecs)

# --- export ---
import os, sys
sys.path.insert(0, os.environ.get("ATTN_TUTOR_PYTHON", "python"))
from export_pytorch import export
export({"context_vecs": context_vecs}, "dropout", "export.json")
# --- end export ---
