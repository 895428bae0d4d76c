//===- FragmentCodegenTest.cpp - fragment code generation on the GPU ------===//
//
// The small kernels of tests/codegen/ against host references: whole-row
// vector stores (aligned tensors) and their element-by-element fallback
// (a tensor one float off 16-byte alignment, ragged row counts), float
// min/max (NaN kept, and dropped by minNum/maxNum), contraction on and off,
// a reduceSum accumulating in place, a box of a shared tile read as a
// fragment, which block takes which item of a persistent kernel, and
// cooperative pipelined loops (every group every tile, the gemms dealt out),
// gemms whose B is stored [K, N] (read MN-major by the tensor cores), a
// gemm's result feeding the next gemm's A from registers (attention's P . V)
// or through a shared tile, fragments stored into shared tiles that a
// gemm reads, rows gathered by an index tensor, and fragments added into
// global rows (red.global.add).
//
//===----------------------------------------------------------------------===//
#include "GpuTest.h"
#include "codegen_minmax.h"
#include "codegen_minmax_num.h"
#include "codegen_mul_add.h"
#include "codegen_mul_add_exact.h"
#include "codegen_relu_dot.h"
#include "codegen_shared_box.h"
#include "codegen_small_tiles.h"
#include "codegen_small_tiles_floats.h"
#include "codegen_small_tiles_ints.h"
#include "codegen_small_tiles_rows2.h"
#include "codegen_small_tiles_rows2_aligned.h"
#include "codegen_small_tiles_sync.h"
#include "codegen_work_dynamic.h"
#include "codegen_work_dynamic_b3.h"
#include "codegen_work_dynamic_last_first.h"
#include "codegen_work_dynamic_sync.h"
#include "codegen_work_last_first.h"
#include "codegen_work_linear.h"
#include "codegen_work_zigzag.h"
#include "codegen_work_zigzag_sync.h"
#include "codegen_coop_g2_p2_s1.h"
#include "codegen_coop_g2_p2_s3.h"
#include "codegen_coop_g2_p2_s4_ov.h"
#include "codegen_coop_g2_p4_s2_ov.h"
#include "codegen_coop_g3_p3_s2.h"
#include "codegen_coop_g3_p6_s4_ov.h"
#include "codegen_turns_g2_p2_s4.h"
#include "codegen_gemm_kn_n128.h"
#include "codegen_gemm_kn_n256_wg2.h"
#include "codegen_gemm_kn_n64_s1.h"
#include "codegen_gemm_kn_serial.h"
#include "codegen_gemm_kn_serial_n256_wg2.h"
#include "codegen_attn_pv_one.h"
#include "codegen_attn_pv_one_vt.h"
#include "codegen_attn_pv_pipe.h"
#include "codegen_attn_pv_pipe_s1.h"
#include "codegen_attn_pv_pipe_wg2_n128.h"
#include "codegen_attn_pv_serial.h"
#include "codegen_attn_pv_serial_vt_wg2.h"
#include "codegen_attn_pv_smem_one.h"
#include "codegen_attn_pv_smem_pipe.h"
#include "codegen_attn_pv_smem_serial.h"
#include "codegen_attn_pv_smem_serial_wg2.h"
#include "codegen_store_shared_a.h"
#include "codegen_store_shared_a_loop.h"
#include "codegen_store_shared_a_loop_wg2.h"
#include "codegen_store_shared_b_loop_wg2.h"
#include "codegen_store_shared_b_wg2.h"
#include "codegen_store_shared_t_one.h"
#include "codegen_store_shared_t_pipe.h"
#include "codegen_store_shared_t_serial.h"
#include "codegen_add_rows_gemm.h"
#include "codegen_add_rows_x_c64.h"
#include "codegen_gather_one_c64.h"
#include "codegen_gather_pipe.h"
#include "codegen_gather_pipe_s3_c64.h"
#include "codegen_gather_serial.h"

#include <algorithm>
#include <array>
#include <limits>
#include <cmath>
#include <functional>
#include <thread>
#include <vector>

using namespace gputest;
using minitile::rt::DeviceBuffer;

namespace {

/// Adds to `wrong` each element of `got` from `from` on that is no longer
/// the poison it was filled with (the first few reported): the elements
/// past the m rows of `name`, which the kernel must not write.
void expectUnwrittenPast(const std::vector<float> &got, size_t from, const char *name,
                         int64_t &wrong) {
  for (size_t e = from; e < got.size(); ++e)
    if (bits(got[e]) != kPoison && wrong++ < 5)
      ADD_FAILURE() << name << "'s element " << e << " (past the rows) written: " << got[e];
}

std::vector<float> randoms(size_t n) {
  std::uniform_real_distribution<float> d(-2, 2);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(rng());
  return v;
}

/// A device buffer of n floats (plus `shift` before them), poisoned, holding
/// `host` at offset `shift`; `at()` is the shifted pointer.
struct Shifted {
  DeviceBuffer<float> buffer;
  int64_t shift;
  Shifted(const std::vector<float> &host, int64_t shift)
      : buffer(host.size() + shift + 4), shift(shift) {
    buffer.fillWords(kPoison);
    std::vector<float> all = buffer.download();
    std::copy(host.begin(), host.end(), all.begin() + shift);
    buffer.upload(all);
  }
  float *at() const { return buffer.get() + shift; }
  std::vector<float> result(size_t n) const {
    std::vector<float> all = buffer.download();
    return std::vector<float>(all.begin() + shift, all.begin() + shift + n);
  }
  /// The words around the tensor are untouched.
  void expectGuards(size_t n) const {
    std::vector<float> all = buffer.download();
    for (int64_t i = 0; i < shift; ++i)
      EXPECT_EQ(bits(all[i]), kPoison) << "before the tensor, at " << i - shift;
    for (size_t i = shift + n; i < all.size(); ++i)
      EXPECT_EQ(bits(all[i]), kPoison) << "past the tensor, at " << i - shift - n;
  }
};

} // namespace

