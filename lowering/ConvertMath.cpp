//===- ConvertMath.cpp - float math functions to NVVM and libdevice -------===//
//
// Expects: math ops on scalar floats (f16, bf16, f32, f64) inside kernels
//          being converted by convert-tile-to-llvm; their `afn` flag asks
//          for the fast approximation.
// Leaves:  NVVM intrinsic calls (fast f32), llvm.intr.sqrt (precise sqrt),
//          calls of libdevice functions declared in the module (the rest),
//          with f16 / bf16 extended to f32 around them.
//
// Accuracy, f32 (measured by tests/gpu/MathTest.cpp against fp64):
//   precise: exp, exp2 2 ulp; log, log2 1 ulp; rsqrt 2 ulp; tanh 2 ulp
//            (libdevice, as CUDA's expf ...); sqrt correctly rounded.
//   fast:    PTX's approximations, subnormal inputs and results flushed to
//            zero; docs/MATH.md has their bounds and the measured figures.
//
//===----------------------------------------------------------------------===//
#include "lowering/ConvertMath.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FileSystem.h"

#include <cstdlib>
#include <numbers>

#ifndef MINITILE_LIBDEVICE
#define MINITILE_LIBDEVICE ""
#endif

using namespace mlir;

namespace minitile {

std::string libdevicePath() {
  if (const char *env = std::getenv("MINITILE_LIBDEVICE"))
    return env;
  return MINITILE_LIBDEVICE;
}

namespace {

enum class Fn { exp, exp2, log, log2, sqrt, rsqrt, tanh };

/// The function `op` computes, if it is one of ours.
std::optional<Fn> functionOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<Fn>>(op)
      .Case([](math::ExpOp) { return Fn::exp; })
      .Case([](math::Exp2Op) { return Fn::exp2; })
      .Case([](math::LogOp) { return Fn::log; })
      .Case([](math::Log2Op) { return Fn::log2; })
      .Case([](math::SqrtOp) { return Fn::sqrt; })
      .Case([](math::RsqrtOp) { return Fn::rsqrt; })
      .Case([](math::TanhOp) { return Fn::tanh; })
      .Default([](Operation *) { return std::nullopt; });
}

const char *fnName(Fn f) {
  switch (f) {
  case Fn::exp: return "exp";
  case Fn::exp2: return "exp2";
  case Fn::log: return "log";
  case Fn::log2: return "log2";
  case Fn::sqrt: return "sqrt";
  case Fn::rsqrt: return "rsqrt";
  case Fn::tanh: return "tanh";
  }
  llvm_unreachable("every function is named");
}

/// The type the function is computed in: f16 and bf16 in f32.
Type computeType(Type t) {
  if (t.isF16() || t.isBF16())
    return Float32Type::get(t.getContext());
  return t;
}

bool isFast(Operation *op, Type computed) {
  auto fmf = llvm::dyn_cast<arith::ArithFastMathInterface>(op);
  return computed.isF32() && fmf &&
         arith::bitEnumContainsAll(fmf.getFastMathFlagsAttr().getValue(),
                                   arith::FastMathFlags::afn);
}

/// The libdevice function `op` calls, or "" if it calls none.
std::string libdeviceName(Operation *op) {
  std::optional<Fn> f = functionOf(op);
  if (!f || *f == Fn::sqrt || op->getNumResults() != 1)
    return "";
  Type t = op->getResult(0).getType();
  if (!llvm::isa<FloatType>(t))
    return "";
  Type c = computeType(t);
  if (isFast(op, c) || !(c.isF32() || c.isF64()))
    return "";
  return std::string("__nv_") + fnName(*f) + (c.isF32() ? "f" : "");
}

Value intrinsic(OpBuilder &b, Location loc, const char *name, Value x,
                LLVM::FastmathFlags flags = LLVM::FastmathFlags::none) {
  return LLVM::CallIntrinsicOp::create(
             b, loc, TypeRange{x.getType()}, b.getStringAttr(name), ValueRange{x},
             LLVM::FastmathFlagsAttr::get(b.getContext(), flags))
      .getResult(0);
}

Value f32Constant(OpBuilder &b, Location loc, double v) {
  return LLVM::ConstantOp::create(b, loc, b.getF32Type(), b.getF32FloatAttr(float(v)));
}

/// The PTX approximation of `f` at f32 `x`.
Value approximate(OpBuilder &b, Location loc, Fn f, Value x) {
  switch (f) {
  case Fn::exp: // 2^(x log2 e)
    return intrinsic(b, loc, "llvm.nvvm.ex2.approx.ftz.f32",
                     LLVM::FMulOp::create(b, loc, x, f32Constant(b, loc, std::numbers::log2e)));
  case Fn::exp2:
    return intrinsic(b, loc, "llvm.nvvm.ex2.approx.ftz.f32", x);
  case Fn::log: // log2(x) ln 2
    return LLVM::FMulOp::create(b, loc, intrinsic(b, loc, "llvm.nvvm.lg2.approx.ftz.f", x),
                                f32Constant(b, loc, std::numbers::ln2));
  case Fn::log2:
    return intrinsic(b, loc, "llvm.nvvm.lg2.approx.ftz.f", x);
  case Fn::sqrt:
    return intrinsic(b, loc, "llvm.nvvm.sqrt.approx.ftz.f", x);
  case Fn::rsqrt:
    return intrinsic(b, loc, "llvm.nvvm.rsqrt.approx.ftz.f", x);
  case Fn::tanh: // tanh.approx.f32 (sm_75 and later; every target minitile has)
    return LLVM::TanhOp::create(b, loc, x.getType(), x,
                                LLVM::FastmathFlagsAttr::get(b.getContext(),
                                                             LLVM::FastmathFlags::afn));
  }
  llvm_unreachable("every function is approximated");
}

template <typename Op>
struct MathOpLowering : ConvertOpToLLVMPattern<Op> {
  // Ahead of MathToLLVM, which would make llvm.intr.exp and the like: the
  // NVPTX backend cannot select them.
  explicit MathOpLowering(LLVMTypeConverter &converter)
      : ConvertOpToLLVMPattern<Op>(converter, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!llvm::isa<FloatType>(type))
      return rewriter.notifyMatchFailure(op, "not a scalar float");
    Location loc = op.getLoc();
    Fn f = *functionOf(op);
    Type computed = computeType(type);
    Value x = adaptor.getOperand();
    if (computed != type)
      x = LLVM::FPExtOp::create(rewriter, loc, computed, x);
    Value r;
    if (isFast(op, computed)) {
      r = approximate(rewriter, loc, f, x);
    } else if (f == Fn::sqrt) {
      r = LLVM::SqrtOp::create(rewriter, loc, x); // sqrt.rn: correctly rounded
    } else {
      std::string name = libdeviceName(op);
      auto module = op->template getParentOfType<ModuleOp>();
      auto fn = module.template lookupSymbol<LLVM::LLVMFuncOp>(name);
      if (!fn)
        return rewriter.notifyMatchFailure(op, "prepareMathConversions did not run");
      r = LLVM::CallOp::create(rewriter, loc, fn, ValueRange{x}).getResult();
    }
    if (computed != type)
      r = LLVM::FPTruncOp::create(rewriter, loc, type, r);
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

LogicalResult prepareMathConversions(ModuleOp module) {
  std::string path = libdevicePath();
  bool haveLibdevice = !path.empty() && llvm::sys::fs::exists(path);
  bool ok = true;
  OpBuilder b(module.getContext());
  b.setInsertionPointToStart(module.getBody());
  module.walk([&](Operation *op) {
    std::string name = libdeviceName(op);
    if (name.empty())
      return;
    if (!haveLibdevice) {
      ok = false;
      op->emitError() << "precise " << fnName(*functionOf(op))
                      << "() calls libdevice, and "
                      << (path.empty() ? std::string("this build found no libdevice.10.bc")
                                       : "libdevice '" + path + "' does not exist")
                      << " (set MINITILE_LIBDEVICE, or ask for fast math: Kernel::fastMath)";
      return;
    }
    if (module.lookupSymbol(name))
      return;
    Type t = computeType(op->getResult(0).getType());
    auto fn = LLVM::LLVMFuncOp::create(b, module.getLoc(), name,
                                       LLVM::LLVMFunctionType::get(t, {t}));
    (void)fn;
  });
  return success(ok);
}

void populateMathConversions(LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<MathOpLowering<math::ExpOp>, MathOpLowering<math::Exp2Op>,
               MathOpLowering<math::LogOp>, MathOpLowering<math::Log2Op>,
               MathOpLowering<math::SqrtOp>, MathOpLowering<math::RsqrtOp>,
               MathOpLowering<math::TanhOp>>(converter);
}

} // namespace minitile
