//===- bench.cpp - time minitile kernels on the GPU ----------------------===//
//
// Each figure is the median of many launches timed with CUDA events after a
// warm-up, on fresh random inputs. Prints one table; see docs/PERF.md.
//
//===----------------------------------------------------------------------===//
#include "clean_logits.h"
#include "gemm_bf16.h"
#include "gemm_bf16_n128.h"
#include "gemm_f32.h"
#include "clean_logits_t128_r2.h"
#include "clean_logits_t256_r1.h"
#include "clean_logits_t32_r4.h"
#include "clean_logits_t64_r4.h"
#include "indexer_bwd.h"
#include "indexer_bwd_s2.h"
#include "indexer_bwd_s4.h"
#include "indexer_bwd_b1.h"
#include "indexer_bwd_p24.h"
#include "indexer_bwd_h32.h"
#include "indexer_bwd_tma.h"
#include "indexer_fwd.h"
#include "indexer_fwd_unfused.h"
#include "indexer_fwd_last.h"
#include "indexer_fwd_s3.h"
#include "indexer_fwd_pers.h"
#include "indexer_fwd_pers_last.h"
#include "indexer_fwd_pers_s4.h"
#include "indexer_fwd_pers_s9.h"
#include "indexer_fwd_q4.h"
#include "indexer_fwd_tuned.h"
#include "indexer_fwd_pers_q4.h"
#include "indexer_fwd_pers_b3.h"
#include "indexer_fwd_pers_b2_ov_zz.h"
#include "indexer_fwd_b2.h"
#include "indexer_fwd_ov.h"
#include "indexer_fwd_pers_ov4.h"
#include "indexer_fwd_pers_ov6.h"
#include "indexer_fwd_pers_ov6_last.h"
#include "indexer_fwd_pers_ov_b3.h"
#include "indexer_fwd_pers_ov4_zz.h"
#include "indexer_fwd_pers_ov6_zz.h"
#include "indexer_fwd_pers_zz.h"
#include "indexer_fwd_pers_zz_b3.h"
#include "indexer_fwd_pers_cont.h"
#include "indexer_fwd_pers_cont_b3.h"
#include "indexer_fwd_pers_cont_zz.h"
#include "indexer_fwd_pers_cont_g1.h"
#include "indexer_fwd_pers_cont6_zz.h"
#include "indexer_fwd_pers_cont8.h"
#include "indexer_fwd_pers_cont8_zz.h"
#include "indexer_fwd_pers_ov_g1.h"
#include "indexer_fwd_pers_b2_cont_last.h"
#include "indexer_fwd_pers_b2_cont_zz.h"
#include "indexer_fwd_pers_noclean.h"
#include "indexer_fwd_pers_split_last.h"
#include "indexer_fwd_pers_split_zz.h"
#include "indexer_fwd_pers_split_w2_zz.h"
#include "indexer_fwd_pers_split_ov_last.h"
#include "indexer_fwd_pers_split_ov_zz.h"
#include "indexer_fwd_pers_split_ov_w2.h"
#include "indexer_fwd_pers_q4_split_ov.h"
#include "indexer_fwd_pers_dyn_last.h"
#include "indexer_fwd_pers_dyn_last_b3.h"
#include "indexer_fwd_pers_dyn_ov4.h"
#include "indexer_fwd_pers_dyn_ov4_last.h"
#include "indexer_fwd_pers_q4_dyn.h"
#include "indexer_fwd_pers_q4s2_dyn.h"
#include "indexer_fwd_pers_q4s2_ov_dyn.h"
#include "indexer_fwd_pers_q4s2_rw_dyn.h"
#include "indexer_fwd_pers_q4s2_p24_dyn.h"
#include "indexer_fwd_pers_q4_coop_dyn.h"
#include "indexer_fwd_pers_q4_coop_ov_dyn.h"
#include "indexer_fwd_h32_q8.h"
#include "indexer_fwd_h32_pers_q8.h"
#include "indexer_fwd_h32_dyn.h"
#include "indexer_fwd_h32_q8s4_dyn.h"
#include "indexer_fwd_h32_q8_coop_dyn.h"
#include "indexer_fwd_h32.h"
#include "indexer_fwd_h32_pers.h"
#include "indexer_fwd_d256.h"
#include "indexer_fwd_d256_pers.h"
#include "batched_indexer_fwd.h"
#include "batched_indexer_fwd_pick.h"
#include "batched_indexer_fwd_bmajor.h"
#include "indexer_fwd_wg2.h"
#include "make_causal_cu_seqlens.h"
#include "softmax_32k.h"
#include "softmax_4k.h"
#include "softmax_4k_bf16.h"
#include "softmax_variant_headers.inc"
#include "topk.h"
#include "topk_sorted.h"
#include "topk_t1024r4.h"
#include "topk_t128r32.h"
#include "topk_t256r16b5.h"
#include "topk_t512r8.h"
#include "topk_u4.h"
#include "topk_v1.h"
#include "topk_v30.h"
#include "topk_windows.h"
#include "topk_windows_t1024r16.h"
#include "topk_windows_nohalf.h"
#include "topk_windows_t128r32.h"

#include "Energy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <cstdio>
#include <functional>
#include <optional>
#include <random>
#include <tuple>
#include <vector>

using minitile::rt::DeviceBuffer;

namespace {

/// Median milliseconds of `fn` over `reps` timed launches after `warmup`.
/// As triton.testing.do_bench times the peers: before each timed launch,
/// 256 MB of other memory traffic is queued (a device-to-device copy), which
/// evicts the L2 cache and keeps the GPU busy while the host prepares the
/// launch -- so neither the launcher's host work nor a warm cache is in the
/// figure, for minitile as for the peers (launchOverheadUs measures the
/// former on its own). MINITILE_BENCH_IDLE=1 times as before: nothing
/// queued first, so the launcher's host work is timed too.
/// One launch of `fn` timed with CUDA events, L2 evicted first (a 128 MiB
/// copy) unless MINITILE_BENCH_IDLE is set.
double timedMs(const std::function<void()> &fn) {
  static const bool idle = std::getenv("MINITILE_BENCH_IDLE") != nullptr;
  if (!idle)
    minitile::rt::evictL2();
  minitile::rt::Timer timer;
  timer.start();
  fn();
  return timer.stop();
}

double median(std::vector<double> ms) {
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

double medianMs(const std::function<void()> &fn, int warmup = 10, int reps = 100) {
  for (int i = 0; i < warmup; ++i)
    fn();
  minitile::rt::synchronize();
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i)
    ms.push_back(timedMs(fn));
  return median(std::move(ms));
}

/// Host microseconds one call of `fn` takes to return (its launcher's
/// checks, tensor maps and launch), over `calls` queued back to back.
double launchOverheadUs(const std::function<void()> &fn, int calls = 200) {
  fn();
  minitile::rt::synchronize();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i)
    fn();
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  minitile::rt::synchronize();
  return us / calls;
}

