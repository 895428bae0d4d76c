//===- IndexerTest.cpp - indexer_fwd against an fp64 host reference -------===//
//
// Fresh random bf16 q and kv, weights of both signs, windows causal (ratio 1
// and 4), random, empty and reaching past S_kv; logits poisoned first. Window
// entries must match the fp64 reference (error norm <= 1e-5 of the logits' plus
// 1e-6 of the terms' magnitude, for windows whose logits cancel),
// every other entry must be exactly -inf, nothing may be NaN. The unfused
// kernel must leave entries outside the windows untouched, clean_logits then
// completes them.
//
//===----------------------------------------------------------------------===//
#include "GpuTest.h"
#include "clean_logits.h"
#include "indexer_kernels.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <thread>
#include <vector>

using namespace gputest;
using minitile::rt::bf16;
using minitile::rt::DeviceBuffer;

namespace {

enum class Windows { causal1, causal4, random, empty, pastEnd };

const char *name(Windows w) {
  switch (w) {
  case Windows::causal1: return "causal ratio 1";
  case Windows::causal4: return "causal ratio 4";
  case Windows::random: return "random";
  case Windows::empty: return "empty";
  case Windows::pastEnd: return "past S_kv";
  }
  return "?";
}

void makeWindows(Windows w, int64_t S, int64_t T, std::vector<int32_t> &ks,
                 std::vector<int32_t> &ke) {
  ks.assign(S, 0);
  ke.assign(S, 0);
  std::uniform_int_distribution<int64_t> pos(-2, T + 2);
  for (int64_t s = 0; s < S; ++s) {
    switch (w) {
    case Windows::causal1: ke[s] = int32_t(std::min<int64_t>(s + 1, T)); break;
    case Windows::causal4: ke[s] = int32_t(std::min<int64_t>((s + 1) / 4, T)); break;
    case Windows::random:
      ks[s] = int32_t(pos(rng()));
      ke[s] = int32_t(pos(rng()));
      break;
    case Windows::empty:
      ks[s] = int32_t(pos(rng()));
      ke[s] = ks[s] - int32_t(s % 3);
      break;
    case Windows::pastEnd:
      ks[s] = int32_t(T / 2);
      ke[s] = int32_t(T + 5 + s);
      break;
    }
  }
}

/// Inputs of one problem, on the host.
struct Problem {
  int64_t S, T, B, H, D;
  std::vector<bf16> q, kv; // [S, B, H, D], [T, B, D]
  std::vector<float> w;    // [S, B, H]
  std::vector<int32_t> ks, ke;

  Problem(int64_t S, int64_t T, int64_t B, int64_t H, int64_t D, Windows windows)
      : S(S), T(T), B(B), H(H), D(D) {
    std::normal_distribution<float> normal;
    q.resize(S * B * H * D);
    kv.resize(T * B * D);
    w.resize(S * B * H);
    for (bf16 &x : q)
      x = bf16::fromFloat(normal(rng()));
    for (bf16 &x : kv)
      x = bf16::fromFloat(normal(rng()));
    float scale = 1.0f / std::sqrt(float(H * D));
    for (float &x : w)
      x = normal(rng()) * scale; // both signs
    makeWindows(windows, S, T, ks, ke);
  }

  bool inWindow(int64_t s, int64_t t) const { return t >= ks[s] && t < ke[s]; }

