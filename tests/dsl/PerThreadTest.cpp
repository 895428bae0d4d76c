//===- PerThreadTest.cpp - bits, shared elements, atomics, warps, while ---===//
//
// What per-thread kernels (topk) build from: each DSL function records the op
// it should, and each misuse is a minitile::Error at the user's line.
//
//===----------------------------------------------------------------------===//
#include "DslTestSupport.h"

using namespace minitile;
using namespace dsltest;

namespace {
bool has(const std::string &ir, const std::string &text) {
  return ir.find(text) != std::string::npos;
}
} // namespace

TEST(DslBits, OperatorsBitcastsAndCounts) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    Tensor y = k.tensor("y", DType::i32, {n});
    launch(k, n);
    Value i = k.threadId();
    Value u = bitcast(x(i), DType::i32);
    Value flipped = u ^ ((u >> 31) | INT32_MIN);
    y(i) = ((flipped << 1) & ~u) + popcount(u) + countLeadingZeros(u) + countTrailingZeros(u);
    x(i) = bitcast(flipped, DType::f32);
  });
  for (const char *op : {"arith.shrsi", "arith.ori", "arith.xori", "arith.shli", "arith.andi",
                         "math.ctpop", "math.ctlz", "math.cttz"})
    EXPECT_TRUE(has(ir, op)) << op << "\n" << ir;
  EXPECT_TRUE(has(ir, "arith.bitcast") && has(ir, ": f32 to i32") && has(ir, ": i32 to f32")) << ir;
}

TEST(DslSharedElements, LoadStoreAndAtomics) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor counts = k.tensor("counts", DType::i32, {n});
    launch(k, n);
    Shared hist = k.shared(DType::i32, {2, 256});
    Value t = k.threadId();
    hist(1, t) = 0;
    k.barrier();
    Value old = atomicAdd(hist(1, t % 256), 1);
    atomicMax(hist(0, 3), old);
    atomicAdd(counts(t), Value(hist(1, t)));
    atomicExchange(counts(0), 7);
  });
  EXPECT_TRUE(has(ir, "tile.alloc_shared : <2x256xi32>")) << ir;
  EXPECT_TRUE(has(ir, "tile.shared_store %c0_i32, %")) << ir;
  EXPECT_TRUE(has(ir, "tile.barrier")) << ir;
  EXPECT_TRUE(has(ir, "tile.shared_atomic  add")) << ir;
  EXPECT_TRUE(has(ir, "tile.shared_atomic  max")) << ir;
  EXPECT_TRUE(has(ir, "tile.shared_load")) << ir;
  EXPECT_TRUE(has(ir, "tile.atomic  add")) << ir;
  EXPECT_TRUE(has(ir, "tile.atomic  exchange")) << ir;
}

TEST(DslWarp, VotesAndShuffles) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::i32, {n});
    launch(k, n);
    Value lane = cast(k.threadId() % 32, DType::i32);
    Value v = x(k.threadId());
    Value lanes = warpBallot(v > 0);
    Value any = warpAny(v > 1), all = warpAll(v > 2);
    Value sum = warpShuffleUp(v, 1) + warpShuffleDown(v, lane) + warpShuffle(v, 0) +
                warpShuffleXor(v, 16);
    x(k.threadId()) = select(any && all, sum, lanes);
  });
  EXPECT_TRUE(has(ir, "tile.vote  ballot")) << ir;
  EXPECT_TRUE(has(ir, "tile.vote  any")) << ir;
  EXPECT_TRUE(has(ir, "tile.vote  all")) << ir;
  EXPECT_TRUE(has(ir, "tile.shuffle_up")) << ir;
  EXPECT_TRUE(has(ir, "tile.shuffle_down")) << ir;
  EXPECT_TRUE(has(ir, "tile.shuffle_idx")) << ir;
  EXPECT_TRUE(has(ir, "tile.shuffle_xor %")) << ir;
}

TEST(DslWhile, ConditionRegionAndBody) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::i32, {n});
    launch(k, n);
    Var left = k.var(DType::i32, 5);
    k.while_([&] { return left > 0; }, [&] {
      left = left - 1;
      k.barrier();
    });
    x(0) = left;
  });
  auto loop = ir.find("tile.while {");
  ASSERT_NE(loop, std::string::npos) << ir;
  auto cond = ir.find("tile.condition", loop);
  auto body = ir.find("} do {", loop);
  ASSERT_NE(cond, std::string::npos) << ir;
  ASSERT_NE(body, std::string::npos) << ir;
  EXPECT_LT(cond, body);
  EXPECT_NE(ir.find("tile.barrier", body), std::string::npos) << ir;
}

