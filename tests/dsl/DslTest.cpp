//===- DslTest.cpp - the DSL builds the IR it should, and reports misuse --===//
#include "DslTestSupport.h"

#include "dsl/Build.h"
#include "lowering/EmitLauncher.h"
#include "lowering/Stages.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <sstream>
#include <vector>

using namespace minitile;
using namespace dsltest;


TEST(Dsl, BuildsLauncherAndKernel) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    launch(k, n);
    Value i = k.blockId() * 128 + k.threadId();
    k.if_(i < n, [&] { x(i) = x(i) * 2.0; });
  });
  EXPECT_NE(ir.find("tile.host @t(%n: index {tile.name = \"n\", tile.size}"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.kernel @t_kernel("), std::string::npos) << ir;
  EXPECT_NE(ir.find("block = array<i32: 128, 1, 1>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.check_ptr %x"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.ceildivsi %n"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.launch @t_kernel grid("), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.load"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.mulf"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.store"), std::string::npos) << ir;
}

TEST(Dsl, PersistentKernelsSizeTheirGridToTheDevice) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    k.threads(128);
    k.persistent(ceildiv(n, 128), [&](Value item) {
      x(item * 128 + k.threadId()) = 1.0f;
    }, {.blocksPerSM = 2, .order = WorkOrder::lastFirst});
  });
  // The launcher: min(items, 2 x the multiprocessors) blocks.
  EXPECT_NE(ir.find("tile.multiprocessor_count"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.constant 2 : index"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.minsi"), std::string::npos) << ir;
  // The kernel: a loop from the block's index by the grid's extent, the
  // items taken last first.
  EXPECT_NE(ir.find("tile.block_id"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.grid_dim"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.for"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.subi"), std::string::npos) << ir;
}

TEST(Dsl, PersistentZigzagMirrorsOddRounds) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    k.threads(128);
    k.persistent(n, [&](Value item) { x(item) = 1.0f; }, {.order = WorkOrder::zigzag});
  });
  // The launcher refuses 2^31 items or more; the kernel takes the round
  // (one 32-bit division an item) and mirrors the odd ones.
  EXPECT_NE(ir.find("the zigzag order takes fewer than 2^31 items"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.divsi"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.remsi"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.select"), std::string::npos) << ir;
}

/// A prefetching persistent loop with `itemBuffers` buffers, holding a
/// pipelined loop of its own.
std::string prefetchingPersistent(int itemBuffers) {
  return build([&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::bf16, {n, 64});
    k.threads(128);
    k.persistent(ceildiv(n, 64), [&](Value item) {
      Shared q = k.shared(DType::bf16, {64, 64});
      copy(x, {item * 64, 0}, q);
      k.pipelined(0, ceildiv(n, 64), [&](Value i) {
        Shared t = k.shared(DType::bf16, {64, 64});
        copy(x, {i * 64, 0}, t);
        gemm(t, q, /*transposeB=*/true);
      });
    }, {.prefetch = true, .itemBuffers = itemBuffers});
  });
}

TEST(Dsl, PrefetchingPersistentLoopsArePipelinedLoopsOfOneGroup) {
  std::string ir = prefetchingPersistent(2);
  // Two items in flight, stepping by the grid, one group; the body's own
  // pipelined loop nests in it.
  size_t outer = ir.find("stages 2 {");
  ASSERT_NE(outer, std::string::npos) << ir;
  EXPECT_NE(ir.rfind("step %", outer), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.pipelined", outer), std::string::npos) << ir;
  EXPECT_EQ(ir.find("tile.for"), std::string::npos) << ir;
  // More item buffers: more stages (the nested loop has 3 by default, the
  // outer one now too).
  EXPECT_EQ(count(ir, "stages 3 {"), 1u) << ir;
  std::string three = prefetchingPersistent(3);
  EXPECT_EQ(count(three, "stages 3 {"), 2u) << three;
  EXPECT_EQ(count(three, "stages 2 {"), 0u) << three;
}

TEST(Dsl, DynamicPersistentLoopsTakeTheLaunchersWorkCounter) {
  // The launcher passes its work counter as the kernel's last argument,
  // after every launcher argument -- one declared after persistent() too --
  // and the loop takes its iterations from it.
  std::string ir = build([&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::bf16, {n, 64});
    k.threads(128);
    k.persistent(ceildiv(n, 64), [&](Value item) {
      Shared q = k.shared(DType::bf16, {64, 64});
      copy(x, {item * 64, 0}, q);
      gemm(q, q, /*transposeB=*/true);
    }, {.order = WorkOrder::lastFirst, .prefetch = true, .dynamic = true});
    k.size("late");
  });
  EXPECT_NE(ir.find("tile.host @t(%n: index {tile.name = \"n\", tile.size}, %x: "
                    "!tile.ptr<bf16> {tile.name = \"x\"}, %late: index"),
            std::string::npos)
      << ir;
  EXPECT_NE(ir.find("tile.work_counter : <i32>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("args(%n, %x, %late, %"), std::string::npos) << ir;
  EXPECT_NE(ir.find("%late: index {tile.name = \"late\", tile.size}, %work_counter: "
                    "!tile.ptr<i32> {tile.name = \"work_counter\"})"),
            std::string::npos)
      << ir;
  EXPECT_NE(ir.find("stages 2 queue %"), std::string::npos) << ir;
  EXPECT_NE(ir.find("dynamic work items are counted in 32 bits"), std::string::npos) << ir;
}

TEST(Dsl, DynamicPersistentLoopsWithoutPrefetchClaimBetweenBarriers) {
  std::string ir = build([&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    k.threads(128);
    k.persistent(n, [&](Value item) { x(item) = 1.0f; }, {.dynamic = true});
  });
  EXPECT_NE(ir.find("tile.while"), std::string::npos) << ir;
  EXPECT_EQ(count(ir, "tile.barrier"), 2u) << ir;
  EXPECT_NE(ir.find("tile.atomic  add"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.atomic  exchange"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("tile.pipelined"), std::string::npos) << ir;
}

TEST(DslMisuse, DynamicZigzag) {
  unsigned line = 0;
  expectDslError(line, "persistent(): the zigzag order deals the items out in advance; "
                       "dynamic takes them linear or lastFirst",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   k.threads(128);
                   line = __LINE__ + 1;
                   k.persistent(n, [](Value) {}, {.order = WorkOrder::zigzag, .dynamic = true});
                 });
}

TEST(DslMisuse, DynamicWithoutPrefetchAroundAPipelinedLoop) {
  unsigned line = 0;
  expectDslError(line, "persistent(): dynamic items without prefetch cannot hold a pipelined() "
                       "loop (its producer warps would not see the claims); give prefetch = true",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor x = k.tensor("x", DType::bf16, {n, 64});
                   k.threads(128);
                   line = __LINE__ + 1;
                   k.persistent(ceildiv(n, 64), [&](Value) {
                     k.pipelined(0, ceildiv(n, 64), [&](Value i) {
                       Shared t = k.shared(DType::bf16, {64, 64});
                       copy(x, {i * 64, 0}, t);
                     });
                   }, {.dynamic = true});
                 });
}

TEST(DslMisuse, PersistentWithOneItemBuffer) {
  unsigned line = 0;
  expectDslError(line, "persistent(): itemBuffers must be at least 2, not 1", [&](Kernel &k) {
    Value n = k.size("n");
    k.threads(128);
    line = __LINE__ + 1;
    k.persistent(n, [](Value) {}, {.prefetch = true, .itemBuffers = 1});
  });
}

/// An empty pipelined() loop of `options` in a kernel of its groups'
/// threads; `line` gets the call's line.
static void emptyLoop(Kernel &k, PipelinedOptions options, unsigned &line) {
  Value n = k.size("n");
  k.threads(128 * options.groups);
  k.grid(1);
  line = __LINE__ + 1;
  k.pipelined(0, n, [&](Value) {}, options);
}

TEST(DslMisuse, ContinuousLoopNotInsideAPipelinedLoop) {
  unsigned line = 0;
  expectDslError(line, "pipelined(): continuous is for a loop directly inside a prefetching "
                       "persistent() loop or a pipelined() loop of one group",
                 [&](Kernel &k) {
                   emptyLoop(k, {.stages = 4, .groups = 2, .overlap = true, .continuous = true},
                             line);
                 });
}

TEST(DslMisuse, CooperativeAndContinuous) {
  unsigned line = 0;
  expectDslError(line, "pipelined(): cooperative and continuous do not go together",
                 [&](Kernel &k) {
                   emptyLoop(k, {.stages = 4, .groups = 2, .overlap = true, .continuous = true,
                                 .cooperative = true},
                             line);
                 });
}

TEST(DslMisuse, PingPongOfTwoGroups) {
  unsigned line = 0;
  expectDslError(line, "pipelined(): pingPong takes turns between the warpgroups of one group, "
                       "not 2 groups",
                 [&](Kernel &k) {
                   emptyLoop(k, {.stages = 4, .groups = 2, .pingPong = true}, line);
                 });
}

TEST(DslMisuse, PipelinedInsideAPipelinedLoopOfTwoGroups) {
  unsigned line = 0;
  expectDslError(line, "pipelined() inside a pipelined() loop of 2 groups; it nests only in a "
                       "loop of one group",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   k.threads(256);
                   k.grid(1);
                   k.pipelined(0, n, [&](Value) {
                     line = __LINE__ + 1;
                     k.pipelined(0, n, [&](Value) {});
                   }, {.stages = 2, .groups = 2});
                 });
}

TEST(DslMisuse, PersistentAfterGrid) {
  unsigned line = 0;
  expectDslError(line, "persistent() sets the grid, which is already set", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    line = __LINE__ + 1;
    k.persistent(n, [](Value) {});
  });
}

TEST(DslMisuse, PersistentItemsFromTheDevice) {
  unsigned line = 0;
  expectDslError(line, "persistent()'s item count depends on", [&](Kernel &k) {
    Value n = k.size("n");
    k.threads(128);
    line = __LINE__ + 1;
    k.persistent(n + k.threadId(), [](Value) {});
  });
}

TEST(Dsl, RecordsCallerLocations) {
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext ctx(registry);
  LambdaGenerator gen;
  unsigned storeLine = 0;
  gen.body = [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    launch(k, n);
    storeLine = __LINE__ + 1;
    x(k.threadId()) = 1.0;
  };
  auto module = buildKernel(ctx, gen, "t");
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  flags.enableDebugInfo();
  module->print(os, flags);
  std::string loc = std::string(__FILE__) + "\":" + std::to_string(storeLine);
  auto storeAt = text.find("tile.store");
  ASSERT_NE(storeAt, std::string::npos);
  EXPECT_NE(text.find(loc), std::string::npos) << text;
}

TEST(Dsl, IntegersWidenToIndex) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor w = k.tensor("w", DType::i32, {n});
    Tensor out = k.tensor("out", DType::i64, {n});
    launch(k, n);
    Value i = k.threadId();
    out(i) = cast(w(i) + i, DType::i64);
  });
  EXPECT_NE(ir.find("arith.index_cast"), std::string::npos) << ir;
}

