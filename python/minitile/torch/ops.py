"""The operators ``torch.ops.minitile.*``: schemas, CUDA kernels, fake kernels.

Each op is defined once with ``torch.library.Library.define`` (its schema),
implemented for CUDA by a Python function that checks the arguments,
allocates the outputs with torch and calls the generated launcher through
ctypes on torch's current stream, and given a fake (meta) implementation
with the exact output shapes and dtypes for torch.compile, FakeTensorMode
and the meta device. The CPU key gets the CUDA function too, so that a CPU
tensor is refused with a message naming the argument rather than the
dispatcher's "could not run on the CPU backend".

Why ``Library.define`` + ``impl`` rather than ``torch.library.custom_op``:
custom_op puts a Python autograd kernel in front of every call (one more
trip through Python per launch); these ops have no autograd formula of
their own -- the training step's gradient is minitile.torch's
IndexerFunction -- so the dispatcher's C++ fallback serves that key.
docs/torch.md has the measured per-call overhead.
"""
import torch

from . import _lib

NAMESPACE = "minitile"

# The largest k sorted top-k takes (the kernels' max_k).
SORTED_MAX_K = 2048

SCHEMAS = {
    "indexer_fwd":
        "indexer_fwd(Tensor q, Tensor kv, Tensor weights, Tensor cu_seqlen_ks, "
        "Tensor cu_seqlen_ke) -> Tensor",
    "batched_indexer_fwd":
        "batched_indexer_fwd(Tensor q, Tensor kv, Tensor weights, Tensor cu_seqlen_ks, "
        "Tensor cu_seqlen_ke) -> Tensor",
    "clean_logits":
        "clean_logits(Tensor(a!) logits, Tensor cu_seqlen_ks, Tensor cu_seqlen_ke) -> ()",
    "topk":
        "topk(Tensor logits, int k, Tensor? cu_seqlen_ks=None, Tensor? cu_seqlen_ke=None, "
        "bool sorted=False) -> (Tensor values, Tensor indices)",
    "indexer_bwd":
        "indexer_bwd(Tensor q, Tensor weights, Tensor kv, Tensor topk_indices, "
        "Tensor grad_scores) -> (Tensor grad_q, Tensor grad_weights, Tensor grad_kv)",
}

_bf16, _f32, _i32 = torch.bfloat16, torch.float32, torch.int32


def _fail(op, message, kind=ValueError):
    raise kind(f"minitile.{op}: {message}")


# The checks run on every call: each reads only what it must, and builds a
# message only for an argument that fails.

def _tensor(op, name, t, dtype, dims):
    """Checks the dtype, rank and layout of argument `name` (a Tensor: the
    schema says so); returns its shape."""
    if t.dtype is not dtype:
        _fail(op, f"{name} must be {dtype}, got {t.dtype}", TypeError)
    shape = t.shape
    if len(shape) != len(dims):
        _fail(op, f"{name} must have {len(dims)} dimensions {list(dims)}, got shape "
              f"{list(shape)}")
    if not t.is_contiguous():
        _fail(op, f"{name} must be contiguous (shape {list(shape)}, strides "
              f"{list(t.stride())}); call .contiguous() on it")
    return shape


def _same_device(op, first, named, real):
    """All of `named` on `first`'s device; with `real`, a CUDA device."""
    if real:
        # Device ordinals: a CUDA tensor's is its device's, a CPU tensor's -1.
        index = first[1].get_device()
        if index < 0 or not first[1].is_cuda:
            _fail(op, f"{first[0]} must be a CUDA tensor, got one on {first[1].device}")
        for name, t in named:
            if t.get_device() != index or not t.is_cuda:
                _fail(op, f"{name} must be on {first[1].device} with {first[0]}, got {t.device}")
        return
    device = first[1].device
    for name, t in named:
        if t.device != device:
            _fail(op, f"{name} must be on {device} with {first[0]}, got {t.device}")


def _shape_is(op, name, shape, want, meaning):
    """`shape` (a torch.Size or tuple) is the tuple `want`."""
    if shape != want:
        _fail(op, f"{name} must have shape {list(want)} ({meaning}), got {list(shape)}")


def _check_windows(op, ks, ke, S):
    _shape_is(op, "cu_seqlen_ks", _tensor(op, "cu_seqlen_ks", ks, _i32, ["S"]), (S,),
              "a window start per query row")
    _shape_is(op, "cu_seqlen_ke", _tensor(op, "cu_seqlen_ke", ke, _i32, ["S"]), (S,),
              "a window end per query row")