  /// logits[b, s, t] in fp64, and the scale of its rounding: sum_h sum_d
  /// |q k| |w|, which does not cancel the way the logit can (to near 0 over
  /// a window of one entry, where an error relative to the logit alone means
  /// nothing).
  struct Logit {
    double value = 0, magnitude = 0;
  };
  Logit reference(int64_t b, int64_t s, int64_t t) const {
    Logit r;
    for (int64_t h = 0; h < H; ++h) {
      const bf16 *qr = &q[((s * B + b) * H + h) * D];
      const bf16 *kr = &kv[(t * B + b) * D];
      double dot = 0, abs = 0;
      for (int64_t d = 0; d < D; ++d) {
        double term = double(qr[d].toFloat()) * kr[d].toFloat();
        dot += term;
        abs += std::abs(term);
      }
      double wh = w[(s * B + b) * H + h];
      r.value += std::max(dot, 0.0) * wh;
      r.magnitude += abs * std::abs(wh);
    }
    return r;
  }
};

/// Rows the check compares with the reference: all of them when that is
/// cheap, else a random sample with the first and the last.
std::vector<int64_t> rowsToCheck(const Problem &p) {
  std::vector<int64_t> rows;
  double work = double(p.S) * p.T * p.B * p.H * p.D;
  if (work <= 3e9) {
    for (int64_t s = 0; s < p.S; ++s)
      rows.push_back(s);
    return rows;
  }
  std::uniform_int_distribution<int64_t> pick(0, p.S - 1);
  rows = {0, p.S - 1};
  while (rows.size() < 48)
    rows.push_back(pick(rng()));
  return rows;
}

/// Checks logits [B, S, T] of a fused run (or an unfused one followed by
/// clean_logits): window entries near the reference, others -inf.
void check(const Problem &p, const std::vector<float> &out, bool windowOnly) {
  std::vector<int64_t> rows = rowsToCheck(p);
  int64_t wrongOutside = 0, nan = 0;
  for (int64_t b = 0; b < p.B; ++b)
    for (int64_t s = 0; s < p.S; ++s)
      for (int64_t t = 0; t < p.T; ++t) {
        float v = out[(b * p.S + s) * p.T + t];
        uint32_t u = bits(v);
        if (!p.inWindow(s, t)) {
          uint32_t want = windowOnly ? kPoison : kNegInf;
          if (u != want && wrongOutside++ < 3)
            ADD_FAILURE() << "logits[" << b << ", " << s << ", " << t << "] outside ["
                          << p.ks[s] << ", " << p.ke[s] << ") holds " << v;
        } else if (std::isnan(v) && nan++ < 3) {
          ADD_FAILURE() << "logits[" << b << ", " << s << ", " << t << "] is NaN (unwritten?)";
        }
      }
  EXPECT_EQ(wrongOutside, 0);
  EXPECT_EQ(nan, 0);

  // fp64 reference on the rows, in parallel.
  unsigned workers = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<double> err(workers), norm(workers), scale(workers);
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < workers; ++k)
    pool.emplace_back([&, k] {
      for (size_t i = k; i < rows.size(); i += workers)
        for (int64_t b = 0; b < p.B; ++b)
          for (int64_t t = std::max<int64_t>(0, p.ks[rows[i]]);
               t < std::min<int64_t>(p.T, p.ke[rows[i]]); ++t) {
            int64_t s = rows[i];
            auto [ref, m] = p.reference(b, s, t);
            double got = out[(b * p.S + s) * p.T + t];
            err[k] += (got - ref) * (got - ref);
            norm[k] += ref * ref;
            scale[k] += m * m;
          }
    });
  for (std::thread &t : pool)
    t.join();
  double e = 0, n = 0, m = 0;
  for (unsigned k = 0; k < workers; ++k) {
    e += err[k];
    n += norm[k];
    m += scale[k];
  }
  // Relative to the logits (1e-5), plus 1e-6 of the terms' magnitude, for
  // windows so small that their logits cancel towards 0 (one entry of
  // S=1 S_kv=255 measured 6.3e-5 relative to its logit alone).
  if (n > 0) {
    EXPECT_LE(std::sqrt(e), 1e-5 * std::sqrt(n) + 1e-6 * std::sqrt(m))
        << "error of the window entries: " << std::sqrt(e / n) << " of the logits, "
        << std::sqrt(e / m) << " of the terms' magnitude";
  }
}

/// Runs `launch` on the problem and returns logits [B, S, T].
std::vector<float> run(const Problem &p,
                       const std::function<void(const bf16 *, const bf16 *, const float *,
                                                const int32_t *, const int32_t *, float *)> &launch) {
  DeviceBuffer<bf16> q(p.q), kv(p.kv);
  DeviceBuffer<float> w(p.w);
  DeviceBuffer<int32_t> ks(p.ks), ke(p.ke);
  DeviceBuffer<float> logits(std::max<int64_t>(1, p.B * p.S * p.T));
  logits.fillWords(kPoison);
  launch(q.get(), kv.get(), w.get(), ks.get(), ke.get(), logits.get());
  minitile::rt::synchronize();
  std::vector<float> out = logits.download();
  out.resize(p.B * p.S * p.T);
  return out;
}

std::string describe(const Problem &p, Windows w) {
  return "S=" + std::to_string(p.S) + " S_kv=" + std::to_string(p.T) + " B=" +
         std::to_string(p.B) + " H=" + std::to_string(p.H) + " D=" + std::to_string(p.D) +
         " windows " + name(w);
}

} // namespace

TEST(IndexerFwd, ShapesAndWindows) {
  for (int64_t S : {1, 2, 3, 17, 1000, 4099})
    for (int64_t T : {0, 1, 255, 257, 1025})
      for (Windows w : {Windows::causal1, Windows::causal4, Windows::random, Windows::empty,
                        Windows::pastEnd}) {
        Problem p(S, T, 1, 64, 128, w);
        SCOPED_TRACE(describe(p, w));
        check(p, run(p, [&](auto q, auto kv, auto wt, auto ks, auto ke, float *out) {
                minitile::kernels::indexer_fwd(S, T, q, kv, wt, ks, ke, out);
              }), false);
      }
}

