//===- LauncherErrorKernels.cpp - kernels whose launchers C++ cannot write -===//
//
// The launcher computes require()s, the grid and tensor maps with integer
// arithmetic in C++. These kernels ask it for floating-point arithmetic;
// `minitile-launcher-errors compile KERNEL --emit cpp` must refuse them at
// the DSL line that asks (tests/lit/cli/launcher-errors.test).
//
//===----------------------------------------------------------------------===//
#include "minitile/dsl.h"

namespace {

using namespace minitile;

/// require() on a float scalar: the launcher would need a float constant.
struct FloatRequire : Generator {
  void generate(Kernel &k) override {
    Value alpha = k.scalar("alpha", DType::f32);
    k.require(alpha > 0.5, "alpha must exceed 0.5"); // FLOAT-REQUIRE
    k.threads(32);
    k.grid(1);
  }
};

/// A grid computed from a float scalar: the launcher would convert it.
struct FloatGrid : Generator {
  void generate(Kernel &k) override {
    Value blocks = k.scalar("blocks", DType::f32);
    k.grid(cast(blocks, DType::index)); // FLOAT-GRID
    k.threads(32);
  }
};

} // namespace

MINITILE_KERNEL(FloatRequire, "float_require", "require() on a float argument");
MINITILE_KERNEL(FloatGrid, "float_grid", "a grid computed from a float argument");