TEST(Dsl, MinNumMaxNumDropNaN) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    Tensor w = k.tensor("w", DType::i32, {n});
    launch(k, n);
    Value i = k.threadId();
    x(i) = minNum(maxNum(x(i), negInf()), 1.5);
    w(i) = maxNum(minNum(w(i), 7), 0);
  });
  // Floats: the NaN-dropping ops (not maximumf / minimumf); integers: signed.
  EXPECT_NE(ir.find("arith.maxnumf"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.minnumf"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("arith.maximumf"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("arith.minimumf"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.maxsi"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.minsi"), std::string::npos) << ir;
}

TEST(Dsl, VariablesLiveAtTheKernelEntry) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::i32, {n});
    launch(k, n);
    k.serial(0, n, [&](Value i) {
      Var m = k.var(DType::i32, 0);
      m = max(m, x(i));
      x(i) = m;
    });
  });
  auto alloc = ir.find("tile.alloc_local");
  auto loop = ir.find("tile.for");
  ASSERT_NE(alloc, std::string::npos);
  EXPECT_LT(alloc, loop) << ir;
}

TEST(Dsl, FillUsesVectorStores) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    launch(k, n);
    fill(x, 0, n, negInf());
  });
  EXPECT_NE(ir.find("tile.elems_to_aligned"), std::string::npos) << ir;
  EXPECT_NE(ir.find("vector<4xf32>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("0xFF800000"), std::string::npos) << ir;
  // Each of its three parts (the unaligned head, the vectors, the tail)
  // under a test that it is not empty, and all of them under one that the
  // range is not: an empty fill costs its threads no loop set-up.
  EXPECT_EQ(count(ir, "tile.if"), 4u) << ir;
  EXPECT_EQ(count(ir, "tile.parallel"), 3u) << ir;
  EXPECT_LT(ir.find("tile.if"), ir.find("tile.parallel")) << ir;
}

//===----------------------------------------------------------------------===//
// Misuse: each reports the user's line and names the problem
//===----------------------------------------------------------------------===//

TEST(Dsl, IfElseGivesTheBranchTakensValue) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    launch(k, n);
    Value i = k.threadId();
    Value v = x(i);
    x(i) = k.ifElse(i < 7, [&] { return v * 2.0; }, [&] { return v; });
  });
  // One if with a result, each region yielding its value; nothing left of
  // the if the branches were built in first.
  EXPECT_NE(ir.find("= tile.if %"), std::string::npos) << ir;
  EXPECT_NE(ir.find("-> (f32)"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("tile.if %", ir.find("tile.if %") + 1), std::string::npos) << ir;
}

TEST(DslMisuse, IfElseBranchesOfDifferentTypes) {
  unsigned line = 0;
  expectDslError(line, "ifElse(): the branches give f32 and index", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    launch(k, n);
    Value i = k.threadId();
    line = __LINE__ + 1;
    k.ifElse(i < 7, [&] { return x(i); }, [&] { return i; });
  });
}

TEST(DslMisuse, WrongRank) {
  unsigned line = 0;
  expectDslError(line, "'x' has rank 1 but is indexed with 2 indices", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    launch(k, n);
    line = __LINE__ + 1;
    x(0, 1) = 1.0;
  });
}

TEST(DslMisuse, StoredValueOfTheWrongType) {
  unsigned line = 0;
  expectDslError(line, "store to 'x': the value is index but the tensor holds f32",
                   [&](Kernel &k) {
                     Value n = k.size("n");
                     Tensor x = k.tensor("x", DType::f32, {n});
                     launch(k, n);
                     line = __LINE__ + 1;
                     x(0) = k.threadId();
                   });
}

TEST(DslMisuse, FloatMeetsInt) {
  unsigned line = 0;
  expectDslError(line, "operands of '+' are f32 and i32", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    Tensor y = k.tensor("y", DType::i32, {n});
    launch(k, n);
    line = __LINE__ + 1;
    x(0) = x(0) + y(0);
  });
}

TEST(DslMisuse, NonIntegerConstantForAnIndex) {
  unsigned line = 0;
  expectDslError(line, "is not an integer, but the other operand is index",
                   [&](Kernel &k) {
                     Value n = k.size("n");
                     launch(k, n);
                     line = __LINE__ + 1;
                     Value v = n * 1.5;
                     (void)v;
                   });
}

TEST(DslMisuse, NonPositiveBlock) {
  unsigned line = 0;
  expectDslError(line, "threads(0, 1, 1): block extents must be positive",
                   [&](Kernel &k) {
                     line = __LINE__ + 1;
                     k.threads(0);
                   });
}

TEST(DslMisuse, TooManyThreads) {
  unsigned line = 0;
  expectDslError(line, "a block holds at most 1024", [&](Kernel &k) {
    line = __LINE__ + 1;
    k.threads(64, 32);
  });
}

TEST(DslMisuse, NegativeStaticDimension) {
  unsigned line = 0;
  expectDslError(line, "dimension 1 of 'x' is negative (-3)", [&](Kernel &k) {
    Value n = k.size("n");
    line = __LINE__ + 1;
    k.tensor("x", DType::f32, {n, -3});
  });
}

TEST(DslMisuse, StaticIndexOutsideTheShape) {
  unsigned line = 0;
  expectDslError(line, "index 8 is outside dimension 1 of 'x' (size 8)",
                   [&](Kernel &k) {
                     Value n = k.size("n");
                     Tensor x = k.tensor("x", DType::f32, {n, 8});
                     launch(k, n);
                     line = __LINE__ + 1;
                     x(0, 8) = 0.0;
                   });
}

TEST(DslMisuse, VectorsThatCannotTileTheRow) {
  unsigned line = 0;
  expectDslError(line, "vectors of 4 elements cannot tile the innermost dimension of 'x' (size 6)",
                   [&](Kernel &k) {
                     Value n = k.size("n");
                     Tensor x = k.tensor("x", DType::f32, {n, 6});
                     launch(k, n);
                     line = __LINE__ + 1;
                     x.store({0, 0}, splat(1.0, 4));
                   });
}

TEST(DslMisuse, FillOfAMatrix) {
  unsigned line = 0;
  expectDslError(line, "fill() takes a rank-1 tensor; 'x' has rank 2", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n, n});
    launch(k, n);
    line = __LINE__ + 1;
    fill(x, 0, n, 0.0);
  });
}

TEST(DslMisuse, FillAsyncOfAValueKnownOnlyOnTheDevice) {
  unsigned line = 0;
  expectDslError(line, "fillAsync() of 'x' takes a constant value", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    launch(k, n);
    line = __LINE__ + 1;
    fillAsync(x, 0, n, x(0));
  });
}

TEST(DslMisuse, FillAsyncInsideParallel) {
  unsigned line = 0;
  expectDslError(line, "fillAsync() inside a parallel() loop: the block issues it once",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor x = k.tensor("x", DType::f32, {n, n});
                   launch(k, n);
                   k.parallel(0, n, [&](Value r) {
                     line = __LINE__ + 1;
                     fillAsync(x[r], 0, n, 0.0);
                   });
                 });
}