/// GB/s of a device-to-device copy of `bytes`, counting read and write.
double copyGBs(size_t bytes) {
  DeviceBuffer<uint8_t> a(bytes), b(bytes);
  a.fillWords(0x3f800000u);
  double ms = medianMs([&] { minitile::rt::copyDeviceToDevice(b.ptr(), a.ptr(), bytes); });
  return 2.0 * bytes / ms / 1e6;
}

using minitile::rt::Scalar;
using CleanFn = void (*)(Scalar<int64_t>, Scalar<int64_t>, float *, const int32_t *,
                         const int32_t *, CUstream);

/// GB/s of writing `bytes` with cuMemsetD32 (the write-only reference).
double memsetGBs(size_t bytes) {
  DeviceBuffer<uint8_t> a(bytes);
  double ms = medianMs([&] { a.fillWords(0xff800000u); });
  return bytes / ms / 1e6;
}

void benchCleanLogits(const char *name, CleanFn clean, int64_t S, int64_t T,
                      int64_t ratio, double copyRate) {
  DeviceBuffer<int32_t> ks(S), ke(S);
  minitile::kernels::make_causal_cu_seqlens(S, T, ratio, ks.get(), ke.get());
  std::vector<int32_t> hke = ke.download();
  int64_t masked = 0;
  for (int64_t s = 0; s < S; ++s)
    masked += T - std::clamp<int64_t>(hke[s], 0, T);
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> host(S * T);
  for (float &x : host)
    x = u(rng);
  DeviceBuffer<float> logits(host);
  double ms = medianMs([&] { clean(S, T, logits.get(), ks.get(), ke.get(), nullptr); });
  double gbs = masked * 4.0 / ms / 1e6;
  std::printf("%-22s S=%lld S_kv=%lld ratio=%lld | %7.1f us | %.1f MB of -inf | "
              "%.0f GB/s written | %.0f%% of the copy's %.0f GB/s\n",
              name, (long long)S, (long long)T, (long long)ratio, ms * 1e3,
              masked * 4.0 / 1e6, gbs, 100.0 * gbs / copyRate, copyRate);
}

using minitile::rt::bf16;
using IndexerFn = void (*)(Scalar<int64_t>, Scalar<int64_t>, const bf16 *, const bf16 *,
                           const float *, const int32_t *, const int32_t *, float *, CUstream);
using BatchedFn = void (*)(Scalar<int64_t>, Scalar<int64_t>, Scalar<int64_t>, const bf16 *,
                           const bf16 *, const float *, const int32_t *, const int32_t *,
                           float *, CUstream);

/// indexer_fwd at H = 64, D = 128, causal windows of ratio `ratio`: useful
/// TFLOP/s (2 H D per window entry) of each variant.
struct IndexerVariant {
  const char *name;
  IndexerFn fn;
  bool unfused;
};

/// The indexer's variants at H = 64, D = 128 (bench/CMakeLists.txt).
std::vector<IndexerVariant> h64d128Variants() {
  return {{"indexer_fwd (shipped)", minitile::kernels::indexer_fwd, false},
          {"tuned table (by shape)", minitile::kernels::indexer_fwd_tuned, false},
          {"unfused + clean_logits", minitile::kernels::indexer_fwd_unfused, true},
          {"warpgroups=2", minitile::kernels::indexer_fwd_wg2, false},
          {"last_first=true", minitile::kernels::indexer_fwd_last, false},
          {"stages=3", minitile::kernels::indexer_fwd_s3, false},
          {"persistent=true", minitile::kernels::indexer_fwd_pers, false},
          {"persistent last_first", minitile::kernels::indexer_fwd_pers_last, false},
          {"persistent wg2", minitile::kernels::indexer_fwd_pers_s4, false},
          {"persistent stages=9", minitile::kernels::indexer_fwd_pers_s9, false},
          {"queries=4 (N=256, 2 wg)", minitile::kernels::indexer_fwd_q4, false},
          {"persistent queries=4", minitile::kernels::indexer_fwd_pers_q4, false},
          {"persistent 3 buffers", minitile::kernels::indexer_fwd_pers_b3, false},
          // What the -inf outside the windows costs the persistent kernel
          // (its logits are not all written: timing only).
          {"persistent clean=false", minitile::kernels::indexer_fwd_pers_noclean, false},
          // Each warpgroup's next gemm under this tile's epilogue (two
          // accumulators: two warpgroups).
          {"overlap wg2", minitile::kernels::indexer_fwd_ov, false},
          {"persistent overlap s4", minitile::kernels::indexer_fwd_pers_ov4, false},
          {"persistent overlap s6", minitile::kernels::indexer_fwd_pers_ov6, false},
          {"pers overlap s6 last", minitile::kernels::indexer_fwd_pers_ov6_last, false},
          {"pers overlap s6 3 buf", minitile::kernels::indexer_fwd_pers_ov_b3, false},
          {"pers overlap s4 zigzag", minitile::kernels::indexer_fwd_pers_ov4_zz, false},
          {"pers overlap s6 zigzag", minitile::kernels::indexer_fwd_pers_ov6_zz, false},
          // The longest first, every second round of blocks reversed.
          {"persistent zigzag", minitile::kernels::indexer_fwd_pers_zz, false},
          {"pers 2/SM overlap zz", minitile::kernels::indexer_fwd_pers_b2_ov_zz, false},
          {"2 blocks/SM last first", minitile::kernels::indexer_fwd_b2, false},
          {"pers zigzag 3 buf", minitile::kernels::indexer_fwd_pers_zz_b3, false},
          // Each group's KV tiles of consecutive items one overlapped stream.
          {"pers continuous s4", minitile::kernels::indexer_fwd_pers_cont, false},
          {"pers continuous s4 zz", minitile::kernels::indexer_fwd_pers_cont_zz, false},
          {"pers continuous 3 buf", minitile::kernels::indexer_fwd_pers_cont_b3, false},
          {"pers continuous s6 zz", minitile::kernels::indexer_fwd_pers_cont6_zz, false},
          {"pers continuous s8", minitile::kernels::indexer_fwd_pers_cont8, false},
          {"pers continuous s8 zz", minitile::kernels::indexer_fwd_pers_cont8_zz, false},
          // One group: no other group to fall into step with.
          {"pers overlap 1 group", minitile::kernels::indexer_fwd_pers_ov_g1, false},
          {"pers continuous 1 group", minitile::kernels::indexer_fwd_pers_cont_g1, false},
          // Two blocks a multiprocessor, one continuous group each.
          {"pers 2/SM continuous zz", minitile::kernels::indexer_fwd_pers_b2_cont_zz, false},
          {"pers 2/SM continuous last", minitile::kernels::indexer_fwd_pers_b2_cont_last, false},
          // A gemm a query: each query's epilogue under the next one's gemm.
          {"pers split last first", minitile::kernels::indexer_fwd_pers_split_last, false},
          {"pers split zigzag", minitile::kernels::indexer_fwd_pers_split_zz, false},
          {"pers split 2 groups zz", minitile::kernels::indexer_fwd_pers_split_w2_zz, false},
          // ... and overlapped query by query across tiles.
          {"pers split overlap last", minitile::kernels::indexer_fwd_pers_split_ov_last, false},
          {"pers split overlap zz", minitile::kernels::indexer_fwd_pers_split_ov_zz, false},
          {"pers split overlap 2 groups", minitile::kernels::indexer_fwd_pers_split_ov_w2, false},
          {"pers q4 split overlap zz", minitile::kernels::indexer_fwd_pers_q4_split_ov, false},
          // The query blocks handed out at run time (a work counter).
          {"pers dynamic last", minitile::kernels::indexer_fwd_pers_dyn_last, false},
          {"pers dynamic last 3 buf", minitile::kernels::indexer_fwd_pers_dyn_last_b3, false},
          {"pers dyn overlap s4", minitile::kernels::indexer_fwd_pers_dyn_ov4, false},
          {"pers dyn overlap s4 last", minitile::kernels::indexer_fwd_pers_dyn_ov4_last, false},
          {"pers q4 split ov dynamic", minitile::kernels::indexer_fwd_pers_q4_dyn, false},
          // Four queries a block as two gemms of two queries' width: half
          // the items (their starts and ends) for the same tiles.
          {"pers q4 split2 dyn", minitile::kernels::indexer_fwd_pers_q4s2_dyn, false},
          {"pers q4 split2 rw dyn", minitile::kernels::indexer_fwd_pers_q4s2_rw_dyn, false},
          {"pers q4 split2 p24 dyn", minitile::kernels::indexer_fwd_pers_q4s2_p24_dyn, false},
          {"pers q4 split2 ov dyn", minitile::kernels::indexer_fwd_pers_q4s2_ov_dyn, false},
          // ... both groups on every KV tile, a part each.
          {"pers q4 coop dyn", minitile::kernels::indexer_fwd_pers_q4_coop_dyn, false},
          {"pers q4 coop ov dyn", minitile::kernels::indexer_fwd_pers_q4_coop_ov_dyn, false}};
}

