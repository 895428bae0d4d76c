//===- TopkTest.cpp - topk and batched_topk against an exact host reference ===//
//
// The reference sorts each row's entries > -inf (inside the window, where the
// variant takes one) by descending value, equal values by ascending index,
// and takes the first k: torch.topk's index set under that tie rule, then
// masked_fill(score == -inf, -1). Outputs (and guard words around them) are
// poisoned first. A row's first min(k, count) indices must be that set (in
// that order when sorted), the rest -1; scores must be the logits at the
// indices (-inf past them); nothing outside the outputs may be written.
//
// Data: random normal values; a few values with many copies (both zeros
// among them: -0 and +0 are equal); every entry equal; mostly -inf (rows
// with fewer than k entries, and rows of none); some NaN (counted as -inf);
// values alike in their top 22 bits (the value's last bits, then the index,
// decide). Lengths 0 to 70,000, none a
// multiple of a block, and either side of each variant's register capacity
// (threads x regs entries: rows up to it are read once into registers, longer
// ones twice); k in {1, 64, 512, 1024, 2048}; windows random (empty and out
// of range included) or causal; batches of 3.
//
//===----------------------------------------------------------------------===//
#include "GpuTest.h"
#include "batched_topk_sorted.h"
#include "batched_topk_ws.h"
#include "topk.h"
#include "topk_overflow.h"
#include "topk_r2.h"
#include "topk_sorted.h"
#include "topk_t1024.h"
#include "topk_t128r32.h"
#include "topk_t512r8.h"
#include "topk_ws.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

using namespace gputest;
using minitile::rt::DeviceBuffer;