TEST(DslMisuse, FillAsyncOfAMatrix) {
  unsigned line = 0;
  expectDslError(line, "fillAsync() takes a rank-1 tensor; 'x' has rank 2", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n, n});
    launch(k, n);
    line = __LINE__ + 1;
    fillAsync(x, 0, n, 0.0);
  });
}

TEST(DslMisuse, GridFromADeviceValue) {
  unsigned line = 0;
  expectDslError(line, "the grid depends on 'tile.thread_id'", [&](Kernel &k) {
    k.size("n");
    k.threads(128);
    line = __LINE__ + 1;
    k.grid(k.threadId() + 1);
  });
}

TEST(DslMisuse, DivisionByAConstantZero) {
  unsigned line = 0;
  expectDslError(line, "division by a constant zero", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    line = __LINE__ + 1;
    (void)(n / 0);
  });
  expectDslError(line, "remainder by a constant zero", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    line = __LINE__ + 1;
    (void)(n % 0);
  });
  expectDslError(line, "ceildiv() by a constant zero", [&](Kernel &k) {
    Value n = k.size("n");
    k.threads(128);
    line = __LINE__ + 1;
    k.grid(ceildiv(n, 0));
  });
  // A float divided by zero is IEEE's business (inf or NaN), and an integer
  // divided by a value that is zero only at run time is defined there.
  EXPECT_NO_THROW(build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    launch(k, n);
    x(0) = x(0) / 0.0;
    x(1) = cast(n / (n - n), DType::f32);
  }));
}

TEST(DslMisuse, NegativeCounts) {
  unsigned line = 0;
  expectDslError(line, "grid(): dimension 0 is negative (-1)", [&](Kernel &k) {
    k.threads(32);
    line = __LINE__ + 1;
    k.grid(-1);
  });
  expectDslError(line, "grid(): dimension 2 is negative (-3)", [&](Kernel &k) {
    k.threads(32);
    line = __LINE__ + 1;
    k.grid(1, 1, -3);
  });
  expectDslError(line, "persistent(): the item count is negative (-5)", [&](Kernel &k) {
    k.threads(32);
    line = __LINE__ + 1;
    k.persistent(-5, [&](Value) {});
  });
}

TEST(DslMisuse, ParallelInsideParallel) {
  unsigned line = 0;
  expectDslError(line, "parallel() inside another parallel()", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    k.parallel(0, n, [&](Value) {
      line = __LINE__ + 1;
      k.parallel(0, n, [&](Value) {});
    });
  });
}

TEST(DslMisuse, DuplicateArgumentNames) {
  unsigned line = 0;
  expectDslError(line, "two arguments are named 'n'", [&](Kernel &k) {
    k.size("n");
    line = __LINE__ + 1;
    k.size("n");
  });
}

TEST(DslMisuse, ArgumentNameThatIsNotAnIdentifier) {
  unsigned line = 0;
  expectDslError(line, "argument name 'S kv' is not a C++ identifier", [&](Kernel &k) {
    line = __LINE__ + 1;
    k.size("S kv");
  });
}

TEST(DslMisuse, ConditionThatIsNotABool) {
  unsigned line = 0;
  expectDslError(line, "if_() takes a bool, not index", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    line = __LINE__ + 1;
    k.if_(n, [] {});
  });
}

TEST(DslMisuse, SelectOfAVector) {
  unsigned line = 0;
  expectDslError(line, "slice() of 'x', which has rank 1", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    launch(k, n);
    line = __LINE__ + 1;
    x.slice(0, 1);
  });
}

TEST(Dsl, TensorSizesFromExpressionsOfSizes) {
  // A scratch tensor of a computed shape, its size expression written
  // inside a branch: the view at the kernel's entry computes it again there,
  // the launcher computes it (checked) and refuses it negative, and the
  // launcher's description names it as an expression.
  LambdaGenerator gen;
  gen.body = [](Kernel &k) {
    Value bh = k.size("bh"), S = k.size("S");
    Value qBlocks = ceildiv(S, 64);
    k.threads(128);
    k.grid(bh * qBlocks);
    k.if_(k.blockId() < 1, [&] {
      Tensor p = k.tensor("p", DType::f32, {bh * qBlocks * 64 + (S - 1) % 8, 64});
      Tensor d = k.tensor("d", DType::f32, {max(S - 2, 1), 2});
      p(0, 0) = cast(d.size(0), DType::f32);
    });
  };
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext ctx(registry);
  auto module = buildKernel(ctx, gen, "t"); // verified: the view's sizes dominate it
  std::string ir;
  llvm::raw_string_ostream os(ir);
  module->print(os);
  EXPECT_NE(ir.find("dimension 0 of tensor 'p', bh * ceildiv(S, 64) * 64 + (S - 1) % 8 (at "),
            std::string::npos) << ir;
  EXPECT_NE(ir.find("dimension 0 of tensor 'd', max(S - 2, 1) (at "), std::string::npos) << ir;
  // Only the computed sizes are checked (not 64, nor the size arguments).
  EXPECT_EQ(count(ir, "of tensor '"), 2u) << ir;
  std::vector<LauncherArgument> args;
  std::string error;
  ASSERT_TRUE(describeLauncherArguments(*module, analyzeTensorAccess(*module), args, error))
      << error;
  ASSERT_EQ(args.size(), 4u);
  EXPECT_EQ(args[2].shape, (std::vector<std::string>{"bh * ceildiv(S, 64) * 64 + (S - 1) % 8", "64"}));
  EXPECT_EQ(args[3].shape, (std::vector<std::string>{"max(S - 2, 1)", "2"}));
  auto value = [](llvm::StringRef name) -> int64_t { return name == "bh" ? 3 : 100; };
  EXPECT_EQ(args[2].dims[0].evaluate(value), 3 * 2 * 64 + 99 % 8);
  EXPECT_EQ(args[3].dims[0].evaluate(value), 98);
}

TEST(Dsl, SizeExpressionsPrintAndEvaluateAsCxx) {
  using E = tile::SizeExpr;
  using K = E::Kind;
  E a = E::size("a"), b = E::size("b");
  EXPECT_EQ(E::apply(K::sub, a, E::apply(K::sub, b, E::of(1))).text(), "a - (b - 1)");
  EXPECT_EQ(E::apply(K::sub, E::apply(K::sub, a, b), E::of(1)).text(), "a - b - 1");
  EXPECT_EQ(E::apply(K::mul, E::apply(K::add, a, b), E::of(2)).text(), "(a + b) * 2");
  EXPECT_EQ(E::apply(K::div, a, E::apply(K::mul, b, E::of(2))).text(), "a / (b * 2)");
  EXPECT_EQ(E::apply(K::add, a, E::apply(K::add, b, E::of(2))).text(), "a + b + 2");
  EXPECT_EQ(E::apply(K::ceildiv, E::apply(K::add, a, b), E::of(8)).text(), "ceildiv(a + b, 8)");
  auto at = [](int64_t av, int64_t bv) {
    return [=](llvm::StringRef n) { return n == "a" ? av : bv; };
  };
  EXPECT_EQ(E::apply(K::ceildiv, a, b).evaluate(at(7, 2)), 4);
  EXPECT_EQ(E::apply(K::ceildiv, a, b).evaluate(at(-7, 2)), -3);
  EXPECT_EQ(E::apply(K::div, a, b).evaluate(at(-7, 2)), -3);
  EXPECT_EQ(E::apply(K::rem, a, b).evaluate(at(-7, 2)), -1);
  EXPECT_EQ(E::apply(K::div, a, b).evaluate(at(7, 0)), std::nullopt);
  EXPECT_EQ(E::apply(K::mul, a, b).evaluate(at(int64_t(1) << 32, int64_t(1) << 31)), std::nullopt);
  EXPECT_EQ(E::apply(K::sub, a, b).evaluate(at(INT64_MIN, 1)), std::nullopt);
}

TEST(DslMisuse, TensorSizeFromAScalar) {
  unsigned line = 0;
  expectDslError(line,
                 "the sizes of tensor 'x' are expressions of size() arguments and constants (+, -, "
                 "*, /, %, ceildiv, min, max), but dimension 1 depends on scalar argument 's'; "
                 "view() it for other shapes",
                 [&](Kernel &k) {
                   Value n = k.size("n"), s = k.scalar("s", DType::index);
                   line = __LINE__ + 1;
                   k.tensor("x", DType::f32, {n, n * s});
                 });
}

TEST(DslMisuse, TensorSizeFromTheDevice) {
  unsigned line = 0;
  expectDslError(line, "but dimension 0 depends on 'tile.thread_id' (at ", [&](Kernel &k) {
    Value n = k.size("n");
    k.threads(128);
    line = __LINE__ + 1;
    k.tensor("x", DType::f32, {n + k.threadId()});
  });
}

