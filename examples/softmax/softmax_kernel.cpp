//===- softmax_kernel.cpp - softmax over the rows of a matrix -------------===//
//
//   y[r, c] = exp(x[r, c] - max_c x[r, :]) / sum_c exp(x[r, c] - max_c x[r, :])
//
// x and y [rows, cols], f32 or bf16 (computed in f32). A block holds
// `rows_per_block` whole rows in registers, `block_cols` wide (cols may be
// fewer: the columns past cols read as -inf and are not written), so x is
// read once and y written once.
//
//===----------------------------------------------------------------------===//
#include <minitile/dsl.h>

#include <cmath>

using namespace minitile;


struct Softmax : Generator {
  Param<int> blockCols{"block_cols", 4096, {256, 512, 1024, 2048, 4096, 8192, 16384, 32768},
                       "columns a block holds (cols must not exceed it)"};
  Param<int> rowsPerBlock{"rows_per_block", 1, {1, 2, 4, 8, 16}, "rows per block"};
  Param<int> threads{"threads", 512, {128, 256, 512, 1024}, "threads per block"};
  Param<bool> bf16{"bf16", false, "x and y hold bf16 (else f32)"};
  Param<bool> fast{"fast_math", true,
                   "exp by ex2.approx (within 2 + 1.173|x| ulp, docs/MATH.md), else libdevice"};

  void generate(Kernel &k) override {
    const int64_t RB = rowsPerBlock, BC = blockCols;
    DType t = bf16 ? DType::bf16 : DType::f32;
    Value R = k.size("rows"), C = k.size("cols");
    Tensor x = k.tensor("x", t, {R, C}), y = k.tensor("y", t, {R, C});
    k.require(C <= BC, "cols must not exceed the kernel's block_cols");
    k.threads(threads);
    k.grid(ceildiv(R, RB));
    k.fastMath(fast);

    Value r0 = k.blockId() * RB;
    Value v = cast(loadTile(x, {r0, 0}, {RB, BC}, /*padding=*/-INFINITY), DType::f32);
    Value e = exp(v - broadcast(reduceMax(v, 1), {RB, BC}, {0}));
    Value s = e / broadcast(reduceSum(e, 1), {RB, BC}, {0});
    storeTile(y, {r0, 0}, cast(s, t));
  }
};
MINITILE_KERNEL(Softmax, "softmax", "y = softmax of each row of x [rows, cols]");
