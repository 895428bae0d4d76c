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
/// With `descriptorsAtUse`, a wgmma descriptor becomes PTX LLVM keeps where
/// it is (see sinkWgmmaDescriptors), its constant offset an immediate.
void populateHopperConversions(mlir::LLVMTypeConverter &converter,
                               mlir::RewritePatternSet &patterns,
                               bool descriptorsAtUse = false);

/// Gives every wgmma a copy of each descriptor it reads, made right before it
/// (the fragment layer makes some before the loops their tile is invariant
/// in): with populateHopperConversions' `descriptorsAtUse`, so that no
/// descriptor is live across a loop.
void sinkWgmmaDescriptors(mlir::ModuleOp module);

/// Gives each f32 that a loop holding wgmmas carries and that starts as a
/// constant (an accumulator, directly or through other ops) its own
/// register before the loop: each such initial value becomes an opaque
/// `mov.f32` there. With the constants, LLVM copies them into the
/// accumulator's registers on the edge that skips a loop of no iterations,
/// in a block of its own that falls into the wgmma wait after the loop, and
/// ptxas serialises every wgmma of the loop (C7515: the accumulator written
/// inside a wgmma's pipeline stage). With the moves, the registers are
/// coalesced and written once, before the loop.
void pinLoopAccumulators(mlir::ModuleOp module);

/// The LLVM read-modify-write of a tile atomic `kind` on elements of `type`.
mlir::LLVM::AtomicBinOp atomicBinOp(tile::AtomicKind kind, mlir::Type type);

/// Declares the dynamic shared array in `module` (once).
void declareDynamicShared(mlir::ModuleOp module);

} // namespace minitile