TEST(DslMisuse, TensorSizeOfAnotherType) {
  unsigned line = 0;
  expectDslError(line, "but dimension 0 depends on scalar argument 'm'", [&](Kernel &k) {
    Value m = k.scalar("m", DType::i32);
    line = __LINE__ + 1;
    k.tensor("x", DType::f32, {m});
  });
}

TEST(DslMisuse, TensorOfIndices) {
  unsigned line = 0;
  expectDslError(line, "tensor 'x' cannot hold index", [&](Kernel &k) {
    Value n = k.size("n");
    line = __LINE__ + 1;
    k.tensor("x", DType::index, {n});
  });
}

TEST(DslMisuse, MissingThreads) {
  Error e = buildError([](Kernel &k) { k.size("n"); });
  EXPECT_NE(e.message().find("never calls threads()"), std::string::npos) << e.what();
}

namespace {
struct NoGrid : Generator {
  void generate(Kernel &k) override { k.threads(128); }
};
const unsigned noGridLine = __LINE__ + 1;
MINITILE_KERNEL(NoGrid, "dsltest_no_grid", "a kernel that forgets its grid");
} // namespace

TEST(DslMisuse, MissingGridIsReportedAtTheRegistration) {
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext ctx(registry);
  NoGrid gen;
  try {
    buildKernel(ctx, gen, "dsltest_no_grid");
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(e.file(), __FILE__);
    EXPECT_EQ(e.line(), noGridLine) << e.what();
    EXPECT_NE(e.message().find("never calls grid()"), std::string::npos) << e.what();
  }
}

TEST(DslMisuse, ValueUsedAfterItsKernel) {
  Value escaped;
  build([&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    escaped = n;
  });
  unsigned line = 0;
  expectDslError(line, "a value of a kernel that is no longer being built",
                   [&](Kernel &k) {
                     Value n = k.size("n");
                     launch(k, n);
                     line = __LINE__ + 1;
                     Value v = escaped + 1;
                     (void)v;
                   });
}

//===----------------------------------------------------------------------===//
// Generator parameters
//===----------------------------------------------------------------------===//

namespace {
struct WithParams : Generator {
  Param<int> threads{"threads", 256, 32, 1024, "threads per block"};
  Param<int> heads{"heads", 64, {8, 16, 32, 64, 128}, "heads"};
  Param<bool> fused{"fused", true, "clean in the same kernel"};
  void generate(Kernel &) override {}
};
} // namespace

TEST(GeneratorParams, ParseAndValidate) {
  WithParams g;
  ASSERT_EQ(g.params().size(), 3u);
  EXPECT_EQ(g.param("threads")->set("128"), "");
  EXPECT_EQ(g.threads.get(), 128);
  EXPECT_EQ(g.param("threads")->set("2048"),
            "parameter 'threads' takes 32..1024, not 2048");
  EXPECT_EQ(g.param("threads")->set("12x"),
            "parameter 'threads' takes an integer, not '12x'");
  EXPECT_EQ(g.param("heads")->set("48"), "parameter 'heads' takes 8|16|32|64|128, not 48");
  EXPECT_EQ(g.param("fused")->set("no"), "parameter 'fused' takes true or false, not 'no'");
  EXPECT_EQ(g.param("fused")->set("false"), "");
  EXPECT_FALSE(g.fused.get());
  EXPECT_EQ(g.param("nope"), nullptr);
}

// Ill-declared Params: each an Error at its declaration's line, where -p
// with the same value would be refused or the name could not be written.
// (GCC places a member's default arguments at the class's line, where its
// implicit constructor is; clang at the member's. Each struct is one line.)
namespace {
// clang-format off
struct DefaultOutsideRange : Generator { Param<int> stages{"stages", 20, 2, 12, "out of its own range"}; static constexpr unsigned kLine = __LINE__;
  void generate(Kernel &) override {}
};
struct DefaultOutsideChoices : Generator { Param<int> heads{"heads", 48, {8, 16, 32}, "not a choice"}; static constexpr unsigned kLine = __LINE__;
  void generate(Kernel &) override {}
};
struct DefaultOutsideImplicitRange : Generator { Param<int> n{"n", 0, "the implicit range is 1..2^30"}; static constexpr unsigned kLine = __LINE__;
  void generate(Kernel &) override {}
};
struct EmptyChoices : Generator { Param<int> heads{"heads", 8, {}, "no choice at all"}; static constexpr unsigned kLine = __LINE__;
  void generate(Kernel &) override {}
};
struct EmptyRange : Generator { Param<int> stages{"stages", 10, 10, 1, "10..1"}; static constexpr unsigned kLine = __LINE__;
  void generate(Kernel &) override {}
};
struct RepeatedChoice : Generator { Param<int> heads{"heads", 8, {8, 16, 8}, "8 twice"}; static constexpr unsigned kLine = __LINE__;
  void generate(Kernel &) override {}
};
struct TwoOfOneName : Generator { Param<int> a{"stages", 4, 2, 12, ""}; Param<bool> b{"stages", false, ""}; static constexpr unsigned kLine = __LINE__;
  void generate(Kernel &) override {}
};
template <int Which> struct BadName : Generator { Param<bool> p{kNames[Which], false, "a name -p cannot write"}; static constexpr unsigned kLine = __LINE__;
  static constexpr const char *kNames[] = {"", "two words", "a=b", "9lives", "-p"};
  void generate(Kernel &) override {}
};
// clang-format on

/// Expects constructing G to throw an Error at G::kLine of this file whose
/// message holds `text`.
template <class G> void expectParamError(const std::string &text) {
  try {
    G g;
    ADD_FAILURE() << "no Error for " << text;
  } catch (const Error &e) {
    EXPECT_EQ(e.file(), __FILE__);
    EXPECT_EQ(e.line(), G::kLine) << e.what();
    EXPECT_NE(e.message().find(text), std::string::npos) << e.what();
  }
}
} // namespace

TEST(GeneratorParams, IllDeclaredParamsAreErrorsAtTheirLine) {
  expectParamError<DefaultOutsideRange>("Param 'stages': its default 20 is not in 2..12");
  expectParamError<DefaultOutsideChoices>("Param 'heads': its default 48 is not in 8|16|32");
  expectParamError<DefaultOutsideImplicitRange>("Param 'n': its default 0 is not in 1..");
  expectParamError<EmptyChoices>("Param 'heads': its choices {} are empty");
  expectParamError<EmptyRange>("Param 'stages': its range 10..1 is empty");
  expectParamError<RepeatedChoice>("Param 'heads': its choices 8|16|8 hold a value twice");
  expectParamError<TwoOfOneName>("two Params of the generator are named 'stages'");
  expectParamError<BadName<0>>("Param name '' is not letters, digits and '_'");
  expectParamError<BadName<1>>("Param name 'two words' is not letters");
  expectParamError<BadName<2>>("Param name 'a=b' is not letters");
  expectParamError<BadName<3>>("Param name '9lives' is not letters");
  expectParamError<BadName<4>>("Param name '-p' is not letters");
}

//===----------------------------------------------------------------------===//
// Tiles and fragments
//===----------------------------------------------------------------------===//