/// The indexer's inputs at S, S_kv = T, causal windows of ratio `ratio`:
/// fresh normal random queries, keys and weights; the useful FLOPs (2 H D
/// per window entry).
struct IndexerInputs {
  int64_t S, T, H, D;
  DeviceBuffer<bf16> q, kv;
  DeviceBuffer<float> w, logits;
  DeviceBuffer<int32_t> ks, ke;
  double flop = 0;

  IndexerInputs(int64_t S, int64_t T, int64_t ratio, int64_t H, int64_t D)
      : S(S), T(T), H(H), D(D), q(S * H * D), kv(T * D), w(S * H), logits(S * T), ks(S),
        ke(S) {
    std::mt19937 rng(std::random_device{}());
    std::normal_distribution<float> normal;
    std::vector<bf16> hq(S * H * D), hkv(T * D);
    for (bf16 &x : hq)
      x = bf16::fromFloat(normal(rng));
    for (bf16 &x : hkv)
      x = bf16::fromFloat(normal(rng));
    std::vector<float> hw(S * H);
    for (float &x : hw)
      x = normal(rng) / 90.5f;
    q.upload(hq);
    kv.upload(hkv);
    w.upload(hw);
    minitile::kernels::make_causal_cu_seqlens(S, T, ratio, ks.get(), ke.get());
    std::vector<int32_t> hks = ks.download(), hke = ke.download();
    double entries = 0;
    for (int64_t s = 0; s < S; ++s)
      entries += std::max(0, std::min<int32_t>(hke[s], T) - std::max<int32_t>(hks[s], 0));
    flop = 2.0 * H * D * entries;
  }
  void run(IndexerFn fn) {
    fn(S, T, q.get(), kv.get(), w.get(), ks.get(), ke.get(), logits.get(), nullptr);
  }
};

/// What the indexer's variants are measured against in their own rounds
/// (cuBLAS's GEMM): timed in turn with them, it sees the same clock and
/// power, so each variant's ratio to it compares like with like.
struct Reference {
  const char *name;
  std::function<void()> launch;
  double flop;
};

void benchIndexer(int64_t S, int64_t T, int64_t ratio, int64_t H = 64, int64_t D = 128,
                  std::vector<IndexerVariant> variants = h64d128Variants(),
                  const std::vector<Reference> &references = {}) {
  IndexerInputs in(S, T, ratio, H, D);
  double flop = in.flop;
  // MINITILE_BENCH_ONLY=text keeps the variants whose name holds it (or
  // one of its '|'-separated parts);
  // MINITILE_BENCH_REPS=n times each n times (with one variant kept, to
  // sample the clocks and power while it runs for seconds).
  const char *only = std::getenv("MINITILE_BENCH_ONLY");
  const char *repsEnv = std::getenv("MINITILE_BENCH_REPS");
  int reps = repsEnv ? std::max(1, std::atoi(repsEnv)) : (S >= 65536 ? 20 : 50);
  // The variants take turns, kRound launches each a round, so that each
  // sees the same drift of clock and power over the run (timed one after
  // the other, a variant late in the list at S = 16384 lost 10-15 % to the
  // same kernel early in it on an H200 at its 700 W cap, 2026-12-03).
  constexpr int kRound = 5;
  std::vector<const IndexerVariant *> chosen;
  auto kept = [only](const char *name) {
    if (!only)
      return true;
    std::string parts = only;
    for (size_t at = 0; at <= parts.size();) {
      size_t bar = std::min(parts.find('|', at), parts.size());
      if (std::string_view(name).find(std::string_view(parts).substr(at, bar - at)) !=
          std::string_view::npos)
        return true;
      at = bar + 1;
    }
    return false;
  };
  for (auto &v : variants)
    if (kept(v.name))
      chosen.push_back(&v);
  // Entry i < chosen.size() is variant i; then the references.
  std::vector<std::function<void()>> launches;
  for (const IndexerVariant *v : chosen)
    launches.push_back([&in, v, S, T] {
      in.run(v->fn);
      if (v->unfused)
        minitile::kernels::clean_logits(S, T, in.logits.get(), in.ks.get(), in.ke.get());
    });
  for (const Reference &r : references)
    launches.push_back(r.launch);
  for (auto &launch : launches)
    for (int i = 0; i < 5; ++i)
      launch();
  minitile::rt::synchronize();
  // Each round starts one entry later than the one before, so that no
  // entry always runs just after the same one (cuBLAS draws the most power).
  std::vector<std::vector<double>> times(launches.size());
  size_t n = launches.size();
  for (int done = 0, round = 0; done < reps; done += kRound, ++round)
    for (size_t k = 0; k < n; ++k) {
      size_t i = (k + round) % n;
      for (int r = 0; r < std::min(kRound, reps - done); ++r)
        times[i].push_back(timedMs(launches[i]));
    }
  std::vector<double> referenceTflops;
  for (size_t r = 0; r < references.size(); ++r) {
    double ms = median(times[chosen.size() + r]);
    referenceTflops.push_back(references[r].flop / ms / 1e9);
    std::printf("%-24s (timed in turn with the variants below) | %8.3f ms | %6.1f TFLOP/s\n",
                references[r].name, ms, referenceTflops.back());
  }
  if (!references.empty()) {
    std::printf("%-24s the %% columns: each variant's rate over", "");
    for (const Reference &r : references)
      std::printf(" %s%s", r.name, &r == &references.back() ? "'s\n" : "'s,");
  }
  for (size_t i = 0; i < chosen.size(); ++i) {
    const IndexerVariant &v = *chosen[i];
    double ms = median(times[i]);
    std::printf("%-24s S=%6lld S_kv=%6lld ratio=%lld H=%lld D=%lld | %8.3f ms | %6.1f "
                "useful TFLOP/s",
                v.name, (long long)S, (long long)T, (long long)ratio, (long long)H,
                (long long)D, ms, flop / ms / 1e9);
    for (double ref : referenceTflops)
      std::printf(" | %5.1f %%", 100.0 * flop / ms / 1e9 / ref);
    std::printf("\n");
    if (i == 0)
      std::printf("%-24s one call returns after %.1f us on the host (checks, tensor maps, "
                  "launch)\n", "  launcher", launchOverheadUs(launches[i]));
  }
}

