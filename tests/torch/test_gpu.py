"""minitile.torch on a GPU: every op against a PyTorch reference (fp64),
the autograd step against torch autograd of the reference, torch.compile,
CUDA graphs and streams, and a two-rank context-parallel split of one
sequence's rows run as two calls on one GPU.

    PYTHONPATH=build/python python3 tests/torch/test_gpu.py     # or: python3 -m pytest -q ...

Runs each test_* function; without pytest, its own runner prints a line per
test and 'N passed, N failed, N skipped'. Without a GPU it exits 77 (skipped).
"""
import math
import sys
import traceback
import warnings

import torch

import minitile.torch as mt
from minitile.torch import reference

try:
    import pytest

    def skip(why):
        pytest.skip(why)
except ImportError:  # the device may lack pytest: the runner at the bottom
    pytest = None

    class Skipped(Exception):
        pass

    def skip(why):
        raise Skipped(why)

bf16, f32, i32 = torch.bfloat16, torch.float32, torch.int32
dev = "cuda"


def need_gpu():
    if not torch.cuda.is_available():
        skip("no GPU: torch.cuda.is_available() is False")


def causal(S, T, ratio):
    return mt.make_causal_cu_seqlens(S, T, ratio, dev)


def arbitrary_windows(S, T, gen):
    """Windows of every kind: empty (ke <= ks), negative starts, ends past
    S_kv, full, single entries."""
    ks = torch.randint(-T // 4 - 1, T + 2, (S,), generator=gen)
    ke = ks + torch.randint(-3, T + 3, (S,), generator=gen)
    ks[0], ke[0] = 0, T          # the whole row
    ks[1 % S], ke[1 % S] = 5, 5  # empty
    ks[2 % S], ke[2 % S] = -7, 1 # one entry, start clamped
    return ks.to(i32).to(dev), ke.to(i32).to(dev)


def inputs(S, H, D, T, gen, B=None):
    """q, kv ~ N(0, 1) in bf16; weights ~ N(0, 1) / sqrt(H D), as the models'."""
    qs = (S, H, D) if B is None else (S, B, H, D)
    ks = (T, D) if B is None else (T, B, D)
    ws = (S, H) if B is None else (S, B, H)
    q = torch.randn(qs, generator=gen).to(bf16).to(dev)
    kv = torch.randn(ks, generator=gen).to(bf16).to(dev)
    w = (torch.randn(ws, generator=gen) / math.sqrt(H * D)).to(dev)
    return q, kv, w


def poison_allocator(numel):
    """Leaves a freed block of NaN behind, which torch's caching allocator
    hands to the next allocation of about that size: an entry a kernel
    leaves unwritten then reads NaN."""
    x = torch.full((numel,), float("nan"), device=dev)
    del x


def assert_logits_close(got, want, what):
    """Same -inf places; finite entries within fp32 accumulation of bf16
    products (relative to the row's scale)."""
    assert got.shape == want.shape, (what, got.shape, want.shape)
    assert not torch.isnan(got).any(), f"{what}: NaN (an entry left unwritten?)"
    inf_g, inf_w = torch.isneginf(got), torch.isneginf(want)
    assert torch.equal(inf_g, inf_w), f"{what}: -inf outside the windows differs " \
        f"({(inf_g != inf_w).sum().item()} entries)"
    fin = ~inf_w
    if fin.any():
        err = (got[fin].double() - want[fin].double()).abs().max().item()
        scale = want[fin].double().abs().max().item()
        assert err <= 1e-4 * scale + 1e-5, f"{what}: max error {err:.3g} at scale {scale:.3g}"


def built():
    return mt.built_shapes()


# --- indexer_fwd ---------------------------------------------------------------

def test_indexer_fwd_against_reference():
    need_gpu()
    gen = torch.Generator().manual_seed(1)
    for H, D in built():
        for S, T, windows in [(1, 1, "causal"), (7, 3, "arbitrary"), (130, 61, "arbitrary"),
                              (513, 129, "causal"), (1000, 1000, "causal1"),
                              (2049, 700, "arbitrary")]:
            q, kv, w = inputs(S, H, D, T, gen)
            if windows == "causal":
                ks, ke = causal(S, T, 4)
            elif windows == "causal1":
                ks, ke = causal(S, T, 1)
            else:
                ks, ke = arbitrary_windows(S, T, gen)
            poison_allocator(S * T)
            got = mt.indexer_fwd(q, kv, w, ks, ke)
            want = reference.indexer_fwd(q, kv, w, ks, ke)
            assert_logits_close(got, want, f"indexer_fwd H={H} D={D} S={S} S_kv={T} {windows}")
            # The seed's function: the same, with or without clean_logits.
            for clean in (True, False):
                seed = mt.indexer_fwd_interface(q, kv, w, ks.long(), ke.long(), clean)
                assert torch.equal(seed, got)


def test_indexer_fwd_tuned_shapes():
    # The shapes the tune table has lines for (each runs its own kernel).
    need_gpu()
    if (64, 128) not in built():
        skip("64x128 not built")
    gen = torch.Generator().manual_seed(2)
    for S, T, ratio in [(4096, 1024, 4), (4096, 4096, 1), (16384, 4096, 4)]:
        q, kv, w = inputs(S, 64, 128, T, gen)
        ks, ke = causal(S, T, ratio)
        poison_allocator(S * T)
        got = mt.indexer_fwd(q, kv, w, ks, ke)
        rows = torch.randperm(S, generator=gen)[:256].to(dev)
        want = reference.indexer_fwd(q[rows], kv, w[rows], ks[rows], ke[rows])
        assert_logits_close(got[rows], want, f"indexer_fwd S={S} S_kv={T}")
        assert not torch.isnan(got).any()


def test_batched_indexer_fwd_against_reference():
    need_gpu()
    gen = torch.Generator().manual_seed(3)
    for H, D in built():
        for B, S, T in [(1, 33, 17), (3, 300, 77), (2, 1024, 256)]:
            q, kv, w = inputs(S, H, D, T, gen, B=B)
            ks, ke = arbitrary_windows(S, T, gen) if S < 1000 else causal(S, T, 4)
            poison_allocator(B * S * T)
            got = mt.batched_indexer_fwd(q, kv, w, ks, ke)
            want = reference.batched_indexer_fwd(q, kv, w, ks, ke)
            assert_logits_close(got, want, f"batched H={H} D={D} B={B} S={S} S_kv={T}")
            # The op and the seed's function agree; so do B single launches.
            assert torch.equal(mt.ops.batched_indexer_fwd(q, kv, w, ks, ke), got)
            for b in range(B):
                single = mt.indexer_fwd(q[:, b].contiguous(), kv[:, b].contiguous(),
                                        w[:, b].contiguous(), ks, ke)
                assert_logits_close(got[b], single, f"batched vs single b={b}")


def test_empty_sizes():
    need_gpu()
    H, D = built()[0]
    gen = torch.Generator().manual_seed(4)
    for S, T in [(0, 5), (5, 0), (0, 0)]:
        q, kv, w = inputs(S, H, D, T, gen)
        ks = torch.zeros(S, dtype=i32, device=dev)
        assert mt.indexer_fwd(q, kv, w, ks, ks).shape == (S, T)
        values, indices = mt.topk(torch.zeros(S, T, device=dev), 3)
        assert values.shape == (S, 3) and (indices == -1).all()


# --- clean_logits --------------------------------------------------------------

def test_clean_logits_against_reference():
    need_gpu()
    gen = torch.Generator().manual_seed(5)
    for S, T in [(1, 1), (9, 100), (333, 1025), (4096, 1024)]:
        logits = torch.randn(S, T, generator=gen).to(dev)
        ks, ke = arbitrary_windows(S, T, gen)
        want = reference.clean_logits(logits, ks, ke)
        mt.clean_logits(logits, ks, ke)
        assert torch.equal(logits, want), f"clean_logits S={S} S_kv={T}"


# --- topk ----------------------------------------------------------------------

def topk_logits(shape, gen):
    """Logits with ties (values on a coarse grid), NaN and -inf entries, and
    rows with fewer entries > -inf than k."""
    x = (torch.randn(shape, generator=gen) * 4).round() / 4
    x[torch.rand(shape, generator=gen) < 0.05] = float("-inf")
    x[torch.rand(shape, generator=gen) < 0.01] = float("nan")
    rows = x.view(-1, shape[-1])
    rows[0] = float("-inf")
    rows[1 % rows.shape[0], 3:] = float("-inf")
    return x.to(dev)


def check_topk(values, indices, logits, k, ks, ke, sorted, what):
    want_v, want_i = reference.topk(logits, k, ks, ke)
    assert values.shape == want_v.shape and indices.dtype is i32, what
    if sorted:
        assert torch.equal(indices, want_i), f"{what}: indices differ from the reference"
        assert torch.equal(values, want_v), f"{what}: values differ"
    else:
        # Unsorted: the same set, and each index's value.
        si, _ = torch.sort(torch.where(indices < 0, logits.shape[-1], indices), dim=-1)
        wi, _ = torch.sort(torch.where(want_i < 0, logits.shape[-1], want_i), dim=-1)
        assert torch.equal(si, wi), f"{what}: the selected sets differ"
        picked = torch.gather(torch.nan_to_num(logits, nan=float("-inf"), neginf=float("-inf")),
                              -1, indices.clamp(min=0).long())
        assert torch.equal(torch.where(indices >= 0, picked, float("-inf")), values), \
            f"{what}: values are not the logits at the indices"


def test_topk_against_reference():
    need_gpu()
    gen = torch.Generator().manual_seed(6)
    for shape in [(5, 7), (64, 1000), (300, 4096), (50, 6000), (3, 40, 513)]:
        logits = topk_logits(shape, gen)
        S, T = shape[-2:]
        for windows in (False, True):
            ks, ke = arbitrary_windows(S, T, gen) if windows else (None, None)
            for k in (1, 8, 64, 600):
                for sorted in (False, True):
                    values, indices = mt.topk(logits, k, ks, ke, sorted)
                    check_topk(values, indices, logits, k, ks, ke, sorted,
                               f"topk {shape} k={k} windows={windows} sorted={sorted}")


def test_topk_as_the_seed_selects():
    # The seed's selection: torch.topk, then -1 where the value is -inf. On
    # logits without ties or NaN it selects the same set.
    need_gpu()
    gen = torch.Generator().manual_seed(7)
    S, T, k = 512, 2048, 512
    logits = torch.randn(S, T, generator=gen).to(dev)
    ks, ke = causal(S, T, 1)
    mt.clean_logits(logits, ks, ke)
    seed_v, seed_i = torch.topk(logits, k, dim=-1)
    seed_i = seed_i.to(i32).masked_fill(seed_v == float("-inf"), -1)
    values, indices = mt.topk(logits, k, None, None, True)
    assert torch.equal(indices, seed_i)
    assert torch.equal(values, seed_v)


def test_seed_unit_test_inputs():
    need_gpu()
    # The seed's test of its indexer's top-k: logits [[3, -inf, 1], [-inf x3]],
    # k = 2 -> [[0, 2], [-1, -1]].
    inf = float("inf")
    logits = torch.tensor([[3.0, -inf, 1.0], [-inf, -inf, -inf]], device=dev)
    for sorted in (True, False):
        values, indices = mt.topk(logits, 2, None, None, sorted)
        assert sorted_rows(indices).tolist() == [[0, 2], [-1, -1]]
    # Its packed (varlen) windows: sequences [0, 3) and [3, 5) of cu_seqlens
    # [0, 3, 5] -> starts [0, 0, 0, 3, 3], ends [1, 2, 3, 4, 5]; and the same
    # at scale, [0, 1000, 1500, 4096].
    gen = torch.Generator().manual_seed(8)
    for cu in ([0, 3, 5], [0, 1000, 1500, 4096]):
        S = cu[-1]
        starts = torch.cat([torch.full((b - a,), a) for a, b in zip(cu, cu[1:])]).to(i32).to(dev)
        ends = torch.arange(1, S + 1, dtype=i32, device=dev)
        for H, D in built():
            q, kv, w = inputs(S, H, D, S, gen)
            got = mt.indexer_fwd_interface(q, kv, w, starts, ends)
            assert_logits_close(got, reference.indexer_fwd(q, kv, w, starts, ends),
                                f"varlen {cu} H={H} D={D}")
            k = min(2048, S)
            values, indices = mt.topk(got, k, starts, ends, True)
            check_topk(values, indices, got, k, starts, ends, True, f"varlen topk {cu}")


def sorted_rows(indices):
    """Each row's indices ascending, -1s last."""
    big = torch.iinfo(i32).max
    s = torch.sort(torch.where(indices < 0, big, indices), dim=-1).values
    return torch.where(s == big, -1, s)


# --- errors on the device ----------------------------------------------------------

def test_errors_name_the_argument():
    need_gpu()
    H, D = built()[0]
    gen = torch.Generator().manual_seed(9)
    q, kv, w = inputs(64, H, D, 16, gen)
    ks, ke = causal(64, 16, 4)
    # Misaligned for the tensor-memory accelerator: a contiguous view one
    # element into its storage.
    flat = torch.empty(64 * H * D + 1, dtype=bf16, device=dev)
    q_off = flat[1:].view(64, H, D)
    q_off.copy_(q)
    try:
        mt.indexer_fwd(q_off, kv, w, ks, ke)
        raise AssertionError("a misaligned q was taken")
    except ValueError as e:
        assert "q" in str(e) and "align" in str(e), e
    # A (heads, dim) pair the build lacks.
    qh = torch.zeros(64, 24, D, dtype=bf16, device=dev)
    try:
        mt.indexer_fwd(qh, kv, torch.zeros(64, 24, device=dev), ks, ke)
        raise AssertionError("heads=24 was taken")
    except ValueError as e:
        assert "heads=24" in str(e), e
    # A CPU tensor among CUDA ones.
    try:
        mt.indexer_fwd(q, kv.cpu(), w, ks, ke)
        raise AssertionError("a CPU kv was taken")
    except ValueError as e:
        assert "kv must be on cuda" in str(e), e
    # The process still launches afterwards.
    torch.cuda.synchronize()
    assert_logits_close(mt.indexer_fwd(q, kv, w, ks, ke),
                        reference.indexer_fwd(q, kv, w, ks, ke), "after the errors")


# --- streams, graphs, devices ----------------------------------------------------

def test_runs_on_the_current_stream():
    need_gpu()
    H, D = built()[0]
    gen = torch.Generator().manual_seed(10)
    S, T = 2048, 512
    q, kv, w = inputs(S, H, D, T, gen)
    ks, ke = causal(S, T, 4)
    want = mt.indexer_fwd(q, kv, w, ks, ke)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        # Work on the side stream that the op must follow: q written there.
        torch.cuda._sleep(50_000_000)
        q2 = q * 1
        got = mt.indexer_fwd(q2, kv, w, ks, ke)
        values, indices = mt.topk(got, 64, ks, ke, True)
    side.synchronize()
    assert torch.equal(got, want)
    assert torch.equal(values, mt.topk(want, 64, ks, ke, True)[0])


def test_cuda_graph_capture():
    # A launch on any stream but the capturing one fails the capture: this
    # passes only if every launch goes to torch's current stream.
    need_gpu()
    H, D = built()[0]
    gen = torch.Generator().manual_seed(11)
    S, T = 1024, 256
    q, kv, w = inputs(S, H, D, T, gen)
    ks, ke = causal(S, T, 4)
    want = mt.indexer_fwd(q, kv, w, ks, ke)  # warm-up: modules loaded, counters made
    want_v, want_i = mt.topk(want, 32, ks, ke, True)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        logits = mt.indexer_fwd(q, kv, w, ks, ke)
        mt.clean_logits(logits, ks, ke)
        values, indices = mt.topk(logits, 32, ks, ke, True)
    for _ in range(3):
        logits.zero_()
        graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(logits, want)
    assert torch.equal(indices, want_i) and torch.equal(values, want_v)


def test_second_device():
    need_gpu()
    if torch.cuda.device_count() < 2:
        skip("one GPU")
    H, D = built()[0]
    gen = torch.Generator().manual_seed(12)
    q, kv, w = inputs(100, H, D, 30, gen)
    ks, ke = causal(100, 30, 4)
    want = mt.indexer_fwd(q, kv, w, ks, ke)
    got = mt.indexer_fwd(q.to("cuda:1"), kv.to("cuda:1"), w.to("cuda:1"), ks.to("cuda:1"),
                         ke.to("cuda:1"))
    assert got.device == torch.device("cuda:1")
    assert torch.equal(got.cpu(), want.cpu())


# --- autograd ------------------------------------------------------------------

def reference_step(q, kv, w, ks, ke, indices, g, batched=False):
    """Torch autograd of the fp64 reference: scores = logits at indices."""
    qd = q.detach().double().requires_grad_()
    kd = kv.detach().double().requires_grad_()
    wd = w.detach().double().requires_grad_()
    if batched:
        scores = torch.einsum("sbhd,tbd->bsht", qd, kd).relu()
        logits = torch.einsum("bsht,sbh->bst", scores, wd)
    else:
        scores = torch.einsum("shd,td->sht", qd, kd).relu()
        logits = torch.einsum("sht,sh->st", scores, wd)
    mask = reference.window_mask(logits.shape[-2], logits.shape[-1], ks, ke, logits.device)
    logits = logits.masked_fill(~mask, float("-inf"))
    picked = torch.gather(logits, -1, indices.clamp(min=0).long())
    valid = indices >= 0
    (torch.where(valid, picked, 0.0) * g.double()).sum().backward()
    return torch.where(valid, picked, float("-inf")), qd.grad, kd.grad, wd.grad


def check_grads(got, want, what):
    for name, a, b in zip(("q", "k", "weights"), got, want):
        # A gradient has its leaf's dtype: bf16 for q and k (rounded to 2^-9
        # of their magnitude), float32 for the weights.
        tol = (1e-2 if a.dtype is bf16 else 1e-4) * b.abs().max().item() + 1e-6
        a, b = a.double(), b.double()
        err = (a - b).abs().max().item()
        scale = b.abs().max().item()
        assert err <= tol, f"{what}: grad of {name}: max error {err:.3g} at scale {scale:.3g}"


def test_indexer_bwd_against_reference():
    # torch.ops.minitile.indexer_bwd against reference.indexer_bwd (float32,
    # p unrounded): the kernel rounds p to bf16 for its gemms, 2^-9 of each
    # term. Indices: -1, past S_kv, repeated; single and batched.
    need_gpu()
    gen = torch.Generator().manual_seed(15)
    for H, D in mt._lib.built_bwd_shapes():
        for B in (None, 2):
            S, T, K = 333, 150, 100
            q, kv, w = inputs(S, H, D, T, gen, B=B)
            shape = (S, K) if B is None else (B, S, K)
            idx = torch.randint(-1, T + 3, shape, generator=gen, dtype=torch.int32).to(dev)
            g = torch.randn(shape, generator=gen).to(dev)
            poison_allocator(q.numel())
            got = mt.ops.indexer_bwd(q, w, kv, idx, g)
            if B is None:
                want = reference.indexer_bwd(q, w, kv, idx, g)
            else:
                parts = [reference.indexer_bwd(q[:, b], w[:, b], kv[:, b], idx[b], g[b])
                         for b in range(B)]
                want = tuple(torch.stack([p[i] for p in parts], 1) for i in range(3))
            for name, a, b, tol in zip(("grad_q", "grad_weights", "grad_kv"), got, want,
                                       (1e-2, 1e-4, 1e-2)):
                assert a.shape == b.shape and a.dtype == b.dtype, (name, a.shape, b.shape)
                assert not torch.isnan(a).any(), f"{name}: NaN (an entry left unwritten?)"
                err = (a.double() - b.double()).abs().max().item()
                scale = b.double().abs().max().item()
                assert err <= tol * scale + 1e-6, \
                    f"H={H} D={D} B={B}: {name}: max error {err:.3g} at scale {scale:.3g}"


def test_indexer_bwd_deterministic_mode():
    # Under torch.use_deterministic_algorithms(True) the backward runs the
    # reference (index_add_ is deterministic there): two calls agree bit for
    # bit, and with the reference itself (the kernel, rounding p to bf16,
    # would not). Off, grad_q and grad_weights are the kernel's (one block a query,
    # its tiles in order: the same bits each call) and grad_kv agrees with
    # them within the rounding of its atomics' order.
    need_gpu()
    gen = torch.Generator().manual_seed(17)
    H, D = mt._lib.built_bwd_shapes()[0]
    S, T, K = 400, 50, 96
    q, kv, w = inputs(S, H, D, T, gen)
    idx = torch.randint(-1, T, (S, K), generator=gen, dtype=torch.int32).to(dev)
    g = torch.randn(S, K, generator=gen).to(dev)
    was = torch.are_deterministic_algorithms_enabled()
    try:
        torch.use_deterministic_algorithms(True)
        a = mt.indexer_bwd_interface(q, w, kv, idx, g)
        b = mt.indexer_bwd_interface(q, w, kv, idx, g)
        ref = reference.indexer_bwd(q, w, kv, idx, g)
        for name, x, y, z in zip(("grad_q", "grad_weights", "grad_kv"), a, b, ref):
            assert torch.equal(x, y), f"deterministic mode: {name} differs between calls"
            assert torch.equal(x, z), f"deterministic mode: {name} is not the reference's"
    finally:
        torch.use_deterministic_algorithms(was)
    c = mt.indexer_bwd_interface(q, w, kv, idx, g)
    d = mt.indexer_bwd_interface(q, w, kv, idx, g)
    assert torch.equal(c[0], d[0]) and torch.equal(c[1], d[1]), "grad_q/grad_w vary between calls"
    scale = a[2].abs().max().item()
    err = (c[2] - a[2]).abs().max().item()
    assert err <= 1e-2 * scale + 1e-6, f"grad_kv: {err:.3g} from the reference at {scale:.3g}"


def test_autograd_step_against_reference():
    need_gpu()
    gen = torch.Generator().manual_seed(13)
    for H, D in built():
        S, T, K = 700, 300, 64
        q, kv, w = inputs(S, H, D, T, gen)
        ks, ke = causal(S, T, 2)
        q.requires_grad_()
        kv.requires_grad_()
        w.requires_grad_()
        scores, indices = mt.lighting_indexer(q, kv, w, ks, ke, K)
        g = torch.randn(S, K, generator=gen).to(dev)
        (torch.where(indices >= 0, scores, 0.0) * g).sum().backward()
        want_scores, gq, gk, gw = reference_step(q, kv, w, ks, ke, indices, g)
        # The forward: the reference's values at the indices, and a true top-k.
        fin = indices >= 0
        assert torch.equal(fin, torch.isfinite(want_scores))
        assert (scores[fin].double() - want_scores[fin]).abs().max().item() < 1e-4
        ref_v, _ = reference.topk(reference.indexer_fwd(q.detach(), kv.detach(), w.detach(),
                                                       ks, ke), K)
        assert (scores.double() - ref_v.double()).nan_to_num(0, 0, 0).abs().max() < 1e-4
        check_grads((q.grad, kv.grad, w.grad), (gq, gk, gw), f"autograd H={H} D={D}")

        # With the indices given (the seed's topk_indices argument).
        q.grad = kv.grad = w.grad = None
        scores2, indices2 = mt.lighting_indexer(q, kv, w, ks, ke, K, indices)
        assert torch.equal(indices2, indices)
        (torch.where(indices >= 0, scores2, 0.0) * g).sum().backward()
        check_grads((q.grad, kv.grad, w.grad), (gq, gk, gw), f"given indices H={H} D={D}")


def test_batched_autograd_step_against_reference():
    need_gpu()
    gen = torch.Generator().manual_seed(14)
    H, D = built()[0]
    B, S, T, K = 2, 400, 100, 32
    q, kv, w = inputs(S, H, D, T, gen, B=B)
    ks, ke = causal(S, T, 4)
    for t in (q, kv, w):
        t.requires_grad_()
    scores, indices = mt.batched_lighting_indexer(q, kv, w, ks, ke, K)
    assert scores.shape == indices.shape == (B, S, K)
    g = torch.randn(B, S, K, generator=gen).to(dev)
    (torch.where(indices >= 0, scores, 0.0) * g).sum().backward()
    _, gq, gk, gw = reference_step(q, kv, w, ks, ke, indices, g, batched=True)
    check_grads((q.grad, kv.grad, w.grad), (gq, gk, gw), "batched autograd")


# --- torch.compile -------------------------------------------------------------

def compiled_function(q, kv, w, ks, ke):
    logits = mt.indexer_fwd_interface(q, kv, w, ks, ke)
    values, indices = mt.topk(logits, 128, ks, ke, True)
    probs = torch.softmax(values, dim=-1).nan_to_num(0.0)
    return logits, probs, indices


def test_compile_fullgraph():
    need_gpu()
    H, D = built()[0]
    gen = torch.Generator().manual_seed(15)
    S, T = 1024, 256
    q, kv, w = inputs(S, H, D, T, gen)
    ks, ke = causal(S, T, 4)
    want = compiled_function(q, kv, w, ks, ke)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(compiled_function)(q, kv, w, ks, ke)
    assert explained.graph_break_count == 0, explained.break_reasons
    for mode in ("default", "reduce-overhead"):
        torch._dynamo.reset()
        fn = torch.compile(compiled_function, fullgraph=True, mode=mode)
        for _ in range(3):  # reduce-overhead records a CUDA graph on a later call
            got = fn(q, kv, w, ks, ke)
        torch.cuda.synchronize()
        assert torch.equal(got[0], want[0]), mode
        assert torch.equal(got[2], want[2]), mode
        torch.testing.assert_close(got[1], want[1])


def test_compile_training_step():
    need_gpu()
    H, D = built()[0]
    gen = torch.Generator().manual_seed(16)
    S, T, K = 512, 128, 32
    q, kv, w = inputs(S, H, D, T, gen)
    ks, ke = causal(S, T, 4)
    g = torch.randn(S, K, generator=gen).to(dev)

    def step(q, kv, w):
        scores, indices = mt.lighting_indexer(q, kv, w, ks, ke, K)
        return (torch.where(indices >= 0, scores, 0.0) * g).sum()

    grads = []
    for fn in (step, torch.compile(step, fullgraph=True)):
        leaves = [t.detach().clone().requires_grad_() for t in (q, kv, w)]
        fn(*leaves).backward()
        grads.append([t.grad for t in leaves])
    check_grads(grads[1], grads[0], "compiled training step against eager")


# --- context parallelism ---------------------------------------------------------

def test_context_parallel_split():
    # One sequence's query rows split over two ranks the way causal context
    # parallelism balances them (rank 0: the first and last quarter, rank 1
    # the middle half), each rank's rows with their own windows against the
    # whole kv, run as two calls on one GPU, put back together: the unsplit
    # result.
    need_gpu()
    gen = torch.Generator().manual_seed(17)
    for H, D in built():
        S, T, ratio, K = 4096, 1024, 4, 512
        q, kv, w = inputs(S, H, D, T, gen)
        ks, ke = causal(S, T, ratio)
        whole = mt.indexer_fwd_interface(q, kv, w, ks, ke)
        whole_v, whole_i = mt.topk(whole, K, ks, ke, True)
        quarter = S // 4
        ranks = [torch.cat([torch.arange(0, quarter), torch.arange(3 * quarter, S)]),
                 torch.arange(quarter, 3 * quarter)]
        parts = torch.empty_like(whole)
        part_v = torch.empty_like(whole_v)
        part_i = torch.empty_like(whole_i)
        for rows in ranks:
            rows = rows.to(dev)
            rks, rke = mt.make_causal_cu_seqlens(len(rows), T, ratio, dev,
                                                 positions=rows.to(i32))
            assert torch.equal(rks, ks[rows]) and torch.equal(rke, ke[rows])
            logits = mt.indexer_fwd_interface(q[rows], kv, w[rows], rks, rke)
            parts[rows] = logits
            part_v[rows], part_i[rows] = mt.topk(logits, K, rks, rke, True)
        assert_logits_close(parts, whole, f"context-parallel H={H} D={D}")
        same = torch.equal(parts, whole)
        print(f"  context-parallel H={H} D={D}: logits bit-identical to the unsplit call: "
              f"{same}; max |difference| "
              f"{(parts - whole).nan_to_num(0, 0, 0).abs().max().item():.3g}")
        if same:
            assert torch.equal(part_i, whole_i) and torch.equal(part_v, whole_v)
        else:
            check_topk(part_v, part_i, parts, K, ks, ke, True, "context-parallel topk")

        # The batched kernel, split the same way.
        qb, kb, wb = inputs(S, H, D, T, gen, B=2)
        whole_b = mt.batched_indexer_fwd(qb, kb, wb, ks, ke)
        parts_b = torch.empty_like(whole_b)
        for rows in ranks:
            rows = rows.to(dev)
            parts_b[:, rows] = mt.batched_indexer_fwd(qb[rows], kb, wb[rows], ks[rows], ke[rows])
        assert_logits_close(parts_b, whole_b, f"context-parallel batched H={H} D={D}")


# --- a runner for machines without pytest ----------------------------------------

def main():
    warnings.simplefilter("default")
    tests = [(n, f) for n, f in sorted(globals().items()) if n.startswith("test_") and callable(f)]
    passed = failed = skipped = 0
    print(f"minitile.torch GPU tests: torch {torch.__version__}, "
          f"{torch.cuda.get_device_name() if torch.cuda.is_available() else 'no GPU'}, "
          f"built for (heads, dim) {built()}")
    for name, fn in tests:
        try:
            fn()
        except Skipped as e:
            skipped += 1
            print(f"SKIP {name}: {e}")
            continue
        except Exception as e:  # noqa: BLE001 - report and go on
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}")
            traceback.print_exc()
            continue
        passed += 1
        print(f"PASS {name}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    if not torch.cuda.is_available():
        print("no GPU: torch.cuda.is_available() is False; skipping")
        sys.exit(77)  # ctest's SKIP_RETURN_CODE
    if pytest is not None:
        sys.exit(pytest.main([__file__, "-q", "-s"] + sys.argv[1:]))
    sys.exit(main())