TEST(DslTiles, BuildsAPipelinedGemm) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor a = k.tensor("a", DType::bf16, {n, 64});
    Tensor out = k.tensor("out", DType::f32, {n, 64});
    k.threads(128);
    k.grid(1);
    Shared b = k.shared(DType::bf16, {64, 64});
    copy(a, {0, 0}, b);
    k.pipelined(0, n, [&](Value i) {
      Shared t = k.shared(DType::bf16, {64, 64});
      copy(a, {i * 64, 0}, t);
      Value s = gemm(t, b, /*transposeB=*/true);
      Value r = reduceMax(max(s, 0.0), 1);
      storeTile(out, {i * 64, 0}, broadcast(r, {64, 64}, {0}));
    }, {.stages = 3});
  });
  EXPECT_NE(ir.find("tile.alloc_shared : <64x64xbf16, swizzle = 128>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.copy"), std::string::npos) << ir;
  EXPECT_NE(ir.find("box [64, 64]"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.pipelined"), std::string::npos) << ir;
  EXPECT_NE(ir.find("stages 3"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.gemm"), std::string::npos) << ir;
  EXPECT_NE(ir.find("{transpose_b}"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.reduce  max"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.broadcast"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.store_tile"), std::string::npos) << ir;
}

/// The IR of `body` after the tile passes, or "" with their diagnostics
/// (and the lines they name) in `errors`.
static std::string afterTilePasses(const std::function<void(Kernel &)> &body,
                                   std::string &errors) {
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext ctx(registry);
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    errors += d.str();
    if (auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(d.getLocation()))
      errors += " at line " + std::to_string(loc.getLine());
    errors += "\n";
    return mlir::success();
  });
  LambdaGenerator gen;
  gen.body = body;
  auto module = buildKernel(ctx, gen, "t");
  if (mlir::failed(runTilePasses(*module, {})))
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

TEST(DslTiles, GathersRowsInAPipelinedLoop) {
  std::string errors;
  std::string ir = afterTilePasses(
      [](Kernel &k) {
        Value n = k.size("n"), s = k.size("s"), kk = k.size("k");
        Tensor kv = k.tensor("kv", DType::bf16, {n, 128});
        Tensor idx = k.tensor("idx", DType::i32, {s, kk});
        Tensor out = k.tensor("out", DType::f32, {s, 64});
        k.threads(128);
        k.grid(s);
        Value row = k.blockId(0);
        Shared q = k.shared(DType::bf16, {64, 128});
        copy(kv, {0, 0}, q);
        Value acc = k.pipelined(0, ceildiv(kk, 64), broadcast(0.0, {64, 64}),
                                [&](Value j, Value acc) {
                                  Shared t = k.shared(DType::bf16, {64, 128});
                                  gather(kv, {0, 0}, idx, {row, j * 64}, t);
                                  return gemm(q, t, /*transposeB=*/true, acc);
                                },
                                {.stages = 2});
        storeTile(out, {row, 0}, reshape(reduceSum(acc, 0), {1, 64}));
      },
      errors);
  ASSERT_FALSE(ir.empty()) << errors;
  // The producer reads each tile's 64 indices and starts two boxes a row
  // (a row's two 64-column panels), 8 KiB apart, rows 128 bytes apart.
  EXPECT_EQ(count(ir, "tile.load %"), 64u) << ir;
  EXPECT_NE(ir.find("offset 8192"), std::string::npos) << ir;
  EXPECT_NE(ir.find("offset 8064"), std::string::npos) << ir;
  EXPECT_NE(ir.find("offset 16256"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("tile.copy"), std::string::npos) << ir;
}

TEST(DslMisuse, AddIntoABf16Tensor) {
  unsigned line = 0;
  expectDslError(line, "addTile() adds into f32 tensors; 'out' holds bf16", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor out = k.tensor("out", DType::bf16, {n, 64});
    launch(k, n);
    line = __LINE__ + 1;
    addTile(out, {0, 0}, broadcast(constant(1.0, DType::bf16), {64, 64}));
  });
}

TEST(DslMisuse, AddRowsOfARank3Tensor) {
  unsigned line = 0;
  expectDslError(line, "addRows() writes rows of a rank-2 tensor; 'out' has rank 3",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor out = k.tensor("out", DType::f32, {n, 2, 64});
                   Tensor idx = k.tensor("idx", DType::i32, {n});
                   launch(k, n);
                   line = __LINE__ + 1;
                   addRows(out, {0, 0, 0}, idx, {0}, broadcast(1.0, {64, 1, 64}));
                 });
}

TEST(DslMisuse, GatherOfARank3Tensor) {
  unsigned line = 0;
  expectDslError(line, "gather() takes rows of a rank-2 tensor; 'kv' has rank 3 (slice it first)",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor kv = k.tensor("kv", DType::bf16, {n, 4, 64});
                   Tensor idx = k.tensor("idx", DType::i32, {n});
                   launch(k, n);
                   Shared t = k.shared(DType::bf16, {64, 64});
                   line = __LINE__ + 1;
                   gather(kv, {0, 0, 0}, idx, {0}, t);
                 });
}

TEST(DslMisuse, GatherByFloatIndices) {
  unsigned line = 0;
  expectDslError(line, "gather() picks rows by an i32 tensor; 'idx' holds f32", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor kv = k.tensor("kv", DType::bf16, {n, 64});
    Tensor idx = k.tensor("idx", DType::f32, {n});
    launch(k, n);
    Shared t = k.shared(DType::bf16, {64, 64});
    line = __LINE__ + 1;
    gather(kv, {0, 0}, idx, {0}, t);
  });
}

TEST(DslMisuse, GatherWithAShortRowsOrigin) {
  unsigned line = 0;
  expectDslError(line, "gather()'s rows: 'idx' has rank 2 but the origin has 1 indices",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor kv = k.tensor("kv", DType::bf16, {n, 64});
                   Tensor idx = k.tensor("idx", DType::i32, {n, n});
                   launch(k, n);
                   Shared t = k.shared(DType::bf16, {64, 64});
                   line = __LINE__ + 1;
                   gather(kv, {0, 0}, idx, {0}, t);
                 });
}

/// c = p . v over the keys' tiles: v stored [keys, d] as attention holds it,
/// the gemm's B [K, N] (transposeB = false). `d` columns.
static void pv(Kernel &k, int64_t d, unsigned &line) {
  Value n = k.size("n");
  Tensor p = k.tensor("p", DType::bf16, {64, n}), v = k.tensor("v", DType::bf16, {n, d});
  Tensor c = k.tensor("c", DType::f32, {64, d});
  k.threads(128);
  k.grid(1);
  Value acc = k.pipelined(0, ceildiv(n, 64), broadcast(0.0, {64, d}), [&](Value kt, Value acc) {
    Shared ps = k.shared(DType::bf16, {64, 64}), vs = k.shared(DType::bf16, {64, d});
    copy(p, {0, kt * 64}, ps);
    copy(v, {kt * 64, 0}, vs);
    line = __LINE__ + 1;
    return gemm(ps, vs, /*transposeB=*/false, acc);
  });
  storeTile(c, {0, 0}, acc);
}

TEST(DslTiles, GemmWithBStoredKN) {
  // B [K, N] = [64, 128]: no transpose_b on the gemm; its wgmmas transpose
  // B, whose descriptors step 16 rows of 128 bytes a k-step and name the
  // 8192 bytes between its two 64-column panels.
  unsigned line = 0;
  std::string ir = build([&](Kernel &k) { pv(k, 128, line); });
  EXPECT_NE(ir.find("tile.gemm"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("transpose_b"), std::string::npos) << ir;
  std::string errors;
  std::string after = afterTilePasses([&](Kernel &k) { pv(k, 128, line); }, errors);
  ASSERT_NE(after, "") << errors;
  EXPECT_EQ(count(after, "hopper.wgmma %"), 4u) << after;
  EXPECT_EQ(count(after, "transpose_b"), 4u) << after;
  for (const char *step : {"[%c0] sbo 1024 lbo 8192", "[%c2048] sbo 1024 lbo 8192",
                           "[%c4096] sbo 1024 lbo 8192", "[%c6144] sbo 1024 lbo 8192"})
    EXPECT_NE(after.find(step), std::string::npos) << step << "\n" << after;
}

TEST(DslTilesMisuse, GemmWithBStoredKNOfTooFewColumns) {
  // B [K, N] with N = 32: 64-byte rows, no 128-byte swizzle. The tile passes
  // refuse it at the gemm's line.
  unsigned line = 0;
  std::string errors;
  std::string after = afterTilePasses([&](Kernel &k) { pv(k, 32, line); }, errors);
  EXPECT_EQ(after, "");
  EXPECT_NE(errors.find("B stored [K, N] takes N a multiple of 64 bf16) at line " +
                        std::to_string(line)),
            std::string::npos)
      << errors;
}

/// o = bf16(q . key^T) . v over the keys' tiles: the first gemm's result is
/// the second's A, from registers (`shared` false) or through a shared tile
/// stored with storeTile (`shared` true); `how` reshapes the scores first
/// (0: as they are, 1: transposed, which moves them to other threads). A
/// pipelined loop of `groups` groups (one warpgroup each) or, with 0, a
/// serial loop of one warpgroup. `line` gets the line of the gemm reading p
/// (or of the storeTile).
static void attention(Kernel &k, int how, bool shared, int groups, unsigned &line) {
  Value n = k.size("n");
  Tensor q = k.tensor("q", DType::bf16, {64, 64}), key = k.tensor("key", DType::bf16, {n, 64});
  Tensor v = k.tensor("v", DType::bf16, {n, 64}), o = k.tensor("o", DType::f32, {n, 64});
  k.threads(128 * std::max(groups, 1));
  k.grid(1);
  Shared qs = k.shared(DType::bf16, {64, 64});
  copy(q, {0, 0}, qs);
  Shared ps;
  if (shared)
    ps = k.shared(DType::bf16, {64, 64});
  auto body = [&](Value j) {
    Shared ks = k.shared(DType::bf16, {64, 64}), vs = k.shared(DType::bf16, {64, 64});
    copy(key, {j * 64, 0}, ks);
    copy(v, {j * 64, 0}, vs);
    Value s = gemm(qs, ks, /*transposeB=*/true);
    Value p = cast(how == 1 ? transpose(s, {1, 0}) : s, DType::bf16);
    Value out;
    if (shared) {
      line = __LINE__ + 1;
      storeTile(ps, {0, 0}, p);
      out = gemm(ps, vs, /*transposeB=*/false);
    } else {
      line = __LINE__ + 1;
      out = gemm(p, vs, /*transposeB=*/false);
    }
    storeTile(o, {j * 64, 0}, out);
  };
  if (groups)
    k.pipelined(0, ceildiv(n, 64), body, {.stages = 2 * groups, .groups = groups});
  else
    k.serial(0, ceildiv(n, 64), body);
}

TEST(DslTiles, GemmWithRegisterA) {
  // The scores, cast to bf16, are the second gemm's A as they are: its
  // wgmmas take A from registers (four i32 a k-step), with no layout
  // conversion and no shared tile between the two gemms.
  unsigned line = 0;
  std::string ir = build([&](Kernel &k) { attention(k, 0, false, 0, line); });
  EXPECT_NE(ir.find("tile.gemm %"), std::string::npos) << ir;
  EXPECT_NE(ir.find(": tensor<64x64xbf16>, <64x64xbf16, swizzle = 128> -> tensor<64x64xf32>"),
            std::string::npos)
      << ir;
  for (int groups : {0, 2}) {
    std::string errors;
    std::string after =
        afterTilePasses([&](Kernel &k) { attention(k, 0, false, groups, line); }, errors);
    ASSERT_NE(after, "") << errors;
    // Four k-steps of each gemm (of each copy of the body a group runs).
    size_t rs = count(after, "hopper.wgmma regs(");
    EXPECT_EQ(rs % 4, 0u) << after;
    EXPECT_NE(rs, 0u) << after;
    EXPECT_EQ(count(after, "hopper.wgmma %"), rs) << after;
    EXPECT_EQ(count(after, "tile.convert_layout"), 0u) << after;
    EXPECT_EQ(count(after, "tile.shared_load"), 0u) << after;
  }
}

TEST(DslTiles, GemmWithRegisterAInAnotherLayout) {
  // The transposed scores have other threads' elements: they go through
  // shared memory into the A-operand layout first.
  unsigned line = 0;
  std::string errors;
  std::string after =
      afterTilePasses([&](Kernel &k) { attention(k, 1, false, 0, line); }, errors);
  ASSERT_NE(after, "") << errors;
  EXPECT_EQ(count(after, "hopper.wgmma regs("), 4u) << after;
  EXPECT_NE(after.find("tile.shared_load"), std::string::npos) << after;
}

TEST(DslTilesMisuse, GemmWithRegisterAToConvertInAGroup) {
  // In a pipelined loop of two groups the conversion cannot go through
  // shared memory (its barrier would hold the other group): refused at the
  // gemm's line, saying what would do.
  unsigned line = 0;
  std::string errors;
  std::string after =
      afterTilePasses([&](Kernel &k) { attention(k, 1, false, 2, line); }, errors);
  EXPECT_EQ(after, "");
  EXPECT_NE(errors.find("moves elements between warps inside a group of a pipelined loop"),
            std::string::npos)
      << errors;
  EXPECT_NE(errors.find("a gemm's A from registers, which wgmma reads in its A-operand layout"),
            std::string::npos)
      << errors;
  EXPECT_NE(errors.find("at line " + std::to_string(line)), std::string::npos) << errors;
}

TEST(DslTilesMisuse, GemmWithRegisterAOfF32) {
  unsigned line = 0;
  expectDslError(line, "gemm(): A holds f32 but B holds bf16; cast() A to bf16 first",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor x = k.tensor("x", DType::f32, {n, 64});
                   launch(k, n);
                   Shared b = k.shared(DType::bf16, {64, 64});
                   Value a = loadTile(x, {0, 0}, {64, 64});
                   line = __LINE__ + 1;
                   gemm(a, b, /*transposeB=*/true);
                 });
}

