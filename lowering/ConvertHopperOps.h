//===- ConvertHopperOps.h - machine-level ops to NVVM ---------------------===//
#pragma once

#include "dialect/HopperDialect.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace minitile {

/// The extern shared array every kernel's dynamic shared memory starts at.
inline constexpr const char *kDynamicSharedName = "__minitile_dynamic_shared";

/// Type conversions (shared tiles, mbarriers, tensor maps) and one pattern
/// per hopper op and per planned-shared-memory, barrier and shuffle tile op.
void populateHopperConversions(mlir::LLVMTypeConverter &converter,
                               mlir::RewritePatternSet &patterns);

/// The LLVM read-modify-write of a tile atomic `kind` on elements of `type`.
mlir::LLVM::AtomicBinOp atomicBinOp(tile::AtomicKind kind, mlir::Type type);

/// Declares the dynamic shared array in `module` (once).
void declareDynamicShared(mlir::ModuleOp module);

} // namespace minitile