def _check_indexer(op, q, kv, weights, ks, ke, batched, real):
    """Checks an indexer op's arguments; returns (S, B, H, D, S_kv)."""
    if batched:
        S, B, H, D = _tensor(op, "q", q, _bf16, ["S", "B", "H", "D"])
        T, B2, D2 = _tensor(op, "kv", kv, _bf16, ["S_kv", "B", "D"])
        _shape_is(op, "kv", (B2, D2), (B, D), "its batch and head dim as q's")
        _shape_is(op, "weights", _tensor(op, "weights", weights, _f32, ["S", "B", "H"]),
                  (S, B, H), "q's rows, batch and heads")
    else:
        S, H, D = _tensor(op, "q", q, _bf16, ["S", "H", "D"])
        B = 1
        T, D2 = _tensor(op, "kv", kv, _bf16, ["S_kv", "D"])
        _shape_is(op, "kv", (D2,), (D,), "its last dimension q's head dim")
        _shape_is(op, "weights", _tensor(op, "weights", weights, _f32, ["S", "H"]), (S, H),
                  "q's rows and heads")
    _check_windows(op, ks, ke, S)
    _same_device(op, ("q", q), (("kv", kv), ("weights", weights), ("cu_seqlen_ks", ks),
                                ("cu_seqlen_ke", ke)), real)
    return S, B, H, D, T


def _check_topk(op, logits, k, ks, ke, sorted, real):
    """Checks top-k's arguments; returns (B, S, S_kv), B = 0 for 2-D logits."""
    rank = logits.dim()
    if rank == 3:
        B, S, T = _tensor(op, "logits", logits, _f32, ["B", "S", "S_kv"])
    else:
        S, T = _tensor(op, "logits", logits, _f32, ["S", "S_kv"])
        B = 0
    if k < 0:
        _fail(op, f"k must be at least 0, got {k}")
    if k >= 2**31 or T >= 2**31:
        _fail(op, f"k ({k}) and S_kv ({T}) must fit in int32")
    if sorted and k > SORTED_MAX_K:
        _fail(op, f"sorted=True takes k up to {SORTED_MAX_K}, got k={k}; ask for unsorted "
              "indices (sorted=False) or sort them after")
    named = []
    if (ks is None) != (ke is None):
        _fail(op, "give both cu_seqlen_ks and cu_seqlen_ke, or neither")
    if ks is not None:
        _check_windows(op, ks, ke, S)
        named = [("cu_seqlen_ks", ks), ("cu_seqlen_ke", ke)]
    _same_device(op, ("logits", logits), named, real)
    return B, S, T


def _check_bwd(op, q, weights, kv, idx, grad, real):
    """Checks the backward's arguments (q of rank 3: single, 4: batched);
    returns (B, S, H, D, S_kv, K), B = 0 for the single form."""
    if q.dim() == 4:
        S, B, H, D = _tensor(op, "q", q, _bf16, ["S", "B", "H", "D"])
        _shape_is(op, "weights", _tensor(op, "weights", weights, _f32, ["S", "B", "H"]),
                  (S, B, H), "q's rows, batch and heads")
        T, B2, D2 = _tensor(op, "kv", kv, _bf16, ["S_kv", "B", "D"])
        _shape_is(op, "kv", (B2, D2), (B, D), "its batch and head dim as q's")
        B3, S2, K = _tensor(op, "topk_indices", idx, _i32, ["B", "S", "K"])
        _shape_is(op, "topk_indices", (B3, S2), (B, S), "a row of K indices per query")
        _shape_is(op, "grad_scores", _tensor(op, "grad_scores", grad, _f32, ["B", "S", "K"]),
                  (B, S, K), "topk_indices' shape")
    else:
        S, H, D = _tensor(op, "q", q, _bf16, ["S", "H", "D"])
        B = 0
        _shape_is(op, "weights", _tensor(op, "weights", weights, _f32, ["S", "H"]), (S, H),
                  "q's rows and heads")
        T, D2 = _tensor(op, "kv", kv, _bf16, ["S_kv", "D"])
        _shape_is(op, "kv", (D2,), (D,), "its last dimension q's head dim")
        S2, K = _tensor(op, "topk_indices", idx, _i32, ["S", "K"])
        _shape_is(op, "topk_indices", (S2,), (S,), "a row of K indices per query")
        _shape_is(op, "grad_scores", _tensor(op, "grad_scores", grad, _f32, ["S", "K"]),
                  (S, K), "topk_indices' shape")
    _same_device(op, ("q", q), (("weights", weights), ("kv", kv), ("topk_indices", idx),
                                ("grad_scores", grad)), real)
    return B, S, H, D, T, K


