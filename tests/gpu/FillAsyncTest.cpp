//===- FillAsyncTest.cpp - fillAsync() on the GPU, from every issuer -------===//
//
// fill_async_rows (tests/codegen/CodegenKernels.cpp) fills out[r, lo..hi)
// with a constant, the fill issued by thread 0 of a plain kernel, the
// producer's elected thread (bounds prefetched; in a persistent loop around
// a pipelined loop of two groups, the elected thread of the warp that
// issues neither group's copies), its first thread (after a pipelined loop)
// or the first compute thread (bounds the block stored).
// Rows of every length, windows empty, whole, ragged and hanging off either
// end, rows starting off 16-byte boundaries and the tensor's base too: every
// element inside the window holds the value, every other one its poison.
//
//===----------------------------------------------------------------------===//
#include "GpuTest.h"
#include "codegen_fill_async_after.h"
#include "codegen_fill_async_bf16.h"
#include "codegen_fill_async_block.h"
#include "codegen_fill_async_compute.h"
#include "codegen_fill_async_elected.h"
#include "codegen_fill_async_i8.h"
#include "codegen_fill_async_nested.h"

#include <algorithm>
#include <functional>
#include <vector>

using namespace gputest;
using minitile::rt::DeviceBuffer;

namespace {

template <class T> using Launch =
    std::function<void(int64_t, int64_t, T *, const int32_t *, const int32_t *, const float *,
                       float *)>;

/// A generated launcher (which also takes a stream) as a Launch.
template <class T, auto F> Launch<T> launcher() {
  return [](int64_t rows, int64_t n, T *out, const int32_t *lo, const int32_t *hi,
            const float *x, float *y) { F(rows, n, out, lo, hi, x, y, nullptr); };
}

/// Runs `launch` on `rows` rows of `n` elements, the tensor starting `shift`
/// elements into its buffer, and checks every byte of the buffer against
/// `value` inside the windows and the poison byte 0xA5 outside them.
template <class T>
void check(const char *name, const Launch<T> &launch, T value, int64_t rows, int64_t n,
           int64_t shift) {
  SCOPED_TRACE(std::string(name) + " rows=" + std::to_string(rows) + " n=" +
               std::to_string(n) + " shift=" + std::to_string(shift));
  std::uniform_int_distribution<int64_t> any(-5, n + 5);
  std::vector<int32_t> lo(rows), hi(rows);
  for (int64_t r = 0; r < rows; ++r) {
    switch (r % 6) {
    case 0: lo[r] = 0, hi[r] = int32_t(n); break;           // the whole row
    case 1: lo[r] = int32_t(n / 2), hi[r] = int32_t(n / 2); break; // empty
    case 2: lo[r] = int32_t(n), hi[r] = 0; break;           // reversed: empty
    case 3: lo[r] = -7, hi[r] = int32_t(n + 9); break;      // off both ends
    default: lo[r] = int32_t(any(rng())), hi[r] = int32_t(any(rng()));
    }
  }
  std::vector<float> x(rows * 64);
  for (float &e : x)
    e = float(int64_t(rng()() % 2001) - 1000) / 8;
  std::vector<T> poisoned(rows * n + shift);
  std::memset(poisoned.data(), 0xA5, poisoned.size() * sizeof(T));
  DeviceBuffer<T> out(poisoned);
  DeviceBuffer<int32_t> dlo(lo), dhi(hi);
  DeviceBuffer<float> dx(x), y(rows * 64);
  y.fillWords(kPoison);
  launch(rows, n, out.get() + shift, dlo.get(), dhi.get(), dx.get(), y.get());
  minitile::rt::synchronize();
  EXPECT_EQ(y.download(), x);
  std::vector<T> got = out.download();
  int64_t wrong = 0;
  for (int64_t i = 0; i < int64_t(got.size()); ++i) {
    T want = poisoned[i];
    if (i >= shift) {
      int64_t r = (i - shift) / n, c = (i - shift) % n;
      int64_t a = std::clamp<int64_t>(lo[r], 0, n), e = std::clamp<int64_t>(hi[r], a, n);
      if (c >= a && c < e)
        want = value;
    }
    if (std::memcmp(&got[i], &want, sizeof(T)) != 0 && ++wrong <= 5)
      ADD_FAILURE() << "element " << i << " (row " << (i - shift) / std::max<int64_t>(n, 1)
                    << ") is wrong";
  }
  EXPECT_EQ(wrong, 0);
}

template <class T>
void everyShape(const char *name, const Launch<T> &launch, T value) {
  for (int64_t n : {1, 5, 64, 1000, 4099, 20000})
    for (int64_t shift : {0, 1})
      check<T>(name, launch, value, 37, n, shift);
}

} // namespace

TEST(FillAsync, EveryIssuerF32) {
  float negInf;
  uint32_t u = kNegInf;
  std::memcpy(&negInf, &u, 4);
  everyShape<float>("block", launcher<float, minitile::kernels::codegen_fill_async_block>(), negInf);
  everyShape<float>("elected", launcher<float, minitile::kernels::codegen_fill_async_elected>(),
                    negInf);
  everyShape<float>("after", launcher<float, minitile::kernels::codegen_fill_async_after>(), negInf);
  everyShape<float>("compute", launcher<float, minitile::kernels::codegen_fill_async_compute>(),
                    negInf);
  everyShape<float>("nested", launcher<float, minitile::kernels::codegen_fill_async_nested>(),
                    negInf);
}

TEST(FillAsync, NarrowElements) {
  using minitile::rt::bf16;
  everyShape<bf16>("bf16, elected", launcher<bf16, minitile::kernels::codegen_fill_async_bf16>(),
                   bf16{0xff80});
  everyShape<int8_t>("i8, block", launcher<int8_t, minitile::kernels::codegen_fill_async_i8>(),
                     int8_t(7));
}