namespace {

/// A compiled topk: what it takes and how to launch it. ks, ke and scores
/// are null where it takes none; B is 1 unless batched.
struct Variant {
  const char *name;
  bool windows, scores, sorted, batched;
  std::function<void(const float *, const int32_t *, const int32_t *, int32_t *, float *,
                     int64_t B, int64_t S, int64_t T, int64_t K)>
      launch;
};

namespace k = minitile::kernels;

const Variant plain{"topk", false, false, false, false,
                    [](auto x, auto, auto, auto i, auto, auto, auto S, auto T, auto K) {
                      k::topk(S, T, K, x, i);
                    }};
const Variant windowed{"topk windows scores", true, true, false, false,
                       [](auto x, auto ks, auto ke, auto i, auto sc, auto, auto S, auto T,
                          auto K) { k::topk_ws(S, T, K, x, ks, ke, i, sc); }};
const Variant sorted{"topk sorted windows scores", true, true, true, false,
                     [](auto x, auto ks, auto ke, auto i, auto sc, auto, auto S, auto T,
                        auto K) { k::topk_sorted(S, T, K, x, ks, ke, i, sc); }};
const Variant overflow{"topk 128 threads, 256 kept keys, windows scores", true, true, false,
                       false, [](auto x, auto ks, auto ke, auto i, auto sc, auto, auto S,
                                 auto T, auto K) { k::topk_overflow(S, T, K, x, ks, ke, i, sc); }};
const Variant wide{"topk 1024 threads scores", false, true, false, false,
                   [](auto x, auto, auto, auto i, auto sc, auto, auto S, auto T, auto K) {
                     k::topk_t1024(S, T, K, x, i, sc);
                   }};
const Variant tiny{"topk 128 threads x 2 entries in registers, windows scores", true, true,
                   false, false,
                   [](auto x, auto ks, auto ke, auto i, auto sc, auto, auto S, auto T,
                      auto K) { k::topk_r2(S, T, K, x, ks, ke, i, sc); }};
const Variant r8{"topk 512 threads x 8 entries in registers, scores", false, true, false,
                 false, [](auto x, auto, auto, auto i, auto sc, auto, auto S, auto T, auto K) {
                   k::topk_t512r8(S, T, K, x, i, sc);
                 }};
const Variant r32{"topk 128 threads x 32 entries in registers, windows", true, false, false,
                  false, [](auto x, auto ks, auto ke, auto i, auto, auto, auto S, auto T,
                            auto K) { k::topk_t128r32(S, T, K, x, ks, ke, i); }};
const Variant batched{"batched_topk windows scores", true, true, false, true,
                      [](auto x, auto ks, auto ke, auto i, auto sc, auto B, auto S, auto T,
                         auto K) { k::batched_topk_ws(S, T, K, B, x, ks, ke, i, sc); }};
const Variant batchedSorted{"batched_topk sorted scores", false, true, true, true,
                            [](auto x, auto, auto, auto i, auto sc, auto B, auto S, auto T,
                               auto K) { k::batched_topk_sorted(S, T, K, B, x, i, sc); }};

enum class Data { normal, fewValues, allEqual, mostlyNegInf, someNaN, closeValues };
enum class Windows { random, causal };

const char *name(Data d) {
  switch (d) {
  case Data::normal: return "normal";
  case Data::fewValues: return "few values";
  case Data::allEqual: return "all equal";
  case Data::mostlyNegInf: return "mostly -inf";
  case Data::someNaN: return "some NaN";
  case Data::closeValues: return "close values";
  }
  return "?";
}

struct Case {
  int64_t B, S, T, K;
  Data data;
  Windows windows = Windows::random;
};

std::string describe(const Variant &v, const Case &c) {
  return std::string(v.name) + ": B=" + std::to_string(c.B) + " S=" + std::to_string(c.S) +
         " S_kv=" + std::to_string(c.T) + " k=" + std::to_string(c.K) + ", " + name(c.data) +
         (v.windows ? (c.windows == Windows::random ? ", random windows" : ", causal windows")
                    : "");
}

std::vector<float> makeLogits(const Case &c, int64_t B) {
  std::vector<float> x(B * c.S * c.T);
  std::normal_distribution<float> normal;
  std::uniform_int_distribution<int> pick(0, 6);
  std::uniform_real_distribution<float> u(0, 1);
  const float few[] = {-2.0f, -1.0f, -0.0f, 0.0f, 0.5f, 1.0f, 3.0f};
  for (int64_t i = 0; i < int64_t(x.size()); ++i) {
    switch (c.data) {
    case Data::normal: x[i] = normal(rng()); break;
    case Data::fewValues: x[i] = few[pick(rng())]; break;
    case Data::allEqual: x[i] = 1.25f; break;
    case Data::mostlyNegInf: x[i] = u(rng()) < 0.85f ? -INFINITY : normal(rng()); break;
    case Data::someNaN:
      x[i] = u(rng()) < 0.1f ? (u(rng()) < 0.5f ? NAN : -NAN) : normal(rng());
      break;
    case Data::closeValues: {
      // +-(1 + m 2^-23), m < 4096: equal in their top 22 bits, many equal.
      uint32_t b = 0x3F800000u + uint32_t(u(rng()) * 4096) % 4096;
      b |= u(rng()) < 0.5f ? 0x80000000u : 0;
      std::memcpy(&x[i], &b, 4);
    } break;
    }
  }
  // Some rows hold no entry > -inf at all.
  for (int64_t r = 3; r < B * c.S; r += 7)
    std::fill_n(x.begin() + r * c.T, c.T, -INFINITY);
  return x;
}

void makeWindows(const Case &c, std::vector<int32_t> &ks, std::vector<int32_t> &ke) {
  ks.assign(c.S, 0);
  ke.assign(c.S, 0);
  std::uniform_int_distribution<int64_t> pos(-3, c.T + 3);
  for (int64_t s = 0; s < c.S; ++s) {
    if (c.windows == Windows::causal) {
      ke[s] = int32_t(std::min<int64_t>(c.T, (s + 1) * c.T / std::max<int64_t>(c.S, 1)));
    } else {
      ks[s] = int32_t(pos(rng()));
      ke[s] = int32_t(pos(rng()));
    }
  }
}

/// The answer for one row: indices of the k largest entries > -inf in
/// [lo, hi), by descending value, equal values by ascending index.
std::vector<int32_t> reference(const float *row, int64_t lo, int64_t hi, int64_t K) {
  std::vector<int32_t> entries;
  for (int64_t t = lo; t < hi; ++t)
    if (row[t] > -INFINITY)
      entries.push_back(int32_t(t));
  auto before = [&](int32_t a, int32_t b) {
    return row[a] > row[b] || (row[a] == row[b] && a < b);
  };
  int64_t n = std::min<int64_t>(K, entries.size());
  std::partial_sort(entries.begin(), entries.begin() + n, entries.end(), before);
  entries.resize(n);
  return entries;
}

void run(const Variant &v, const Case &c) {
  SCOPED_TRACE(describe(v, c));
  const int64_t B = v.batched ? c.B : 1, rows = B * c.S, guard = 64;
  std::vector<float> logits = makeLogits(c, B);
  std::vector<int32_t> ks, ke;
  if (v.windows)
    makeWindows(c, ks, ke);
  DeviceBuffer<float> dLogits(std::max<size_t>(1, logits.size()));
  if (!logits.empty())
    dLogits.upload(logits);
  DeviceBuffer<int32_t> dks(std::max<int64_t>(1, c.S)), dke(std::max<int64_t>(1, c.S));
  if (v.windows && c.S) {
    dks.upload(ks);
    dke.upload(ke);
  }
  DeviceBuffer<int32_t> dIndices(rows * c.K + 2 * guard);
  DeviceBuffer<float> dScores(rows * c.K + 2 * guard);
  dIndices.fillWords(kPoison);
  dScores.fillWords(kPoison);
  v.launch(dLogits.get(), v.windows ? dks.get() : nullptr, v.windows ? dke.get() : nullptr,
           dIndices.get() + guard, v.scores ? dScores.get() + guard : nullptr, B, c.S, c.T, c.K);
  minitile::rt::synchronize();
  std::vector<int32_t> indices = dIndices.download();
  std::vector<float> scores = dScores.download();

  int64_t wrongGuards = 0;
  for (int64_t i = 0; i < int64_t(indices.size()); ++i)
    if (i < guard || i >= guard + rows * c.K)
      wrongGuards += uint32_t(indices[i]) != kPoison || bits(scores[i]) != kPoison;
  EXPECT_EQ(wrongGuards, 0) << "words outside the outputs were written";
  if (!v.scores) {
    EXPECT_TRUE(std::all_of(scores.begin(), scores.end(),
                            [](float f) { return bits(f) == kPoison; }));
  }

  int64_t wrongRows = 0;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t s = r % std::max<int64_t>(c.S, 1);
    int64_t lo = v.windows ? std::clamp<int64_t>(ks[s], 0, c.T) : 0;
    int64_t hi = v.windows ? std::clamp<int64_t>(ke[s], lo, c.T) : c.T;
    const float *row = logits.data() + r * c.T;
    std::vector<int32_t> want = reference(row, lo, hi, c.K);
    const int32_t *got = indices.data() + guard + r * c.K;
    const float *gotScores = scores.data() + guard + r * c.K;
    int64_t n = want.size();
    std::vector<int32_t> head(got, got + n);
    std::string why;
    if (!v.sorted) {
      std::sort(head.begin(), head.end());
      std::sort(want.begin(), want.end());
    }
    if (head != want)
      why = v.sorted ? "the first indices are not the answer in order"
                     : "the first indices are not the answer's set";
    for (int64_t j = n; j < c.K && why.empty(); ++j)
      if (got[j] != -1)
        why = "index " + std::to_string(j) + " past the row's " + std::to_string(n) +
              " entries is " + std::to_string(got[j]) + ", not -1";
    for (int64_t j = 0; j < c.K && why.empty() && v.scores; ++j) {
      bool ok = j < n ? got[j] >= 0 && got[j] < c.T && gotScores[j] == row[got[j]]
                      : bits(gotScores[j]) == kNegInf;
      if (!ok)
        why = "score " + std::to_string(j) + " is " + std::to_string(gotScores[j]);
    }
    if (!why.empty() && wrongRows++ < 3) {
      std::string firstGot, firstWant;
      for (int64_t j = 0; j < std::min<int64_t>(n, 8); ++j) {
        firstGot += std::to_string(got[j]) + " ";
        firstWant += std::to_string(want[j]) + " ";
      }
      ADD_FAILURE() << "row " << r << " (window [" << lo << ", " << hi << "), " << n
                    << " answers): " << why << "; got " << firstGot << "..., want "
                    << firstWant << "...";
    }
  }
  EXPECT_EQ(wrongRows, 0);
}

