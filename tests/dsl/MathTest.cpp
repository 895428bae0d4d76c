//===- MathTest.cpp - math functions, fast math and casts in the DSL ------===//
//
// Each math function records its math op (with `afn` under fastMath) on
// scalars and fragments and compiles to the instructions lowering/ConvertMath.h
// promises; casts to bf16 / f16 store from fragments; each misuse is a
// minitile::Error at the user's line.
//
//===----------------------------------------------------------------------===//
#include "DslTestSupport.h"
#include "lowering/ConvertMath.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <cstdlib>

using namespace minitile;
using namespace dsltest;

namespace {

bool has(const std::string &text, const std::string &what) {
  return text.find(what) != std::string::npos;
}

/// Builds `body` and compiles it to PTX for sm_90a; "" (and the
/// diagnostics in `errors`) when a stage fails.
std::string ptxOf(const std::function<void(Kernel &)> &body, std::string *errors = nullptr) {
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext ctx(registry);
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    diagnostics += d.str() + "\n";
    if (auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(d.getLocation()))
      diagnostics += "at " + loc.getFilename().str() + ":" + std::to_string(loc.getLine()) + "\n";
    return mlir::success();
  });
  LambdaGenerator gen;
  gen.body = body;
  auto module = buildKernel(ctx, gen, "t");
  std::string ptx;
  if (mlir::succeeded(runTilePasses(*module, {})) &&
      mlir::succeeded(lowerToLLVMDialect(*module, {}))) {
    llvm::LLVMContext llvmContext;
    const Target &target = Target::defaultTarget();
    if (auto llvmModule = translateToLLVMIR(*module, llvmContext, target)) {
      optimizeLLVMIR(*llvmModule, target);
      ptx = emitPTX(*llvmModule, target);
    }
  }
  if (errors)
    *errors = diagnostics;
  else
    EXPECT_EQ(diagnostics, "");
  return ptx;
}

/// y(i) = f(x(i)) per thread, on f32.
std::function<void(Kernel &)> perThread(Value (*f)(Arg, SourceLoc), bool fast) {
  return [f, fast](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    Tensor y = k.tensor("y", DType::f32, {n});
    k.fastMath(fast);
    launch(k, n);
    Value i = k.blockId() * 128 + k.threadId();
    k.if_(i < n, [&] { y(i) = f(x(i), SourceLoc::current()); });
  };
}

} // namespace

TEST(DslMath, RecordsMathOpsWithFastMathAfterTheCall) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    Tensor xi = k.tensor("xi", DType::i32, {n});
    launch(k, n);
    Value v = x(0);
    x(1) = exp(v) + exp2(v) + log(v) + log2(v) + sqrt(v) + rsqrt(v) + tanh(v) + abs(v);
    xi(1) = abs(xi(0));
    k.fastMath(true);
    x(2) = exp(v) + tanh(v);
  });
  for (const char *op : {"math.exp %", "math.exp2 %", "math.log %", "math.log2 %", "math.sqrt %",
                         "math.rsqrt %", "math.tanh %", "math.absf %", "math.absi %"})
    EXPECT_TRUE(has(ir, op)) << op << "\n" << ir;
  // Only the two built after fastMath(true) carry afn.
  EXPECT_EQ(count(ir, "fastmath<afn>"), 2u) << ir;
}

TEST(DslMath, FragmentsGetElementwiseMath) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n, 64});
    launch(k, n);
    Value f = loadTile(x, {0, 0}, {4, 64});
    storeTile(x, {0, 0}, exp(f - 1.0) * rsqrt(abs(f)));
  });
  EXPECT_TRUE(has(ir, "math.exp %")) << ir;
  EXPECT_TRUE(has(ir, ": tensor<4x64xf32>")) << ir;
}

