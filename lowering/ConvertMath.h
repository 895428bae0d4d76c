//===- ConvertMath.h - float math functions to NVVM and libdevice ---------===//
//
// math.exp, exp2, log, log2, sqrt, rsqrt and tanh on scalar floats. With
// the `afn` fast-math flag (Kernel::fastMath) an f32 function becomes the
// PTX approximation (ex2.approx.ftz.f32, lg2.approx.ftz.f32,
// sqrt.approx.ftz.f32, rsqrt.approx.ftz.f32, tanh.approx.f32; exp and log
// through ex2/lg2 and a multiplication); without it, sqrt is sqrt.rn
// (correctly rounded) and the others call libdevice (__nv_expf, ...), which
// the NVPTX backend links. f16 and bf16 compute in f32; f64 always calls
// libdevice. math.absf / absi and the bit counts stay with MathToLLVM.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace minitile {

/// Where libdevice.10.bc is ("" when this build found none);
/// MINITILE_LIBDEVICE in the environment overrides it.
std::string libdevicePath();

/// Declares the libdevice functions the math ops of `module` will call;
/// when there is no libdevice, reports each such op (at its location, the
/// user's line) and fails.
mlir::LogicalResult prepareMathConversions(mlir::ModuleOp module);

/// One pattern per math function, ahead of MathToLLVM's.
void populateMathConversions(mlir::LLVMTypeConverter &converter,
                             mlir::RewritePatternSet &patterns);

} // namespace minitile