//===----------------------------------------------------------------------===//
// topk
//===----------------------------------------------------------------------===//

/// Logits [S, T] of normal values, rows drawn from a pool of fresh random
/// numbers at random offsets (so a gigabyte takes a second to make).
std::vector<float> randomRows(int64_t S, int64_t T) {
  std::mt19937_64 rng(std::random_device{}());
  std::normal_distribution<float> normal;
  std::vector<float> pool(std::min<int64_t>(int64_t(1) << 24, std::max<int64_t>(T, 1) * 64));
  for (float &x : pool)
    x = normal(rng);
  std::uniform_int_distribution<int64_t> at(0, int64_t(pool.size()) - T);
  std::vector<float> rows(S * T);
  for (int64_t s = 0; s < S; ++s)
    std::copy_n(pool.begin() + at(rng), T, rows.begin() + s * T);
  return rows;
}

using TopkFn = void (*)(Scalar<int64_t>, Scalar<int64_t>, Scalar<int64_t>, const float *,
                        int32_t *, CUstream);

void reportTopk(const char *name, const char *rows, int64_t S, int64_t T, int64_t K,
                double bytesRead, double ms, double copyRate) {
  double gbs = bytesRead / ms / 1e6;
  std::printf("%-24s %-13s S=%6lld S_kv=%6lld k=%4lld | %8.1f us | %6.0f MB read | "
              "%5.0f GB/s | %3.0f%% of the copy's %.0f GB/s\n",
              name, rows, (long long)S, (long long)T, (long long)K, ms * 1e3, bytesRead / 1e6,
              gbs, 100.0 * gbs / copyRate, copyRate);
}

/// Standalone topk on full rows of normal values: every variant at S=16384,
/// S_kv=4096; the shipped one at longer rows.
void benchTopkFullRows(double copyRate) {
  struct {
    const char *name;
    TopkFn fn;
  } variants[] = {{"topk (shipped, v3.1)", minitile::kernels::topk},
                  {"v3.0 (thread order, u4)", minitile::kernels::topk_v30},
                  {"v1: 256 thr, regs=0", minitile::kernels::topk_v1},
                  {"512 thr x regs=8", minitile::kernels::topk_t512r8},
                  {"128 thr x regs=32", minitile::kernels::topk_t128r32},
                  {"256 x 16, 5 blocks/SM", minitile::kernels::topk_t256r16b5},
                  {"1024 thr x regs=4", minitile::kernels::topk_t1024r4},
                  {"v3.1, unroll=4", minitile::kernels::topk_u4},
                  {"sorted", nullptr}};
  for (auto [S, T, K, all] : {std::tuple<int64_t, int64_t, int64_t, bool>{16384, 4096, 512, true},
                              {16384, 4096, 2048, true},
                              {4096, 65536, 2048, false},
                              {1024, 262144, 1024, false}}) {
    DeviceBuffer<float> logits(randomRows(S, T));
    DeviceBuffer<int32_t> indices(S * K);
    for (auto &v : variants) {
      if (!all && v.fn != minitile::kernels::topk && v.fn != minitile::kernels::topk_v1 &&
          v.fn != minitile::kernels::topk_u4 && v.fn != minitile::kernels::topk_v30)
        continue;
      double ms = medianMs([&] {
        if (v.fn)
          v.fn(S, T, K, logits.get(), indices.get(), nullptr);
        else
          minitile::kernels::topk_sorted(S, T, K, logits.get(), indices.get());
      });
      reportTopk(v.name, "full rows", S, T, K, 4.0 * S * T, ms, copyRate);
    }
  }
}

/// DeepSeek-V4's shape: causal windows of ratio 4; only the windows are read.
void benchTopkCausal(double copyRate) {
  for (auto [S, T, K] : {std::tuple<int64_t, int64_t, int64_t>{16384, 4096, 512},
                         {16384, 4096, 1024},
                         {65536, 16384, 1024}}) {
    DeviceBuffer<int32_t> ks(S), ke(S);
    minitile::kernels::make_causal_cu_seqlens(S, T, 4, ks.get(), ke.get());
    std::vector<int32_t> hke = ke.download();
    double entries = 0;
    for (int32_t e : hke)
      entries += std::clamp<int64_t>(e, 0, T);
    DeviceBuffer<float> logits(randomRows(S, T));
    DeviceBuffer<int32_t> indices(S * K);
    using WindowsFn = void (*)(Scalar<int64_t>, Scalar<int64_t>, Scalar<int64_t>, const float *,
                               const int32_t *, const int32_t *, int32_t *, CUstream);
    struct {
      const char *name;
      WindowsFn fn;
    } variants[] = {{"topk windows=true", minitile::kernels::topk_windows},
                    {"windows 128 x regs=32", minitile::kernels::topk_windows_t128r32},
                    {"windows 1024 x regs=16", minitile::kernels::topk_windows_t1024r16},
                    {"windows, no half copy", minitile::kernels::topk_windows_nohalf}};
    for (auto &v : variants) {
      double ms = medianMs(
          [&] { v.fn(S, T, K, logits.get(), ks.get(), ke.get(), indices.get(), nullptr); }, 5,
          S >= 65536 ? 20 : 100);
      reportTopk(v.name, "causal r=4", S, T, K, 4.0 * entries, ms, copyRate);
    }
  }
}