namespace {

using PersistentLaunch = decltype(&minitile::kernels::indexer_fwd_persistent_h64_d128);

/// Each launcher on ragged sizes, with windows of every kind.
void checkPersistent(std::initializer_list<PersistentLaunch> launchers) {
  for (auto launch : launchers)
    for (int64_t S : {1, 3, 17, 1000, 4099})
      for (int64_t T : {0, 257, 1025})
        for (Windows w : {Windows::causal1, Windows::causal4, Windows::random, Windows::empty}) {
          Problem p(S, T, 1, 64, 128, w);
          SCOPED_TRACE(describe(p, w));
          check(p, run(p, [&](auto q, auto kv, auto wt, auto ks, auto ke, float *out) {
                  launch(S, T, q, kv, wt, ks, ke, out, nullptr);
                }), false);
        }
}

} // namespace

TEST(IndexerFwd, PersistentShapesAndWindows) {
  // One block per multiprocessor, each walking many query blocks (S = 4099:
  // 2050 of them), the longest causal windows first.
  // Two queries a block (the default at 64 heads) and four (256 columns);
  // as many KV stages as warpgroups (2 and 3), which hung when the
  // warpgroups took the tiles of each item afresh; three item buffers (the
  // producer fetching an item's tiles before the previous item's KV tiles);
  // the zigzag order (every second round of blocks reversed).
  checkPersistent({&minitile::kernels::indexer_fwd_persistent_h64_d128,
                   &minitile::kernels::indexer_fwd_wide_persistent_h64_d128,
                   &minitile::kernels::indexer_fwd_persistent_s2w2_h64_d128,
                   &minitile::kernels::indexer_fwd_persistent_s3w3_h64_d128,
                   &minitile::kernels::indexer_fwd_persistent_b3_h64_d128,
                   &minitile::kernels::indexer_fwd_persistent_b3w2_h64_d128,
                   &minitile::kernels::indexer_fwd_persistent_zigzag_h64_d128});
}

TEST(IndexerFwd, PersistentOverlappedShapesAndWindows) {
  // Two groups each starting its next gemm before this tile's epilogue,
  // releasing each stage once read: three stages a group and two (the H200
  // tune table's kernel at S = 16384 and 65536).
  checkPersistent({&minitile::kernels::indexer_fwd_overlap_persistent_h64_d128,
                   &minitile::kernels::indexer_fwd_overlap_s4_persistent_h64_d128});
}

TEST(IndexerFwd, ContinuousShapesAndWindows) {
  // Each group's KV tiles of one item and the next one overlapped stream:
  // longest first; zigzag with three item buffers; one group (every tile of
  // every item its own); rounds of three copies (zigzag) and four.
  checkPersistent({&minitile::kernels::indexer_fwd_continuous_h64_d128,
                   &minitile::kernels::indexer_fwd_continuous_zz_h64_d128,
                   &minitile::kernels::indexer_fwd_continuous_one_h64_d128,
                   &minitile::kernels::indexer_fwd_continuous_s6_h64_d128,
                   &minitile::kernels::indexer_fwd_continuous_s8_h64_d128});
}

TEST(IndexerFwd, TwoBlocksPerMultiprocessor) {
  // blocks_per_sm=2: each block half the shared memory and registers, the
  // compute warpgroup's setmaxnreg from its block's share; one item a
  // block, and persistent (a grid of twice the multiprocessors).
  checkPersistent({&minitile::kernels::indexer_fwd_two_per_sm_h64_d128,
                   &minitile::kernels::indexer_fwd_two_per_sm_persistent_h64_d128});
}

TEST(IndexerFwd, SplitShapesAndWindows) {
  // A gemm a query (split=true): each warpgroup waits for the first query's
  // gemm while the second's runs, then for the second; the stage is
  // released once both are done. Persistent, three groups; then overlapped
  // part by part: the next tile's first gemm before this tile's second
  // query's code (the stage released once its second gemm is done), three
  // groups and two; four queries a block on two groups, the weights read
  // from shared memory at every tile. (One item a block, two groups not
  // overlapped and H = 32's four gemms a tile run in EveryHeadsAndDim's
  // smaller cases.)
  checkPersistent({&minitile::kernels::indexer_fwd_split_persistent_h64_d128,
                   &minitile::kernels::indexer_fwd_split_ov_persistent_h64_d128,
                   &minitile::kernels::indexer_fwd_split_ov_w2_persistent_h64_d128,
                   &minitile::kernels::indexer_fwd_q4_split_ov_persistent_h64_d128});
}