TEST(DslTilesMisuse, GemmWithRegisterAKMismatch) {
  unsigned line = 0;
  expectDslError(line, "gemm(): A is [64, 32] and B^T is 64x64: the K extents 32 and 64 differ",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor x = k.tensor("x", DType::bf16, {n, 64});
                   launch(k, n);
                   Shared b = k.shared(DType::bf16, {64, 64});
                   Value a = loadTile(x, {0, 0}, {64, 32});
                   line = __LINE__ + 1;
                   gemm(a, b, /*transposeB=*/true);
                 });
}

TEST(DslTilesMisuse, GemmWithRegisterAThatIsAScalar) {
  unsigned line = 0;
  expectDslError(line, "gemm(): A is f32; a register A is a fragment [M, K]", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n, 64});
    launch(k, n);
    Shared b = k.shared(DType::bf16, {64, 64});
    line = __LINE__ + 1;
    gemm(x(0, 0), b, /*transposeB=*/true);
  });
}

TEST(DslTilesMisuse, GemmWithAnEmptyRegisterA) {
  unsigned line = 0;
  expectDslError(line, "gemm(): A is an empty minitile::Value", [&](Kernel &k) {
    launch(k, k.size("n"));
    Shared b = k.shared(DType::bf16, {64, 64});
    Value a;
    line = __LINE__ + 1;
    gemm(a, b, /*transposeB=*/true);
  });
}

TEST(DslTiles, StoreTileIntoASharedTile) {
  // The scores stored into a shared tile that the second gemm reads: the
  // stores, the proxy fence and a barrier before the wgmmas read it, and --
  // in the loop, where the previous iteration's gemm read the tile -- a
  // wait for that gemm and a barrier before the stores.
  unsigned line = 0;
  std::string ir = build([&](Kernel &k) { attention(k, 0, true, 0, line); });
  EXPECT_NE(ir.find("tile.shared_store_tile"), std::string::npos) << ir;
  std::string errors;
  std::string after = afterTilePasses([&](Kernel &k) { attention(k, 0, true, 0, line); }, errors);
  ASSERT_NE(after, "") << errors;
  size_t first = after.find("hopper.stmatrix %"), fence = after.find("hopper.fence_proxy_async");
  ASSERT_NE(first, std::string::npos) << after;
  ASSERT_NE(fence, std::string::npos) << after;
  // (The copies of the loop's tiles come first, with their own barrier.)
  size_t before = after.rfind("tile.barrier", first), wait = after.rfind("hopper.wgmma_wait", first);
  EXPECT_NE(before, std::string::npos) << after;
  EXPECT_LT(wait, before) << after;
  EXPECT_LT(first, fence) << after;
  size_t barrier = after.find("tile.barrier", fence), mma = after.find("hopper.wgmma_fence", fence);
  EXPECT_LT(barrier, mma) << after;
  // The scores' 8 x 8 blocks, four a warp instruction (stmatrix: a gemm's
  // result cast to bf16 is in its layout), untransposed.
  size_t stores = 0;
  std::istringstream lines(after);
  for (std::string text; std::getline(lines, text);)
    if (text.find("hopper.stmatrix") != std::string::npos) {
      ++stores;
      EXPECT_EQ(text.find("trans"), std::string::npos) << text;
    }
  EXPECT_EQ(stores, 4u) << after;
  EXPECT_EQ(after.find("tile.shared_store %"), std::string::npos) << after;
}

TEST(DslTilesMisuse, StoreTileIntoASharedTileInAGroup) {
  unsigned line = 0;
  std::string errors;
  std::string after = afterTilePasses([&](Kernel &k) { attention(k, 0, true, 2, line); }, errors);
  EXPECT_EQ(after, "");
  EXPECT_NE(errors.find("stores a fragment into a shared tile inside a group of a pipelined "
                        "loop, which is not supported yet"),
            std::string::npos)
      << errors;
  EXPECT_NE(errors.find("at line " + std::to_string(line)), std::string::npos) << errors;
}

TEST(DslTilesMisuse, StoreTileIntoASharedTileOfAnotherType) {
  unsigned line = 0;
  expectDslError(line, "storeTile() to a shared tile of bf16: the fragment holds f32; cast() it "
                       "first",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor x = k.tensor("x", DType::f32, {n, 64});
                   launch(k, n);
                   Shared s = k.shared(DType::bf16, {64, 64});
                   line = __LINE__ + 1;
                   storeTile(s, {0, 0}, loadTile(x, {0, 0}, {64, 64}));
                 });
}

TEST(DslTilesMisuse, StoreTileIntoASharedTileOfAnotherRank) {
  unsigned line = 0;
  expectDslError(line, "storeTile(): a rank-1 fragment into a shared tile of [64, 64]",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor x = k.tensor("x", DType::f32, {n});
                   launch(k, n);
                   Shared s = k.shared(DType::f32, {64, 64});
                   line = __LINE__ + 1;
                   storeTile(s, {0, 0}, loadTile(x, {0}, {64}));
                 });
}

TEST(DslTilesMisuse, StoreTileIntoASharedTileWithTooFewIndices) {
  unsigned line = 0;
  expectDslError(line, "storeTile(): 1 origin indices for a shared tile of [64, 64]",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor x = k.tensor("x", DType::f32, {n, 64});
                   launch(k, n);
                   Shared s = k.shared(DType::f32, {64, 64});
                   line = __LINE__ + 1;
                   storeTile(s, {0}, loadTile(x, {0, 0}, {64, 64}));
                 });
}

TEST(DslTilesMisuse, StoreTileOfAScalarIntoASharedTile) {
  unsigned line = 0;
  expectDslError(line, "storeTile() takes a fragment, not f32", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n, 64});
    launch(k, n);
    Shared s = k.shared(DType::f32, {64, 64});
    line = __LINE__ + 1;
    storeTile(s, {0, 0}, x(0, 0));
  });
}