/// The DeepSeek-V4 step: causal windows, the indexer (H = 64, D = 128),
/// then the top-k indices, timed together.
/// batched_indexer_fwd over B sequences against B launches of indexer_fwd
/// (causal ratio 4, H = 64, D = 128): issue 8 asks for the batched launch
/// within 3 % of the single ones.
void benchBatched(int64_t S, int64_t B) {
  const int64_t H = 64, D = 128, T = S / 4;
  std::mt19937 rng(std::random_device{}());
  std::normal_distribution<float> normal;
  std::vector<bf16> hq(S * B * H * D), hkv(T * B * D);
  for (bf16 &x : hq)
    x = bf16::fromFloat(normal(rng));
  for (bf16 &x : hkv)
    x = bf16::fromFloat(normal(rng));
  std::vector<float> hw(S * B * H);
  for (float &x : hw)
    x = normal(rng) / 90.5f;
  DeviceBuffer<bf16> q(hq), kv(hkv);
  DeviceBuffer<float> w(hw), logits(B * S * T);
  DeviceBuffer<int32_t> ks(S), ke(S);
  minitile::kernels::make_causal_cu_seqlens(S, T, 4, ks.get(), ke.get());
  // The single launches read a sequence of their own, laid out as the single
  // kernel takes it (the batched layout interleaves batches: q [S, B, H,
  // D]), as an application calling it per sequence holds them; random too.
  DeviceBuffer<bf16> q1(std::vector<bf16>(hq.begin(), hq.begin() + S * H * D)),
      kv1(std::vector<bf16>(hkv.begin(), hkv.begin() + T * D));
  DeviceBuffer<float> w1(std::vector<float>(hw.begin(), hw.begin() + S * H));
  // Each batched kernel against B launches of the single kernel of the same
  // parameters, the two timed in turn, five times over (the card's clock
  // moves with its power draw: alternating keeps both under the same one);
  // the medians of the five.
  struct {
    const char *name, *singleName;
    BatchedFn fn;
    IndexerFn single;
  } pairs[] = {{"batched_indexer_fwd (as shipped)", "indexer_fwd (as shipped)",
                minitile::kernels::batched_indexer_fwd, minitile::kernels::indexer_fwd},
               {"batched, the single pick", "indexer_fwd tuned",
                minitile::kernels::batched_indexer_fwd_pick, minitile::kernels::indexer_fwd_tuned},
               {"batched, batch-major items", "indexer_fwd tuned",
                minitile::kernels::batched_indexer_fwd_bmajor,
                minitile::kernels::indexer_fwd_tuned}};
  for (auto &v : pairs) {
    std::vector<double> singles, batcheds;
    for (int round = 0; round < 5; ++round) {
      singles.push_back(medianMs(
          [&] {
            for (int64_t b = 0; b < B; ++b)
              v.single(S, T, q1.get(), kv1.get(), w1.get(), ks.get(), ke.get(),
                       logits.get() + b * S * T, nullptr);
          },
          3, 20));
      batcheds.push_back(medianMs(
          [&] {
            v.fn(S, T, B, q.get(), kv.get(), w.get(), ks.get(), ke.get(), logits.get(), nullptr);
          },
          3, 20));
    }
    std::sort(singles.begin(), singles.end());
    std::sort(batcheds.begin(), batcheds.end());
    double single = singles[2], ms = batcheds[2];
    std::printf("%lld x %-28s S=%6lld B=%lld | %8.3f ms\n", (long long)B, v.singleName,
                (long long)S, (long long)B, single);
    std::printf("%-32s S=%6lld B=%lld | %8.3f ms | %+.1f %% against %lld single launches\n",
                v.name, (long long)S, (long long)B, ms, 100 * (ms / single - 1), (long long)B);
  }
}

void benchIndexerThenTopk(int64_t S, int64_t T, int64_t K) {
  IndexerInputs in(S, T, 4, 64, 128);
  DeviceBuffer<int32_t> indices(S * K);
  struct {
    const char *name;
    IndexerFn indexer;
    bool withTopk;
  } steps[] = {{"indexer_fwd alone", minitile::kernels::indexer_fwd, false},
               {"indexer_fwd + topk", minitile::kernels::indexer_fwd, true},
               {"unfused indexer + topk", minitile::kernels::indexer_fwd_unfused, true}};
  for (auto &step : steps) {
    double ms = medianMs(
        [&] {
          in.run(step.indexer);
          if (step.withTopk)
            minitile::kernels::topk_windows(S, T, K, in.logits.get(), in.ks.get(),
                                            in.ke.get(), indices.get());
        },
        5, S >= 65536 ? 20 : 50);
    std::printf("%-24s S=%6lld S_kv=%6lld k=%4lld ratio=4 | %8.3f ms end to end\n", step.name,
                (long long)S, (long long)T, (long long)K, ms);
  }
}

/// cuBLAS's bf16 GEMM, M = N = K = n, on fresh random inputs: standard
/// normal (as the indexer's inputs here and torch.randn's in the peers'
/// script) or uniform in [-1, 1]. The tensor cores draw more power on some
/// data than on other, and at the card's cap power sets the clock: a rate
/// compared with the indexer's is the rate on the indexer's kind of data.
struct CublasInputs {
  int64_t n;
  DeviceBuffer<bf16> a, b, c;
  std::vector<bf16> ha, hb;
  CublasInputs(int64_t n, bool normal) : n(n), a(n * n), b(n * n), c(n * n), ha(n * n), hb(n * n) {
    std::mt19937 rng(std::random_device{}());
    std::normal_distribution<float> gauss;
    std::uniform_real_distribution<float> uniform(-1, 1);
    for (auto *h : {&ha, &hb})
      for (bf16 &x : *h)
        x = bf16::fromFloat(normal ? gauss(rng) : uniform(rng));
    a.upload(ha);
    b.upload(hb);
  }
  void run(minitile::bench::CublasGemm &gemm) { gemm.run(n, n, n, a.get(), b.get(), c.get()); }
  /// The FLOPs of one product.
  double flop() const { return 2.0 * n * n * n; }
  /// Correct first: one product from a C of NaNs, 64 of its entries against
  /// fp64 on the host; throws if one differs by 1 % of its magnitudes' sum.
  void check(minitile::bench::CublasGemm &gemm) {
    c.fillWords(0x7fc07fc0u);
    run(gemm);
    std::vector<bf16> hc = c.download();
    std::mt19937 rng(7);
    double worst = 0;
    for (int e = 0; e < 64; ++e) {
      int64_t i = rng() % n, j = rng() % n;
      double want = 0, scale = 0;
      for (int64_t k = 0; k < n; ++k) {
        double p = double(ha[i * n + k].toFloat()) * hb[k * n + j].toFloat();
        want += p;
        scale += std::fabs(p);
      }
      double got = hc[i * n + j].toFloat();
      worst = std::isfinite(got) ? std::max(worst, std::fabs(got - want) / scale) : INFINITY;
    }
    if (!(worst < 1e-2))
      throw minitile::rt::Error("cuBLAS's product differs from the host's: " +
                                std::to_string(worst) + " of the magnitudes' sum");
  }
};

