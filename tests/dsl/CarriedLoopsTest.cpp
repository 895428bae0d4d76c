//===- CarriedLoopsTest.cpp - serial() and pipelined() carrying values ----===//
//
// A loop takes initial values and its body returns the next ones; the loop
// returns the last. Scalars and fragments; a gemm accumulator carried by a
// pipelined loop compiles to wgmma that waits only for the previous
// iteration's group. Misuse is reported at the loop's line.
//
//===----------------------------------------------------------------------===//
#include "DslTestSupport.h"

using namespace minitile;
using namespace dsltest;

namespace {

/// C = A . B^T over K in tiles of 64, the accumulator carried in registers.
void carriedGemm(Kernel &k) {
  Value K = k.size("K");
  Tensor A = k.tensor("A", DType::bf16, {128, K}), B = k.tensor("B", DType::bf16, {128, K});
  Tensor C = k.tensor("C", DType::f32, {128, 128});
  k.threads(256);
  k.grid(1);
  Value acc = k.pipelined(0, ceildiv(K, 64), broadcast(0.0, {128, 128}),
                          [&](Value kt, Value acc) {
                            Shared a = k.shared(DType::bf16, {128, 64});
                            Shared b = k.shared(DType::bf16, {128, 64});
                            copy(A, {0, kt * 64}, a);
                            copy(B, {0, kt * 64}, b);
                            return gemm(a, b, /*transposeB=*/true, acc);
                          },
                          {.stages = 4});
  storeTile(C, {0, 0}, acc);
}

} // namespace

TEST(CarriedLoops, SerialCarriesAScalar) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n}), out = k.tensor("out", DType::f32, {1});
    launch(k, n);
    Value sum = k.serial(0, n, 0.0, [&](Value i, Value s) { return s + x(i); });
    out(0) = sum;
  });
  EXPECT_NE(ir.find("iter_args(%arg1 = %cst) -> (f32)"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.yield"), std::string::npos) << ir;
}

TEST(CarriedLoops, SerialCarriesSeveralValues) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n}), out = k.tensor("out", DType::f32, {2});
    launch(k, n);
    std::vector<Value> r = k.serial(0, n, {0.0, negInf()},
                                    [&](Value i, std::vector<Value> c) -> std::vector<Value> {
                                      return {c[0] + x(i), max(c[1], x(i))};
                                    });
    out(0) = r[0];
    out(1) = r[1];
  });
  EXPECT_NE(ir.find("-> (f32, f32)"), std::string::npos) << ir;
}

TEST(CarriedLoops, SerialCarriesAFragment) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n, 64}), out = k.tensor("out", DType::f32, {64});
    k.threads(128);
    k.grid(1);
    Value acc = k.serial(0, ceildiv(n, 4), broadcast(0.0, {4, 64}),
                         [&](Value i, Value a) { return a + loadTile(x, {i * 4, 0}, {4, 64}); });
    storeTile(out, {0}, reduceSum(acc, 0));
  });
  EXPECT_NE(ir.find("-> (tensor<4x64xf32>)"), std::string::npos) << ir;
}

TEST(CarriedLoops, PipelinedGemmKeepsItsAccumulator) {
  std::string ir = build(carriedGemm);
  EXPECT_NE(ir.find("tile.pipelined"), std::string::npos) << ir;
  EXPECT_NE(ir.find("iter_args(%arg1 = %"), std::string::npos) << ir;
  EXPECT_NE(ir.find("-> (tensor<128x128xf32>)"), std::string::npos) << ir;
}

TEST(CarriedLoops, PipelinedGemmWaitsOnlyForThePreviousGroup) {
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext ctx(registry);
  LambdaGenerator gen;
  gen.body = carriedGemm;
  auto module = buildKernel(ctx, gen, "t");
  StageOptions opts;
  ASSERT_TRUE(mlir::succeeded(runTilePasses(*module, opts)));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  // In the loop: the gemm's wgmma, then a wait for all but one group; after
  // it, one wait for all.
  auto loop = text.find("tile.for");
  ASSERT_NE(loop, std::string::npos) << text;
  auto mma = text.find("hopper.wgmma ", loop);
  auto waitOne = text.find("hopper.wgmma_wait 1", loop);
  auto waitAll = text.find("hopper.wgmma_wait 0", loop);
  ASSERT_NE(mma, std::string::npos) << text;
  ASSERT_NE(waitOne, std::string::npos) << text;
  ASSERT_NE(waitAll, std::string::npos) << text;
  EXPECT_LT(mma, waitOne);
  EXPECT_LT(waitOne, waitAll);
  EXPECT_EQ(text.find("hopper.wgmma_wait 0", loop), text.rfind("hopper.wgmma_wait 0")) << text;
  EXPECT_EQ(text.find("tile.store_tile"), std::string::npos) << "C is not stored in the loop";
}

TEST(CarriedLoops, BodyReturningAnotherTypeIsAnError) {
  unsigned line = 0;
  expectDslError(line, "serial(): the body returns i32", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    line = __LINE__ + 1;
    k.serial(0, n, 0.0, [&](Value i, Value s) { return cast(i, DType::i32); });
  });
}

TEST(CarriedLoops, BodyReturningAnotherShapeIsAnError) {
  unsigned line = 0;
  expectDslError(line, "for the carried value, which is tensor<4x64xf32>", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    line = __LINE__ + 1;
    k.serial(0, n, broadcast(0.0, {4, 64}),
             [&](Value, Value a) { return reduceSum(a, 0); });
  });
}

TEST(CarriedLoops, BodyReturningTheWrongCountIsAnError) {
  unsigned line = 0;
  expectDslError(line, "pipelined(): the body returns 1 value but the loop carries 2",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   launch(k, n);
                   line = __LINE__ + 1;
                   k.pipelined(0, n, {0.0, 0.0},
                               [&](Value, std::vector<Value> c) -> std::vector<Value> {
                                 return {c[0]};
                               });
                 });
}

TEST(CarriedLoops, BodyReturningAnEmptyValueIsAnError) {
  unsigned line = 0;
  expectDslError(line, "returns an empty minitile::Value", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    line = __LINE__ + 1;
    k.serial(0, n, 0.0, [&](Value, Value) { return Value(); });
  });
}

TEST(CarriedLoops, CarryingPipelinedLoopsRunOnOneGroup) {
  unsigned line = 0;
  expectDslError(line, "a loop that carries values runs on one group, not 2", [&](Kernel &k) {
    Value n = k.size("n");
    k.threads(256);
    k.grid(1);
    line = __LINE__ + 1;
    k.pipelined(0, n, 0.0, [&](Value, Value s) { return s; }, {.stages = 2, .groups = 2});
  });
}