TEST(DslWhile, CompilesToAPTXLoop) {
  mlir::DialectRegistry registry;
  registerDialects(registry);
  registerPasses();
  mlir::MLIRContext ctx(registry);
  LambdaGenerator gen;
  gen.body = [](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::i32, {n});
    launch(k, n);
    Var left = k.var(cast(n, DType::i32));
    k.while_([&] { return warpAny(left > 0); }, [&] { left = left - 1; });
    x(0) = left;
  };
  auto module = buildKernel(ctx, gen, "t");
  ASSERT_TRUE(mlir::succeeded(runTilePasses(*module, {})));
  ASSERT_TRUE(mlir::succeeded(lowerToLLVMDialect(*module, {})));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  EXPECT_TRUE(has(text, "nvvm.vote.sync  any")) << text;
  EXPECT_TRUE(has(text, "llvm.cond_br")) << text;
}

TEST(DslOccupancy, MinBlocksPerSMAndProducerRegistersOnTheKernel) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    k.minBlocksPerSM(6);
    k.producerRegisters(24);
  });
  EXPECT_TRUE(has(ir, "min_blocks_per_sm = 6 : i32")) << ir;
  EXPECT_TRUE(has(ir, "producer_registers = 24 : i32")) << ir;
}

//===----------------------------------------------------------------------===//
// Misuse
//===----------------------------------------------------------------------===//

TEST(DslPerThreadMisuse, ProducerRegistersOutOfSetmaxnregSteps) {
  for (int bad : {16, 28, 72}) {
    unsigned line = 0;
    expectDslError(line,
                   "producerRegisters(" + std::to_string(bad) +
                       "): a producer warp keeps 24 to 64 registers, a multiple of 8",
                   [&](Kernel &k) {
                     Value n = k.size("n");
                     launch(k, n);
                     k.producerRegisters(64); // the ends are allowed
                     k.producerRegisters(24);
                     line = __LINE__ + 1;
                     k.producerRegisters(bad);
                   });
  }
}

TEST(DslPerThreadMisuse, MoreBlocksPerSMThanRegistersAllow) {
  unsigned line = 0;
  expectDslError(line, "minBlocksPerSM(33) of 128 threads would leave 15 registers a thread", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    k.minBlocksPerSM(16);
    k.minBlocksPerSM(32); // 16 registers a thread: still allowed
    line = __LINE__ + 1;
    k.minBlocksPerSM(33);
  });
}

TEST(DslPerThreadMisuse, SharedElementWithTooFewIndices) {
  unsigned line = 0;
  expectDslError(line, "a shared tile of [2, 256] is indexed with 1 index", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    Shared hist = k.shared(DType::i32, {2, 256});
    line = __LINE__ + 1;
    hist(3) = 0;
  });
}

TEST(DslPerThreadMisuse, SharedIndexOutsideTheTile) {
  unsigned line = 0;
  expectDslError(line, "index 256 is outside dimension 0 of a shared tile of [256]",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   launch(k, n);
                   Shared hist = k.shared(DType::i32, {256});
                   line = __LINE__ + 1;
                   hist(256) = 0;
                 });
}

TEST(DslPerThreadMisuse, FloatStoredInAnIntTile) {
  unsigned line = 0;
  expectDslError(line, "store to a shared tile of i32: the value is f32", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    launch(k, n);
    Shared hist = k.shared(DType::i32, {256});
    line = __LINE__ + 1;
    hist(0) = x(0);
  });
}

TEST(DslPerThreadMisuse, AtomicMaxOfFloats) {
  unsigned line = 0;
  expectDslError(line, "atomicMax() on 'x', which holds f32; it takes integers",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor x = k.tensor("x", DType::f32, {n});
                   launch(k, n);
                   line = __LINE__ + 1;
                   atomicMax(x(0), 1.0);
                 });
}

