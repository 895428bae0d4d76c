"""minitile: a tile language embedded in C++, and its kernels.

The Python side is only ``minitile.torch``: the shipped kernels as PyTorch
operators (docs/torch.md).
"""
