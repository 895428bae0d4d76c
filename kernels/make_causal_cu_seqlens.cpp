//===- make_causal_cu_seqlens.cpp - causal windows of a compressed KV ----===//
//
//   ks[p] = 0,   ke[p] = min((p + 1) / ratio, S_kv)     for p in [0, S)
//
//===----------------------------------------------------------------------===//
#include "minitile/dsl.h"

namespace {

using namespace minitile;

struct MakeCausalCuSeqlens : Generator {
  Param<int> threads{"threads", 256, 32, 1024, "threads per block"};

  void generate(Kernel &k) override {
    Value S = k.size("S"), T = k.size("S_kv");
    Value ratio = k.size("ratio");
    Tensor ks = k.tensor("ks", DType::i32, {S});
    Tensor ke = k.tensor("ke", DType::i32, {S});
    k.require(ratio > 0, "ratio must be positive");
    k.require(T < (int64_t(1) << 31), "S_kv must fit in int32");
    k.threads(threads);
    k.grid(ceildiv(S, threads));

    Value p = k.blockId() * threads + k.threadId();
    k.if_(p < S, [&] {
      ks(p) = cast(0, DType::i32);
      ke(p) = cast(min((p + 1) / ratio, T), DType::i32);
    });
  }
};

} // namespace

MINITILE_KERNEL(MakeCausalCuSeqlens, "make_causal_cu_seqlens",
                "ks[p] = 0, ke[p] = min((p + 1) / ratio, S_kv): causal windows");
