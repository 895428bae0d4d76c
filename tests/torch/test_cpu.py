"""minitile.torch without a GPU: schemas, fake (meta) implementations under
torch.compile, argument errors, the library's C ABI, and the PyTorch
references (the backward the autograd functions run among them).

Run by ctest (-DMINITILE_TORCH=ON) with build/python on PYTHONPATH:
    PYTHONPATH=build/python python -m pytest -q tests/torch/test_cpu.py
"""
import ctypes

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import minitile.torch as mt
from minitile.torch import _lib, ops, reference

bf16, f32, i32 = torch.bfloat16, torch.float32, torch.int32


def indexer_args(S=100, H=64, D=128, T=25, device="meta", B=None):
    q_shape = (S, H, D) if B is None else (S, B, H, D)
    kv_shape = (T, D) if B is None else (T, B, D)
    w_shape = (S, H) if B is None else (S, B, H)
    return (torch.zeros(q_shape, dtype=bf16, device=device),
            torch.zeros(kv_shape, dtype=bf16, device=device),
            torch.zeros(w_shape, dtype=f32, device=device),
            torch.zeros(S, dtype=i32, device=device),
            torch.zeros(S, dtype=i32, device=device))


# --- schemas -------------------------------------------------------------------

def test_schemas():
    want = {
        "indexer_fwd": "minitile::indexer_fwd(Tensor q, Tensor kv, Tensor weights, "
                       "Tensor cu_seqlen_ks, Tensor cu_seqlen_ke) -> Tensor",
        "batched_indexer_fwd": "minitile::batched_indexer_fwd(Tensor q, Tensor kv, "
                               "Tensor weights, Tensor cu_seqlen_ks, Tensor cu_seqlen_ke) "
                               "-> Tensor",
        "clean_logits": "minitile::clean_logits(Tensor(a!) logits, Tensor cu_seqlen_ks, "
                        "Tensor cu_seqlen_ke) -> ()",
        "topk": "minitile::topk(Tensor logits, int k, Tensor? cu_seqlen_ks=None, "
                "Tensor? cu_seqlen_ke=None, bool sorted=False) -> (Tensor values, "
                "Tensor indices)",
        "indexer_bwd": "minitile::indexer_bwd(Tensor q, Tensor weights, Tensor kv, "
                       "Tensor topk_indices, Tensor grad_scores) -> (Tensor grad_q, "
                       "Tensor grad_weights, Tensor grad_kv)",
    }
    for name, schema in want.items():
        assert str(getattr(torch.ops.minitile, name).default._schema) == schema


def test_only_clean_logits_mutates():
    for name in ops.SCHEMAS:
        schema = getattr(torch.ops.minitile, name).default._schema
        mutated = [a.name for a in schema.arguments if a.alias_info and a.alias_info.is_write]
        assert mutated == (["logits"] if name == "clean_logits" else [])


# --- fake implementations: exact shapes and dtypes -----------------------------