TEST(FragmentCodegen, MinMaxStoresWholeRows) {
  for (int64_t n : {1, 64, 100, 257})
    for (int64_t shift : {0, 1, 2}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " shift=" + std::to_string(shift));
      std::vector<float> x = randoms(n * 64);
      x[0] = NAN;
      float c = 1.25f;
      DeviceBuffer<float> dx(x);
      Shifted y(std::vector<float>(n * 64, 0), shift);
      y.buffer.fillWords(kPoison);
      minitile::kernels::codegen_minmax(n, dx.get(), y.at(), c);
      minitile::rt::synchronize();
      std::vector<float> got = y.result(n * 64);
      int64_t wrong = 0;
      for (int64_t i = 0; i < n * 64; ++i) {
        float want = std::isnan(x[i]) ? NAN : std::min(std::max(x[i], 0.0f), c);
        bool ok = std::isnan(want) ? std::isnan(got[i]) && bits(got[i]) != kPoison
                                   : got[i] == want;
        if (!ok && wrong++ < 5)
          ADD_FAILURE() << "y[" << i << "] = " << got[i] << ", want " << want;
      }
      EXPECT_EQ(wrong, 0);
      y.expectGuards(n * 64);
    }
}

TEST(FragmentCodegen, MinMaxNumDropNaN) {
  for (int64_t n : {1, 100}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<float> x = randoms(n * 64);
    for (int64_t i = 0; i < n * 64; i += 5)
      x[i] = i % 2 ? -NAN : NAN;
    x[1] = -INFINITY;
    x[2] = INFINITY;
    float c = 1.25f;
    DeviceBuffer<float> dx(x), y(n * 64), z(n * 64);
    y.fillWords(kPoison);
    z.fillWords(kPoison);
    minitile::kernels::codegen_minmax_num(n, dx.get(), y.get(), z.get(), c);
    minitile::rt::synchronize();
    std::vector<float> gy = y.download(), gz = z.download();
    int64_t wrong = 0;
    for (int64_t i = 0; i < n * 64; ++i) {
      // fmax / fmin drop a NaN operand, as maxNum / minNum do.
      float wantY = std::fmin(std::fmax(x[i], 0.0f), c), wantZ = std::fmax(x[i], -INFINITY);
      if ((gy[i] != wantY || gz[i] != wantZ) && wrong++ < 5)
        ADD_FAILURE() << "x[" << i << "] = " << x[i] << ": y = " << gy[i] << " (want " << wantY
                      << "), z = " << gz[i] << " (want " << wantZ << ")";
    }
    EXPECT_EQ(wrong, 0);
  }
}

TEST(FragmentCodegen, MulAddContractedAndNot) {
  for (int64_t n : {64, 130}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<float> a = randoms(n * 64), b = randoms(n * 64), c = randoms(n * 64);
    DeviceBuffer<float> da(a), db(b), dc(c), fused(n * 64), exact(n * 64);
    fused.fillWords(kPoison);
    exact.fillWords(kPoison);
    minitile::kernels::codegen_mul_add(n, da.get(), db.get(), dc.get(), fused.get());
    minitile::kernels::codegen_mul_add_exact(n, da.get(), db.get(), dc.get(), exact.get());
    minitile::rt::synchronize();
    std::vector<float> f = fused.download(), e = exact.download();
    int64_t wrong = 0;
    for (int64_t i = 0; i < n * 64; ++i) {
      float wantFused = std::fmaf(a[i], b[i], c[i]);
      volatile float product = a[i] * b[i];
      float wantExact = product + c[i];
      if ((f[i] != wantFused || e[i] != wantExact) && wrong++ < 5)
        ADD_FAILURE() << "i=" << i << ": fused " << f[i] << " want " << wantFused
                      << ", separate " << e[i] << " want " << wantExact;
    }
    EXPECT_EQ(wrong, 0);
  }
}

TEST(FragmentCodegen, ReluDotAccumulatesInPlace) {
  for (int64_t n : {64, 200}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<float> x = randoms(n * 64), w = randoms(64);
    DeviceBuffer<float> dx(x), dw(w), out(n);
    out.fillWords(kPoison);
    minitile::kernels::codegen_relu_dot(n, dx.get(), dw.get(), out.get());
    minitile::rt::synchronize();
    std::vector<float> got = out.download();
    int64_t wrong = 0;
    for (int64_t r = 0; r < n; ++r) {
      double want = 0, scale = 0;
      for (int64_t j = 0; j < 64; ++j) {
        want += std::max(double(x[r * 64 + j]), 0.0) * w[j];
        scale += std::abs(std::max(double(x[r * 64 + j]), 0.0) * w[j]);
      }
      if (!(std::abs(got[r] - want) <= 1e-5 * scale + 1e-30) && wrong++ < 5)
        ADD_FAILURE() << "out[" << r << "] = " << got[r] << ", want " << want;
    }
    EXPECT_EQ(wrong, 0);
  }
}

TEST(FragmentCodegen, SharedTileBoxWithPadding) {
  for (int64_t n : {64, 150}) {
    for (int32_t o : {0, 5, -3, 63, 64, -64}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " o=" + std::to_string(o));
      std::vector<float> x = randoms(n * 64);
      DeviceBuffer<float> dx(x), y(n * 64);
      y.fillWords(kPoison);
      minitile::kernels::codegen_shared_box(n, o, dx.get(), y.get());
      minitile::rt::synchronize();
      std::vector<float> got = y.download();
      int64_t wrong = 0;
      for (int64_t r = 0; r < n; ++r)
        for (int64_t j = 0; j < 64; ++j) {
          int64_t block = r / 64 * 64, src = r % 64 + o;
          float want = src < 0 || src >= 64 ? -2.0f
                       : block + src < n    ? 2 * x[(block + src) * 64 + j]
                                            : 0.0f;
          if (bits(got[r * 64 + j]) != bits(want) && wrong++ < 5)
            ADD_FAILURE() << "y[" << r << ", " << j << "] = " << got[r * 64 + j] << ", want "
                          << want;
        }
      EXPECT_EQ(wrong, 0);
    }
  }
}