TEST(IndexerFwd, DynamicShapesAndWindows) {
  // Query blocks handed out at run time (dynamic=true): each block's next
  // when its producer has a buffer for it, from the launch's work counter;
  // two item buffers and three (the producer claiming an item ahead);
  // overlapped two groups; split and overlapped three; continuous (a loop
  // per item under a queue); four queries a block split and overlapped on
  // two groups. The shapes run one after another on one
  // stream, so each launch starts from the counter the one before left.
  checkPersistent({&minitile::kernels::indexer_fwd_dynamic_h64_d128,
                   &minitile::kernels::indexer_fwd_dynamic_b3_h64_d128,
                   &minitile::kernels::indexer_fwd_dynamic_ov_h64_d128,
                   &minitile::kernels::indexer_fwd_dynamic_split_ov_h64_d128,
                   &minitile::kernels::indexer_fwd_dynamic_continuous_h64_d128,
                   &minitile::kernels::indexer_fwd_dynamic_q4_split_ov_h64_d128});
}

TEST(IndexerFwd, FourQueryItemsShapesAndWindows) {
  // Four queries an item as two gemms of two queries' width
  // (split_queries=2), dynamic, longest first: two groups taking whole
  // tiles, the weights in registers and read from shared memory at each
  // tile, and in registers with the producer warps at 24 registers (the
  // compute threads at 240: the tune table's pick at every shape); and
  // cooperative, both groups on every tile, a part each, overlapped.
  checkPersistent({&minitile::kernels::indexer_fwd_q4_split2_h64_d128,
                   &minitile::kernels::indexer_fwd_q4_split2_rw_h64_d128,
                   &minitile::kernels::indexer_fwd_q4_split2_p24_h64_d128,
                   &minitile::kernels::indexer_fwd_q4_coop_ov_h64_d128});
}

TEST(IndexerFwd, TunedByShape) {
  // A launcher built from a table with lines for two shapes
  // (tests/gpu/indexer_fwd.dispatch.txt): short sequences run the
  // non-persistent kernel, long ones the persistent one.
  for (int64_t S : {1, 3, 17, 1000, 4099})
    for (int64_t T : {0, 257, 1025})
      for (Windows w : {Windows::causal4, Windows::random}) {
        Problem p(S, T, 1, 64, 128, w);
        SCOPED_TRACE(describe(p, w));
        check(p, run(p, [&](auto q, auto kv, auto wt, auto ks, auto ke, float *out) {
                minitile::kernels::indexer_fwd_by_shape(S, T, q, kv, wt, ks, ke, out);
              }), false);
      }
}

TEST(IndexerFwd, UnfusedThenCleanLogits) {
  for (auto [S, T] : {std::pair<int64_t, int64_t>{17, 257}, {1000, 1025}, {3, 0}})
    for (Windows w : {Windows::causal4, Windows::random}) {
      Problem p(S, T, 1, 64, 128, w);
      SCOPED_TRACE(describe(p, w));
      DeviceBuffer<int32_t> ks(p.ks), ke(p.ke);
      std::vector<float> windowOnly = run(p, [&](auto q, auto kv, auto wt, auto k0, auto k1, float *out) {
        minitile::kernels::indexer_fwd_unfused(S, T, q, kv, wt, k0, k1, out);
      });
      check(p, windowOnly, /*windowOnly=*/true);
      std::vector<float> cleaned = run(p, [&](auto q, auto kv, auto wt, auto k0, auto k1, float *out) {
        minitile::kernels::indexer_fwd_unfused(S, T, q, kv, wt, k0, k1, out);
        minitile::kernels::clean_logits(S, T, out, k0, k1);
      });
      check(p, cleaned, false);
    }
}

TEST(IndexerFwd, EveryHeadsAndDim) {
  for (const IndexerVariant &v : indexerVariants())
    for (auto [S, T] : {std::pair<int64_t, int64_t>{3, 257}, {67, 300}})
      for (Windows w : {Windows::causal1, Windows::random}) {
        Problem p(S, T, 1, v.heads, v.dim, w);
        SCOPED_TRACE(describe(p, w));
        check(p, run(p, [&](auto q, auto kv, auto wt, auto ks, auto ke, float *out) {
                v.launch(S, T, q, kv, wt, ks, ke, out, nullptr);
              }), false);
      }
}

TEST(BatchedIndexerFwd, BatchesAndShapes) {
  for (const BatchedVariant &v : batchedVariants())
    for (int64_t B : {1, 3})
      for (auto [S, T] : {std::pair<int64_t, int64_t>{17, 257}, {1000, 1025}, {2, 0}})
        for (Windows w : {Windows::causal4, Windows::random, Windows::pastEnd}) {
          Problem p(S, T, B, v.heads, v.dim, w);
          SCOPED_TRACE(describe(p, w));
          check(p, run(p, [&](auto q, auto kv, auto wt, auto ks, auto ke, float *out) {
                  v.launch(S, T, B, q, kv, wt, ks, ke, out, nullptr);
                }), false);
        }
}