/// cuBLAS's useful TFLOP/s by medianMs, the harness that times minitile's
/// kernels (the peers' script times it with triton.testing.do_bench: the two
/// figures side by side tell the harnesses apart), after checking it.
double cublasTflops(minitile::bench::CublasGemm &gemm, CublasInputs &in) {
  in.check(gemm);
  double ms = medianMs([&] { in.run(gemm); }, 5, 20);
  return in.flop() / ms / 1e9;
}

/// `fn` launched back to back for about `seconds` after a second of the
/// same (the clock and power settle): milliseconds a launch and what the
/// GPU drew meanwhile.
std::pair<double, minitile::bench::PowerReading>
sustained(minitile::bench::PowerMonitor &power, const std::function<void()> &fn,
          double seconds = 3) {
  auto loop = [&](int n) {
    for (int i = 0; i < n; ++i)
      fn();
  };
  // The first call may set things up (cuBLAS picks its kernel): time ten
  // after it.
  fn();
  minitile::rt::synchronize();
  minitile::rt::Timer timer;
  timer.start();
  loop(10);
  double once = std::max(1e-3, double(timer.stop()) / 10);
  loop(int(std::ceil(1000.0 / once)));
  minitile::rt::synchronize();
  int n = std::max(1, int(std::ceil(seconds * 1000.0 / once)));
  power.start();
  timer.start();
  loop(n);
  double ms = timer.stop();
  minitile::bench::PowerReading reading = power.stop();
  return {ms / n, reading};
}

void printSustained(const char *name, const std::string &shape, double flop, double ms,
                    const minitile::bench::PowerReading &r) {
  std::printf("%-24s %-20s | %8.3f ms | %6.1f TFLOP/s | %4.0f W (read %4.0f) | %7.4f J | "
              "%5.3f pJ/FLOP | %4.0f MHz | power cap %3.0f%% | thermal %2.0f%% | %.1f s\n",
              name, shape.c_str(), ms, flop / ms / 1e9, r.meanWatts, r.sampledWatts,
              r.meanWatts * ms / 1e3, r.meanWatts * ms / 1e3 / flop * 1e12, r.meanSmMHz,
              100 * r.powerCapped, 100 * r.thermal, r.seconds);
}

/// Energy per useful FLOP, sustained: cuBLAS's bf16 GEMM and the indexer's
/// shipped, persistent and tuned kernels, each launched back to back for 3
/// s while NVML counts the energy and samples clock and power -- the rates
/// a card running into its power cap gives, cuBLAS's included
/// (`minitile-bench energy`; docs/PERF.md has the figures).
void benchEnergy(const std::vector<int64_t> &lengths) {
  minitile::bench::PowerMonitor power;
  if (!power.available()) {
    std::printf("energy: NVML not available (%s)\n", power.why().c_str());
    return;
  }
  minitile::bench::CublasGemm gemm;
  if (gemm.available()) {
    for (bool normal : {true, false}) {
      CublasInputs in(8192, normal);
      in.check(gemm);
      auto [ms, r] = sustained(power, [&] { in.run(gemm); });
      printSustained(normal ? "cuBLAS bf16 normal" : "cuBLAS bf16 uniform", "8192^3",
                     in.flop(), ms, r);
    }
  } else {
    std::printf("energy: no cuBLAS (%s)\n", gemm.why().c_str());
  }
  std::vector<std::pair<int64_t, int64_t>> shapes;
  for (int64_t S : lengths)
    shapes.push_back({S, S / 4});
  shapes.push_back({4096, 4096});
  auto measure = [&](int64_t S, int64_t T, int64_t H, int64_t D,
                     std::vector<std::pair<const char *, IndexerFn>> variants) {
    IndexerInputs in(S, T, S / T, H, D);
    std::string shape = "S=" + std::to_string(S) + " S_kv=" + std::to_string(T);
    for (auto [name, fn] : variants) {
      auto [ms, r] = sustained(power, [&] { in.run(fn); });
      printSustained(name, shape, in.flop, ms, r);
    }
  };
  for (auto [S, T] : shapes)
    measure(S, T, 64, 128,
            {{"indexer_fwd (shipped)", minitile::kernels::indexer_fwd},
             {"persistent=true", minitile::kernels::indexer_fwd_pers},
             {"tuned table (by shape)", minitile::kernels::indexer_fwd_tuned}});
  // What the epilogue and the -inf fill cost: D = 256 does twice the gemm
  // work per accumulator (the same relu, weight and head sum per entry);
  // clean=false writes no -inf outside the windows.
  measure(16384, 4096, 64, 256,
          {{"indexer_fwd D=256", minitile::kernels::indexer_fwd_d256},
           {"persistent D=256", minitile::kernels::indexer_fwd_d256_pers}});
  measure(16384, 4096, 64, 128,
          {{"clean=false (no -inf)", minitile::kernels::indexer_fwd_unfused}});
}

/// The examples' GEMM (examples/gemm): C = A . B^T, bf16 in, f32 accumulation.
void benchGemm() {
  using Fn = std::function<void(int64_t, int64_t, int64_t, const minitile::rt::bf16 *,
                                const minitile::rt::bf16 *, void *)>;
  struct {
    const char *name;
    Fn fn;
  } variants[] = {
      {"gemm_bf16 (128x256)",
       [](int64_t M, int64_t N, int64_t K, auto a, auto b, void *c) {
         example::gpu::gemm_bf16(M, N, K, a, b, static_cast<minitile::rt::bf16 *>(c));
       }},
      {"gemm_bf16_n128 (128x128)",
       [](int64_t M, int64_t N, int64_t K, auto a, auto b, void *c) {
         example::gpu::gemm_bf16_n128(M, N, K, a, b, static_cast<minitile::rt::bf16 *>(c));
       }},
      {"gemm_f32 (128x128)",
       [](int64_t M, int64_t N, int64_t K, auto a, auto b, void *c) {
         example::gpu::gemm_f32(M, N, K, a, b, static_cast<float *>(c));
       }}};
  for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{8192, 8192, 8192},
                         {4096, 4096, 4096}, {4000, 3000, 4104}}) {
    DeviceBuffer<minitile::rt::bf16> a(M * K), b(N * K);
    a.fillWords(0x3f803f80u); // 1.0 bf16 pairs
    b.fillWords(0x3c003c00u); // 2^-7
    DeviceBuffer<float> c(M * N);
    for (auto &v : variants) {
      double ms = medianMs([&] { v.fn(M, N, K, a.get(), b.get(), c.get()); }, 5, 20);
      std::printf("%-26s M=%5lld N=%5lld K=%5lld | %8.3f ms | %6.1f TFLOP/s\n", v.name,
                  (long long)M, (long long)N, (long long)K, ms, 2.0 * M * N * K / ms / 1e9);
    }
  }
}