TEST(FragmentCodegen, GatheredRows) {
  // gather(): rows picked by indices -- valid, repeated, negative, past kv's
  // rows, and slots past idx's width k -- into tiles of 64 rows, one or two
  // 128-byte panels a row, from one batch of kv; on the TMA (one tile, a
  // serial loop, the producer of a pipelined loop). Bit for bit.
  using bf16 = minitile::rt::bf16;
  using I = minitile::rt::Scalar<int64_t>;
  using Fn = void (*)(I, I, I, I, I, const bf16 *, const int32_t *, bf16 *, CUstream);
  struct {
    const char *name;
    Fn fn;
    int cols;
    bool oneTile;
  } variants[] = {
      {"one tile, 64 columns", minitile::kernels::codegen_gather_one_c64, 64, true},
      {"serial, 128 columns", minitile::kernels::codegen_gather_serial, 128, false},
      {"pipelined, 2 stages, 128 columns", minitile::kernels::codegen_gather_pipe, 128, false},
      {"pipelined, 3 stages, 64 columns", minitile::kernels::codegen_gather_pipe_s3_c64, 64,
       false}};
  std::uniform_real_distribution<float> d(-2, 2);
  for (auto &v : variants)
    for (auto [n, batches, rows, k] : {std::array<int64_t, 4>{300, 1, 5, 64},
                                       std::array<int64_t, 4>{1000, 3, 7, 50},
                                       std::array<int64_t, 4>{70, 2, 4, 200},
                                       std::array<int64_t, 4>{1, 1, 3, 129}}) {
      SCOPED_TRACE(std::string(v.name) + " n=" + std::to_string(n) + " batches=" +
                   std::to_string(batches) + " s=" + std::to_string(rows) +
                   " k=" + std::to_string(k));
      const int64_t C = v.cols, kp = v.oneTile ? 64 : (k + 63) / 64 * 64;
      std::vector<bf16> kv(n * batches * C);
      for (bf16 &x : kv)
        x = bf16::fromFloat(d(rng()));
      std::vector<int32_t> idx(rows * k);
      std::uniform_int_distribution<int> pick(0, 19);
      std::uniform_int_distribution<int32_t> any(0, int32_t(n - 1));
      for (size_t i = 0; i < idx.size(); ++i) {
        int c = pick(rng());
        idx[i] = c == 0   ? -1
                 : c == 1 ? int32_t(n + c)         // past kv's rows
                 : c == 2 ? std::numeric_limits<int32_t>::min()
                 : c == 3 && i ? idx[i - 1]        // repeated
                          : any(rng());
      }
      DeviceBuffer<bf16> dkv(kv), y(rows * kp * C);
      DeviceBuffer<int32_t> didx(idx);
      y.fillWords(kPoison);
      v.fn(n, batches, rows, k, kp, dkv.get(), didx.get(), y.get(), nullptr);
      minitile::rt::synchronize();
      std::vector<bf16> got = y.download();
      int64_t wrong = 0;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < kp; ++j) {
          int64_t i = j < k ? idx[r * k + j] : -1;
          for (int64_t c = 0; c < C; ++c) {
            uint16_t want = i >= 0 && i < n ? kv[(i * batches + r % batches) * C + c].bits : 0;
            uint16_t have = got[(r * kp + j) * C + c].bits;
            if (have != want && wrong++ < 5)
              ADD_FAILURE() << "y[" << r << ", " << j << ", " << c << "] = 0x" << std::hex
                            << have << ", want 0x" << want << std::dec << " (index " << i << ")";
          }
        }
      EXPECT_EQ(wrong, 0);
    }
}

TEST(FragmentCodegen, FragmentsAddedIntoRows) {
  // addRows() and addTile(): each block's [64, C] fragment -- a gemm's
  // accumulator (two columns a thread side by side: red .v2) or whole rows
  // loaded from x (.v4) -- added into the rows idx picks (negative, past k
  // and past out's rows left alone; repeats within and across blocks add
  // up) and into one shared total. fp64 sums; the additions' order varies.
  using bf16 = minitile::rt::bf16;
  using I = minitile::rt::Scalar<int64_t>;
  using Fn = void (*)(I, I, I, const bf16 *, const bf16 *, const float *, const int32_t *,
                      float *, float *, CUstream);
  struct {
    const char *name;
    Fn fn;
    bool gemm;
    int cols;
  } variants[] = {{"a gemm's result, 128 columns", minitile::kernels::codegen_add_rows_gemm, true, 128},
                  {"loaded rows, 64 columns", minitile::kernels::codegen_add_rows_x_c64, false, 64}};
  std::uniform_real_distribution<float> d(-2, 2);
  for (auto &v : variants)
    for (auto [n, rows, k] : {std::array<int64_t, 3>{100, 3, 64}, std::array<int64_t, 3>{37, 9, 50},
                              std::array<int64_t, 3>{500, 40, 70}}) {
      SCOPED_TRACE(std::string(v.name) + " n=" + std::to_string(n) + " s=" +
                   std::to_string(rows) + " k=" + std::to_string(k));
      const int64_t C = v.cols;
      std::vector<bf16> a(rows * 64 * 64), b(C * 64);
      for (bf16 &x : a)
        x = bf16::fromFloat(d(rng()));
      for (bf16 &x : b)
        x = bf16::fromFloat(d(rng()));
      std::vector<float> x(rows * 64 * C);
      for (float &e : x)
        e = d(rng());
      std::vector<int32_t> idx(rows * k);
      std::uniform_int_distribution<int> pick(0, 9);
      std::uniform_int_distribution<int32_t> any(0, int32_t(n - 1));
      for (size_t i = 0; i < idx.size(); ++i) {
        int c = pick(rng());
        idx[i] = c == 0 ? -1 : c == 1 ? int32_t(n) : c == 2 && i ? idx[i - 1] : any(rng());
      }
      // v_s in fp64, then the sums and their scales (the sums of magnitudes).
      std::vector<double> want(n * C, 0), scale(n * C, 0), wantTotal(64 * C, 0),
          scaleTotal(64 * C, 0);
      for (int64_t s = 0; s < rows; ++s)
        for (int64_t r = 0; r < 64; ++r)
          for (int64_t c = 0; c < C; ++c) {
            double e = 0;
            if (v.gemm)
              for (int64_t t = 0; t < 64; ++t)
                e += double(a[(s * 64 + r) * 64 + t].toFloat()) * b[c * 64 + t].toFloat();
            else
              e = x[(s * 64 + r) * C + c];
            wantTotal[r * C + c] += e;
            scaleTotal[r * C + c] += std::abs(e);
            int64_t i = r < k ? idx[s * k + r] : -1;
            if (i >= 0 && i < n) {
              want[i * C + c] += e;
              scale[i * C + c] += std::abs(e);
            }
          }
      std::vector<float> start(n * C);
      for (float &e : start)
        e = d(rng());
      DeviceBuffer<bf16> da(a), db(b);
      DeviceBuffer<float> dx(x), out(start), total(64 * C);
      DeviceBuffer<int32_t> didx(idx);
      total.fillWords(0);
      v.fn(n, rows, k, da.get(), db.get(), dx.get(), didx.get(), out.get(), total.get(), nullptr);
      minitile::rt::synchronize();
      std::vector<float> got = out.download(), gotTotal = total.download();
      int64_t wrong = 0;
      for (int64_t i = 0; i < n * C; ++i) {
        double w = start[i] + want[i];
        if (!(std::abs(got[i] - w) <= 1e-5 * (std::abs(start[i]) + scale[i]) + 1e-6) &&
            wrong++ < 5)
          ADD_FAILURE() << "out[" << i / C << ", " << i % C << "] = " << got[i] << ", want " << w;
      }
      for (int64_t i = 0; i < 64 * C; ++i)
        if (!(std::abs(gotTotal[i] - wantTotal[i]) <= 1e-5 * scaleTotal[i] + 1e-6) && wrong++ < 5)
          ADD_FAILURE() << "total[" << i / C << ", " << i % C << "] = " << gotTotal[i]
                        << ", want " << wantTotal[i];
      EXPECT_EQ(wrong, 0);
    }
}

