//===- IndexerBwdTest.cpp - indexer_bwd against an fp64 host reference ----===//
//
// Fresh random inputs each run; dq and dweights poisoned with NaN before
// the launch, dkv filled with random values it must add to. Indices: valid,
// -1, past S_kv, repeated within a query and across queries, rows of all
// -1, K not a multiple of the tile; single and batched (B = 2, 3); 64
// heads (DeepSeek-V4) and 32 (GLM-5: the kernel's 64-row tiles half zero);
// the kv rows gathered by the producer warp's lanes (cp.async, as shipped)
// and by one TMA box a row (cp_async=false).
//
// The reference takes p as the kernel does -- g * weights in f32, rounded
// to bf16 -- and the scores in fp64. A score within f32 rounding of zero
// may have its relu decided either way: its terms widen the tolerance of
// the sums they feed instead of failing them.
//
//===----------------------------------------------------------------------===//
#include "GpuTest.h"
#include "batched_indexer_bwd.h"
#include "batched_indexer_bwd_h32.h"
#include "batched_indexer_bwd_tma.h"
#include "indexer_bwd.h"
#include "indexer_bwd_h32.h"
#include "indexer_bwd_tma.h"

#include <array>
#include <cmath>
#include <vector>

using namespace gputest;
using minitile::rt::bf16;
using minitile::rt::DeviceBuffer;

namespace {

enum class Picks { random, repeated, allNone };

struct Case {
  int64_t S, T, K, B;
  Picks picks;
  int64_t H = 64;
  bool tma = false; // the kernel built with cp_async=false (H = 64)
};

std::string describe(const Case &c) {
  return "H=" + std::to_string(c.H) + " S=" + std::to_string(c.S) + " S_kv=" + std::to_string(c.T) +
         " K=" + std::to_string(c.K) + " B=" + std::to_string(c.B) +
         (c.picks == Picks::random     ? " random indices"
          : c.picks == Picks::repeated ? " few distinct indices"
                                       : " all -1") +
         (c.tma ? " cp_async=false" : "");
}

void check(const Case &c) {
  SCOPED_TRACE(describe(c));
  const int64_t S = c.S, T = c.T, K = c.K, B = c.B, H = c.H, D = 128;
  std::normal_distribution<float> normal;
  std::vector<bf16> q(S * B * H * D), kv(T * B * D);
  std::vector<float> w(S * B * H), g(B * S * K), dkvStart(T * B * D);
  std::vector<int32_t> idx(B * S * K);
  for (bf16 &x : q)
    x = bf16::fromFloat(normal(rng()));
  for (bf16 &x : kv)
    x = bf16::fromFloat(normal(rng()));
  for (float &x : w)
    x = normal(rng());
  for (float &x : g)
    x = normal(rng());
  for (float &x : dkvStart)
    x = normal(rng());
  std::uniform_int_distribution<int> kind(0, 15);
  std::uniform_int_distribution<int32_t> any(0, int32_t(T - 1)), few(0, int32_t(std::min<int64_t>(T, 5) - 1));
  for (size_t i = 0; i < idx.size(); ++i) {
    int k = kind(rng());
    idx[i] = c.picks == Picks::allNone    ? -1
             : k == 0                     ? -1
             : k == 1                     ? int32_t(T + k)  // past S_kv: no row
             : k == 2 && i % K            ? idx[i - 1]      // a repeat within the query
             : c.picks == Picks::repeated ? few(rng())
                                          : any(rng());
  }

  // The reference, with each sum's scale (its terms' magnitudes) and slack
  // (the terms a score near zero may or may not contribute).
  std::vector<double> dq(S * B * H * D, 0), dqScale(dq.size(), 0), dqSlack(dq.size(), 0);
  std::vector<double> dw(S * B * H, 0), dwScale(dw.size(), 0);
  std::vector<double> dkv(dkvStart.begin(), dkvStart.end()), dkvScale(dkv.size(), 0),
      dkvSlack(dkv.size(), 0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t s = 0; s < S; ++s)
      for (int64_t j = 0; j < K; ++j) {
        int64_t t = idx[(b * S + s) * K + j];
        if (t < 0 || t >= T)
          continue;
        float gj = g[(b * S + s) * K + j];
        const bf16 *kr = &kv[(t * B + b) * D];
        for (int64_t h = 0; h < H; ++h) {
          const bf16 *qr = &q[((s * B + b) * H + h) * D];
          double score = 0, mag = 0;
          for (int64_t d = 0; d < D; ++d) {
            double x = double(qr[d].toFloat()) * kr[d].toFloat();
            score += x;
            mag += std::abs(x);
          }
          int64_t wi = (s * B + b) * H + h;
          dw[wi] += gj * std::max(score, 0.0);
          dwScale[wi] += std::abs(gj) * (std::abs(score) + mag);
          double p = bf16::fromFloat(gj * w[wi]).toFloat();
          bool near = std::abs(score) <= 1e-5 * mag;
          double used = score > 0 ? p : 0;
          for (int64_t d = 0; d < D; ++d) {
            double k = kr[d].toFloat(), x = qr[d].toFloat();
            int64_t qi = wi * D + d, ki = (t * B + b) * D + d;
            dq[qi] += used * k;
            dqScale[qi] += std::abs(p * k);
            dkv[ki] += used * x;
            dkvScale[ki] += std::abs(p * x);
            if (near) {
              dqSlack[qi] += std::abs(p * k);
              dkvSlack[ki] += std::abs(p * x);
            }
          }
        }
      }

  DeviceBuffer<bf16> dQ(q), dKv(kv), dDq(q.size());
  DeviceBuffer<float> dW(w), dG(g), dDw(w.size()), dDkv(dkvStart);
  DeviceBuffer<int32_t> dIdx(idx);
  dDq.fillWords(kPoison);
  dDw.fillWords(kPoison);
  auto single = c.tma ? minitile::kernels::indexer_bwd_tma
                 : H == 64 ? minitile::kernels::indexer_bwd
                           : minitile::kernels::indexer_bwd_h32;
  auto batched = c.tma ? minitile::kernels::batched_indexer_bwd_tma
                 : H == 64 ? minitile::kernels::batched_indexer_bwd
                           : minitile::kernels::batched_indexer_bwd_h32;
  if (B == 1)
    single(S, T, K, dQ.get(), dKv.get(), dW.get(), dIdx.get(), dG.get(), dDq.get(), dDw.get(),
           dDkv.get(), nullptr);
  else
    batched(S, T, K, B, dQ.get(), dKv.get(), dW.get(), dIdx.get(), dG.get(), dDq.get(),
            dDw.get(), dDkv.get(), nullptr);
  minitile::rt::synchronize();
  std::vector<bf16> gotDq = dDq.download();
  std::vector<float> gotDw = dDw.download(), gotDkv = dDkv.download();
  int64_t wrong = 0;
  for (size_t i = 0; i < dq.size(); ++i) {
    double got = gotDq[i].toFloat();
    if (!(std::abs(got - dq[i]) <= std::ldexp(std::abs(dq[i]), -8) + 1e-5 * dqScale[i] +
                                       dqSlack[i] + 1e-6) &&
        wrong++ < 5)
      ADD_FAILURE() << "dq[" << i / (B * H * D) << ", " << i / (H * D) % B << ", "
                    << i / D % H << ", " << i % D << "] = " << got << ", want " << dq[i];
  }
  for (size_t i = 0; i < dw.size(); ++i)
    if (!(std::abs(gotDw[i] - dw[i]) <= 1e-5 * dwScale[i] + 1e-6) && wrong++ < 5)
      ADD_FAILURE() << "dweights[" << i / (B * H) << ", " << i / H % B << ", " << i % H
                    << "] = " << gotDw[i] << ", want " << dw[i];
  for (size_t i = 0; i < dkv.size(); ++i)
    if (!(std::abs(gotDkv[i] - dkv[i]) <=
          1e-5 * (dkvScale[i] + std::abs(dkvStart[i])) + dkvSlack[i] + 1e-6) &&
        wrong++ < 5)
      ADD_FAILURE() << "dkv[" << i / (B * D) << ", " << i / D % B << ", " << i % D
                    << "] = " << gotDkv[i] << ", want " << dkv[i];
  EXPECT_EQ(wrong, 0);
}

} // namespace