/// Rows per case: more for short rows, at least 3.
int64_t rowsFor(int64_t T) { return std::clamp<int64_t>(300000 / (T + 1), 3, 67); }

const int64_t kLengths[] = {0,    1,    5,    63,    511,   513,   1025,  2049,
                            4095, 4096, 4097, 4099, 12345, 40961, 69997, 70000};
const int64_t kKs[] = {1, 64, 512, 1024, 2048};

} // namespace

TEST(TopK, EveryKAndLength) {
  for (int64_t K : kKs)
    for (int64_t T : kLengths) {
      run(plain, {1, rowsFor(T), T, K, Data::normal});
      run(windowed, {1, rowsFor(T), T, K, Data::normal, Windows::random});
    }
}

TEST(TopK, ManyEqualValues) {
  for (int64_t K : kKs)
    for (int64_t T : {63, 1025, 4096, 4099, 40961, 70000})
      for (Data d : {Data::fewValues, Data::allEqual}) {
        run(plain, {1, rowsFor(T), T, K, d});
        run(windowed, {1, rowsFor(T), T, K, d, Windows::causal});
      }
}

TEST(TopK, FewerThanKEntries) {
  for (int64_t K : kKs)
    for (int64_t T : {5, 513, 4099, 69997}) {
      run(plain, {1, rowsFor(T), T, K, Data::mostlyNegInf});
      run(windowed, {1, rowsFor(T), T, K, Data::mostlyNegInf, Windows::random});
    }
}