TEST(FragmentCodegen, SmallTilesCopiedAnItemAhead) {
  // A kernel that leaves y or z unwritten takes it as a const pointer.
  using Fn = std::function<void(int64_t, const int32_t *, int32_t *, const float *, float *)>;
  struct {
    const char *name;
    Fn fn;
    bool ints, floats;
  } variants[] = {
      {"i32 box of 4 only",
       [](int64_t n, const int32_t *x, int32_t *y, const float *w, float *z) {
         minitile::kernels::codegen_small_tiles_ints(n, x, y, w, z);
       },
       true, false},
      {"f32 [4, 64] only",
       [](int64_t n, const int32_t *x, int32_t *y, const float *w, float *z) {
         minitile::kernels::codegen_small_tiles_floats(n, x, y, w, z);
       },
       false, true},
      {"both, not prefetched",
       [](int64_t n, const int32_t *x, int32_t *y, const float *w, float *z) {
         minitile::kernels::codegen_small_tiles_sync(n, x, y, w, z);
       },
       true, true},
      {"both, prefetched",
       [](int64_t n, const int32_t *x, int32_t *y, const float *w, float *z) {
         minitile::kernels::codegen_small_tiles(n, x, y, w, z);
       },
       true, true},
      // As the indexer's window bounds: two rows an item. A box starting 8
      // bytes into a 16-byte granule was an illegal instruction; the
      // compiler now copies it element by element...
      {"both, two rows an item",
       [](int64_t n, const int32_t *x, int32_t *y, const float *w, float *z) {
         minitile::kernels::codegen_small_tiles_rows2(n, x, y, w, z);
       },
       true, true},
      // ...or the kernel copies the box from the row rounded down to 4.
      {"both, two rows an item, the box rounded down",
       [](int64_t n, const int32_t *x, int32_t *y, const float *w, float *z) {
         minitile::kernels::codegen_small_tiles_rows2_aligned(n, x, y, w, z);
       },
       true, true}};
  for (auto &v : variants)
    for (int64_t n : {4, 10, 1001}) {
      SCOPED_TRACE(std::string(v.name) + " n=" + std::to_string(n));
      std::vector<int32_t> x(n);
      for (int32_t &e : x)
        e = int32_t(rng()());
      std::vector<float> w = randoms(n * 64);
      DeviceBuffer<int32_t> dx(x), y(n);
      DeviceBuffer<float> dw(w), z(n * 64);
      y.fillWords(kPoison);
      z.fillWords(kPoison);
      v.fn(n, dx.get(), y.get(), dw.get(), z.get());
      minitile::rt::synchronize();
      if (v.ints) {
        EXPECT_EQ(y.download(), x);
      }
      if (v.floats) {
        std::vector<float> got = z.download();
        int64_t wrong = 0;
        for (int64_t i = 0; i < n * 64; ++i)
          if (bits(got[i]) != bits(w[i]) && wrong++ < 5)
            ADD_FAILURE() << "z[" << i << "] = " << got[i] << ", want " << w[i];
        EXPECT_EQ(wrong, 0);
      }
    }
}

