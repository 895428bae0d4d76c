//===- Barriers.h - the barrier the compute threads of a kernel meet at ---===//
#pragma once

#include "dialect/TileDialect.h"

namespace minitile::tile {

/// A barrier for the compute threads of `kernel`: tile.barrier for the whole
/// block, or named barrier 1 for the compute threads of a warp-specialised
/// kernel (its producer warpgroup does not take part).
void createComputeBarrier(mlir::OpBuilder &b, mlir::Location loc, KernelOp kernel);

} // namespace minitile::tile
