//===- Layouts.h - making and transforming fragment layouts ---------------===//
//
// A #tile.frag layout maps (register, lane, warp) bits to coordinate bits.
// These functions build the layouts the hardware dictates (the wgmma
// accumulator), a default for everything else, and the layout a fragment has
// after a shape operation -- or before one, for propagating backwards.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "dialect/TileDialect.h"

namespace minitile::tile {

/// The accumulator of wgmma m64nNk16 for an [M, N] fragment computed by
/// `warps` warps (M / 64 warpgroups, 64 rows each).
FragLayoutAttr wgmmaAccumulatorLayout(mlir::MLIRContext *ctx, int64_t M, int64_t N,
                                      int64_t warps);

/// wgmma m64nNk16's A operand from registers, for an [M, K] fragment read by
/// `warps` warps: per warpgroup 64 rows, per k-step of 16 columns each
/// thread's eight elements (four pairs of consecutive columns), in the
/// order of the instruction's four 32-bit registers. It is the accumulator
/// layout of an [M, K] result (wgmmaAccumulatorLayout(M, K)): register bit
/// 0 the next column, bit 1 eight rows down, bit 2 eight columns on, the
/// higher bits the k-steps; lanes and warps as the accumulator's.
FragLayoutAttr wgmmaOperandALayout(mlir::MLIRContext *ctx, int64_t M, int64_t K,
                                   int64_t warps);

/// Spreads `shape` over `warps` warps: up to 16 bytes of consecutive inner
/// elements per thread, then lanes, then warps, then more registers.
FragLayoutAttr blockedLayout(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> shape,
                             int64_t elementBytes, int64_t warps);

/// The layout of a fragment of `from` reshaped to `to` (row-major order kept).
FragLayoutAttr reshapeLayout(FragLayoutAttr layout, llvm::ArrayRef<int64_t> from,
                             llvm::ArrayRef<int64_t> to);
/// Result dimension i is source dimension perm[i].
FragLayoutAttr transposeLayout(FragLayoutAttr layout, llvm::ArrayRef<int64_t> perm);
/// The inverse: the source layout of a transpose with `perm`.
FragLayoutAttr untransposeLayout(FragLayoutAttr layout, llvm::ArrayRef<int64_t> perm);
/// The result of reducing `axis`: registers along it are combined, lanes and
/// warps along it then hold copies, and the dimension goes (a rank-1 source
/// leaves a [1] fragment).
FragLayoutAttr reduceLayout(FragLayoutAttr layout, int64_t axis);
/// Like reduceLayout, but the lanes along the axis, in order, take the
/// remaining register bits, in order, so no lane holds a copy where a
/// register bit is left to give it.
FragLayoutAttr compactReduceLayout(FragLayoutAttr layout, int64_t axis);
/// The layout the source of a broadcast needs: result dimensions `dims`
/// only; registers along the other dimensions dropped, lanes and warps along
/// them holding copies.
FragLayoutAttr broadcastSourceLayout(FragLayoutAttr layout, llvm::ArrayRef<int64_t> dims);

/// `type` with `layout` as its encoding.
mlir::RankedTensorType withLayout(mlir::RankedTensorType type, FragLayoutAttr layout);
/// The layout of a fragment type, or null before layouts are assigned.
FragLayoutAttr layoutOf(mlir::Type type);

} // namespace minitile::tile
