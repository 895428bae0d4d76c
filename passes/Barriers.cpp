//===- Barriers.cpp - the barrier the compute threads of a kernel meet at -===//
#include "passes/Barriers.h"

#include "dialect/HopperDialect.h"

namespace minitile::tile {

void createComputeBarrier(mlir::OpBuilder &b, mlir::Location loc, KernelOp kernel) {
  if (kernel.getProducerThreads())
    hopper::NamedBarrierOp::create(b, loc, 1, kernel.getNumComputeThreads());
  else
    BarrierOp::create(b, loc);
}

} // namespace minitile::tile
