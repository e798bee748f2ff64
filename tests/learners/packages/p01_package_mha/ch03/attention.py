# 多头注意力，照书上的 §3.6.2 写
import torch
import torch.nn as nn


# <book: MultiHeadAttention>