/// The examples' softmax (examples/softmax), against copy bandwidth.
void benchSoftmax(double copyRate) {
  struct Case {
    const char *name;
    int64_t rows, cols, bytes;
    std::function<void(int64_t, int64_t, void *, void *)> fn;
  } cases[] = {
      {"softmax_4k f32", 32768, 4096, 4,
       [](int64_t r, int64_t c, void *x, void *y) {
         example::gpu::softmax_4k(r, c, static_cast<float *>(x), static_cast<float *>(y));
       }},
      {"softmax_32k f32", 8192, 32768, 4,
       [](int64_t r, int64_t c, void *x, void *y) {
         example::gpu::softmax_32k(r, c, static_cast<float *>(x), static_cast<float *>(y));
       }},
      {"softmax_4k_bf16", 32768, 4096, 2,
       [](int64_t r, int64_t c, void *x, void *y) {
         example::gpu::softmax_4k_bf16(r, c, static_cast<minitile::rt::bf16 *>(x),
                                       static_cast<minitile::rt::bf16 *>(y));
       }}};
  std::vector<Case> all(std::begin(cases), std::end(cases));
  // The 4k rows in other block shapes (bench/CMakeLists.txt).
#define SOFTMAX_VARIANT(name, T, size)                                                  \
  all.push_back({#name, 32768, 4096, size, [](int64_t r, int64_t c, void *x, void *y) {  \
                   bench::softmax::name(r, c, static_cast<T *>(x), static_cast<T *>(y)); \
                 }});
#include "softmax_variants.inc"
#undef SOFTMAX_VARIANT
  for (auto &c : all) {
    size_t bytes = size_t(c.rows) * c.cols * c.bytes;
    DeviceBuffer<uint8_t> x(bytes), y(bytes);
    x.fillWords(0x3f803f80u);
    double ms = medianMs([&] { c.fn(c.rows, c.cols, (void *)x.ptr(), (void *)y.ptr()); });
    double rate = 2.0 * bytes / ms / 1e6;
    std::printf("%-18s rows=%6lld cols=%6lld | %8.1f us | %6.0f GB/s (%3.0f%% of copy)\n",
                c.name, (long long)c.rows, (long long)c.cols, ms * 1e3, rate,
                100 * rate / copyRate);
  }
}

} // namespace

/// indexer_bwd on ../shared/bench/indexer_bwd_peers.py's inputs: causal
/// windows of `ratio` (S_kv = S / ratio), each query's K slots random rows
/// of its window (-1 past its length), D = 128; H = 64 (DeepSeek-V4, every
/// variant) or 32 (GLM-5, as shipped). Useful TFLOP/s = 6 H D (valid slots).
void benchIndexerBwd(int64_t S, int64_t K, int64_t H = 64, int64_t ratio = 4) {
  const int64_t T = S / ratio, D = 128;
  std::mt19937_64 rng(7);
  std::normal_distribution<float> normal;
  std::vector<bf16> q(S * H * D), kv(T * D);
  std::vector<float> w(S * H), g(S * K);
  std::vector<int32_t> idx(S * K);
  for (bf16 &x : q)
    x = bf16::fromFloat(normal(rng));
  for (bf16 &x : kv)
    x = bf16::fromFloat(normal(rng));
  for (float &x : w)
    x = normal(rng) / std::sqrt(float(H * D));
  for (float &x : g)
    x = normal(rng);
  int64_t valid = 0;
  for (int64_t s = 0; s < S; ++s) {
    int64_t ke = std::min(T, (s + 1) / ratio);
    std::uniform_int_distribution<int64_t> row(0, std::max<int64_t>(ke, 1) - 1);
    for (int64_t j = 0; j < K; ++j) {
      idx[s * K + j] = j < ke ? int32_t(row(rng)) : -1;
      valid += j < ke;
    }
  }
  DeviceBuffer<bf16> dq(q), dkv(kv), ddq(q.size());
  DeviceBuffer<float> dw(w), dg(g), ddw(w.size()), ddkv(kv.size());
  DeviceBuffer<int32_t> didx(idx);
  double useful = 6.0 * H * D * double(valid);
  struct Variant {
    const char *name;
    void (*fn)(minitile::rt::Scalar<int64_t>, minitile::rt::Scalar<int64_t>,
               minitile::rt::Scalar<int64_t>, const bf16 *, const bf16 *, const float *,
               const int32_t *, const float *, bf16 *, float *, float *, CUstream);
  };
  const std::vector<Variant> variants =
      H == 32 ? std::vector<Variant>{{"indexer_bwd H=32", minitile::kernels::indexer_bwd_h32}}
              : std::vector<Variant>{
                    {"indexer_bwd (as shipped)", minitile::kernels::indexer_bwd},
                    {"indexer_bwd stages=2", minitile::kernels::indexer_bwd_s2},
                    {"indexer_bwd stages=4", minitile::kernels::indexer_bwd_s4},
                    {"indexer_bwd 1 block/SM", minitile::kernels::indexer_bwd_b1},
                    {"indexer_bwd producer 24", minitile::kernels::indexer_bwd_p24},
                    {"indexer_bwd (TMA gathers)", minitile::kernels::indexer_bwd_tma}};
  for (const Variant &v : variants) {
    double ms = medianMs([&] {
      ddkv.fillWords(0);
      v.fn(S, T, K, dq.get(), dkv.get(), dw.get(), didx.get(), dg.get(), ddq.get(), ddw.get(),
           ddkv.get(), nullptr);
    });
    std::printf("%-26s S=%6lld S_kv=%6lld K=%5lld | %9.3f ms | %6.0f useful TFLOP/s\n", v.name,
                (long long)S, (long long)T, (long long)K, ms, useful / ms / 1e9);
  }
}

