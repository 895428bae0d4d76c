"""minitile's kernels as PyTorch operators (docs/torch.md).

Importing this registers ``torch.ops.minitile.indexer_fwd``,
``batched_indexer_fwd``, ``clean_logits`` and ``topk`` and gives the seed
module's functions over them:

    from minitile.torch import indexer_fwd_interface, batched_indexer_fwd
    logits = indexer_fwd_interface(q, kv, weights, cu_seqlen_ks, cu_seqlen_ke)

The ops run on torch's current CUDA stream and allocate their outputs with
torch; their fake implementations give torch.compile exact shapes and
dtypes. The kernels come from libminitile_torch.so beside this file (a C
ABI, loaded on first use), built by ``cmake -DMINITILE_TORCH=ON``.
"""
from . import ops, reference
from ._lib import KernelError, built_shapes
from .indexer import (BatchedIndexerFunction, IndexerFunction, batched_indexer_bwd,
                      batched_indexer_fwd, batched_lighting_indexer, indexer_bwd_interface,
                      indexer_fwd_interface, lighting_indexer, make_causal_cu_seqlens,
                      pytorch_extract_topk_scores)

indexer_fwd = ops.indexer_fwd
clean_logits = ops.clean_logits
topk = ops.topk

__all__ = [
    "BatchedIndexerFunction", "IndexerFunction", "KernelError", "batched_indexer_bwd",
    "batched_indexer_fwd", "batched_lighting_indexer", "built_shapes", "clean_logits",
    "indexer_bwd_interface", "indexer_fwd", "indexer_fwd_interface", "lighting_indexer",
    "make_causal_cu_seqlens", "ops", "pytorch_extract_topk_scores", "reference", "topk",
]