/// A pipelined loop over a's 64-row tiles of `parts` gemms, one against/// A pipelined loop over a's 64-row tiles of `parts` gemms, one against
/// each 64-row block of a (read before the loop), each stored: the
/// cooperative loops' tests. `line` gets the line of the pipelined() call.
static void gemmParts(Kernel &k, int parts, PipelinedOptions options, unsigned &line) {
  Value n = k.size("n");
  Tensor a = k.tensor("a", DType::bf16, {n, 64});
  Tensor out = k.tensor("out", DType::f32, {n, 64 * parts});
  k.threads(128 * options.groups);
  k.grid(1);
  std::vector<Shared> bs;
  for (int p = 0; p < parts; ++p) {
    bs.push_back(k.shared(DType::bf16, {64, 64}));
    copy(a, {64 * p, 0}, bs.back());
  }
  line = __LINE__ + 1;
  k.pipelined(0, n, [&](Value i) {
    Shared t = k.shared(DType::bf16, {64, 64});
    copy(a, {i * 64, 0}, t);
    for (int p = 0; p < parts; ++p)
      storeTile(out, {i * 64, 64 * p}, gemm(t, bs[p], /*transposeB=*/true));
  }, options);
}

TEST(DslTiles, BuildsACooperativePipelinedLoop) {
  // Two groups, a gemm each (the halves of N): every group runs every
  // iteration, so three stages are fine for two groups.
  unsigned line = 0;
  std::string ir = build([&](Kernel &k) {
    gemmParts(k, 2, {.stages = 3, .groups = 2, .cooperative = true}, line);
  });
  EXPECT_NE(ir.find("stages 3 groups 2 {"), std::string::npos) << ir;
  EXPECT_NE(ir.find("} {cooperative}"), std::string::npos) << ir;
  EXPECT_EQ(count(ir, "tile.gemm"), 2u) << ir;
}

TEST(DslMisuse, CooperativeLoopWithOneGemmForTwoGroups) {
  unsigned line = 0;
  expectDslError(line, "pipelined(): a cooperative loop deals its gemms out to its 2 groups, so "
                       "their number is a nonzero multiple of the groups, not 1",
                 [&](Kernel &k) {
                   gemmParts(k, 1, {.stages = 2, .groups = 2, .cooperative = true}, line);
                 });
}


TEST(DslTiles, ScalarsMeetingFragmentsAreRepeated) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n, 64});
    launch(k, n);
    Value f = loadTile(x, {0, 0}, {4, 64});
    storeTile(x, {0, 0}, f * x(0, 0) + 1.0);
  });
  EXPECT_NE(ir.find("tile.broadcast"), std::string::npos) << ir;
  EXPECT_NE(ir.find("dense<1.000000e+00> : tensor<4x64xf32>"), std::string::npos) << ir;
}

TEST(DslTilesMisuse, GemmKMismatch) {
  unsigned line = 0;
  expectDslError(line, "the K extents 64 and 32 differ", [&](Kernel &k) {
    launch(k, k.size("n"));
    Shared a = k.shared(DType::bf16, {64, 64});
    Shared b = k.shared(DType::bf16, {64, 32});
    line = __LINE__ + 1;
    gemm(a, b, true);
  });
}

TEST(DslTilesMisuse, GemmKMismatchWithBStoredKN) {
  unsigned line = 0;
  expectDslError(line, "gemm(): A is [64, 64] and B is 32x64: the K extents 64 and 32 differ",
                 [&](Kernel &k) {
                   launch(k, k.size("n"));
                   Shared a = k.shared(DType::bf16, {64, 64});
                   Shared b = k.shared(DType::bf16, {32, 64});
                   line = __LINE__ + 1;
                   gemm(a, b, /*transposeB=*/false);
                 });
}

TEST(DslTilesMisuse, CopyBoxThatDoesNotFillTheTile) {
  unsigned line = 0;
  expectDslError(line, "a box of [32, 64] does not fill a tile of [64, 64]", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor a = k.tensor("a", DType::bf16, {n, 64});
    launch(k, n);
    Shared t = k.shared(DType::bf16, {64, 64});
    line = __LINE__ + 1;
    copy(a, {0, 0}, t, {32, 64});
  });
}

TEST(DslTilesMisuse, ReshapeOfTheWrongSize) {
  unsigned line = 0;
  expectDslError(line, "reshape() of [4, 64] (256 elements) into [128]", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n, 64});
    launch(k, n);
    Value f = loadTile(x, {0, 0}, {4, 64});
    line = __LINE__ + 1;
    reshape(f, {128});
  });
}

TEST(DslTilesMisuse, FragmentsOfDifferentShapes) {
  unsigned line = 0;
  expectDslError(line, "operands of '*' are fragments of [4, 64] and [64]", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n, 64});
    launch(k, n);
    Value f = loadTile(x, {0, 0}, {4, 64});
    Value g = reshape(loadTile(x, {0, 0}, {1, 64}), {64});
    line = __LINE__ + 1;
    Value h = f * g;
    (void)h;
  });
}

TEST(DslTilesMisuse, BroadcastExtentsDiffer) {
  unsigned line = 0;
  expectDslError(line, "source dimension 0 has extent 64, result dimension 0 has 32",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor x = k.tensor("x", DType::f32, {n, 64});
                   launch(k, n);
                   Value g = reshape(loadTile(x, {0, 0}, {1, 64}), {64});
                   line = __LINE__ + 1;
                   broadcast(g, {32, 64}, {0});
                 });
}

TEST(DslTilesMisuse, FragmentsArePowersOfTwo) {
  unsigned line = 0;
  expectDslError(line, "fragment extents are powers of two; [3, 64] is not", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n, 64});
    launch(k, n);
    line = __LINE__ + 1;
    loadTile(x, {0, 0}, {3, 64});
  });
}

TEST(DslTilesMisuse, ReduceAxisOutOfRange) {
  unsigned line = 0;
  expectDslError(line, "a fragment of [4, 64] has no axis 2", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n, 64});
    launch(k, n);
    Value f = loadTile(x, {0, 0}, {4, 64});
    line = __LINE__ + 1;
    reduceSum(f, 2);
  });
}

TEST(DslTilesMisuse, StagesThatGroupsDoNotDivide) {
  unsigned line = 0;
  expectDslError(line, "4 stages for 3 groups", [&](Kernel &k) {
    Value n = k.size("n");
    k.threads(384);
    k.grid(1);
    line = __LINE__ + 1;
    k.pipelined(0, n, [&](Value) {}, {.stages = 4, .groups = 3});
  });
}

TEST(DslTilesMisuse, StoreTileOfTheWrongType) {
  unsigned line = 0;
  expectDslError(line, "storeTile() to 'y': the fragment holds f32 but the tensor holds i32",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor x = k.tensor("x", DType::f32, {n, 64});
                   Tensor y = k.tensor("y", DType::i32, {n, 64});
                   launch(k, n);
                   Value f = loadTile(x, {0, 0}, {4, 64});
                   line = __LINE__ + 1;
                   storeTile(y, {0, 0}, f);
                 });
}

//===----------------------------------------------------------------------===//
// Robustness (issue 10): misuse that once crashed, aborted or ran for minutes
// is a minitile::Error at the user's line, raised before any work.
//===----------------------------------------------------------------------===//

TEST(DslEmptyValues, AsAStoredValue) {
  unsigned line = 0;
  expectDslError(line, "a store to 'x': an operand is an empty minitile::Value", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    launch(k, n);
    Value empty;
    line = __LINE__ + 1;
    x(0) = empty;
  });
}

TEST(DslEmptyValues, AsAnIfCondition) {
  unsigned line = 0;
  expectDslError(line, "if_(): an operand is an empty minitile::Value", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    Value empty;
    line = __LINE__ + 1;
    k.if_(empty, [] {});
  });
}

TEST(DslEmptyValues, AsAGridExtent) {
  unsigned line = 0;
  expectDslError(line, "the grid: an operand is an empty minitile::Value", [&](Kernel &k) {
    k.size("n");
    k.threads(128);
    Value empty;
    line = __LINE__ + 1;
    k.grid(empty);
  });
}

TEST(DslEmptyValues, AsAnIndex) {
  unsigned line = 0;
  expectDslError(line, "an index: an operand is an empty minitile::Value", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    launch(k, n);
    Value empty;
    line = __LINE__ + 1;
    x(empty) = 1.0;
  });
}

TEST(DslEmptyValues, AsAFragment) {
  unsigned line = 0;
  expectDslError(line, "storeTile(): an operand is an empty minitile::Value", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n, 64});
    launch(k, n);
    Value empty;
    line = __LINE__ + 1;
    storeTile(x, {0, 0}, empty);
  });
}

TEST(DslEmptyValues, ItsTypeAndShape) {
  unsigned line = 0;
  expectDslError(line, "dtype() of an empty minitile::Value", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    Value empty;
    line = __LINE__ + 1;
    (void)empty.dtype();
  });
  expectDslError(line, "shape() of an empty minitile::Value", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    Value empty;
    line = __LINE__ + 1;
    (void)empty.isFragment();
  });
}