if hasattr(torch._C, "_cuda_getCurrentRawStream"):
    _raw_stream = torch._C._cuda_getCurrentRawStream
else:  # pragma: no cover - every torch with CUDA since 1.x has it
    def _raw_stream(device):
        return torch.cuda.current_stream(device).cuda_stream


# --- CUDA implementations ----------------------------------------------------

def _indexer_fwd(q, kv, weights, cu_seqlen_ks, cu_seqlen_ke):
    S, _, H, D, T = _check_indexer("indexer_fwd", q, kv, weights, cu_seqlen_ks,
                                   cu_seqlen_ke, False, True)
    logits = torch.empty((S, T), dtype=_f32, device=q.device)
    if S and T:
        device = q.get_device()
        status = _lib.lib().minitile_torch_indexer_fwd(
            H, D, S, T, q.data_ptr(), kv.data_ptr(), weights.data_ptr(),
            cu_seqlen_ks.data_ptr(), cu_seqlen_ke.data_ptr(), logits.data_ptr(),
            _raw_stream(device), device)
        if status:
            _lib.raise_for(status, "indexer_fwd")
    return logits


def _batched_indexer_fwd(q, kv, weights, cu_seqlen_ks, cu_seqlen_ke):
    S, B, H, D, T = _check_indexer("batched_indexer_fwd", q, kv, weights, cu_seqlen_ks,
                                   cu_seqlen_ke, True, True)
    logits = torch.empty((B, S, T), dtype=_f32, device=q.device)
    if S and T and B:
        device = q.get_device()
        status = _lib.lib().minitile_torch_batched_indexer_fwd(
            H, D, S, T, B, q.data_ptr(), kv.data_ptr(), weights.data_ptr(),
            cu_seqlen_ks.data_ptr(), cu_seqlen_ke.data_ptr(), logits.data_ptr(),
            _raw_stream(device), device)
        if status:
            _lib.raise_for(status, "batched_indexer_fwd")
    return logits


def _clean_logits(logits, cu_seqlen_ks, cu_seqlen_ke):
    op = "clean_logits"
    S, T = _tensor(op, "logits", logits, _f32, ["S", "S_kv"])
    _check_windows(op, cu_seqlen_ks, cu_seqlen_ke, S)
    _same_device(op, ("logits", logits), (("cu_seqlen_ks", cu_seqlen_ks),
                                          ("cu_seqlen_ke", cu_seqlen_ke)), True)
    if S and T:
        device = logits.get_device()
        status = _lib.lib().minitile_torch_clean_logits(
            S, T, logits.data_ptr(), cu_seqlen_ks.data_ptr(), cu_seqlen_ke.data_ptr(),
            _raw_stream(device), device)
        if status:
            _lib.raise_for(status, op)


def _topk(logits, k, cu_seqlen_ks=None, cu_seqlen_ke=None, sorted=False):
    B, S, T = _check_topk("topk", logits, k, cu_seqlen_ks, cu_seqlen_ke, sorted, True)
    shape = (B, S, k) if logits.dim() == 3 else (S, k)
    device = logits.device
    if T == 0:  # no entries: every place is padding
        return (torch.full(shape, float("-inf"), dtype=_f32, device=device),
                torch.full(shape, -1, dtype=_i32, device=device))
    values = torch.empty(shape, dtype=_f32, device=device)
    indices = torch.empty(shape, dtype=_i32, device=device)
    if S and k and (B or logits.dim() == 2):
        index = logits.get_device()
        windows = cu_seqlen_ks is not None
        status = _lib.lib().minitile_torch_topk(
            B, S, T, k, logits.data_ptr(),
            cu_seqlen_ks.data_ptr() if windows else None,
            cu_seqlen_ke.data_ptr() if windows else None,
            values.data_ptr(), indices.data_ptr(), int(sorted), _raw_stream(index), index)
        if status:
            _lib.raise_for(status, "topk")
    return values, indices


