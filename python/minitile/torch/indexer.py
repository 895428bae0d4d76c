"""The seed module's functions, over minitile's ops.

Same names, arguments and results as the TileLang module that NeMo
Automodel, Megatron-LM and miles carry (``tilelang_indexer_fwd.py``,
``tilelang_indexer_bwd.py``, ``tilelang_indexer.py``), so that module's
users swap an import:

    from minitile.torch import indexer_fwd_interface, batched_indexer_fwd

Like the seed's, these accept what its callers pass: non-contiguous views
(made contiguous), weights of any float dtype (made float32), windows of
any integer dtype (made int32). The ops under them (torch.ops.minitile.*)
take exactly one layout and refuse anything else.

The backward (``indexer_bwd_interface`` and the autograd functions'
backward) is ``torch.ops.minitile.indexer_bwd`` (the ``indexer_bwd``
kernel) for the (heads, dim) pairs it was built for -- 64 heads -- and
``reference.indexer_bwd``, plain PyTorch, for others (docs/torch.md).
"""
import torch

from . import _lib, ops, reference

_f32, _i32 = torch.float32, torch.int32


def _windows(cu_seqlen_ks, cu_seqlen_ke):
    if cu_seqlen_ks.dtype is not _i32:
        cu_seqlen_ks = cu_seqlen_ks.to(_i32)
    if cu_seqlen_ke.dtype is not _i32:
        cu_seqlen_ke = cu_seqlen_ke.to(_i32)
    return cu_seqlen_ks.contiguous(), cu_seqlen_ke.contiguous()


def _float32(weights):
    return (weights if weights.dtype is _f32 else weights.float()).contiguous()


def indexer_fwd_interface(q, kv, weights, cu_seqlen_ks, cu_seqlen_ke, clean_logits=True):
    """logits [S, S_kv] float32 of q [S, H, D] bf16, kv [S_kv, D] bf16, weights
    [S, H] and the windows cu_seqlen_ks, cu_seqlen_ke [S]: the sum over heads
    of relu(q . kv) * weights inside [ks, ke), -inf outside.

    The kernel writes -inf outside the windows in the same pass whatever
    `clean_logits` says: with clean_logits=False the seed leaves those
    entries unspecified, and -inf is one of the values they may hold.
    """
    ks, ke = _windows(cu_seqlen_ks, cu_seqlen_ke)
    return ops.indexer_fwd(q.contiguous(), kv.contiguous(), _float32(weights), ks, ke)


def batched_indexer_fwd(q, k, weights, cu_seqlen_ks, cu_seqlen_ke):
    """logits [B, S, S_kv] float32 of q [S, B, H, D] bf16, k [S_kv, B, D] bf16,
    weights [S, B, H] and windows [S] shared by the batch, in one launch."""
    ks, ke = _windows(cu_seqlen_ks, cu_seqlen_ke)
    return ops.batched_indexer_fwd(q.contiguous(), k.contiguous(), _float32(weights), ks, ke)


def _kernel_takes(index_q, weights, index_k, topk_indices, grad_scores):
    """Whether torch.ops.minitile.indexer_bwd serves these arguments: CUDA
    tensors of a (heads, dim) pair the backward was built for (32 or 64
    heads), and torch's deterministic mode off -- the kernel adds grad_k's
    rows with atomics in no fixed order; the reference's index_add_ is
    deterministic in that mode."""
    if torch.are_deterministic_algorithms_enabled():
        return False
    if not all(t.is_cuda for t in (index_q, weights, index_k, topk_indices, grad_scores)):
        return False
    return tuple(index_q.shape[-2:]) in _lib.built_bwd_shapes()


def _bwd_args(weights, topk_indices, grad_scores):
    return (_float32(weights), topk_indices if topk_indices.dtype is _i32 else
            topk_indices.to(_i32), _float32(grad_scores))


def indexer_bwd_interface(index_q, weights, index_k, topk_indices, grad_scores):
    """(grad_q [S, H, D] bf16, grad_w [S, H] float32, grad_k [S_kv, D] float32):
    the gradients of the scores gathered at topk_indices [S, K] (-1 ignored)
    for grad_scores [S, K]. torch.ops.minitile.indexer_bwd where it was built
    for the (heads, dim) pair (32 or 64 heads), else -- and under
    torch.use_deterministic_algorithms(True) -- plain PyTorch
    (reference.indexer_bwd)."""
    if weights.dim() == 3:
        weights = weights.squeeze(-1)
    if _kernel_takes(index_q, weights, index_k, topk_indices, grad_scores):
        w, idx, g = _bwd_args(weights, topk_indices, grad_scores)
        return ops.indexer_bwd(index_q.contiguous(), w, index_k.contiguous(), idx, g)
    return reference.indexer_bwd(index_q, weights, index_k, topk_indices, grad_scores)


def batched_indexer_bwd(index_q, weights, index_k, topk_indices, grad_scores):
    """The batched backward: q [S, B, H, D], weights [S, B, H], k [S_kv, B, D],
    topk_indices and grad_scores [B, S, K] -> (grad_q [S, B, H, D] bf16,
    grad_w [S, B, H] float32, grad_k [S_kv, B, D] float32), in one launch of
    torch.ops.minitile.indexer_bwd where it was built for the pair, else
    plain PyTorch a batch element at a time."""
    if _kernel_takes(index_q, weights, index_k, topk_indices, grad_scores):
        w, idx, g = _bwd_args(weights, topk_indices, grad_scores)
        return ops.indexer_bwd(index_q.contiguous(), w, index_k.contiguous(), idx, g)
    S, B, H, D = index_q.shape
    grad_q = torch.empty_like(index_q)
    grad_w = torch.empty(S, B, H, dtype=_f32, device=index_q.device)
    grad_k = torch.empty(index_k.shape[0], B, D, dtype=_f32, device=index_q.device)
    for b in range(B):
        gq, gw, gk = reference.indexer_bwd(index_q[:, b], weights[:, b], index_k[:, b],
                                           topk_indices[b], grad_scores[b])
        grad_q[:, b] = gq
        grad_w[:, b] = gw
        grad_k[:, b] = gk
    return grad_q, grad_w, grad_k