TEST(TopK, NaNCountsAsNegInf) {
  for (int64_t K : kKs)
    for (int64_t T : {63, 4096, 4099, 12345}) {
      run(plain, {1, rowsFor(T), T, K, Data::someNaN});
      run(windowed, {1, rowsFor(T), T, K, Data::someNaN, Windows::causal});
      run(sorted, {1, rowsFor(T), T, K, Data::someNaN, Windows::random});
    }
}

TEST(TopK, ValuesAlikeInTheirTopBits) {
  // The first two digits (22 bits) leave many keys alike: the value's last
  // 10 bits, then index digits, decide.
  for (int64_t K : kKs)
    for (int64_t T : {1025, 4096, 4099, 40961}) {
      run(plain, {1, rowsFor(T), T, K, Data::closeValues});
      run(windowed, {1, rowsFor(T), T, K, Data::closeValues, Windows::causal});
      run(r32, {1, rowsFor(T), T, K, Data::closeValues, Windows::random});
      run(sorted, {1, rowsFor(T), T, K, Data::closeValues, Windows::random});
    }
}

TEST(TopK, Sorted) {
  for (int64_t K : kKs)
    for (int64_t T : {0, 7, 1025, 4096, 4099, 69997})
      for (Data d : {Data::normal, Data::fewValues, Data::allEqual, Data::mostlyNegInf})
        run(sorted, {1, rowsFor(T), T, K, d, Windows::random});
}

TEST(TopK, KeptKeysOverflowTheBuffer) {
  // 256 kept keys: the first digit's bin overflows it at these lengths and
  // the later digits read the row again.
  for (int64_t K : {1, 64, 512, 2048})
    for (int64_t T : {1025, 12345, 70000})
      for (Data d : {Data::normal, Data::fewValues, Data::allEqual})
        run(overflow, {1, rowsFor(T), T, K, d, Windows::causal});
}

TEST(TopK, RowsInRegistersAndBeyond) {
  // 256 entries in registers: rows up to 256 take one read, longer ones two.
  for (int64_t K : {1, 64, 512, 2048})
    for (int64_t T : {5, 255, 256, 257, 513, 4099})
      for (Data d : {Data::normal, Data::fewValues, Data::allEqual, Data::mostlyNegInf}) {
        run(tiny, {1, rowsFor(T), T, K, d, Windows::random});
        run(tiny, {1, rowsFor(T), T, K, d, Windows::causal});
      }
  // 4096 entries in registers on 512 threads and on 128.
  for (int64_t K : kKs)
    for (int64_t T : {1, 513, 2049, 4095, 4096, 4097, 12345})
      for (Data d : {Data::normal, Data::fewValues, Data::allEqual, Data::mostlyNegInf}) {
        run(r8, {1, rowsFor(T), T, K, d});
        run(r32, {1, rowsFor(T), T, K, d, Windows::random});
        run(r32, {1, rowsFor(T), T, K, d, Windows::causal});
      }
}

TEST(TopK, AThousandThreadsPerRow) {
  for (int64_t K : {1, 512, 2048})
    for (int64_t T : {3, 2049, 16384, 16385, 40961})
      for (Data d : {Data::normal, Data::fewValues})
        run(wide, {1, rowsFor(T), T, K, d});
}

TEST(BatchedTopK, Batches) {
  for (int64_t K : {1, 64, 512, 2048})
    for (int64_t T : {0, 513, 4099, 12345})
      for (Data d : {Data::normal, Data::fewValues, Data::mostlyNegInf}) {
        run(batched, {3, rowsFor(T) / 3 + 1, T, K, d, Windows::random});
        run(batchedSorted, {3, rowsFor(T) / 3 + 1, T, K, d});
      }
}

TEST(TopK, ZeroK) {
  run(plain, {1, 5, 100, 0, Data::normal});
  run(windowed, {1, 5, 100, 0, Data::normal});
}
