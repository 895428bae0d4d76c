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

namespace {

// TODO(math): minitile's own exp() once branch `math` lands; until then
// 2^t from its integer part (the exponent bits) and a degree-6 polynomial
// of its fraction (relative error < 2e-7), exact 0 below 2^-126.
Value exp(Value x) {
  Value t = max(x * 1.4426950408889634, -127.0);         // x log2(e)
  Value n = cast(t, DType::i32);                         // toward zero
  n = select(cast(n, DType::f32) > t, n - 1, n);          // floor
  Value f = t - cast(n, DType::f32);                     // [0, 1)
  Value p = 1.5353362e-4 * f + 1.3398874e-3;
  p = p * f + 9.6184424e-3;
  p = p * f + 5.5503378e-2;
  p = p * f + 2.4022648e-1;
  p = p * f + 6.9314718e-1;
  p = p * f + 1.0;
  Value scale = bitcast((n + 127) << 23, DType::f32);    // 2^n
  return select(t > -127.0, p * scale, 0.0);
}

} // namespace

struct Softmax : Generator {
  Param<int> blockCols{"block_cols", 4096, {256, 512, 1024, 2048, 4096, 8192, 16384, 32768},
                       "columns a block holds (cols must not exceed it)"};
  Param<int> rowsPerBlock{"rows_per_block", 1, {1, 2, 4, 8, 16}, "rows per block"};
  Param<int> threads{"threads", 512, {128, 256, 512, 1024}, "threads per block"};
  Param<bool> bf16{"bf16", false, "x and y hold bf16 (else f32)"};

  void generate(Kernel &k) override {
    const int64_t RB = rowsPerBlock, BC = blockCols;
    DType t = bf16 ? DType::bf16 : DType::f32;
    Value R = k.size("rows"), C = k.size("cols");
    Tensor x = k.tensor("x", t, {R, C}), y = k.tensor("y", t, {R, C});
    k.require(C <= BC, "cols must not exceed the kernel's block_cols");
    k.threads(threads);
    k.grid(ceildiv(R, RB));

    Value r0 = k.blockId() * RB;
    Value v = cast(loadTile(x, {r0, 0}, {RB, BC}, /*padding=*/-INFINITY), DType::f32);
    Value e = exp(v - broadcast(reduceMax(v, 1), {RB, BC}, {0}));
    Value s = e / broadcast(reduceSum(e, 1), {RB, BC}, {0});
    storeTile(y, {r0, 0}, cast(s, t));
  }
};
MINITILE_KERNEL(Softmax, "softmax", "y = softmax of each row of x [rows, cols]");