TEST(FragmentCodegen, PersistentDynamicWorkOrders) {
  // Items handed out at run time (persistent() with dynamic): every item
  // taken once, each block's first the one at its own position (item b
  // linear, n - 1 - b last first), every block taking at least that one, and
  // the launch's work counter zero again after it -- so the next launch on
  // the stream, queued right behind without a sync, starts from zero too.
  using Fn = void (*)(minitile::rt::Scalar<int64_t>, const int32_t *, int32_t *, int32_t *,
                      CUstream);
  struct {
    const char *name;
    Fn fn;
    bool lastFirst;
  } variants[] = {{"linear", minitile::kernels::codegen_work_dynamic, false},
                  {"last first", minitile::kernels::codegen_work_dynamic_last_first, true},
                  {"last first, three buffers", minitile::kernels::codegen_work_dynamic_b3, true},
                  {"last first, not prefetched", minitile::kernels::codegen_work_dynamic_sync, true}};
  const int64_t sms = minitile::rt::multiprocessorCount();
  const int32_t *counter = minitile::rt::workCounter(nullptr);
  for (auto &v : variants)
    for (int64_t n : {int64_t(1), int64_t(5), sms - 1, sms, sms + 1, 2 * sms + 3, 3 * sms + 7,
                      int64_t(4099), int64_t(100000)}) {
      SCOPED_TRACE(std::string(v.name) + " n=" + std::to_string(n));
      std::vector<int32_t> x(n * 4);
      for (int32_t &e : x)
        e = int32_t(rng()());
      DeviceBuffer<int32_t> dx(x), y1(n * 4), y2(n * 4), owner1(n), owner2(n);
      for (auto *b : {&y1, &y2, &owner1, &owner2})
        b->fillWords(kPoison);
      v.fn(n, dx.get(), y1.get(), owner1.get(), nullptr);
      v.fn(n, dx.get(), y2.get(), owner2.get(), nullptr);
      minitile::rt::synchronize();
      EXPECT_EQ(y1.download(), x);
      EXPECT_EQ(y2.download(), x);
      const int64_t grid = std::min(n, sms);
      for (auto *owner : {&owner1, &owner2}) {
        std::vector<int32_t> got = owner->download();
        std::vector<int64_t> taken(grid);
        int64_t wrong = 0;
        for (int64_t i = 0; i < n; ++i) {
          if (got[i] < 0 || got[i] >= grid) {
            if (wrong++ < 5)
              ADD_FAILURE() << "item " << i << " taken by block " << got[i] << ", not one of "
                            << grid;
            continue;
          }
          ++taken[got[i]];
        }
        for (int64_t b = 0; b < grid; ++b) {
          int64_t first = v.lastFirst ? n - 1 - b : b;
          if (got[first] != b && wrong++ < 5)
            ADD_FAILURE() << "block " << b << "'s first item " << first << " taken by block "
                          << got[first];
          if (taken[b] == 0 && wrong++ < 5)
            ADD_FAILURE() << "block " << b << " took no item";
        }
        EXPECT_EQ(wrong, 0);
      }
      int32_t left = -1;
      minitile::rt::detail::copyToHost(&left, reinterpret_cast<CUdeviceptr>(counter), 4);
      EXPECT_EQ(left, 0) << "the work counter after the launches";
    }
  // The items come from the stream's counter: started at m instead of 0, a
  // launch skips positions [grid, grid + m) -- they stay poisoned -- takes
  // every other once, and its last claim (count n - 1) still resets it.
  for (auto &v : variants) {
    const int64_t n = 3 * sms + 7, grid = std::min(n, sms), m = 5;
    SCOPED_TRACE(std::string(v.name) + ", the counter started at 5");
    std::vector<int32_t> x(n * 4);
    for (int32_t &e : x)
      e = int32_t(rng()());
    DeviceBuffer<int32_t> dx(x), y(n * 4), owner(n);
    y.fillWords(kPoison);
    const int32_t start = int32_t(m);
    minitile::rt::detail::copyToDevice(reinterpret_cast<CUdeviceptr>(counter), &start, 4);
    v.fn(n, dx.get(), y.get(), owner.get(), nullptr);
    minitile::rt::synchronize();
    std::vector<int32_t> got = y.download();
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t p = v.lastFirst ? n - 1 - i : i;
      bool skipped = p >= grid && p < grid + m;
      for (int64_t c = 0; c < 4; ++c) {
        int32_t want = skipped ? int32_t(kPoison) : x[i * 4 + c];
        if (got[i * 4 + c] != want && wrong++ < 5)
          ADD_FAILURE() << "item " << i << " (position " << p << ")"
                        << (skipped ? " was taken though its claim was skipped" : " is wrong");
      }
    }
    EXPECT_EQ(wrong, 0);
    int32_t left = -1;
    minitile::rt::detail::copyToHost(&left, reinterpret_cast<CUdeviceptr>(counter), 4);
    EXPECT_EQ(left, 0) << "the work counter after the launch";
  }
}

TEST(FragmentCodegen, WorkCounterPerStream) {
  // One counter a stream, the same one each time; the per-thread default
  // stream a counter per thread.
  auto a = reinterpret_cast<CUstream>(uintptr_t(0x1234)),
       b = reinterpret_cast<CUstream>(uintptr_t(0x5678));
  int32_t *ca = minitile::rt::workCounter(a), *cb = minitile::rt::workCounter(b);
  EXPECT_NE(ca, cb);
  EXPECT_EQ(minitile::rt::workCounter(a), ca);
  EXPECT_EQ(minitile::rt::workCounter(b), cb);
  EXPECT_NE(minitile::rt::workCounter(nullptr), ca);
  int32_t *mine = minitile::rt::workCounter(CU_STREAM_PER_THREAD), *theirs = nullptr;
  std::thread([&] { theirs = minitile::rt::workCounter(CU_STREAM_PER_THREAD); }).join();
  EXPECT_NE(mine, theirs);
  EXPECT_EQ(minitile::rt::workCounter(CU_STREAM_PER_THREAD), mine);
  int32_t value = -1;
  minitile::rt::detail::copyToHost(&value, reinterpret_cast<CUdeviceptr>(cb), 4);
  EXPECT_EQ(value, 0);
}

TEST(FragmentCodegen, PersistentWorkOrders) {
  // Every item taken once, by the block its order names: grid = min(items,
  // multiprocessors); position p of item i is i (linear) or n - 1 - i; block
  // p % grid takes it, except that zigzag reverses odd rounds p / grid among
  // the round's blocks (the last round's possibly fewer).
  using Fn = void (*)(minitile::rt::Scalar<int64_t>, const int32_t *, int32_t *, int32_t *,
                      CUstream);
  struct {
    const char *name;
    Fn fn;
    int order;
  } variants[] = {{"linear", minitile::kernels::codegen_work_linear, 0},
                  {"last first", minitile::kernels::codegen_work_last_first, 1},
                  {"zigzag", minitile::kernels::codegen_work_zigzag, 2},
                  {"zigzag, not prefetched", minitile::kernels::codegen_work_zigzag_sync, 2}};
  const int64_t sms = minitile::rt::multiprocessorCount();
  for (auto &v : variants)
    for (int64_t n : {int64_t(1), int64_t(5), sms - 1, sms, sms + 1, 2 * sms - 1, 2 * sms,
                      2 * sms + 3, 3 * sms + 7, int64_t(4099)}) {
      SCOPED_TRACE(std::string(v.name) + " n=" + std::to_string(n));
      std::vector<int32_t> x(n * 4);
      for (int32_t &e : x)
        e = int32_t(rng()());
      DeviceBuffer<int32_t> dx(x), y(n * 4), owner(n);
      y.fillWords(kPoison);
      owner.fillWords(kPoison);
      v.fn(n, dx.get(), y.get(), owner.get(), nullptr);
      minitile::rt::synchronize();
      EXPECT_EQ(y.download(), x);
      std::vector<int32_t> got = owner.download();
      const int64_t grid = std::min(n, sms);
      int64_t wrong = 0;
      for (int64_t i = 0; i < n; ++i) {
        int64_t p = v.order == 0 ? i : n - 1 - i, round = p / grid, j = p % grid;
        int64_t m = std::min(grid, n - round * grid);
        int64_t want = v.order == 2 && round % 2 == 1 ? m - 1 - j : j;
        if (got[i] != want && wrong++ < 5)
          ADD_FAILURE() << "item " << i << " taken by block " << got[i] << ", not " << want;
      }
    }
}