@pytest.mark.parametrize("mode", ["fake-cuda", "meta"])
def test_fake_shapes(mode):
    def run(device):
        q, kv, w, ks, ke = indexer_args(S=100, H=32, D=64, T=25, device=device)
        logits = mt.indexer_fwd(q, kv, w, ks, ke)
        assert logits.shape == (100, 25) and logits.dtype is f32
        assert logits.device == q.device
        assert mt.clean_logits(logits, ks, ke) is None
        for k in (0, 7, 40):
            for windows in (False, True):
                values, indices = mt.topk(logits, k, ks if windows else None,
                                          ke if windows else None, k <= 2048)
                assert values.shape == (100, k) and values.dtype is f32
                assert indices.shape == (100, k) and indices.dtype is i32
        qb, kvb, wb, ks, ke = indexer_args(S=50, H=64, D=128, T=13, device=device, B=3)
        logits = mt.ops.batched_indexer_fwd(qb, kvb, wb, ks, ke)
        assert logits.shape == (3, 50, 13) and logits.dtype is f32
        values, indices = mt.topk(logits, 5, ks, ke)
        assert values.shape == indices.shape == (3, 50, 5) and indices.dtype is i32
        # The seed's functions.
        assert mt.indexer_fwd_interface(*indexer_args(S=9, T=4, device=device)).shape == (9, 4)
        assert mt.batched_indexer_fwd(qb, kvb, wb, ks, ke).shape == (3, 50, 13)
        # The backward, single and batched.
        q, kv, w, _, _ = indexer_args(S=30, H=64, D=128, T=11, device=device)
        idx = torch.zeros((30, 70), dtype=i32, device=device)
        g = torch.zeros((30, 70), dtype=f32, device=device)
        gq, gw, gk = mt.ops.indexer_bwd(q, w, kv, idx, g)
        assert gq.shape == q.shape and gq.dtype is bf16
        assert gw.shape == w.shape and gw.dtype is f32
        assert gk.shape == kv.shape and gk.dtype is f32
        idx = torch.zeros((3, 50, 9), dtype=i32, device=device)
        g = torch.zeros((3, 50, 9), dtype=f32, device=device)
        gq, gw, gk = mt.ops.indexer_bwd(qb, wb, kvb, idx, g)
        assert gq.shape == qb.shape and gw.shape == wb.shape and gk.shape == kvb.shape
        assert gk.dtype is f32
        # Empty sizes.
        assert mt.indexer_fwd(*indexer_args(S=0, T=4, device=device)).shape == (0, 4)
        assert mt.indexer_fwd(*indexer_args(S=3, T=0, device=device)).shape == (3, 0)

    if mode == "meta":
        run("meta")
    else:
        with FakeTensorMode():
            run("cuda")


def test_seed_functions_take_what_the_seed_takes():
    # Non-contiguous views, bf16 weights and int64 windows are converted, as
    # the seed's module converts them; the ops alone refuse them.
    with FakeTensorMode():
        q = torch.zeros(64, 20, 128, dtype=bf16, device="cuda").transpose(0, 1)
        kv = torch.zeros(7, 128, dtype=bf16, device="cuda")
        w = torch.zeros(20, 64, dtype=bf16, device="cuda")
        ks = torch.zeros(20, dtype=torch.int64, device="cuda")
        logits = mt.indexer_fwd_interface(q, kv, w, ks, ks, clean_logits=False)
        assert logits.shape == (20, 7) and logits.dtype is f32
        with pytest.raises(ValueError, match="q must be contiguous"):
            mt.indexer_fwd(q, kv, w.float(), ks.int(), ks.int())


# --- torch.compile -------------------------------------------------------------

def _all_ops(q, kv, w, ks, ke, qb, kvb, wb):
    logits = mt.indexer_fwd_interface(q, kv, w, ks, ke)
    mt.clean_logits(logits, ks, ke)
    values, indices = mt.topk(logits, 8, ks, ke, True)
    batched = mt.batched_indexer_fwd(qb, kvb, wb, ks, ke)
    bv, bi = mt.topk(batched, 4)
    return values * 2, indices, logits.amax(-1), bv.sum(-1), bi


@pytest.mark.parametrize("dynamic", [False, True])
def test_compile_fullgraph(dynamic):
    torch._dynamo.reset()
    q, kv, w, ks, ke = indexer_args(S=100, H=64, D=128, T=25)
    qb, kvb, wb, _, _ = indexer_args(S=100, H=64, D=128, T=25, B=2)
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    compiled = torch.compile(_all_ops, fullgraph=True, backend=backend, dynamic=dynamic)
    values, indices, amax, bv, bi = compiled(q, kv, w, ks, ke, qb, kvb, wb)
    assert len(graphs) == 1
    targets = {str(n.target) for n in graphs[0].graph.nodes if n.op == "call_function"}
    for name in ("indexer_fwd", "clean_logits", "topk", "batched_indexer_fwd"):
        assert f"minitile.{name}.default" in targets, targets
    assert values.shape == indices.shape == (100, 8) and indices.dtype is i32
    assert bv.shape == (2, 100) and bi.shape == (2, 100, 4)
    explained = torch._dynamo.explain(_all_ops)(q, kv, w, ks, ke, qb, kvb, wb)
    assert explained.graph_break_count == 0


