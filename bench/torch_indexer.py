"""minitile.torch's cost from Python, on one GPU.

    PYTHONPATH=build/python python3 bench/torch_indexer.py [--seed FILE] [--quick] [--cpu]

0. The layers of a call that need no GPU (--cpu: only these), on the host.

1. Host time per call (the GPU kept busy first, so that calls only queue):
   the generated launcher called through ctypes with ready pointers (the
   C++ launcher's own time plus about a microsecond of ctypes), the op
   torch.ops.minitile.indexer_fwd (the dispatcher, the argument checks, the
   output's allocation, the current stream), the seed's function
   minitile.torch.indexer_fwd_interface, topk and clean_logits; beside them
   torch.empty and a one-element torch.add for PyTorch's own per-op cost.
   The Python-to-launch overhead is the op's time less the launcher's; the
   target is a whole call of at most 20 us.
2. GPU time of the same calls at the DeepSeek-V4 shapes (median, L2 flushed
   between runs, as triton.testing.do_bench times), against the launcher
   through ctypes and, where it imports, the seed's TileLang
   indexer_fwd_interface on the same tensors (--seed names its file,
   tilelang_indexer_fwd.py; else the modules of NeMo Automodel, Megatron-LM
   and miles are tried; skipped when none imports, as on a machine without
   TileLang).
"""
import argparse
import importlib
import importlib.util
import math
import statistics
import sys
import time

import torch

import minitile.torch as mt
from minitile.torch import _lib

dev = "cuda"

SEED_MODULES = [
    "nemo_automodel.components.models.deepseek_v4.kernels.tilelang_indexer_fwd",
    "nemo_automodel.components.models.glm_moe_dsa.kernels.tilelang_indexer_fwd",
    "miles_plugins.models.deepseek_v4.ops.kernel.tilelang_indexer_fwd",
    "miles_plugins.models.glm5.ops.tilelang_indexer_fwd",
]


def seed_function(path):
    """The seed's indexer_fwd_interface, or (None, why)."""
    try:
        if path:
            spec = importlib.util.spec_from_file_location("seed_tilelang_indexer_fwd", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module.indexer_fwd_interface, path
        for name in SEED_MODULES:
            try:
                return importlib.import_module(name).indexer_fwd_interface, name
            except ImportError:
                continue
        return None, "none of " + ", ".join(SEED_MODULES) + " imports"
    except Exception as e:  # noqa: BLE001 - a broken TileLang install is a skip too
        return None, f"{type(e).__name__}: {e}"


def host_us(fn, calls=400, rounds=15):
    """Median host microseconds per call of `fn`, calls queued behind a GPU
    sleep so that the GPU never makes the host wait."""
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(rounds):
        torch.cuda._sleep(60_000_000)  # ~30 ms of GPU work: the calls only queue
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        times.append((t1 - t0) / calls * 1e6)
    return statistics.median(times)


def gpu_ms(fn, reps=50):
    try:
        from triton.testing import do_bench
        return do_bench(fn, warmup=25, rep=reps * 2, return_mode="median")
    except ImportError:
        flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
        times = []
        for _ in range(5):
            fn()
        for _ in range(reps):
            flush.zero_()
            a, b = torch.cuda.Event(True), torch.cuda.Event(True)
            a.record()
            fn()
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b))
        return statistics.median(times)


def inputs(S, H, D, T, ratio):
    q = torch.randn(S, H, D, device=dev).to(torch.bfloat16)
    kv = torch.randn(T, D, device=dev).to(torch.bfloat16)
    w = torch.randn(S, H, device=dev) / math.sqrt(H * D)
    ks, ke = mt.make_causal_cu_seqlens(S, T, ratio, dev)
    return q, kv, w, ks, ke


def launcher(q, kv, w, ks, ke, logits):
    """The generated launcher through ctypes, every argument ready."""
    lib = _lib.lib()
    S, H, D = q.shape
    T = kv.shape[0]
    device = q.get_device()
    stream = torch.cuda.current_stream().cuda_stream
    args = (H, D, S, T, q.data_ptr(), kv.data_ptr(), w.data_ptr(), ks.data_ptr(),
            ke.data_ptr(), logits.data_ptr(), stream, device)
    f = lib.minitile_torch_indexer_fwd

    def call():
        if f(*args):
            _lib.raise_for(1, "indexer_fwd")
    return call