def _indexer_bwd(q, weights, kv, topk_indices, grad_scores):
    B, S, H, D, T, K = _check_bwd("indexer_bwd", q, weights, kv, topk_indices, grad_scores,
                                  True)
    grad_q = torch.empty_like(q)
    grad_weights = torch.empty(weights.shape, dtype=_f32, device=q.device)
    grad_kv = torch.zeros(kv.shape, dtype=_f32, device=q.device)  # the kernel adds into it
    # Nothing selected (no queries, slots or kv rows): zero gradients, no launch.
    if S and K and T and (B or q.dim() == 3):
        device = q.get_device()
        status = _lib.lib().minitile_torch_indexer_bwd(
            H, D, B, S, T, K, q.data_ptr(), kv.data_ptr(), weights.data_ptr(),
            topk_indices.data_ptr(), grad_scores.data_ptr(), grad_q.data_ptr(),
            grad_weights.data_ptr(), grad_kv.data_ptr(), _raw_stream(device), device)
        if status:
            _lib.raise_for(status, "indexer_bwd")
    else:
        grad_q.zero_()
        grad_weights.zero_()
    return grad_q, grad_weights, grad_kv


# --- fake (meta) implementations: exact shapes and dtypes ----------------------

def _indexer_bwd_fake(q, weights, kv, topk_indices, grad_scores):
    _check_bwd("indexer_bwd", q, weights, kv, topk_indices, grad_scores, False)
    return (q.new_empty(q.shape), q.new_empty(weights.shape, dtype=_f32),
            q.new_empty(kv.shape, dtype=_f32))



def _indexer_fwd_fake(q, kv, weights, cu_seqlen_ks, cu_seqlen_ke):
    S, _, _, _, T = _check_indexer("indexer_fwd", q, kv, weights, cu_seqlen_ks,
                                   cu_seqlen_ke, False, False)
    return q.new_empty((S, T), dtype=_f32)


def _batched_indexer_fwd_fake(q, kv, weights, cu_seqlen_ks, cu_seqlen_ke):
    S, B, _, _, T = _check_indexer("batched_indexer_fwd", q, kv, weights, cu_seqlen_ks,
                                   cu_seqlen_ke, True, False)
    return q.new_empty((B, S, T), dtype=_f32)


def _clean_logits_fake(logits, cu_seqlen_ks, cu_seqlen_ke):
    op = "clean_logits"
    S, _ = _tensor(op, "logits", logits, _f32, ["S", "S_kv"])
    _check_windows(op, cu_seqlen_ks, cu_seqlen_ke, S)
    _same_device(op, ("logits", logits), (("cu_seqlen_ks", cu_seqlen_ks),
                                          ("cu_seqlen_ke", cu_seqlen_ke)), False)


def _topk_fake(logits, k, cu_seqlen_ks=None, cu_seqlen_ke=None, sorted=False):
    B, S, _ = _check_topk("topk", logits, k, cu_seqlen_ks, cu_seqlen_ke, sorted, False)
    shape = (B, S, k) if logits.dim() == 3 else (S, k)
    return logits.new_empty(shape, dtype=_f32), logits.new_empty(shape, dtype=_i32)


_IMPLS = {
    "indexer_fwd": (_indexer_fwd, _indexer_fwd_fake),
    "batched_indexer_fwd": (_batched_indexer_fwd, _batched_indexer_fwd_fake),
    "clean_logits": (_clean_logits, _clean_logits_fake),
    "topk": (_topk, _topk_fake),
    "indexer_bwd": (_indexer_bwd, _indexer_bwd_fake),
}


def _register():
    library = torch.library.Library(NAMESPACE, "DEF")
    for name, schema in SCHEMAS.items():
        real, fake = _IMPLS[name]
        library.define(schema)
        library.impl(name, real, "CUDA")
        library.impl(name, real, "CPU")  # refuses CPU tensors, naming the argument
        torch.library.register_fake(f"{NAMESPACE}::{name}", fake, lib=library)
    return library


_LIBRARY = _register()

indexer_fwd = torch.ops.minitile.indexer_fwd.default
batched_indexer_fwd = torch.ops.minitile.batched_indexer_fwd.default
clean_logits = torch.ops.minitile.clean_logits.default
topk = torch.ops.minitile.topk.default
indexer_bwd = torch.ops.minitile.indexer_bwd.default
