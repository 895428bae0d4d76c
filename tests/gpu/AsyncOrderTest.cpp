//===- AsyncOrderTest.cpp - no shared tile rewritten under a running wgmma ===//
//
// The async_operands kernels (tests/codegen/CodegenKernels.cpp): a K loop of
// gemms whose accumulator takes each form a kernel writes (carried, scaled,
// summed, fresh, selected), in pipelined loops whose producer refills the
// stages as they are released, in serial loops, with a's tile written by the
// threads themselves or copied. A stage released, or a tile overwritten,
// while the tensor cores still read it -- or a thread's stores not fenced
// for the async proxy -- gives wrong sums under timing luck: each variant
// runs a grid of several waves many times against an fp64 host reference
// (docs/ASYNC.md).
//
//===----------------------------------------------------------------------===//
#include "GpuTest.h"

#include "codegen_async_p_f0_s1.h"
#include "codegen_async_p_f0_s2.h"
#include "codegen_async_p_f1_s1.h"
#include "codegen_async_p_f1_s2.h"
#include "codegen_async_p_f1_s2_staged.h"
#include "codegen_async_p_f1_s4.h"
#include "codegen_async_p_f2_s2.h"
#include "codegen_async_p_f3_s2.h"
#include "codegen_async_p_f4_s3.h"
#include "codegen_async_s_f0.h"
#include "codegen_async_s_f1.h"
#include "codegen_async_s_f1_staged.h"
#include "codegen_async_s_f3_staged.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

using namespace gputest;
using minitile::rt::DeviceBuffer;

namespace {

using bf16 = minitile::rt::bf16;
using Fn = void (*)(minitile::rt::Scalar<int64_t>, minitile::rt::Scalar<int64_t>,
                    minitile::rt::Scalar<float>, const bf16 *, const bf16 *, float *, CUstream);

constexpr int64_t kN = 256;

/// acc before tile kt's product, as `form` takes it (see AsyncOperands).
double before(int form, int64_t kt, double acc, double alpha) {
  switch (form) {
  case 1: return alpha * acc;
  case 2: return acc + alpha;
  case 4: return kt % 2 == 1 ? alpha * acc : acc;
  default: return acc;
  }
}

/// The fp64 reference of c (m x kN) and a bound on each entry's rounding:
/// the same recurrence on magnitudes.
void reference(int form, double alpha, int64_t m, int64_t k, const std::vector<bf16> &a,
               const std::vector<bf16> &b, std::vector<double> &want,
               std::vector<double> &scale) {
  want.assign(m * kN, 0);
  scale.assign(m * kN, 0);
  std::vector<float> af(a.size()), bf(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    af[i] = a[i].toFloat();
  for (size_t i = 0; i < b.size(); ++i)
    bf[i] = b[i].toFloat();
  auto rows = [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t j = 0; j < kN; ++j) {
        double acc = 0, mag = 0;
        for (int64_t kt = 0; kt < k / 64; ++kt) {
          acc = before(form, kt, acc, alpha);
          mag = std::fabs(before(form, kt, mag, std::fabs(alpha)));
          double sum = 0, abs = 0;
          for (int64_t e = kt * 64; e < kt * 64 + 64; ++e) {
            double p = double(af[r * k + e]) * bf[j * k + e];
            sum += p;
            abs += std::fabs(p);
          }
          acc += sum;
          mag += abs;
        }
        want[r * kN + j] = acc;
        scale[r * kN + j] = mag;
      }
  };
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  int64_t per = (m + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back(rows, std::min<int64_t>(m, t * per), std::min<int64_t>(m, (t + 1) * per));
  for (std::thread &t : pool)
    t.join();
}

} // namespace

TEST(AsyncOrder, NoTileRewrittenWhileTheTensorCoresReadIt) {
  struct {
    const char *name;
    Fn fn;
    int form;
  } variants[] = {
      {"pipelined, carried, 2 stages", minitile::kernels::codegen_async_p_f0_s2, 0},
      {"pipelined, carried, 1 stage", minitile::kernels::codegen_async_p_f0_s1, 0},
      {"pipelined, scaled, 2 stages", minitile::kernels::codegen_async_p_f1_s2, 1},
      {"pipelined, scaled, 1 stage", minitile::kernels::codegen_async_p_f1_s1, 1},
      {"pipelined, scaled, 4 stages", minitile::kernels::codegen_async_p_f1_s4, 1},
      {"pipelined, scaled, 2 stages, a staged by the threads",
       minitile::kernels::codegen_async_p_f1_s2_staged, 1},
      {"pipelined, summed, 2 stages", minitile::kernels::codegen_async_p_f2_s2, 2},
      {"pipelined, fresh, 2 stages", minitile::kernels::codegen_async_p_f3_s2, 3},
      {"pipelined, selected, 3 stages", minitile::kernels::codegen_async_p_f4_s3, 4},
      {"serial, carried", minitile::kernels::codegen_async_s_f0, 0},
      {"serial, scaled", minitile::kernels::codegen_async_s_f1, 1},
      {"serial, scaled, a staged by the threads", minitile::kernels::codegen_async_s_f1_staged, 1},
      {"serial, fresh, a staged by the threads", minitile::kernels::codegen_async_s_f3_staged, 3}};
  std::uniform_real_distribution<float> d(-1, 1);
  std::uniform_real_distribution<float> da(0.5f, 1.0f);
  // (m, k, launches): empty, one tile, ragged; then several waves of blocks
  // with many tiles each, launched again and again -- where a race shows.
  struct Shape {
    int64_t m, k;
    int launches;
  } shapes[] = {{0, 64, 1}, {1, 64, 1}, {100, 192, 1}, {8500, 64 * 24, 8}};
  for (auto &v : variants)
    for (const Shape &s : shapes) {
      SCOPED_TRACE(std::string(v.name) + " m=" + std::to_string(s.m) +
                   " k=" + std::to_string(s.k));
      std::vector<bf16> a(std::max<int64_t>(s.m, 1) * s.k), b(kN * s.k);
      for (bf16 &x : a)
        x = bf16::fromFloat(d(rng()));
      for (bf16 &x : b)
        x = bf16::fromFloat(d(rng()));
      float alpha = v.form == 2 ? 0.25f * d(rng()) : da(rng());
      std::vector<double> want, scale;
      reference(v.form, alpha, s.m, s.k, a, b, want, scale);
      DeviceBuffer<bf16> dA(a), dB(b);
      DeviceBuffer<float> c(std::max<int64_t>(s.m, 1) * kN + 64);
      int64_t wrong = 0;
      for (int launch = 0; launch < s.launches && !wrong; ++launch) {
        c.fillWords(kPoison);
        v.fn(s.m, s.k, alpha, dA.get(), dB.get(), c.get(), nullptr);
        minitile::rt::synchronize();
        std::vector<float> got = c.download();
        for (int64_t e = 0; e < s.m * kN; ++e) {
          double tol = 1e-4 * scale[e] + 1e-5;
          if (!(std::fabs(got[e] - want[e]) <= tol) && wrong++ < 5)
            ADD_FAILURE() << "launch " << launch << ": c[" << e / kN << ", " << e % kN
                          << "] = " << got[e] << ", want " << want[e] << " (within " << tol
                          << ")";
        }
        for (size_t e = size_t(s.m * kN); e < got.size(); ++e)
          if (bits(got[e]) != kPoison && wrong++ < 5)
            ADD_FAILURE() << "c's element " << e << " (past the rows) written: " << got[e];
      }
      EXPECT_EQ(wrong, 0);
    }
}