TEST(FragmentCodegen, CooperativeLoopsDealTheGemmsOut) {
  // c = a . b^T in 64-column parts, a gemm a part a tile of a's 64 rows,
  // the parts dealt out to the groups of a cooperative loop (one, two or
  // three groups; one to two parts a group; one to four stages, three for
  // two groups; overlapped or not) -- and the same loop with the groups
  // taking the tiles in turn. Ragged and empty row counts; fp64 reference.
  using bf16 = minitile::rt::bf16;
  using Fn = void (*)(minitile::rt::Scalar<int64_t>, const bf16 *, const bf16 *, float *,
                      CUstream);
  struct {
    const char *name;
    Fn fn;
    int parts;
  } variants[] = {
      {"2 groups, 2 parts, 3 stages", minitile::kernels::codegen_coop_g2_p2_s3, 2},
      {"2 groups, 2 parts, 4 stages, overlapped", minitile::kernels::codegen_coop_g2_p2_s4_ov, 2},
      {"2 groups, 4 parts, 2 stages, overlapped", minitile::kernels::codegen_coop_g2_p4_s2_ov, 4},
      {"3 groups, 3 parts, 2 stages", minitile::kernels::codegen_coop_g3_p3_s2, 3},
      {"2 groups, 2 parts, 1 stage", minitile::kernels::codegen_coop_g2_p2_s1, 2},
      {"3 groups, 6 parts, 4 stages, overlapped", minitile::kernels::codegen_coop_g3_p6_s4_ov, 6},
      {"in turns: 2 groups, 2 parts, 4 stages", minitile::kernels::codegen_turns_g2_p2_s4, 2}};
  std::uniform_real_distribution<float> d(-2, 2);
  for (auto &v : variants)
    for (int64_t m : {int64_t(0), int64_t(64), int64_t(200), int64_t(1000), int64_t(4097)}) {
      SCOPED_TRACE(std::string(v.name) + " m=" + std::to_string(m));
      const int64_t n = 64 * v.parts;
      std::vector<bf16> a(std::max<int64_t>(m, 1) * 64), b(n * 64);
      for (bf16 &x : a)
        x = bf16::fromFloat(d(rng()));
      for (bf16 &x : b)
        x = bf16::fromFloat(d(rng()));
      DeviceBuffer<bf16> da(a), db(b);
      DeviceBuffer<float> c(std::max<int64_t>(m, 1) * n + 64);
      c.fillWords(kPoison);
      v.fn(m, da.get(), db.get(), c.get(), nullptr);
      minitile::rt::synchronize();
      std::vector<float> got = c.download();
      int64_t wrong = 0;
      for (int64_t r = 0; r < m; ++r)
        for (int64_t j = 0; j < n; ++j) {
          double want = 0, scale = 0;
          for (int64_t k = 0; k < 64; ++k) {
            double p = double(a[r * 64 + k].toFloat()) * b[j * 64 + k].toFloat();
            want += p;
            scale += std::fabs(p);
          }
          float g = got[r * n + j];
          if (!(std::fabs(g - want) <= 1e-5 * scale + 1e-6) && wrong++ < 5)
            ADD_FAILURE() << "c[" << r << ", " << j << "] = " << g << ", want " << want;
        }
      // Nothing written past the m rows.
      expectUnwrittenPast(got, size_t(m * n), "c", wrong);
      EXPECT_EQ(wrong, 0);
    }
}

TEST(FragmentCodegen, GemmWithBStoredKN) {
  // c = a . b with b given [k, n] row-major: the gemm's B is MN-major (the
  // wgmma transposes it; descriptors with the leading byte offset between
  // b's 64-column panels). n = 64, 128, 256; one and two warpgroups; the K
  // loop pipelined (1 and 3 stages) or serial. Ragged and empty m, k not a
  // multiple of the 64-wide tile (the copies read zeros past a and b); fp64
  // reference.
  using bf16 = minitile::rt::bf16;
  using Fn = void (*)(minitile::rt::Scalar<int64_t>, minitile::rt::Scalar<int64_t>, const bf16 *,
                      const bf16 *, float *, CUstream);
  struct {
    const char *name;
    Fn fn;
    int64_t n;
  } variants[] = {
      {"n=128, pipelined, 3 stages", minitile::kernels::codegen_gemm_kn_n128, 128},
      {"n=64, pipelined, 1 stage", minitile::kernels::codegen_gemm_kn_n64_s1, 64},
      {"n=256, 2 warpgroups, pipelined", minitile::kernels::codegen_gemm_kn_n256_wg2, 256},
      {"n=128, serial", minitile::kernels::codegen_gemm_kn_serial, 128},
      {"n=256, 2 warpgroups, serial", minitile::kernels::codegen_gemm_kn_serial_n256_wg2, 256}};
  std::uniform_real_distribution<float> d(-2, 2);
  for (auto &v : variants)
    for (int64_t m : {int64_t(0), int64_t(64), int64_t(200), int64_t(1000)})
      for (int64_t k : {int64_t(64), int64_t(104), int64_t(320)}) {
        // (k * 2 bytes, a's row stride, a multiple of 16: what the TMA reads.)
        SCOPED_TRACE(std::string(v.name) + " m=" + std::to_string(m) + " k=" + std::to_string(k));
        const int64_t n = v.n;
        std::vector<bf16> a(std::max<int64_t>(m, 1) * k), b(k * n);
        for (bf16 &x : a)
          x = bf16::fromFloat(d(rng()));
        for (bf16 &x : b)
          x = bf16::fromFloat(d(rng()));
        DeviceBuffer<bf16> da(a), db(b);
        DeviceBuffer<float> c(std::max<int64_t>(m, 1) * n + 64);
        c.fillWords(kPoison);
        v.fn(m, k, da.get(), db.get(), c.get(), nullptr);
        minitile::rt::synchronize();
        std::vector<float> got = c.download();
        int64_t wrong = 0;
        for (int64_t r = 0; r < m; ++r)
          for (int64_t j = 0; j < n; ++j) {
            double want = 0, scale = 0;
            for (int64_t kk = 0; kk < k; ++kk) {
              double p = double(a[r * k + kk].toFloat()) * b[kk * n + j].toFloat();
              want += p;
              scale += std::fabs(p);
            }
            float g = got[r * n + j];
            if (!(std::fabs(g - want) <= 1e-5 * scale + 1e-6) && wrong++ < 5)
              ADD_FAILURE() << "c[" << r << ", " << j << "] = " << g << ", want " << want;
          }
        // Nothing written past the m rows.
        expectUnwrittenPast(got, size_t(m * n), "c", wrong);
        EXPECT_EQ(wrong, 0);
      }
}

