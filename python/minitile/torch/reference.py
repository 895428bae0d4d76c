"""PyTorch references of the kernels' contracts, in plain torch operations.

They run on any device, in the precision asked for (float64 for tests),
in row chunks so that [chunk, H, S_kv] intermediates stay small. The tests
compare the ops against them; ``indexer_bwd`` is also what the autograd
functions' backward runs until minitile has a backward kernel (docs/torch.md).
"""
import torch

# Elements of one chunk's largest intermediate.
_CHUNK_ELEMENTS = 1 << 26


def _chunk_rows(per_row):
    return max(1, _CHUNK_ELEMENTS // max(1, per_row))


def window_mask(S, S_kv, ks, ke, device):
    """[S, S_kv] bool: ks[s] <= t < ke[s] (the window clamped to [0, S_kv])."""
    t = torch.arange(S_kv, device=device)
    return (t[None, :] >= ks.to(device).long()[:, None]) & (t[None, :] < ke.to(device).long()[:, None])


def indexer_fwd(q, kv, weights, ks, ke, dtype=torch.float64):
    """logits [S, S_kv] = sum_h relu(q[s,h] . kv[t]) * weights[s,h] inside
    [ks[s], ke[s]), -inf outside; computed in `dtype`, returned as float32."""
    S, H, D = q.shape
    T = kv.shape[0]
    out = torch.empty(S, T, dtype=dtype, device=q.device)
    kvd = kv.to(dtype)
    step = _chunk_rows(H * T)
    for s0 in range(0, S, step):
        qc = q[s0:s0 + step].to(dtype)
        scores = torch.einsum("shd,td->sht", qc, kvd).clamp_min_(0)
        out[s0:s0 + step] = torch.einsum("sht,sh->st", scores, weights[s0:s0 + step].to(dtype))
    out.masked_fill_(~window_mask(S, T, ks, ke, q.device), float("-inf"))
    return out.float()


def batched_indexer_fwd(q, kv, weights, ks, ke, dtype=torch.float64):
    """logits [B, S, S_kv] of q [S, B, H, D], kv [S_kv, B, D], weights [S, B, H]."""
    return torch.stack([indexer_fwd(q[:, b], kv[:, b], weights[:, b], ks, ke, dtype)
                        for b in range(q.shape[1])])


def clean_logits(logits, ks, ke):
    """logits with -inf outside each row's window (a new tensor)."""
    S, T = logits.shape
    return logits.masked_fill(~window_mask(S, T, ks, ke, logits.device), float("-inf"))


def topk(logits, k, ks=None, ke=None, sorted=True):
    """(values, indices) of the k largest entries > -inf of each row of logits
    [..., S_kv]: NaN counts as -inf, equal values go to the lower index, -1
    (and -inf) past the row's count; with windows only ks[s] <= t < ke[s]
    counts. Sorted by descending value, ties by ascending index (the kernels'
    sorted order; compare sets against their unsorted output)."""
    x = logits.float()
    x = x.masked_fill(torch.isnan(x), float("-inf"))
    if ks is not None:
        S, T = x.shape[-2:]
        x = x.masked_fill(~window_mask(S, T, ks, ke, x.device), float("-inf"))
    T = x.shape[-1]
    # A stable descending sort keeps equal values in ascending index order.
    order = torch.sort(x, dim=-1, descending=True, stable=True)
    values = order.values[..., :k]
    indices = order.indices[..., :k].to(torch.int32)
    if k > T:
        pad = list(x.shape[:-1]) + [k - T]
        values = torch.cat([values, x.new_full(pad, float("-inf"))], dim=-1)
        indices = torch.cat([indices, indices.new_full(pad, -1)], dim=-1)
    dead = values == float("-inf")
    return values, indices.masked_fill(dead, -1)


def indexer_bwd(q, weights, kv, indices, grad_scores):
    """The gradients of scores[s, j] = logits[s, indices[s, j]] (the forward's
    logits gathered at the top-k indices; -1 entries carry no gradient) for
    the incoming grad_scores [S, K]:

        r[j, h]   = relu(q[s, h] . kv[indices[s, j]])
        dw[s, h]  = sum_j grad[s, j] * r[j, h]
        p[j, h]   = (r[j, h] > 0) * grad[s, j] * w[s, h]
        dq[s, h]  = sum_j p[j, h] * kv[indices[s, j]]              (q's dtype)
        dkv[t]   += sum_h p[j, h] * q[s, h]  for t = indices[s, j]  (float32)

    computed in float32 from the bf16 inputs, as the seed's kernel does.
    Returns (grad_q [S, H, D], grad_w [S, H] float32, grad_kv [S_kv, D] float32).
    """
    S, H, D = q.shape
    T = kv.shape[0]
    K = indices.shape[1]
    grad_q = torch.empty_like(q)
    grad_w = torch.empty(S, H, dtype=torch.float32, device=q.device)
    grad_kv = torch.zeros(T, D, dtype=torch.float32, device=q.device)
    if S == 0 or T == 0:
        grad_q.zero_()
        grad_w.zero_()
        return grad_q, grad_w, grad_kv
    kvf = kv.float()
    step = _chunk_rows(K * max(H, D))
    for s0 in range(0, S, step):
        rows = slice(s0, s0 + step)
        idx = indices[rows].long()
        valid = (idx >= 0) & (idx < T)
        safe = idx.clamp(0, T - 1)
        g = torch.where(valid, grad_scores[rows].float(), 0.0)           # [c, K]
        keys = kvf[safe]                                                  # [c, K, D]
        qc = q[rows].float()                                              # [c, H, D]
        r = torch.einsum("chd,ckd->ckh", qc, keys).clamp_min_(0)
        r = r * valid[..., None]
        grad_w[rows] = torch.einsum("ck,ckh->ch", g, r)
        p = (r > 0) * g[..., None] * weights[rows].float()[:, None, :]    # [c, K, H]
        grad_q[rows] = torch.einsum("ckh,ckd->chd", p, keys).to(q.dtype)
        dk = torch.einsum("ckh,chd->ckd", p, qc)                          # [c, K, D]
        grad_kv.index_add_(0, safe.reshape(-1), dk.reshape(-1, D))
    return grad_q, grad_w, grad_kv
