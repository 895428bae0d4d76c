//===- RobustKernels.cpp - kernels that misuse the DSL, or test a launcher -===//
//
// `minitile-robust-kernels`: each misuse must be one error line naming the
// line marked here (tests/lit/cli/robust.test), and the launchers of the
// others must refuse what they cannot launch safely
// (tests/lit/cli/launcher-checks.test).
//
//===----------------------------------------------------------------------===//
#include "minitile/dsl.h"

namespace {

using namespace minitile;

/// The smallest kernel: one block of 32 threads.
void trivial(Kernel &k) {
  k.threads(32);
  k.grid(1);
}

/// A Param whose default is outside its own range (-p stages=20 is refused).
/// On one line with its struct: GCC names the struct's line, clang the
/// Param's.
// clang-format off
struct BadParam : Generator { Param<int> stages{"stages", 20, 2, 12, "out of its own range"}; // BAD-PARAM
  void generate(Kernel &k) override { trivial(k); }
};
// clang-format on

/// x[i] = i / 0, and x[i] = i % 0.
template <bool Remainder> struct ByZero : Generator {
  void generate(Kernel &k) override {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::i64, {n});
    k.threads(128);
    k.grid(ceildiv(n, 128));
    Value i = k.blockId() * 128 + k.threadId();
    k.if_(i < n, [&] {
      if (Remainder)
        x(i) = cast(i % 0, DType::i64); // REMAINDER-BY-ZERO
      else
        x(i) = cast(i / 0, DType::i64); // DIVIDE-BY-ZERO
    });
  }
};

/// x[i] = i / (n - n), i % (n - n): a zero only LLVM sees, which made its
/// division undefined and the store vanish; now -1 and i are stored.
struct ByRuntimeZero : Generator {
  void generate(Kernel &k) override {
    Value n = k.size("n");
    Tensor q = k.tensor("q", DType::i64, {n});
    Tensor r = k.tensor("r", DType::i64, {n});
    k.threads(128);
    k.grid(ceildiv(n, 128));
    Value i = k.blockId() * 128 + k.threadId();
    k.if_(i < n, [&] {
      q(i) = cast(i / (n - n), DType::i64);
      r(i) = cast(i % (n - n), DType::i64);
    });
  }
};

struct NegativeGrid : Generator {
  void generate(Kernel &k) override {
    k.threads(32);
    k.grid(-1); // NEGATIVE-GRID
  }
};

struct NegativePersistent : Generator {
  void generate(Kernel &k) override {
    k.threads(32);
    k.persistent(-5, [&](Value) {}); // NEGATIVE-PERSISTENT
  }
};

/// x[i] = 1 for i < n, on `blocks` blocks of 32 threads (a grid the caller
/// gives, which may be negative): the launcher checks.
struct Fill : Generator {
  void generate(Kernel &k) override {
    Value n = k.size("n");
    Value blocks = k.scalar("blocks", DType::i64);
    Tensor x = k.tensor("x", DType::f32, {n, 4});
    k.threads(32);
    k.grid(blocks); // FILL-GRID
    Value i = k.blockId() * 32 + k.threadId();
    k.if_(i < n, [&] {
      for (int j = 0; j < 4; ++j)
        x(i, j) = 1.0;
    });
  }
};

using DivideByZero = ByZero<false>;
using RemainderByZero = ByZero<true>;

} // namespace

MINITILE_KERNEL(BadParam, "bad_param", "a Param whose default is outside its range");
MINITILE_KERNEL(DivideByZero, "divide_by_zero", "i / 0");
MINITILE_KERNEL(RemainderByZero, "remainder_by_zero", "i % 0");
MINITILE_KERNEL(ByRuntimeZero, "by_runtime_zero", "i / (n - n) and i % (n - n)");
MINITILE_KERNEL(NegativeGrid, "negative_grid", "grid(-1)");
MINITILE_KERNEL(NegativePersistent, "negative_persistent", "persistent(-5, ...)");
MINITILE_KERNEL(Fill, "fill", "x[i, :] = 1 on a grid the caller gives");