def overhead(H, D):
    S, T = 128, 32
    q, kv, w, ks, ke = inputs(S, H, D, T, 4)
    logits = torch.empty(S, T, device=dev)
    small = torch.zeros(1, device=dev)
    op = torch.ops.minitile.indexer_fwd.default
    noop = _lib.lib().minitile_torch_abi_version
    rows = [
        ("ctypes, a C function doing nothing", lambda: noop()),
        ("torch.empty((S, S_kv)) alone", lambda: torch.empty((S, T), device=dev)),
        ("torch.add on one element (PyTorch's own per-op cost)", lambda: torch.add(small, 1)),
        ("the C++ launcher through ctypes (pointers ready)", launcher(q, kv, w, ks, ke, logits)),
        ("torch.ops.minitile.indexer_fwd", lambda: op(q, kv, w, ks, ke)),
        ("minitile.torch.indexer_fwd_interface (the seed's)",
         lambda: mt.indexer_fwd_interface(q, kv, w, ks, ke)),
        ("torch.ops.minitile.topk (k=16, windows, sorted)",
         lambda: mt.topk(logits, 16, ks, ke, True)),
        ("torch.ops.minitile.clean_logits", lambda: mt.clean_logits(logits, ks, ke)),
    ]
    print(f"\nHost time per call, H={H} D={D}, S={S} S_kv={T} (median of 15 rounds of 400):")
    got = {}
    for name, fn in rows:
        got[name] = host_us(fn)
        print(f"  {got[name]:7.2f} us  {name}")
    launch = got["the C++ launcher through ctypes (pointers ready)"]
    for name in ("torch.ops.minitile.indexer_fwd",
                 "minitile.torch.indexer_fwd_interface (the seed's)"):
        total = got[name]
        verdict = "within" if total <= 20 else "OVER"
        print(f"  {name}: {total:.2f} us a call, {total - launch:.2f} us over the launcher: "
              f"{verdict} the 20 us target")
    return got


def speed(H, D, cases, seed, k=512):
    print(f"\nGPU time, H={H} D={D} (median ms; TFLOP/s of useful work):")
    print("  S S_kv ratio | minitile op | launcher (ctypes) | seed TileLang | "
          "minitile topk k=512 | torch.topk + mask")
    for S, T, ratio in cases:
        q, kv, w, ks, ke = inputs(S, H, D, T, ratio)
        flops = 2.0 * H * D * (ke.long() - ks.long()).clamp(min=0).sum().item()
        logits = torch.empty(S, T, device=dev)
        t_op = gpu_ms(lambda: mt.indexer_fwd_interface(q, kv, w, ks, ke))
        t_launch = gpu_ms(launcher(q, kv, w, ks, ke, logits))
        cell = lambda ms: f"{ms:.3f} ({flops / ms / 1e9:.0f})"
        seed_cell = "skipped"
        if seed is not None:
            try:
                theirs = seed(q, kv, w, ks, ke, clean_logits=True)
                mine = mt.indexer_fwd_interface(q, kv, w, ks, ke)
                fin = torch.isfinite(mine)
                agree = torch.equal(fin, torch.isfinite(theirs)) and torch.allclose(
                    mine[fin], theirs[fin], rtol=1e-3, atol=1e-3)
                seed_cell = cell(gpu_ms(lambda: seed(q, kv, w, ks, ke, clean_logits=True)))
                seed_cell += "" if agree else " DISAGREES"
            except Exception as e:  # noqa: BLE001
                seed_cell = f"failed: {type(e).__name__}: {e}"[:80]
        mine = mt.indexer_fwd_interface(q, kv, w, ks, ke)
        t_topk = gpu_ms(lambda: mt.topk(mine, k, ks, ke, True))

        def torch_topk():
            v, i = torch.topk(mine, k, dim=-1)
            return i.to(torch.int32).masked_fill(v == float("-inf"), -1)
        t_torch = gpu_ms(torch_topk)
        print(f"  {S} {T} {ratio} | {cell(t_op)} | {cell(t_launch)} | {seed_cell} | "
              f"{t_topk * 1e3:.0f} us | {t_torch * 1e3:.0f} us")


