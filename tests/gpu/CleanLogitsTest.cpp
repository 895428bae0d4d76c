//===- CleanLogitsTest.cpp - clean_logits against a host reference -------===//
//
// logits is poisoned first; afterwards every entry outside its row's window
// must be -inf and every entry inside (and every guard word around the
// tensor) must still hold the poison: the kernel writes exactly the masked
// entries and nothing else.
//
//===----------------------------------------------------------------------===//
#include "GpuTest.h"
#include "clean_logits.h"

#include <algorithm>
#include <vector>

using namespace gputest;
using minitile::rt::DeviceBuffer;

namespace {

enum class Windows { causal, random };

struct Case {
  int64_t S, T;
  Windows windows;
  int64_t misalign; // floats by which logits starts past a 16-byte boundary
};

std::string describe(const Case &c) {
  return "S=" + std::to_string(c.S) + " S_kv=" + std::to_string(c.T) +
         (c.windows == Windows::causal ? " causal" : " random") +
         " misalign=" + std::to_string(c.misalign);
}

void makeWindows(const Case &c, std::vector<int32_t> &ks, std::vector<int32_t> &ke) {
  ks.resize(c.S);
  ke.resize(c.S);
  std::uniform_int_distribution<int64_t> pos(-3, c.T + 3);
  for (int64_t s = 0; s < c.S; ++s) {
    if (c.windows == Windows::causal) {
      ks[s] = 0;
      ke[s] = static_cast<int32_t>(std::min<int64_t>((s + 1) / 4, c.T));
    } else {
      // Arbitrary, empty (ke <= ks) and out-of-range windows alike.
      ks[s] = static_cast<int32_t>(pos(rng()));
      ke[s] = static_cast<int32_t>(pos(rng()));
    }
  }
}

void run(const Case &c) {
  SCOPED_TRACE(describe(c));
  std::vector<int32_t> ks, ke;
  makeWindows(c, ks, ke);
  const int64_t guard = 64;
  const int64_t n = c.S * c.T;
  DeviceBuffer<float> buffer(n + 2 * guard + c.misalign);
  buffer.fillWords(kPoison);
  DeviceBuffer<int32_t> dks(ks), dke(ke);
  float *logits = buffer.get() + guard + c.misalign;
  minitile::kernels::clean_logits(c.S, c.T, logits, dks.get(), dke.get());
  minitile::rt::synchronize();

  std::vector<float> out = buffer.download();
  int64_t wrong = 0;
  for (int64_t i = 0; i < guard + c.misalign; ++i)
    wrong += bits(out[i]) != kPoison;
  for (int64_t i = guard + c.misalign + n; i < int64_t(out.size()); ++i)
    wrong += bits(out[i]) != kPoison;
  EXPECT_EQ(wrong, 0) << "words outside logits were written";

  wrong = 0;
  for (int64_t s = 0; s < c.S; ++s) {
    int64_t lo = std::clamp<int64_t>(ks[s], 0, c.T);
    int64_t hi = std::clamp<int64_t>(ke[s], lo, c.T);
    const float *row = out.data() + guard + c.misalign + s * c.T;
    for (int64_t t = 0; t < c.T; ++t) {
      uint32_t want = (t < lo || t >= hi) ? kNegInf : kPoison;
      if (bits(row[t]) != want && wrong++ < 5)
        ADD_FAILURE() << "logits[" << s << ", " << t << "] = " << row[t]
                      << " (bits " << std::hex << bits(row[t]) << ") but the window is ["
                      << std::dec << ks[s] << ", " << ke[s] << ")";
    }
  }
  EXPECT_EQ(wrong, 0);
}

} // namespace

TEST(CleanLogits, AllShapesAndWindows) {
  for (int64_t S : {1, 3, 17, 1000, 4099})
    for (int64_t T : {0, 5, 255, 257, 16385})
      for (Windows w : {Windows::causal, Windows::random})
        run({S, T, w, 0});
}

TEST(CleanLogits, MisalignedBase) {
  for (int64_t misalign : {1, 2, 3})
    for (int64_t T : {5, 255, 257})
      run({17, T, Windows::random, misalign});
}

TEST(CleanLogits, EmptyRowsMaskEverything) {
  const int64_t S = 33, T = 1031;
  std::vector<int32_t> ks(S, 7), ke(S, 7); // ke <= ks: nothing in the window
  DeviceBuffer<float> logits(S * T);
  logits.fillWords(kPoison);
  DeviceBuffer<int32_t> dks(ks), dke(ke);
  minitile::kernels::clean_logits(S, T, logits.get(), dks.get(), dke.get());
  minitile::rt::synchronize();
  std::vector<float> out = logits.download();
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](float f) { return bits(f) == kNegInf; }));
}
