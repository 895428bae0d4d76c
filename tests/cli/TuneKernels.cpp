//===- TuneKernels.cpp - a kernel for the tests of minitile tune ----------===//
//
// y[i, j] = a * x[i] + y[i, j] for the i with idx[i] >= 0: a size, a float
// scalar, tensors of three element types, one with a constant dimension, one
// read and written. threads=2048 is in the parameter's domain but the DSL
// rejects it (a point tune leaves out); the launcher requires n <= threads *
// 64 (shapes on which a point does not apply). tests/lit/cli/tune*.test.
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

} // namespace

MINITILE_KERNEL(TuneAxpy, "tune_axpy", "y[i, :] += a * x[i] where idx[i] >= 0");