TEST(DslPerThreadMisuse, AtomicWithAValueOfAnotherType) {
  unsigned line = 0;
  expectDslError(line, "atomicAdd() on a shared tile (i32) with a index value: cast() it first",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   launch(k, n);
                   Shared c = k.shared(DType::i32, {4});
                   line = __LINE__ + 1;
                   atomicAdd(c(0), k.threadId());
                 });
}

TEST(DslPerThreadMisuse, AtomicOnSixteenBitElements) {
  unsigned line = 0;
  expectDslError(line, "atomicOr() on 'x', which holds i16; atomics take i32, i64 or f32",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor x = k.tensor("x", DType::i16, {n});
                   launch(k, n);
                   line = __LINE__ + 1;
                   atomicOr(x(0), 1);
                 });
}

TEST(DslPerThreadMisuse, ShuffleOfAnIndex) {
  unsigned line = 0;
  expectDslError(line, "warpShuffle() moves an i32 or an f32, not index: cast() it",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   launch(k, n);
                   line = __LINE__ + 1;
                   warpShuffle(k.threadId(), 0);
                 });
}

TEST(DslPerThreadMisuse, ShuffleXorMaskPastTheWarp) {
  unsigned line = 0;
  expectDslError(line, "warpShuffleXor(): the lane mask is 0 to 31, not 32", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    launch(k, n);
    line = __LINE__ + 1;
    warpShuffleXor(x(0), 32);
  });
}

TEST(DslPerThreadMisuse, BallotOfAnInteger) {
  unsigned line = 0;
  expectDslError(line, "warpBallot() takes a bool, not index", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    line = __LINE__ + 1;
    warpBallot(k.threadId());
  });
}

TEST(DslPerThreadMisuse, WarpFunctionInAPartialWarp) {
  unsigned line = 0;
  expectDslError(line, "is warp-wide, but the block's 48 threads are not whole warps",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor x = k.tensor("x", DType::i32, {n});
                   k.threads(48);
                   k.grid(1);
                   line = __LINE__ + 1;
                   x(0) = warpBallot(k.threadId() < 3);
                 });
}

TEST(DslPerThreadMisuse, BarrierInsideParallel) {
  unsigned line = 0;
  expectDslError(line, "barrier() inside a parallel() loop", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    k.parallel(0, n, [&](Value) {
      line = __LINE__ + 1;
      k.barrier();
    });
  });
}

TEST(DslPerThreadMisuse, BarrierInsideAPipelinedLoopOfTwoGroups) {
  unsigned line = 0;
  expectDslError(line, "barrier() inside a pipelined() loop of 2 groups: its threads do not "
                       "all run the same iterations",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   k.threads(256);
                   k.grid(1);
                   k.pipelined(0, n, [&](Value) {
                     line = __LINE__ + 1;
                     k.barrier();
                   }, {.stages = 2, .groups = 2});
                 });
}

TEST(DslPerThread, BarrierInsideAPipelinedLoopOfOneGroup) {
  // Every compute thread runs each iteration: the barrier stands.
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    k.threads(128);
    k.persistent(n, [&](Value) { k.barrier(); }, {.prefetch = true});
  });
  EXPECT_NE(ir.find("tile.barrier"), std::string::npos) << ir;
}

TEST(DslPerThreadMisuse, WhileConditionThatIsNotABool) {
  unsigned line = 0;
  expectDslError(line, "the condition of while_() is a bool, not index", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    line = __LINE__ + 1;
    k.while_([&] { return n; }, [] {});
  });
}

TEST(DslPerThreadMisuse, BitcastBetweenWidths) {
  unsigned line = 0;
  expectDslError(line, "bitcast() from f32 to i64: the types must have the same width",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor x = k.tensor("x", DType::f32, {n});
                   launch(k, n);
                   line = __LINE__ + 1;
                   bitcast(x(0), DType::i64);
                 });
}

TEST(DslPerThreadMisuse, PopcountOfAFloat) {
  unsigned line = 0;
  expectDslError(line, "popcount() takes a sized integer (i8 .. i64), not f32", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    launch(k, n);
    line = __LINE__ + 1;
    popcount(x(0));
  });
}

TEST(DslPerThreadMisuse, AndOfFloats) {
  unsigned line = 0;
  expectDslError(line, "'&' takes integers or bools, not f32", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    launch(k, n);
    line = __LINE__ + 1;
    Value v = x(0) & x(1);
    (void)v;
  });
}