/// minitile-bench [clean|indexer|shapes|topk|gemm|softmax|all|energy|indexer_bwd|indexer_bwd_h32] [S ...]: which kernels,
/// and for the indexer which sequence lengths (S_kv = S / 4); all of them (not
/// energy, which takes a minute) by default.
int main(int argc, char **argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0); // each line out at once
  std::string what = argc > 1 ? argv[1] : "all";
  std::vector<int64_t> lengths;
  for (int i = 2; i < argc; ++i)
    lengths.push_back(std::atoll(argv[i]));
  if (lengths.empty())
    lengths = {4096, 16384, 65536};
  std::string why;
  if (!minitile::rt::available(&why)) {
    std::printf("minitile-bench: no GPU (%s)\n", why.c_str());
    return 0;
  }
  try {
    minitile::rt::ensureContext();
    std::printf("minitile-bench on %s (%d SMs)\n", minitile::rt::deviceName().c_str(),
                minitile::rt::multiprocessorCount());
    double copy = copyGBs(size_t(1) << 30);
    std::printf("device-to-device copy, 1 GiB: %.0f GB/s (read + write)\n", copy);
    struct {
      const char *name;
      CleanFn fn;
    } variants[] = {{"clean_logits (as shipped)", minitile::kernels::clean_logits},
                    {"clean_logits_t32_r4", minitile::kernels::clean_logits_t32_r4},
                    {"clean_logits_t64_r4", minitile::kernels::clean_logits_t64_r4},
                    {"clean_logits_t128_r2", minitile::kernels::clean_logits_t128_r2},
                    {"clean_logits_t256_r1", minitile::kernels::clean_logits_t256_r1}};
    for (auto [S, T] : {std::pair<int64_t, int64_t>{16384, 4096}, {65536, 16384}}) {
      if (what != "clean" && what != "all")
        break;
      // References moving as many bytes as clean_logits writes (causal, ratio 4:
      // about half of S * S_kv floats): a copy of half that (read + write) and
      // a memset of all of it.
      size_t bytes = size_t(S) * T * 2;
      std::printf("S=%lld S_kv=%lld: same-size copy %.0f GB/s, memset %.0f GB/s\n",
                  (long long)S, (long long)T, copyGBs(bytes / 2), memsetGBs(bytes));
      for (auto &v : variants)
        benchCleanLogits(v.name, v.fn, S, T, 4, copy);
    }
    if (what == "indexer" || what == "all") {
      // cuBLAS in this process and harness, beside the peers' do_bench figure,
      // on normal data (the indexer's and the peers') and on uniform data
      // (what this bench compared with before 2026-12-05). Both are also timed in
      // turn with each shape's variants (their ratio to each under the same
      // clock and power; the normal one is the like-for-like reference);
      // MINITILE_BENCH_CUBLAS_TURNS=0 leaves them out of the rounds.
      minitile::bench::CublasGemm gemm;
      std::optional<CublasInputs> normalIn, uniformIn;
      std::vector<Reference> refs;
      if (gemm.available()) {
        normalIn.emplace(8192, true);
        uniformIn.emplace(8192, false);
        std::printf("cuBLAS bf16 GEMM 8192^3 (this harness): %.1f TFLOP/s on normal data, "
                    "%.1f on uniform\n",
                    cublasTflops(gemm, *normalIn), cublasTflops(gemm, *uniformIn));
        const char *turns = std::getenv("MINITILE_BENCH_CUBLAS_TURNS");
        if (!turns || std::strcmp(turns, "0") != 0) {
          refs.push_back({"cuBLAS 8192^3 normal", [&] { normalIn->run(gemm); },
                          normalIn->flop()});
          refs.push_back({"cuBLAS 8192^3 uniform", [&] { uniformIn->run(gemm); },
                          uniformIn->flop()});
        }
      } else {
        std::printf("cuBLAS not available here (%s)\n", gemm.why().c_str());
      }
      for (int64_t S : lengths)
        benchIndexer(S, S / 4, 4, 64, 128, h64d128Variants(), refs);
      benchIndexer(4096, 4096, 1, 64, 128, h64d128Variants(), refs); // the peers' ratio-1 case
    }
    if (what == "shapes" || what == "all") {
      // GLM-5's 32 heads and a head dimension of 256, shipped and persistent.
      for (int64_t S : {int64_t(4096), int64_t(16384)}) {
        benchIndexer(S, S / 4, 4, 32, 128,
                     {{"indexer_fwd H=32", minitile::kernels::indexer_fwd_h32, false},
                      {"persistent H=32", minitile::kernels::indexer_fwd_h32_pers, false},
                      {"H=32 queries=8", minitile::kernels::indexer_fwd_h32_q8, false},
                      {"persistent H=32 queries=8", minitile::kernels::indexer_fwd_h32_pers_q8, false},
                      {"pers H=32 dynamic last", minitile::kernels::indexer_fwd_h32_dyn, false},
                      {"H=32 q8 split4 dyn", minitile::kernels::indexer_fwd_h32_q8s4_dyn, false},
                      {"H=32 q8 coop dyn", minitile::kernels::indexer_fwd_h32_q8_coop_dyn, false}});
        benchIndexer(S, S / 4, 4, 64, 256,
                     {{"indexer_fwd D=256", minitile::kernels::indexer_fwd_d256, false},
                      {"persistent D=256", minitile::kernels::indexer_fwd_d256_pers, false}});
      }
      benchBatched(16384, 4);
    }
    if (what == "batched") {
      // The batched kernel against B single launches, as shipped (both
      // tuned by default), at the batches and lengths the tables cover.
      for (int64_t S : {int64_t(4096), int64_t(16384)})
        for (int64_t B : {int64_t(2), int64_t(4), int64_t(8)})
          benchBatched(S, B);
    }
    if (what == "topk" || what == "all") {
      benchTopkFullRows(copy);
      benchTopkCausal(copy);
      for (auto [S, K] : {std::pair<int64_t, int64_t>{4096, 512}, {16384, 512}, {16384, 1024},
                          {65536, 1024}})
        benchIndexerThenTopk(S, S / 4, K);
    }
    if (what == "indexer_bwd")
      // The given lengths only, where any are (minitile-bench indexer_bwd 16384).
      for (auto [S, K] : {std::pair<int64_t, int64_t>{4096, 512}, {16384, 512}, {16384, 2048},
                          {65536, 1024}})
        if (argc <= 2 || std::find(lengths.begin(), lengths.end(), S) != lengths.end())
          benchIndexerBwd(S, K);
    if (what == "indexer_bwd" || what == "indexer_bwd_h32")
      // GLM-5: 32 heads, K = 2048, S_kv = S.
      for (int64_t S : {4096, 16384})
        if (argc <= 2 || std::find(lengths.begin(), lengths.end(), S) != lengths.end())
          benchIndexerBwd(S, 2048, 32, 1);
    if (what == "energy")
      benchEnergy(lengths);
    if (what == "gemm" || what == "all")
      benchGemm();
    if (what == "softmax" || what == "all")
      benchSoftmax(copy);
  } catch (const minitile::rt::Error &e) {
    std::fprintf(stderr, "minitile-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