def cpu_layers():
    """The layers of a call that need no GPU, timed on the host: the
    dispatcher's trip to a Python kernel registered with Library.impl (as
    minitile's ops are) and with torch.library.custom_op, the argument
    checks, a ctypes call, the seed function's conversions."""
    def best_us(fn, n=20000):
        fn()
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            best = min(best, (time.perf_counter() - t0) / n * 1e6)
        return best

    from minitile.torch import indexer, ops
    bf16 = torch.bfloat16
    q, kv = torch.zeros(128, 64, 128, dtype=bf16), torch.zeros(32, 128, dtype=bf16)
    w, ks = torch.zeros(128, 64), torch.zeros(128, dtype=torch.int32)
    out = torch.empty(1)
    library = torch.library.Library("minitile_bench", "DEF")
    library.define("f(Tensor q, Tensor kv, Tensor weights, Tensor a, Tensor b) -> Tensor")
    library.impl("f", lambda *args: out, "CPU")

    @torch.library.custom_op("minitile_bench::g", mutates_args=())
    def g(q: torch.Tensor, kv: torch.Tensor, w: torch.Tensor, a: torch.Tensor,
          b: torch.Tensor) -> torch.Tensor:
        return out.clone()

    f, g = torch.ops.minitile_bench.f.default, torch.ops.minitile_bench.g.default
    call = _lib.lib().minitile_torch_indexer_fwd
    rows = [
        ("dispatch to a Python kernel: Library.impl (minitile's ops)",
         lambda: f(q, kv, w, ks, ks)),
        ("dispatch to a Python kernel: torch.library.custom_op", lambda: g(q, kv, w, ks, ks)),
        ("indexer_fwd's argument checks", lambda: ops._check_indexer("indexer_fwd", q, kv, w,
                                                                       ks, ks, False, False)),
        ("torch.empty((128, 32)) on the CPU", lambda: torch.empty((128, 32))),
        ("a ctypes call of 12 arguments (a pair not built: no launch)",
         lambda: call(48, 96, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0)),
        ("indexer_fwd_interface's conversions (all no-ops here)",
         lambda: (indexer._windows(ks, ks), indexer._float32(w), q.contiguous(),
                  kv.contiguous())),
    ]
    print("\nHost layers without a GPU (best of 5 rounds of 20000 calls, us):")
    for name, fn in rows:
        print(f"  {best_us(fn):6.2f} us  {name}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", help="the seed's tilelang_indexer_fwd.py")
    ap.add_argument("--quick", action="store_true", help="the overhead and one shape")
    ap.add_argument("--cases", default="4096,1024,4;16384,4096,4;65536,16384,4;4096,4096,1")
    ap.add_argument("--cpu", action="store_true", help="only the layers that need no GPU")
    args = ap.parse_args()
    print(f"torch {torch.__version__}, minitile.torch built for (heads, dim) "
          f"{mt.built_shapes()}")
    cpu_layers()
    if args.cpu:
        return 0
    if not torch.cuda.is_available():
        print("no GPU: torch.cuda.is_available() is False")
        return 0
    print(f"\n{torch.cuda.get_device_name()}")
    seed, why = seed_function(args.seed)
    print(f"seed TileLang indexer_fwd_interface: {why if seed is None else 'from ' + why}")
    for H, D in mt.built_shapes():
        overhead(H, D)
    cases = [tuple(int(x) for x in c.split(",")) for c in args.cases.split(";")]
    if args.quick:
        cases = cases[:1]
    for H, D in mt.built_shapes():
        if (H, D) == (64, 128) or args.quick is False:
            speed(H, D, cases if (H, D) == (64, 128) else cases[:1], seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