def test_compile_aot_functionalizes_clean_logits():
    # aot_eager functionalizes the graph: the in-place clean_logits must come
    # through with the right shapes.
    torch._dynamo.reset()
    compiled = torch.compile(_all_ops, fullgraph=True, backend="aot_eager")
    q, kv, w, ks, ke = indexer_args(S=64, H=32, D=128, T=16)
    qb, kvb, wb, _, _ = indexer_args(S=64, H=32, D=128, T=16, B=3)
    values, indices, amax, bv, bi = compiled(q, kv, w, ks, ke, qb, kvb, wb)
    assert amax.shape == (64,) and bi.shape == (3, 64, 4)


def test_compile_training_step():
    # The autograd function traces with its (reference) backward.
    torch._dynamo.reset()
    q, kv, w, ks, ke = indexer_args(S=64, H=64, D=128, T=16)
    q.requires_grad_()
    kv.requires_grad_()
    w.requires_grad_()
    g = torch.zeros(64, 8, device="meta")

    def step(q, kv, w, ks, ke, g):
        scores, indices = mt.lighting_indexer(q, kv, w, ks, ke, 8)
        return (torch.where(indices >= 0, scores, 0.0) * g).sum(), indices

    loss, indices = torch.compile(step, fullgraph=True, backend="aot_eager")(q, kv, w, ks, ke, g)
    loss.backward()
    assert q.grad.shape == q.shape and q.grad.dtype is bf16
    assert kv.grad.shape == kv.shape and kv.grad.dtype is bf16
    assert w.grad.shape == w.shape and w.grad.dtype is f32
    assert indices.shape == (64, 8) and indices.dtype is i32


# --- argument errors: each names the argument -----------------------------------

def _raises(kind, pattern, fn, *args):
    with pytest.raises(kind, match=pattern):
        fn(*args)


@pytest.mark.parametrize("device", ["meta", "cpu"])
def test_indexer_errors(device):
    q, kv, w, ks, ke = indexer_args(S=10, H=64, D=128, T=5, device=device)
    f = mt.indexer_fwd
    _raises(TypeError, "q must be torch.bfloat16, got torch.float32", f, q.float(), kv, w, ks, ke)
    _raises(TypeError, "kv must be torch.bfloat16", f, q, kv.half(), w, ks, ke)
    _raises(TypeError, "weights must be torch.float32, got torch.bfloat16", f, q, kv, w.to(bf16),
            ks, ke)
    _raises(TypeError, "cu_seqlen_ks must be torch.int32, got torch.int64", f, q, kv, w,
            ks.long(), ke)
    _raises(TypeError, "cu_seqlen_ke must be torch.int32", f, q, kv, w, ks, ke.float())
    _raises(ValueError, r"q must have 3 dimensions \['S', 'H', 'D'\], got shape \[10, 8192\]",
            f, q.reshape(10, -1), kv, w, ks, ke)
    _raises(ValueError, "kv must be contiguous", f, q, kv.t().contiguous().t(), w, ks, ke)
    _raises(ValueError, r"kv must have shape \[128\]", f, q, kv[:, :64].contiguous(), w, ks, ke)
    _raises(ValueError, r"weights must have shape \[10, 64\]", f, q, kv, w[:9].contiguous(), ks,
            ke)
    _raises(ValueError, r"cu_seqlen_ks must have shape \[10\]", f, q, kv, w, ks[:3], ke)
    _raises(ValueError, r"cu_seqlen_ke must have shape \[10\]", f, q, kv, w, ks,
            torch.zeros(11, dtype=i32, device=device))
    if device == "cpu":
        _raises(ValueError, "q must be a CUDA tensor, got one on cpu", f, q, kv, w, ks, ke)
    else:
        _raises(ValueError, "weights must be on meta with q, got cpu", f, q, kv,
                torch.zeros(10, 64), ks, ke)


def test_batched_errors():
    q, kv, w, ks, ke = indexer_args(S=10, H=64, D=128, T=5, B=2)
    f = mt.ops.batched_indexer_fwd
    _raises(ValueError, r"q must have 4 dimensions \['S', 'B', 'H', 'D'\]", f, q[:, 0], kv, w,
            ks, ke)
    _raises(ValueError, r"kv must have shape \[2, 128\]", f, q,
            torch.zeros(5, 3, 128, dtype=bf16, device="meta"), w, ks, ke)
    _raises(ValueError, r"weights must have shape \[10, 2, 64\]", f, q, kv,
            torch.zeros(10, 2, 32, device="meta"), ks, ke)


