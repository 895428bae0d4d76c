// Test kernels of the math functions and casts (tests/gpu/MathTest.cpp runs
// them against fp64 host references; tests/lit/kernels/math-ptx.test reads
// their PTX). Each computes on per-thread scalars or, with fragment=true,
// on fragments of one block row.
#include <minitile/dsl.h>

using namespace minitile;

namespace {

/// The functions, in the order of the rows of x and y.
using Fn = Value (*)(Arg, SourceLoc);
constexpr Fn kFunctions[] = {exp, exp2, log, log2, sqrt, rsqrt, tanh, abs};
constexpr int kRows = sizeof(kFunctions) / sizeof(kFunctions[0]);

} // namespace

// y[f, i] = F_f(x[f, i]) for the eight functions (exp, exp2, log, log2,
// sqrt, rsqrt, tanh, abs) in f32; yi = abs(xi) in i32; yb = exp(xb) in bf16.
struct MathFunctions : Generator {
  Param<bool> fast{"fast", false, "Kernel::fastMath: the approximate functions"};
  Param<bool> fragment{"fragment", false, "compute on fragments instead of scalars"};
  Param<int> threads{"threads", 128, 32, 1024, "threads per block"};

  void generate(Kernel &k) override {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {kRows, n});
    Tensor y = k.tensor("y", DType::f32, {kRows, n});
    Tensor xi = k.tensor("xi", DType::i32, {n});
    Tensor yi = k.tensor("yi", DType::i32, {n});
    Tensor xb = k.tensor("xb", DType::bf16, {n});
    Tensor yb = k.tensor("yb", DType::bf16, {n});
    k.fastMath(fast);
    k.threads(threads);
    if (!fragment.get()) {
      k.grid(ceildiv(n, threads));
      Value i = k.blockId() * threads + k.threadId();
      k.if_(i < n, [&] {
        for (int f = 0; f < kRows; ++f)
          y(f, i) = kFunctions[f](x(f, i), SourceLoc::current());
        yi(i) = abs(xi(i));
        yb(i) = exp(xb(i));
      });
      return;
    }
    int64_t block = 4 * int64_t(threads); // elements of one row per block
    k.grid(ceildiv(n, block));
    Value i0 = k.blockId() * block;
    for (int f = 0; f < kRows; ++f)
      storeTile(y, {f, i0}, kFunctions[f](loadTile(x, {f, i0}, {1, block}), SourceLoc::current()));
    storeTile(yi, {i0}, abs(loadTile(xi, {i0}, {block})));
    storeTile(yb, {i0}, exp(loadTile(xb, {i0}, {block})));
  }
};
MINITILE_KERNEL(MathFunctions, "math_functions",
                "the math functions on f32, i32 (abs) and bf16 (exp), scalars or fragments");

// b = bf16(x), h = f16(x) (round to nearest even); fb = f32(xb), fh = f32(xh).
struct Casts : Generator {
  Param<bool> fragment{"fragment", false, "cast fragments instead of scalars"};
  Param<int> threads{"threads", 128, 32, 1024, "threads per block"};

  void generate(Kernel &k) override {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    Tensor b = k.tensor("b", DType::bf16, {n});
    Tensor h = k.tensor("h", DType::f16, {n});
    Tensor xb = k.tensor("xb", DType::bf16, {n});
    Tensor fb = k.tensor("fb", DType::f32, {n});
    Tensor xh = k.tensor("xh", DType::f16, {n});
    Tensor fh = k.tensor("fh", DType::f32, {n});
    k.threads(threads);
    if (!fragment.get()) {
      k.grid(ceildiv(n, threads));
      Value i = k.blockId() * threads + k.threadId();
      k.if_(i < n, [&] {
        b(i) = cast(x(i), DType::bf16);
        h(i) = cast(x(i), DType::f16);
        fb(i) = cast(xb(i), DType::f32);
        fh(i) = cast(xh(i), DType::f32);
      });
      return;
    }
    int64_t block = 4 * int64_t(threads);
    k.grid(ceildiv(n, block));
    Value i0 = k.blockId() * block;
    Value v = loadTile(x, {i0}, {block});
    storeTile(b, {i0}, cast(v, DType::bf16));
    storeTile(h, {i0}, cast(v, DType::f16));
    storeTile(fb, {i0}, cast(loadTile(xb, {i0}, {block}), DType::f32));
    storeTile(fh, {i0}, cast(loadTile(xh, {i0}, {block}), DType::f32));
  }
};
MINITILE_KERNEL(Casts, "casts", "f32 to bf16 and f16 and back, scalars or fragments");
