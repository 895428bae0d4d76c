//===- Math.cpp - math functions of the DSL -------------------------------===//
//
// Each function checks its operand (a float scalar or fragment; abs also
// takes integers) and records one math-dialect op at the caller's line,
// with the `afn` fast-math flag when the kernel asked for fast math.
// Fragments need nothing more: math ops are elementwise, and the
// Elementwise family (passes/fragments/Elementwise.cpp) lays them out and
// distributes them. convert-tile-to-llvm (lowering/ConvertMath.h) chooses
// the instructions.
//
//===----------------------------------------------------------------------===//
#include "dsl/KernelState.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace minitile {
using detail::Access;
using detail::KernelState;

void Kernel::fastMath(bool on, SourceLoc loc) { detail::checked(id_, loc).fastMath = on; }

namespace {

/// The operand of `what`: a float scalar or fragment (a constant is f32).
mlir::Value floatOperand(KernelState &k, const Arg &x, const char *what,
                         const SourceLoc &loc) {
  mlir::Value v = detail::materialize(k, x, std::nullopt, what);
  mlir::Type t = v.getType();
  mlir::Type element = mlir::getElementTypeOrSelf(t);
  if (!llvm::isa<mlir::FloatType>(element))
    throw Error(loc, std::string(what) + " takes a float (f16, bf16, f32 or f64), not " +
                         detail::describe(t) + (element.isInteger(1) ? "" : ": cast() it first"));
  if (llvm::isa<mlir::VectorType>(t))
    throw Error(loc, std::string(what) + " of a vector (" + detail::describe(t) +
                         "): apply it to scalars or fragments");
  return v;
}

template <typename Op>
Value unary(const Arg &x, const char *what, const SourceLoc &loc) {
  KernelState &k = detail::kernelFor({&x}, loc);
  mlir::Value v = floatOperand(k, x, what, loc);
  auto flags = k.fastMath ? mlir::arith::FastMathFlags::afn : mlir::arith::FastMathFlags::none;
  return Access::make(&k, Op::create(k.b, k.loc(loc), v, flags));
}

} // namespace

Value exp(Arg x, SourceLoc loc) { return unary<mlir::math::ExpOp>(x, "exp()", loc); }
Value exp2(Arg x, SourceLoc loc) { return unary<mlir::math::Exp2Op>(x, "exp2()", loc); }
Value log(Arg x, SourceLoc loc) { return unary<mlir::math::LogOp>(x, "log()", loc); }
Value log2(Arg x, SourceLoc loc) { return unary<mlir::math::Log2Op>(x, "log2()", loc); }
Value sqrt(Arg x, SourceLoc loc) { return unary<mlir::math::SqrtOp>(x, "sqrt()", loc); }
Value rsqrt(Arg x, SourceLoc loc) { return unary<mlir::math::RsqrtOp>(x, "rsqrt()", loc); }
Value tanh(Arg x, SourceLoc loc) { return unary<mlir::math::TanhOp>(x, "tanh()", loc); }

Value abs(Arg x, SourceLoc loc) {
  KernelState &k = detail::kernelFor({&x}, loc);
  mlir::Value v = detail::materialize(k, x, std::nullopt, "abs()");
  mlir::Type element = mlir::getElementTypeOrSelf(v.getType());
  mlir::Location l = k.loc(loc);
  if (llvm::isa<mlir::FloatType>(element))
    return Access::make(&k, mlir::math::AbsFOp::create(k.b, l, v));
  if (element.isInteger(1))
    throw Error(loc, "abs() takes a number, not " + detail::describe(v.getType()));
  return Access::make(&k, mlir::math::AbsIOp::create(k.b, l, v));
}

} // namespace minitile
