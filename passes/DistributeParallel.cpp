//===- DistributeParallel.cpp - spread tile.parallel over threads ---------===//
//
// Expects: tile.parallel loops in tile.kernel bodies, reached by every thread.
// Leaves:  each one rewritten as a serial tile.for that thread t starts at
//          `lb + t * step` and strides by `threads * step`, t being the linear
//          thread index `x + bx * (y + by * z)` over the block's threads, or
//          just `x` over `bx` threads for loops marked across_x. No
//          tile.parallel remains.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace minitile::tile {
#define GEN_PASS_DEF_TILEDISTRIBUTEPARALLEL
#include "passes/Passes.h.inc"
} // namespace minitile::tile

using namespace mlir;
using namespace minitile::tile;

namespace {

void distribute(ParallelOp loop, KernelOp kernel) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  bool acrossX = loop.getAcrossX();
  Value tid = acrossX ? ThreadIdOp::create(b, loc, Dim::x).getResult()
                      : linearThreadId(b, loc, kernel.getBlock());
  Value threads = arith::ConstantIndexOp::create(
      b, loc, acrossX ? kernel.getBlock()[0] : kernel.getNumThreads());
  Value start = arith::AddIOp::create(
      b, loc, loop.getLowerBound(),
      arith::MulIOp::create(b, loc, tid, loop.getStep()));
  Value stride = arith::MulIOp::create(b, loc, threads, loop.getStep());
  auto serial = ForOp::create(b, loc, start, loop.getUpperBound(), stride);

  Block &from = loop.getBody().front();
  Block &to = serial.getBody().front();
  to.getTerminator()->erase();
  from.getArgument(0).replaceAllUsesWith(to.getArgument(0));
  to.getOperations().splice(to.end(), from.getOperations());
  loop.erase();
}

struct DistributeParallel
    : minitile::tile::impl::TileDistributeParallelBase<DistributeParallel> {
  void runOnOperation() override {
    getOperation().walk([](KernelOp kernel) {
      SmallVector<ParallelOp> loops;
      kernel.walk([&](ParallelOp loop) { loops.push_back(loop); });
      for (ParallelOp loop : loops)
        distribute(loop, kernel);
    });
  }
};

} // namespace