TEST(DslEmptyValues, AnEmptyVariable) {
  unsigned line = 0;
  expectDslError(line, "an empty minitile handle", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    Var v;
    line = __LINE__ + 1;
    v = 1;
  });
}

/// Expects `body` to fail at `line` with `text`, in well under the minutes
/// the work it asks for would take.
void expectQuickDslError(const unsigned &line, const std::string &text,
                         const std::function<void(Kernel &)> &body) {
  auto start = std::chrono::steady_clock::now();
  expectDslError(line, text, body);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(DslAbsurdFragments, ALoadedTile) {
  unsigned line = 0;
  expectQuickDslError(line,
                      "loadTile(): a fragment of [4096, 4096] has 16777216 elements; a "
                      "block's registers hold at most 65536",
                      [&](Kernel &k) {
                        Value n = k.size("n");
                        Tensor x = k.tensor("x", DType::f32, {n, n});
                        launch(k, n);
                        line = __LINE__ + 1;
                        loadTile(x, {0, 0}, {4096, 4096});
                      });
}

TEST(DslSharedTiles, ABoxOfAnotherRank) {
  unsigned line = 0;
  expectDslError(line, "loadTile(): a box of [64] from a shared tile of [4, 64]",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   launch(k, n);
                   Shared s = k.shared(DType::f32, {4, 64});
                   line = __LINE__ + 1;
                   loadTile(s, {0, 0}, {64});
                 });
  expectDslError(line, "loadTile(): 1 origin indices for a shared tile of [4, 64]",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   launch(k, n);
                   Shared s = k.shared(DType::f32, {4, 64});
                   line = __LINE__ + 1;
                   loadTile(s, {0}, {4, 64});
                 });
}

TEST(DslAbsurdFragments, AnIotaOf2To31Elements) {
  unsigned line = 0;
  expectQuickDslError(line, "iota(): a fragment of [2147483648] has 2147483648 elements",
                      [&](Kernel &k) {
                        Value n = k.size("n");
                        launch(k, n);
                        line = __LINE__ + 1;
                        iota({int64_t(1) << 31}, 0);
                      });
}

TEST(DslAbsurdFragments, AnElementCountThatOverflows) {
  unsigned line = 0;
  expectQuickDslError(line,
                      "broadcast(): a fragment of [4294967296, 4294967296, 4294967296] has "
                      "more than 2^63 elements",
                      [&](Kernel &k) {
                        Value n = k.size("n");
                        launch(k, n);
                        line = __LINE__ + 1;
                        broadcast(1.0, {int64_t(1) << 32, int64_t(1) << 32, int64_t(1) << 32});
                      });
}

TEST(DslAbsurdFragments, ASharedTileLargerThanSharedMemory) {
  unsigned line = 0;
  expectQuickDslError(line, "a shared tile of [4294967296, 4294967296] bf16 is larger than a "
                            "block's shared memory",
                      [&](Kernel &k) {
                        Value n = k.size("n");
                        launch(k, n);
                        line = __LINE__ + 1;
                        k.shared(DType::bf16, {int64_t(1) << 32, int64_t(1) << 32});
                      });
}

TEST(DslAbsurdFragments, TooManyStages) {
  unsigned line = 0;
  expectQuickDslError(line, "pipelined(): stages is 1 to 16, not 1000000", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    line = __LINE__ + 1;
    k.pipelined(0, n, [&](Value) {}, {.stages = 1000000});
  });
}

TEST(DslMisuse, ArgumentNameThatIsAKeyword) {
  unsigned line = 0;
  expectDslError(line, "argument name 'class' is not a C++ identifier (or is a keyword)",
                 [&](Kernel &k) {
                   line = __LINE__ + 1;
                   k.size("class");
                 });
}

TEST(Registry, DuplicateNamesAreReportedNotThrown) {
  Registry r;
  auto make = [] { return std::unique_ptr<Generator>(); };
  EXPECT_EQ(r.problems(), "");
  r.add({"k", "first", "a.cpp", make});
  r.add({"other", "", "b.cpp", make});
  EXPECT_EQ(r.problems(), "");
  EXPECT_NO_THROW(r.add({"k", "second", "c.cpp", make}));
  EXPECT_EQ(r.problems(), "two kernels are named 'k' (registered in a.cpp and in c.cpp)");
  EXPECT_EQ(r.find("k")->summary, "first");
  EXPECT_EQ(r.all().size(), 2u);
}

TEST(Registry, NamesThatCannotNameALauncherAreReportedNotThrown) {
  Registry r;
  auto make = [] { return std::unique_ptr<Generator>(); };
  EXPECT_NO_THROW(r.add({"odd name!", "", "a.cpp", make, 7}));
  EXPECT_EQ(r.problems(), "a.cpp:7: error: kernel name 'odd name!' is not a C++ identifier (or "
                          "is a keyword): it names the kernel's launcher and its PTX entry");
  EXPECT_EQ(r.find("odd name!"), nullptr);
  Registry macro;
  macro.add({"NULL", "", "b.cpp", make, 3});
  EXPECT_NE(macro.problems().find("b.cpp:3: error: kernel name 'NULL' is a macro of the headers "
                                  "a launcher includes"),
            std::string::npos)
      << macro.problems();
}

// Shipped tables: the fallback first, then by device; a table for a kernel
// no generator registers, two for one device or a kernel without exactly
// one fallback are problems the tools report at start-up.
TEST(Registry, TunedTablesAreCheckedAndOrdered) {
  auto make = [] { return std::unique_ptr<Generator>(); };
  Registry r;
  r.add({"k", "", "a.cpp", make});
  r.addTunedTable({"k", "H200", "k.h200.txt", "k : x=1\n", false});
  r.addTunedTable({"k", "H100", "k.h100.txt", "k : x=2\n", true});
  EXPECT_EQ(r.problems(), "");
  auto tables = r.tunedTables("k");
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0]->device, "H100");
  EXPECT_EQ(tables[1]->device, "H200");
  EXPECT_TRUE(r.tunedTables("other").empty());

  Registry missing;
  missing.addTunedTable({"gone", "H100", "gone.h100.txt", "", true});
  EXPECT_EQ(missing.problems(),
            "tuned table gone.h100.txt is for kernel 'gone', which no generator registers");
  Registry twice;
  twice.add({"k", "", "a.cpp", make});
  twice.addTunedTable({"k", "H100", "a.h100.txt", "", true});
  twice.addTunedTable({"k", "H100", "b.h100.txt", "", false});
  EXPECT_NE(twice.problems().find("has two tuned tables for device H100"), std::string::npos)
      << twice.problems();
  Registry none;
  none.add({"k", "", "a.cpp", make});
  none.addTunedTable({"k", "H100", "k.h100.txt", "", false});
  EXPECT_EQ(none.problems(), "kernel 'k' has 0 fallback tuned tables; give exactly one "
                             "(minitile_embed_tuned_tables' FALLBACK)");
}

TEST(Registry, CppNames) {
  EXPECT_EQ(cppNameProblem("indexer_fwd"), "");
  EXPECT_EQ(cppNameProblem("_x"), "");
  EXPECT_EQ(cppNameProblem("int"), "is not a C++ identifier (or is a keyword)");
  EXPECT_EQ(cppNameProblem("a b"), "is not a C++ identifier (or is a keyword)");
  EXPECT_EQ(cppNameProblem(""), "is not a C++ identifier (or is a keyword)");
  EXPECT_NE(cppNameProblem("__x").find("reserved"), std::string::npos);
  EXPECT_NE(cppNameProblem("_Kernel").find("reserved"), std::string::npos);
  for (const char *macro : {"NULL", "errno", "EOF", "stdout"})
    EXPECT_NE(cppNameProblem(macro).find("is a macro"), std::string::npos) << macro;
}

TEST(Registry, CppIdentifiers) {
  for (const char *ok : {"a", "_x", "clean_logits", "S_kv2", "Class"})
    EXPECT_TRUE(isCppIdentifier(ok)) << ok;
  for (const char *bad : {"", "9a", "a-b", "a b", "class", "int", "namespace", "and",
                          "co_await", "a::b", "é"})
    EXPECT_FALSE(isCppIdentifier(bad)) << bad;
}

TEST(DslMisuse, ConstantsThatDoNotFit) {
  unsigned line = 0;
  expectDslError(line, "constant 300 in a store to 'x' does not fit i8", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::i8, {n});
    launch(k, n);
    line = __LINE__ + 1;
    x(0) = 300;
  });
  // A float constant meeting an index: int64 cannot hold 1e300.
  expectDslError(line, "does not fit index", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    line = __LINE__ + 1;
    (void)(n + 1e300);
  });
  // 255 fits i8 read unsigned, -128 read signed.
  EXPECT_NO_THROW(build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::i8, {n});
    launch(k, n);
    x(0) = 255;
    x(1) = -128;
  }));
}