def test_topk_and_clean_errors():
    logits = torch.zeros(10, 20, device="meta")
    ks = torch.zeros(10, dtype=i32, device="meta")
    _raises(TypeError, "logits must be torch.float32, got torch.float16", mt.topk,
            logits.half(), 4)
    _raises(ValueError, r"logits must have 2 dimensions", mt.topk, logits[0], 4)
    _raises(ValueError, "k must be at least 0, got -1", mt.topk, logits, -1)
    _raises(ValueError, "sorted=True takes k up to 2048, got k=4096", mt.topk, logits, 4096,
            None, None, True)
    _raises(ValueError, "give both cu_seqlen_ks and cu_seqlen_ke", mt.topk, logits, 4, ks)
    _raises(ValueError, "logits must be contiguous", mt.topk, logits.t(), 4)
    _raises(ValueError, r"cu_seqlen_ks must have shape \[10\]", mt.topk, logits, 4, ks[:5],
            ks[:5])
    _raises(ValueError, "logits must be contiguous", mt.clean_logits, logits.t(), ks, ks)
    _raises(TypeError, "cu_seqlen_ke must be torch.int32", mt.clean_logits, logits, ks,
            ks.long())
    _raises(ValueError, "logits must be a CUDA tensor", mt.topk, torch.zeros(3, 4), 2)
    _raises(ValueError, "logits must be a CUDA tensor", mt.clean_logits, torch.zeros(3, 4),
            torch.zeros(3, dtype=i32), torch.zeros(3, dtype=i32))


# --- the library ---------------------------------------------------------------

def test_indexer_bwd_errors():
    q, kv, w, _, _ = indexer_args(S=8, H=64, D=128, T=5, device="cpu")
    idx = torch.zeros((8, 3), dtype=i32)
    g = torch.zeros((8, 3), dtype=f32)
    op = mt.ops.indexer_bwd
    with pytest.raises(ValueError, match="q must be a CUDA tensor"):
        op(q, w, kv, idx, g)
    with FakeTensorMode():
        q, kv, w, _, _ = indexer_args(S=8, H=64, D=128, T=5, device="cuda")
        idx = torch.zeros((8, 3), dtype=i32, device="cuda")
        g = torch.zeros((8, 3), dtype=f32, device="cuda")
        with pytest.raises(TypeError, match="topk_indices must be torch.int32"):
            op(q, w, kv, idx.long(), g)
        with pytest.raises(ValueError, match=r"grad_scores must have shape \[8, 3\]"):
            op(q, w, kv, idx, g[:, :2].contiguous())
        with pytest.raises(ValueError, match=r"topk_indices must have shape \[8\]"):
            op(q, w, kv, idx[:4], g)
        with pytest.raises(ValueError, match="kv must have shape"):
            op(q, w, kv[:, :64].contiguous(), idx, g)
        with pytest.raises(ValueError, match="weights must have shape"):
            op(q, w[:, :32].contiguous(), kv, idx, g)


def test_library_loads_and_reports_without_a_gpu():
    lib = _lib.lib()
    assert lib.minitile_torch_abi_version() == 2
    shapes = mt.built_shapes()
    assert (64, 128) in shapes, shapes
    assert (64, 128) in _lib.built_bwd_shapes() and (32, 128) in _lib.built_bwd_shapes()
    # A launch with no driver: a status and a message, not a crash.
    status = lib.minitile_torch_clean_logits(4, 4, None, None, None, None, 0)
    assert status != 0
    message = lib.minitile_torch_last_error().decode()
    assert message, "no message for a failed call"
    # A pair the build lacks: named, with what it has.
    status = lib.minitile_torch_indexer_fwd(48, 96, 1, 1, *([None] * 7), 0)
    assert status == 3
    assert "heads=48, dim=96" in lib.minitile_torch_last_error().decode()
    with pytest.raises(ValueError, match="minitile.indexer_fwd: .*heads=48, dim=96"):
        _lib.raise_for(status, "indexer_fwd")


# --- the references ------------------------------------------------------------

