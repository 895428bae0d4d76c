"""Usage: python3 bench/topk_torch.py

torch.topk on the shapes `minitile-bench topk` runs, in the same terms:
median time of CUDA-event-timed launches after a warm-up, and GB/s of the
logits a top-k must read (whole rows; only the windows for causal rows,
though torch reads every entry) beside a 1 GiB device-to-device copy
counted as read + write. Each top-k is followed, as in the DeepSeek-V4
seed, by masked_fill(score == -inf, -1) on its indices.
"""
import torch

dev = "cuda"


def median_ms(fn, warmup=10, reps=100):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def copy_gbs(nbytes=1 << 30):
    a = torch.empty(nbytes, dtype=torch.uint8, device=dev).fill_(1)
    b = torch.empty_like(a)
    ms = median_ms(lambda: b.copy_(a))
    return 2.0 * nbytes / ms / 1e6


def topk_indices(logits, k):
    scores, idx = torch.topk(logits, min(k, logits.shape[-1]), dim=-1)
    return idx.masked_fill_(scores == float("-inf"), -1)


def report(rows, S, T, k, bytes_read, ms, copy):
    gbs = bytes_read / ms / 1e6
    print(f"{'torch.topk':<24} {rows:<13} S={S:6d} S_kv={T:6d} k={k:4d} | {ms * 1e3:8.1f} us | "
          f"{bytes_read / 1e6:6.0f} MB read | {gbs:5.0f} GB/s | {100 * gbs / copy:3.0f}% of the "
          f"copy's {copy:.0f} GB/s", flush=True)


def main():
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
    copy = copy_gbs()
    print(f"device-to-device copy, 1 GiB: {copy:.0f} GB/s (read + write)")
    for S, T, k in [(16384, 4096, 512), (16384, 4096, 2048), (4096, 65536, 2048),
                    (1024, 262144, 1024)]:
        logits = torch.randn(S, T, device=dev)
        ms = median_ms(lambda: topk_indices(logits, k))
        report("full rows", S, T, k, 4.0 * S * T, ms, copy)
        del logits
    for S, T, k in [(16384, 4096, 512), (16384, 4096, 1024), (65536, 16384, 1024)]:
        logits = torch.randn(S, T, device=dev)
        ke = torch.clamp((torch.arange(S, device=dev) + 1) // 4, max=T)
        outside = torch.arange(T, device=dev)[None, :] >= ke[:, None]
        logits.masked_fill_(outside, float("-inf"))
        del outside
        ms = median_ms(lambda: topk_indices(logits, k), 5, 20 if S >= 65536 else 100)
        report("causal r=4", S, T, k, 4.0 * float(ke.sum()), ms, copy)
        del logits


if __name__ == "__main__":
    main()