TEST(DslMath, PrecisePTXCallsLibdeviceOrRoundsCorrectly) {
  if (libdevicePath().empty())
    GTEST_SKIP() << "no libdevice in this build";
  std::string exp_ = ptxOf(perThread(exp, false));
  // libdevice's expf: a range reduction around ex2, inlined; no call left.
  EXPECT_TRUE(has(exp_, "ex2.approx.ftz.f32")) << exp_;
  EXPECT_TRUE(has(exp_, "fma.rn")) << exp_;
  EXPECT_FALSE(has(exp_, "call")) << exp_;
  EXPECT_FALSE(has(exp_, "__nv_")) << exp_;
  EXPECT_TRUE(has(ptxOf(perThread(sqrt, false)), "sqrt.rn.f32"));
  EXPECT_FALSE(has(ptxOf(perThread(log, false)), "lg2.approx"));
  EXPECT_FALSE(has(ptxOf(perThread(tanh, false)), "tanh.approx"));
}

TEST(DslMath, FastPTXUsesTheApproximations) {
  struct Case {
    Value (*f)(Arg, SourceLoc);
    const char *instruction;
  };
  for (Case c : {Case{exp, "ex2.approx.ftz.f32"}, Case{exp2, "ex2.approx.ftz.f32"},
                 Case{log, "lg2.approx.ftz.f32"}, Case{log2, "lg2.approx.ftz.f32"},
                 Case{sqrt, "sqrt.approx.ftz.f32"}, Case{rsqrt, "rsqrt.approx.ftz.f32"},
                 Case{tanh, "tanh.approx.f32"}, Case{abs, "abs.f32"}}) {
    std::string ptx = ptxOf(perThread(c.f, true));
    EXPECT_TRUE(has(ptx, c.instruction)) << c.instruction << "\n" << ptx;
    EXPECT_FALSE(has(ptx, "fma.rn")) << c.instruction << "\n" << ptx;
  }
  // exp multiplies by log2(e) first (0f3FB8AA3B), log by ln(2) after (0f3F317218).
  EXPECT_TRUE(has(ptxOf(perThread(exp, true)), "0f3FB8AA3B"));
  EXPECT_TRUE(has(ptxOf(perThread(log, true)), "0f3F317218"));
}

TEST(DslMath, Bf16FragmentsComputeInF32AndStore) {
  std::string ptx = ptxOf([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::bf16, {n});
    Tensor y = k.tensor("y", DType::bf16, {n});
    k.fastMath(true);
    launch(k, n);
    storeTile(y, {0}, exp(loadTile(x, {0}, {512})));
  });
  EXPECT_TRUE(has(ptx, "cvt.f32.bf16")) << ptx;
  EXPECT_TRUE(has(ptx, "ex2.approx.ftz.f32")) << ptx;
  EXPECT_TRUE(has(ptx, "cvt.rn.bf16.f32")) << ptx;
  EXPECT_TRUE(has(ptx, "st.global.b16")) << ptx;
}

TEST(DslCasts, FragmentsToBf16AndF16AndBack) {
  std::string ir = build([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    Tensor b = k.tensor("b", DType::bf16, {n});
    Tensor h = k.tensor("h", DType::f16, {n});
    launch(k, n);
    Value f = loadTile(x, {0}, {512});
    storeTile(b, {0}, cast(f, DType::bf16));
    storeTile(h, {0}, cast(f, DType::f16));
    storeTile(x, {0}, cast(loadTile(b, {0}, {512}), DType::f32));
    x(0) = cast(b(0), DType::f32) + cast(h(0), DType::f32);
    b(1) = cast(x(1), DType::bf16);
  });
  EXPECT_TRUE(has(ir, "arith.truncf %") && has(ir, "tensor<512xf32> to tensor<512xbf16>")) << ir;
  EXPECT_TRUE(has(ir, "tensor<512xf32> to tensor<512xf16>")) << ir;
  EXPECT_TRUE(has(ir, "tensor<512xbf16> to tensor<512xf32>")) << ir;
  EXPECT_TRUE(has(ir, "arith.extf %") && has(ir, ": bf16 to f32")) << ir;
  EXPECT_TRUE(has(ir, ": f32 to bf16")) << ir;
}