def test_reference_topk_semantics():
    inf = float("inf")
    logits = torch.tensor([[1.0, 3.0, 3.0, -inf, float("nan"), 2.0],
                           [-inf, -inf, 5.0, -inf, -inf, -inf]])
    values, indices = reference.topk(logits, 4)
    assert indices.tolist() == [[1, 2, 5, 0], [2, -1, -1, -1]]
    assert values[1, 1:].tolist() == [-inf] * 3
    # Windows: only [ks, ke) counts, clamped; an empty one gives -1 throughout.
    ks = torch.tensor([2, 4], dtype=i32)
    ke = torch.tensor([100, 4], dtype=i32)
    values, indices = reference.topk(logits, 3, ks, ke)
    assert indices.tolist() == [[2, 5, -1], [-1, -1, -1]]
    # k past the row.
    assert reference.topk(logits, 8)[1].shape == (2, 8)


def test_reference_backward_matches_autograd():
    # reference.indexer_bwd (what IndexerFunction's backward runs) against
    # torch autograd through the reference forward's gathered scores.
    torch.manual_seed(0)
    S, H, D, T, K = 37, 8, 16, 29, 6
    q = torch.randn(S, H, D).to(bf16)
    kv = torch.randn(T, D).to(bf16)
    w = torch.randn(S, H)
    idx = torch.randint(-1, T, (S, K), dtype=i32)
    idx[0] = -1                       # a row with nothing selected
    idx[1, :3] = 5                    # an index repeated within a row
    g = torch.randn(S, K)

    qd = q.double().requires_grad_()
    kvd = kv.double().requires_grad_()
    wd = w.double().requires_grad_()
    scores = torch.einsum("shd,td->sht", qd, kvd).relu()
    logits = torch.einsum("sht,sh->st", scores, wd)
    picked = torch.gather(logits, 1, idx.clamp(min=0).long())
    (torch.where(idx >= 0, picked, 0.0) * g.double()).sum().backward()

    gq, gw, gk = mt.indexer_bwd_interface(q, w, kv, idx, g)
    assert gq.dtype is bf16 and gw.dtype is f32 and gk.dtype is f32
    torch.testing.assert_close(gq.double(), qd.grad, rtol=1e-2, atol=1e-2)
    torch.testing.assert_close(gw.double(), wd.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(gk.double(), kvd.grad, rtol=1e-4, atol=1e-4)

    # The batched form: each batch element as the single one.
    B = 2
    qb = torch.randn(S, B, H, D).to(bf16)
    kb = torch.randn(T, B, D).to(bf16)
    wb = torch.randn(S, B, H)
    ib = torch.randint(-1, T, (B, S, K), dtype=i32)
    gb = torch.randn(B, S, K)
    bq, bw, bk = mt.batched_indexer_bwd(qb, wb, kb, ib, gb)
    for b in range(B):
        sq, sw, sk = mt.indexer_bwd_interface(qb[:, b], wb[:, b], kb[:, b], ib[b], gb[b])
        assert torch.equal(bq[:, b], sq) and torch.equal(bw[:, b], sw)
        torch.testing.assert_close(bk[:, b], sk)


def test_reference_forward_windows():
    torch.manual_seed(1)
    q = torch.randn(6, 4, 8).to(bf16)
    kv = torch.randn(5, 8).to(bf16)
    w = torch.randn(6, 4)
    ks = torch.tensor([0, 2, -3, 4, 3, 0], dtype=i32)
    ke = torch.tensor([5, 4, 2, 9, 3, 0], dtype=i32)
    logits = reference.indexer_fwd(q, kv, w, ks, ke)
    for s in range(6):
        for t in range(5):
            inside = ks[s] <= t < ke[s]
            want = float((torch.einsum("hd,d->h", q[s].double(), kv[t].double()).relu()
                          * w[s].double()).sum()) if inside else float("-inf")
            assert logits[s, t].item() == pytest.approx(want, rel=1e-6, abs=1e-6)


# --- the C ABI through the launchers, on the fake CUDA driver ---------------------

_FAKE_DRIVER_SCRIPT = r"""
import ctypes, sys
from minitile.torch import _lib
cuda = ctypes.CDLL("libcuda.so.1")  # tests/tune/FakeCuda.cpp: host memory, nothing runs
def alloc(nbytes):
    p = ctypes.c_uint64()
    assert cuda.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(nbytes)) == 0
    return p.value
lib = _lib.lib()
def call(f, *args):
    status = getattr(lib, "minitile_torch_" + f)(*args)
    return status, lib.minitile_torch_last_error().decode()
B, S, T, k = 3, 100, 25, 8
for H, D in _lib.built_shapes():
    q, kv = alloc(B * S * H * D * 2), alloc(B * T * D * 2)
    w, ks, ke, out = alloc(B * S * H * 4), alloc(S * 4), alloc(S * 4), alloc(B * S * T * 4)
    assert call("indexer_fwd", H, D, S, T, q, kv, w, ks, ke, out, None, 0)[0] == 0
    assert call("batched_indexer_fwd", H, D, S, T, B, q, kv, w, ks, ke, out, None, 0)[0] == 0
    # A base the tensor-memory accelerator cannot take: refused, naming q.
    status, message = call("indexer_fwd", H, D, S, T, q + 2, kv, w, ks, ke, out, None, 0)
    assert status == 1 and ": q" in message and "aligned" in message, (status, message)
    # Host memory: refused, naming the tensor.
    host = ctypes.create_string_buffer(S * 4)
    status, message = call("indexer_fwd", H, D, S, T, q, kv, w, ctypes.addressof(host), ke,
                           out, None, 0)
    assert status == 1 and "ks" in message, message
for H, D in _lib.built_bwd_shapes():
    q, kv, w = alloc(B * S * H * D * 2), alloc(B * T * D * 2), alloc(B * S * H * 4)
    idx, g = alloc(B * S * k * 4), alloc(B * S * k * 4)
    dq, dw, dkv = alloc(B * S * H * D * 2), alloc(B * S * H * 4), alloc(B * T * D * 4)
    for batch in (0, B):
        status, message = call("indexer_bwd", H, D, batch, S, T, k, q, kv, w, idx, g, dq, dw,
                               dkv, None, 0)
        assert status == 0, message
status, message = call("indexer_bwd", 48, 128, 0, S, T, k, q, kv, w, idx, g, dq, dw, dkv,
                       None, 0)
assert status == 3 and "heads=48" in message and "32 or 64 heads" in message, (status, message)
values, indices = alloc(B * S * k * 4), alloc(B * S * k * 4)
assert call("clean_logits", S, T, out, ks, ke, None, 0)[0] == 0
for batch in (0, B):
    for windows in (False, True):
        for sorted_ in (0, 1):
            status, message = call("topk", batch, S, T, k, out, ks if windows else None,
                                   ke if windows else None, values, indices, sorted_, None, 0)
            assert status == 0, message
# (Outputs that hold k = 4096, so that the allocation check passes them and
# the kernel's own bound on k is what refuses.)
values, indices = alloc(S * 4096 * 4), alloc(S * 4096 * 4)
status, message = call("topk", 0, S, T, 4096, out, None, None, values, indices, 1, None, 0)
assert status == 1 and "max_k" in message, message
print("fake driver: every entry point launched")
"""


def test_abi_on_the_fake_driver():
    # The C functions through the generated launchers -- argument order,
    # the launchers' checks, one launch each -- on tests/tune/FakeCuda.cpp's
    # driver, which ctest names in MINITILE_FAKE_CUDA_DIR.
    import os
    import subprocess
    import sys
    fake = os.environ.get("MINITILE_FAKE_CUDA_DIR")
    if not fake:
        pytest.skip("MINITILE_FAKE_CUDA_DIR (the fake libcuda.so.1's folder) is not set")
    env = dict(os.environ, LD_LIBRARY_PATH=fake, FAKE_CUDA_LOG="1")
    done = subprocess.run([sys.executable, "-c", _FAKE_DRIVER_SCRIPT], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "every entry point launched" in done.stdout
    launches = done.stderr.count("fake cuda: launch")
    # Per (H, D): indexer_fwd and batched once each; per backward pair its
    # single and batched kernels; then clean and 8 topk.
    assert launches == 2 * len(_lib.built_shapes()) + 2 * len(_lib.built_bwd_shapes()) + 1 + 8, \
        done.stderr
