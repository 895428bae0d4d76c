//===- clean_logits.cpp - -inf outside each row's window -----------------===//
//
//   logits[s, t] = -inf   for t < ks[s] or t >= ke[s]
//
// Never reads logits; entries inside the window are left as they are. The
// window is clamped to [0, S_kv]; an empty one (ke <= ks) masks the whole row.
// Each row of threads of a block (threadId(1)) cleans one row of logits, so a
// block's rows load their windows and store at once.
//
//===----------------------------------------------------------------------===//
#include "minitile/dsl.h"

namespace {

using namespace minitile;

struct CleanLogits : Generator {
  Param<int> lanes{"threads_per_row", 32, {32, 64, 128, 256}, "threads cleaning one row"};
  Param<int> rows{"rows_per_block", 8, 1, 32, "rows of logits each block cleans"};

  void generate(Kernel &k) override {
    Value S = k.size("S"), T = k.size("S_kv");
    Tensor logits = k.tensor("logits", DType::f32, {S, T});
    Tensor ks = k.tensor("ks", DType::i32, {S});
    Tensor ke = k.tensor("ke", DType::i32, {S});
    k.threads(lanes, rows);
    k.grid(ceildiv(S, rows));

    Value s = k.blockId() * rows + k.threadId(1);
    k.if_(s < S, [&] {
      Value lo = clamp(ks(s), 0, T);
      Value hi = clamp(ke(s), lo, T);
      fill(logits[s], 0, lo, negInf(), Across::x);
      fill(logits[s], hi, T, negInf(), Across::x);
    });
  }
};

} // namespace

MINITILE_KERNEL(CleanLogits, "clean_logits",
                "writes -inf to logits[s, t] outside [ks[s], ke[s])");