TEST(FragmentCodegen, GemmWithRegisterA) {
  // o = sum_j bf16(q . key_j^T / 8) . v_j (attention's two gemms without the
  // softmax): the first gemm's result, rounded to bf16, is the second's A
  // from registers (wgmma's register form), or through a shared tile (via
  // 1). One tile of keys, serial and pipelined loops over them, v stored
  // [keys, n] or [n, keys] (vt), one and two warpgroups. Ragged m and keys
  // (the copies read zeros past them); fp64 reference of the scores, each
  // rounded to bf16 as the kernel does -- where the kernel's f32 sum lands
  // on the other side of a rounding boundary its bf16 differs by one unit,
  // hence the tolerance of 2^-7 of the sum of |p v|.
  using bf16 = minitile::rt::bf16;
  using Fn = void (*)(minitile::rt::Scalar<int64_t>, minitile::rt::Scalar<int64_t>, const bf16 *,
                      const bf16 *, const bf16 *, float *, CUstream);
  struct {
    const char *name;
    Fn fn;
    int64_t n;
    bool vt, oneTile;
  } variants[] = {
      {"registers, one tile", minitile::kernels::codegen_attn_pv_one, 64, false, true},
      {"registers, one tile, v [n, keys]", minitile::kernels::codegen_attn_pv_one_vt, 64, true,
       true},
      {"registers, serial", minitile::kernels::codegen_attn_pv_serial, 64, false, false},
      {"registers, serial, v [n, keys], 2 warpgroups",
       minitile::kernels::codegen_attn_pv_serial_vt_wg2, 64, true, false},
      {"registers, pipelined", minitile::kernels::codegen_attn_pv_pipe, 64, false, false},
      {"registers, pipelined, 1 stage", minitile::kernels::codegen_attn_pv_pipe_s1, 64, false,
       false},
      {"registers, pipelined, 2 warpgroups, n=128",
       minitile::kernels::codegen_attn_pv_pipe_wg2_n128, 128, false, false},
      {"shared tile, one tile", minitile::kernels::codegen_attn_pv_smem_one, 64, false, true},
      {"shared tile, serial", minitile::kernels::codegen_attn_pv_smem_serial, 64, false, false},
      {"shared tile, pipelined", minitile::kernels::codegen_attn_pv_smem_pipe, 64, false, false},
      {"shared tile, serial, 2 warpgroups", minitile::kernels::codegen_attn_pv_smem_serial_wg2,
       64, false, false}};
  std::uniform_real_distribution<float> d(-1, 1);
  for (auto &var : variants)
    for (int64_t m : {int64_t(0), int64_t(64), int64_t(200)})
      for (int64_t keys : {int64_t(40), int64_t(64), int64_t(104), int64_t(320)}) {
        if (var.oneTile && keys > 64)
          continue;
        // (keys * 2 bytes, v's row stride when stored [n, keys], a multiple
        // of 16: what the TMA reads.)
        SCOPED_TRACE(std::string(var.name) + " m=" + std::to_string(m) +
                     " keys=" + std::to_string(keys));
        const int64_t n = var.n;
        std::vector<bf16> q(std::max<int64_t>(m, 1) * 64), key(keys * 64), v(keys * n);
        for (std::vector<bf16> *t : {&q, &key, &v})
          for (bf16 &x : *t)
            x = bf16::fromFloat(d(rng()));
        DeviceBuffer<bf16> dq(q), dkey(key), dv(v);
        DeviceBuffer<float> o(std::max<int64_t>(m, 1) * n + 64);
        o.fillWords(kPoison);
        var.fn(m, keys, dq.get(), dkey.get(), dv.get(), o.get(), nullptr);
        minitile::rt::synchronize();
        std::vector<float> got = o.download();
        int64_t wrong = 0;
        std::vector<double> p(keys);
        for (int64_t r = 0; r < m; ++r) {
          for (int64_t j = 0; j < keys; ++j) {
            double s = 0;
            for (int64_t e = 0; e < 64; ++e)
              s += double(q[r * 64 + e].toFloat()) * key[j * 64 + e].toFloat();
            p[j] = bf16::fromFloat(float(s / 8)).toFloat();
          }
          for (int64_t c = 0; c < n; ++c) {
            double want = 0, scale = 0;
            for (int64_t j = 0; j < keys; ++j) {
              double vj = (var.vt ? v[c * keys + j] : v[j * n + c]).toFloat();
              want += p[j] * vj;
              scale += std::fabs(p[j] * vj);
            }
            float g = got[r * n + c];
            if (!(std::fabs(g - want) <= 0x1p-7 * scale + 1e-6) && wrong++ < 5)
              ADD_FAILURE() << "o[" << r << ", " << c << "] = " << g << ", want " << want;
          }
        }
        expectUnwrittenPast(got, size_t(m * n), "o", wrong);
        EXPECT_EQ(wrong, 0);
      }
}