def _topk(logits, k, ks, ke):
    # Sorted as torch.topk's (descending, ties by ascending index) where the
    # kernel sorts, that is up to k = 2048; beyond, in no particular order.
    return ops.topk(logits, k, ks, ke, k <= ops.SORTED_MAX_K)


def pytorch_extract_topk_scores(logits, topk_indices, dim=-1):
    """logits gathered at topk_indices, -inf where an index is -1 (or out of range)."""
    valid = (topk_indices >= 0) & (topk_indices < logits.shape[dim])
    safe = topk_indices.clamp(0, max(logits.shape[dim] - 1, 0)).long()
    return torch.where(valid, torch.gather(logits, dim, safe), float("-inf"))


def _step_forward(ctx, forward, index_q, index_k, weights, cu_seqlen_ks, cu_seqlen_ke, topk,
                  topk_indices):
    """The training step's forward, single or batched (`forward` the logits):
    (scores, indices) of the top-k logits, or the scores at the given
    indices; saves what _step_backward needs."""
    ks, ke = _windows(cu_seqlen_ks, cu_seqlen_ke)
    logits = forward(index_q, index_k, weights, ks, ke)
    if topk_indices is None:
        index_score, topk_indices = _topk(logits, topk, ks, ke)
    else:
        index_score = pytorch_extract_topk_scores(logits, topk_indices)
    ctx.save_for_backward(index_q, index_k, weights, topk_indices)
    ctx.mark_non_differentiable(topk_indices)
    return index_score, topk_indices


def _step_backward(ctx, backward, grad_scores):
    """The gradients of _step_forward's inputs, `backward` the indexer's."""
    index_q, index_k, weights, topk_indices = ctx.saved_tensors
    grad_q, grad_w, grad_k = backward(index_q, weights, index_k, topk_indices, grad_scores)
    return (grad_q, grad_k.to(index_k.dtype), grad_w.to(weights.dtype), None, None, None, None)


class IndexerFunction(torch.autograd.Function):
    """The training step's indexer: (scores [S, K], indices [S, K] int32) of the
    top-k logits, differentiable in q, k and weights through the scores.

    Forward: minitile's indexer_fwd and topk (or the given indices). Backward:
    indexer_bwd_interface.
    """

    @staticmethod
    def forward(ctx, index_q, index_k, weights, cu_seqlen_ks, cu_seqlen_ke, topk,
                topk_indices=None):
        return _step_forward(ctx, indexer_fwd_interface, index_q, index_k, weights,
                             cu_seqlen_ks, cu_seqlen_ke, topk, topk_indices)

    @staticmethod
    def backward(ctx, grad_scores, grad_indices):
        return _step_backward(ctx, indexer_bwd_interface, grad_scores)


def lighting_indexer(index_q, index_k, weights, cu_seqlen_ks, cu_seqlen_ke, topk,
                     topk_indices=None):
    """(scores, indices) of IndexerFunction; the seed's name (sic)."""
    return IndexerFunction.apply(index_q, index_k, weights.squeeze(-1) if weights.dim() == 3
                                 else weights, cu_seqlen_ks, cu_seqlen_ke, topk, topk_indices)


class BatchedIndexerFunction(torch.autograd.Function):
    """IndexerFunction over a batch: q [S, B, H, D], k [S_kv, B, D], weights
    [S, B, H] -> (scores [B, S, K], indices [B, S, K] int32)."""

    @staticmethod
    def forward(ctx, index_q, index_k, weights, cu_seqlen_ks, cu_seqlen_ke, topk,
                topk_indices=None):
        return _step_forward(ctx, batched_indexer_fwd, index_q, index_k, weights,
                             cu_seqlen_ks, cu_seqlen_ke, topk, topk_indices)

    @staticmethod
    def backward(ctx, grad_scores, grad_indices):
        return _step_backward(ctx, batched_indexer_bwd, grad_scores)


def batched_lighting_indexer(index_q, index_k, weights, cu_seqlen_ks, cu_seqlen_ke, topk,
                             topk_indices=None):
    """(scores [B, S, K], indices [B, S, K]) of BatchedIndexerFunction."""
    return BatchedIndexerFunction.apply(index_q, index_k, weights, cu_seqlen_ks, cu_seqlen_ke,
                                        topk, topk_indices)


def make_causal_cu_seqlens(seq_len_q, seq_len_kv, compress_ratio, device, positions=None):
    """Causal windows over a compressed KV: ks = 0, ke = (p + 1) // ratio for
    each query position p (arange(seq_len_q), or `positions`: a rank's rows
    under context parallelism), as the seed's _make_causal_cu_seqlens."""
    if positions is None:
        positions = torch.arange(seq_len_q, device=device, dtype=_i32)
    ks = torch.zeros(positions.shape[0], device=device, dtype=_i32)
    ke = ((positions + 1) // compress_ratio).clamp(max=seq_len_kv).to(_i32)
    return ks, ke