TEST(IndexerBwd, RaggedQueriesAndIndices) {
  check({300, 1000, 128, 1, Picks::random});
  check({37, 4096, 100, 1, Picks::random});
}

TEST(IndexerBwd, LongRowsOfSelections) {
  check({21, 3000, 512, 1, Picks::random});
  check({9, 5000, 1024, 1, Picks::random});
}

TEST(IndexerBwd, RepeatedIndicesAcrossQueries) { check({200, 64, 192, 1, Picks::repeated}); }

TEST(IndexerBwd, NoIndexSelected) { check({50, 500, 70, 1, Picks::allNone}); }

TEST(IndexerBwd, Batched) {
  check({129, 700, 130, 2, Picks::random});
  check({40, 40, 64, 3, Picks::repeated});
}

// GLM-5's 32 heads, with its K = 2048.
TEST(IndexerBwd, ThirtyTwoHeads) {
  check({13, 4000, 2048, 1, Picks::random, 32});
  check({90, 600, 130, 1, Picks::repeated, 32});
  check({33, 700, 200, 2, Picks::random, 32});
}

// The rows by the TMA, one box a row (the other tests run the shipped
// kernels, whose lanes gather by cp.async): every row and column of each
// tile, rows of none, past S_kv and repeated, and batches.
TEST(IndexerBwd, GatheredByTheTma) {
  check({300, 1000, 128, 1, Picks::random, 64, true});
  check({9, 5000, 1024, 1, Picks::random, 64, true});
  check({200, 64, 192, 1, Picks::repeated, 64, true});
  check({50, 500, 70, 1, Picks::allNone, 64, true});
  check({129, 700, 130, 2, Picks::random, 64, true});
}
