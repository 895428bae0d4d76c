//===- TuneKernels.cpp - a kernel for the tests of minitile tune ----------===//
//
// y[i, j] = a * x[i] + y[i, j] for the i with idx[i] >= 0: a size, a float
// scalar, tensors of three element types, one with a constant dimension, one
// read and written. threads=2048 is in the parameter's domain but the DSL
// rejects it (a point tune leaves out); the launcher requires n <= threads *
// 64 (shapes on which a point does not apply). tests/lit/cli/tune*.test.
//
// tune_padded: tensors whose sizes are expressions of the size arguments
// (tests/lit/cli/tensor-shapes.test).
//
//===----------------------------------------------------------------------===//
#include "minitile/dsl.h"

namespace {

using namespace minitile;

struct TuneAxpy : Generator {
  Param<int> threads{"threads", 128, {32, 64, 128, 2048}, "threads per block"};
  Param<int> unroll{"unroll", 1, 1, 4, "does not change the kernel"};
  Param<bool> half{"half", false, "x holds bf16 (else f32)"};

  void generate(Kernel &k) override {
    Value n = k.size("n");
    Value a = k.scalar("a", DType::f32);
    Tensor x = k.tensor("x", half ? DType::bf16 : DType::f32, {n});
    Tensor y = k.tensor("y", DType::f32, {n, 2});
    Tensor idx = k.tensor("idx", DType::i32, {n});
    k.require(n <= threads * 64, "n must be at most threads * 64");
    k.threads(threads);
    k.grid(ceildiv(n, threads));
    Value i = k.blockId() * threads + k.threadId();
    k.if_(i < n && idx(i) >= 0, [&] {
      Value v = cast(x(i), DType::f32);
      y(i, 0) = a * v + y(i, 0);
      y(i, 1) = a * v + y(i, 1);
    });
  }
};

/// y[b * P + r] = x[b, r] for r < n, 0 for the rows padding n up to P, a
/// multiple of 64; d[i] = x[0, i + 1] - x[0, i].
struct TunePadded : Generator {
  Param<int> threads{"threads", 64, {64, 128}, "threads per block"};

  void generate(Kernel &k) override {
    Value bh = k.size("bh"), n = k.size("n");
    Value padded = ceildiv(n, 64) * 64;                  // PADDED
    Tensor y = k.tensor("y", DType::f32, {bh * padded}); // SHAPE-Y
    Tensor d = k.tensor("d", DType::f32, {n - 1});       // SHAPE-D
    Tensor x = k.tensor("x", DType::f32, {bh, n});
    k.threads(threads);
    k.grid(ceildiv(y.size(0), threads));
    Value i = k.blockId() * threads + k.threadId();
    Value b = i / padded, r = i % padded;
    k.if_(i < y.size(0), [&] { y(i) = select(r < n, x(b, min(r, n - 1)), 0.0); });
    k.if_(i < d.size(0), [&] { d(i) = x(0, i + 1) - x(0, i); });
  }
};

} // namespace

MINITILE_KERNEL(TunePadded, "tune_padded", "y = x's rows padded to a multiple of 64; d = x[0]'s differences");
MINITILE_KERNEL(TuneAxpy, "tune_axpy", "y[i, :] += a * x[i] where idx[i] >= 0");