TEST(DslCasts, Bf16FragmentStoreCompiles) {
  std::string ptx = ptxOf([](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n, 64});
    Tensor y = k.tensor("y", DType::bf16, {n, 64});
    Tensor z = k.tensor("z", DType::f16, {n, 64});
    launch(k, n);
    Value f = loadTile(x, {0, 0}, {4, 64});
    storeTile(y, {0, 0}, cast(f, DType::bf16));
    storeTile(z, {0, 0}, cast(f * 2.0, DType::f16));
  });
  EXPECT_TRUE(has(ptx, "cvt.rn.bf16.f32") || has(ptx, "cvt.rn.bf16x2.f32")) << ptx;
  EXPECT_TRUE(has(ptx, "cvt.rn.f16.f32") || has(ptx, "cvt.rn.f16x2.f32")) << ptx;
  EXPECT_TRUE(has(ptx, "st.global.b16") || has(ptx, "st.global.v2.b16")) << ptx;
}

//===----------------------------------------------------------------------===//
// Misuse
//===----------------------------------------------------------------------===//

TEST(DslMathMisuse, ExpOfAnInteger) {
  unsigned line = 0;
  expectDslError(line, "exp() takes a float (f16, bf16, f32 or f64), not i32: cast() it first",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor x = k.tensor("x", DType::i32, {n});
                   launch(k, n);
                   line = __LINE__ + 1;
                   exp(x(0));
                 });
}

TEST(DslMathMisuse, LogOfAnIntegerFragment) {
  unsigned line = 0;
  expectDslError(line, "log() takes a float (f16, bf16, f32 or f64), not tensor<64xi32>",
                 [&](Kernel &k) {
                   Value n = k.size("n");
                   Tensor x = k.tensor("x", DType::i32, {n});
                   launch(k, n);
                   Value f = loadTile(x, {0}, {64});
                   line = __LINE__ + 1;
                   log(f);
                 });
}

TEST(DslMathMisuse, SqrtOfABoolAndOfAVector) {
  unsigned line = 0;
  expectDslError(line, "sqrt() takes a float (f16, bf16, f32 or f64), not i1", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    line = __LINE__ + 1;
    sqrt(n < 3);
  });
  expectDslError(line, "tanh() of a vector (vector<4xf32>)", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    launch(k, n);
    line = __LINE__ + 1;
    tanh(x.load({0}, 4));
  });
}

TEST(DslMathMisuse, AbsOfABool) {
  unsigned line = 0;
  expectDslError(line, "abs() takes a number, not i1", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    line = __LINE__ + 1;
    abs(n > 1);
  });
}

TEST(DslMathMisuse, CastsOfBools) {
  unsigned line = 0;
  expectDslError(line, "cast() of a bool to f32: write select(b, 1, 0)", [&](Kernel &k) {
    Value n = k.size("n");
    launch(k, n);
    line = __LINE__ + 1;
    cast(n > 1, DType::f32);
  });
  expectDslError(line, "cast() of f32 to i1: compare instead (v != 0)", [&](Kernel &k) {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n});
    launch(k, n);
    line = __LINE__ + 1;
    cast(x(0), DType::i1);
  });
}

TEST(DslMathMisuse, PreciseMathWithoutLibdeviceNamesTheLine) {
  const char *old = std::getenv("MINITILE_LIBDEVICE");
  std::string saved = old ? old : "";
  setenv("MINITILE_LIBDEVICE", "/nonexistent/libdevice.10.bc", 1);
  unsigned line = 0;
  std::string errors;
  std::string ptx = ptxOf(
      [&](Kernel &k) {
        Value n = k.size("n");
        Tensor x = k.tensor("x", DType::f32, {n});
        launch(k, n);
        line = __LINE__ + 1;
        x(1) = log(x(0));
      },
      &errors);
  if (old)
    setenv("MINITILE_LIBDEVICE", saved.c_str(), 1);
  else
    unsetenv("MINITILE_LIBDEVICE");
  EXPECT_EQ(ptx, "");
  EXPECT_TRUE(has(errors, "precise log() calls libdevice, and libdevice "
                          "'/nonexistent/libdevice.10.bc' does not exist")) << errors;
  EXPECT_TRUE(has(errors, "(set MINITILE_LIBDEVICE, or ask for fast math: Kernel::fastMath)"))
      << errors;
  EXPECT_TRUE(has(errors, std::string(__FILE__) + ":" + std::to_string(line))) << errors;
}