TEST(FragmentCodegen, TransposedFragmentStoredForGemm) {
  // o = sum over m's 64-row tiles of p_t^T . w_t, p_t = bf16(q_t . key^T /
  // 8): the gemm's result transposed into a shared tile (stmatrix .trans,
  // four 8 x 8 blocks an instruction), read by the next gemm as its A. One
  // tile, and serial and pipelined loops that write the tile again while
  // the last iteration's gemm may still read it. Ragged m (the copies read
  // zero rows past it); fp64 reference of the bf16 scores, as in
  // GemmWithRegisterA.
  using bf16 = minitile::rt::bf16;
  using Fn = void (*)(minitile::rt::Scalar<int64_t>, const bf16 *, const bf16 *, const bf16 *,
                      float *, CUstream);
  struct {
    const char *name;
    Fn fn;
    bool oneTile;
  } variants[] = {{"one tile", minitile::kernels::codegen_store_shared_t_one, true},
                  {"serial", minitile::kernels::codegen_store_shared_t_serial, false},
                  {"pipelined", minitile::kernels::codegen_store_shared_t_pipe, false}};
  std::uniform_real_distribution<float> d(-1, 1);
  const int64_t n = 64;
  for (auto &var : variants)
    for (int64_t m : {int64_t(0), int64_t(40), int64_t(64), int64_t(200), int64_t(320)}) {
      // (One tile copies q's first rows whatever m is: none of an empty q.)
      if (var.oneTile && (m > 64 || m == 0))
        continue;
      SCOPED_TRACE(std::string(var.name) + " m=" + std::to_string(m));
      std::vector<bf16> q(std::max<int64_t>(m, 1) * 64), key(64 * 64),
          w(std::max<int64_t>(m, 1) * n);
      for (std::vector<bf16> *t : {&q, &key, &w})
        for (bf16 &x : *t)
          x = bf16::fromFloat(d(rng()));
      DeviceBuffer<bf16> dq(q), dkey(key), dw(w);
      DeviceBuffer<float> o(64 * n + 64);
      o.fillWords(kPoison);
      var.fn(m, dq.get(), dkey.get(), dw.get(), o.get(), nullptr);
      minitile::rt::synchronize();
      std::vector<float> got = o.download();
      // p[r][j], rounded to bf16 as the kernel does.
      std::vector<double> p(std::max<int64_t>(m, 1) * 64);
      for (int64_t r = 0; r < m; ++r)
        for (int64_t j = 0; j < 64; ++j) {
          double s = 0;
          for (int64_t e = 0; e < 64; ++e)
            s += double(q[r * 64 + e].toFloat()) * key[j * 64 + e].toFloat();
          p[r * 64 + j] = bf16::fromFloat(float(s / 8)).toFloat();
        }
      int64_t wrong = 0;
      for (int64_t j = 0; j < 64; ++j)
        for (int64_t c = 0; c < n; ++c) {
          double want = 0, scale = 0;
          for (int64_t r = 0; r < m; ++r) {
            double prod = p[r * 64 + j] * w[r * n + c].toFloat();
            want += prod;
            scale += std::fabs(prod);
          }
          float g = got[j * n + c];
          if (!(std::fabs(g - want) <= 0x1p-7 * scale + 1e-6) && wrong++ < 5)
            ADD_FAILURE() << "o[" << j << ", " << c << "] = " << g << ", want " << want;
        }
      expectUnwrittenPast(got, size_t(64 * n), "o", wrong);
      EXPECT_EQ(wrong, 0);
    }
}

TEST(FragmentCodegen, StoreTileIntoSharedTile) {
  // c = sum over k's 64-wide tiles of a . b^T, the operand `stored` names
  // relu'd in registers (f32), rounded to bf16 and written into its shared
  // tile with storeTile; the other copied. A (one warpgroup) or B (two
  // warpgroups, each reading all of it); one tile of k or a serial loop
  // writing the same tile each iteration. Ragged m and k; fp64 reference
  // of the bf16 operands (exact), so only the f32 sums' rounding remains.
  using bf16 = minitile::rt::bf16;
  using Fn = void (*)(minitile::rt::Scalar<int64_t>, minitile::rt::Scalar<int64_t>, const float *,
                      const bf16 *, float *, CUstream);
  struct {
    const char *name;
    Fn fn;
    int stored;
    bool oneTile;
  } variants[] = {
      {"a stored, one tile", minitile::kernels::codegen_store_shared_a, 0, true},
      {"b stored by 2 warpgroups, one tile", minitile::kernels::codegen_store_shared_b_wg2, 1,
       true},
      {"a stored, serial", minitile::kernels::codegen_store_shared_a_loop, 0, false},
      {"a stored by 2 warpgroups, serial", minitile::kernels::codegen_store_shared_a_loop_wg2, 0,
       false},
      {"b stored by 2 warpgroups, serial", minitile::kernels::codegen_store_shared_b_loop_wg2, 1,
       false}};
  const int64_t n = 64;
  std::uniform_real_distribution<float> d(-2, 2);
  for (auto &var : variants)
    for (int64_t m : {int64_t(0), int64_t(64), int64_t(200)})
      for (int64_t k : {int64_t(40), int64_t(64), int64_t(104), int64_t(320)}) {
        if (var.oneTile && k > 64)
          continue;
        SCOPED_TRACE(std::string(var.name) + " m=" + std::to_string(m) +
                     " k=" + std::to_string(k));
        // x: the stored operand (f32), y: the copied one (bf16).
        int64_t xRows = var.stored == 0 ? std::max<int64_t>(m, 1) : n;
        int64_t yRows = var.stored == 0 ? n : std::max<int64_t>(m, 1);
        std::vector<float> x(xRows * k);
        for (float &e : x)
          e = d(rng());
        std::vector<bf16> y(yRows * k);
        for (bf16 &e : y)
          e = bf16::fromFloat(d(rng()));
        DeviceBuffer<float> dx(x);
        DeviceBuffer<bf16> dy(y);
        DeviceBuffer<float> c(std::max<int64_t>(m, 1) * n + 64);
        c.fillWords(kPoison);
        var.fn(m, k, dx.get(), dy.get(), c.get(), nullptr);
        minitile::rt::synchronize();
        std::vector<float> got = c.download();
        auto relu = [&](int64_t row, int64_t col) {
          return double(bf16::fromFloat(std::max(x[row * k + col], 0.0f)).toFloat());
        };
        int64_t wrong = 0;
        for (int64_t r = 0; r < m; ++r)
          for (int64_t j = 0; j < n; ++j) {
            double want = 0, scale = 0;
            for (int64_t e = 0; e < k; ++e) {
              double prod = var.stored == 0 ? relu(r, e) * y[j * k + e].toFloat()
                                            : double(y[r * k + e].toFloat()) * relu(j, e);
              want += prod;
              scale += std::fabs(prod);
            }
            float g = got[r * n + j];
            if (!(std::fabs(g - want) <= 1e-5 * scale + 1e-6) && wrong++ < 5)
              ADD_FAILURE() << "c[" << r << ", " << j << "] = " << g << ", want " << want;
          }
        expectUnwrittenPast(got, size_t(m * n), "c", wrong);
        EXPECT_EQ(wrong, 0);
      }
}
