//===- LowerCopies.cpp - tile.copy to TMA box copies, or a plain copy -----===//
//
// Expects: tile.copy ops reached by all compute threads (tile-warp-specialize
//          has taken those of pipelined loops).
// Leaves:  no tile.copy. Where the TMA can serve it (see TmaCopies.h), one
//          compute thread starts the box copies on an mbarrier and every
//          compute thread waits for it (a copy in a loop first waits for the
//          tile's readers, and flips the barrier's phase each time -- for,
//          while and pipelined loops alike). Otherwise
//          the compute threads copy element by element, zero outside the
//          tensor (a gathered copy's rows: each element reads its row's
//          index), and meet at a barrier (tile-order-async puts the fence
//          for the async proxy before it where wgmma or a bulk copy reads
//          the tile).
//
//===----------------------------------------------------------------------===//
#include "passes/Barriers.h"
#include "passes/Passes.h"
#include "passes/TmaCopies.h"

namespace minitile::tile {
#define GEN_PASS_DEF_TILELOWERCOPIES
#include "passes/Passes.h.inc"
} // namespace minitile::tile

using namespace mlir;
using namespace minitile::tile;
using namespace minitile::hopper;

namespace {

Value constant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Whether `op` may run more than once in a thread: inside a for, while or
/// pipelined loop.
bool inLoop(Operation *op) {
  for (Operation *p = op->getParentOp(); !llvm::isa<KernelOp>(p); p = p->getParentOp())
    if (llvm::isa<ForOp, PipelinedOp, WhileOp>(p))
      return true;
  return false;
}

void lowerToTma(CopyOp copy, const TmaCopy &plan, KernelOp kernel) {
  Location loc = copy.getLoc();
  Value tiles = allocateBarriers(kernel, 1, 1, loc);
  OpBuilder b(copy);
  auto barrierType = MBarrierType::get(copy.getContext());
  Value barrier = MBarrierOfOp::create(b, loc, barrierType, tiles, constant(b, loc, 0));
  bool loop = inLoop(copy);
  Value parity = constant(b, loc, 0);
  Value phase;
  if (loop) {
    // Its readers are done with the tile before it is overwritten.
    createComputeBarrier(b, loc, kernel);
    OpBuilder entry = OpBuilder::atBlockBegin(&kernel.getBody().front());
    phase = AllocLocalOp::create(entry, loc, LocalType::get(b.getContext(), b.getIndexType()));
    LocalStoreOp::create(entry, loc, constant(entry, loc, 0), phase);
    parity = LocalLoadOp::create(b, loc, b.getIndexType(), phase);
  }
  Value tid = ThreadIdOp::create(b, loc, Dim::x);
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                      constant(b, loc, kernel.getProducerThreads()));
  auto issue = IfOp::create(b, loc, TypeRange(), first);
  OpBuilder then = OpBuilder::atBlockEnd(&issue.getThenRegion().emplaceBlock());
  MBarrierExpectTxOp::create(then, loc, barrier, plan.bytes);
  emitTmaLoads(then, loc, plan, copy.getDest(), barrier);
  YieldOp::create(then, loc);
  MBarrierWaitOp::create(b, loc, barrier, parity);
  if (loop) {
    Value flipped = arith::XOrIOp::create(b, loc, parity, constant(b, loc, 1));
    LocalStoreOp::create(b, loc, flipped, phase);
  }
  copy.erase();
}

/// Every compute thread copies every (compute threads)-th element.
void lowerToPlainCopy(CopyOp copy, KernelOp kernel) {
  Location loc = copy.getLoc();
  OpBuilder b(copy);
  SharedType dest = copy.getDest().getType();
  ArrayRef<int64_t> box = copy.getBox();
  auto view = copy.getSource();
  if (inLoop(copy))
    createComputeBarrier(b, loc, kernel);

  Value tid = arith::SubIOp::create(b, loc, ThreadIdOp::create(b, loc, Dim::x),
                                    constant(b, loc, kernel.getProducerThreads()));
  auto loop = ForOp::create(b, loc, tid, constant(b, loc, dest.getNumElements()),
                            constant(b, loc, kernel.getNumComputeThreads()));
  OpBuilder body = OpBuilder::atBlockBegin(&loop.getBody().front());
  Value linear = loop.getInductionVar();
  Value width = constant(body, loc, box.back());
  Value row = arith::DivUIOp::create(body, loc, linear, width);
  Value col = arith::RemUIOp::create(body, loc, linear, width);
  // The element's place in the box, and in the tensor.
  SmallVector<Value> index(box.size());
  Value rest = linear;
  Value inBounds = arith::ConstantIntOp::create(body, loc, body.getI1Type(), 1);
  for (int d = box.size() - 1; d >= 0; --d) {
    Value extent = constant(body, loc, box[d]);
    Value coord = arith::RemUIOp::create(body, loc, rest, extent);
    rest = arith::DivUIOp::create(body, loc, rest, extent);
    Value zero = constant(body, loc, 0);
    if (copy.isGather() && d == 0) {
      // The row's index, or -1 where it has none; a negative one reads zeros.
      Value picked = rowIndexOrNone(body, loc, copy.getRows(), copy.getRowIndices(), coord,
                                    body.getIndexType());
      inBounds = arith::AndIOp::create(
          body, loc, inBounds,
          arith::CmpIOp::create(body, loc, arith::CmpIPredicate::sge, picked, zero));
      coord = picked;
    }
    index[d] = arith::AddIOp::create(body, loc, copy.getIndices()[d], coord);
    Value size = viewSize(body, view, d);
    Value above = arith::CmpIOp::create(body, loc, arith::CmpIPredicate::sge, index[d], zero);
    Value below = arith::CmpIOp::create(body, loc, arith::CmpIPredicate::slt, index[d], size);
    inBounds = arith::AndIOp::create(body, loc, inBounds,
                                     arith::AndIOp::create(body, loc, above, below));
  }
  Type element = dest.getElementType();
  auto read = IfOp::create(body, loc, TypeRange{element}, inBounds);
  {
    OpBuilder then = OpBuilder::atBlockEnd(&read.getThenRegion().emplaceBlock());
    Value v = LoadOp::create(then, loc, element, view, index);
    YieldOp::create(then, loc, ValueRange{v});
    OpBuilder otherwise = OpBuilder::atBlockEnd(&read.getElseRegion().emplaceBlock());
    Value zero = arith::ConstantOp::create(otherwise, loc, otherwise.getZeroAttr(element));
    YieldOp::create(otherwise, loc, ValueRange{zero});
  }
  SharedStoreOp::create(body, loc, read.getResult(0), copy.getDest(), row, col);
  b.setInsertionPointAfter(loop);
  // (Where the async proxy reads the tile next, tile-order-async fences the
  // stores before the barrier.)
  createComputeBarrier(b, loc, kernel);
  copy.erase();
}

struct LowerCopies : minitile::tile::impl::TileLowerCopiesBase<LowerCopies> {
  using TileLowerCopiesBase::TileLowerCopiesBase;
  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<KernelOp>()) {
      SmallVector<CopyOp> copies;
      kernel.walk([&](CopyOp copy) { copies.push_back(copy); });
      for (CopyOp copy : copies) {
        // A copy's bounds come from its view's sizes; a tensor chosen at run
        // time (by tile.if, say) has none the pass can read.
        if (!rootView(copy.getSource())) {
          copy.emitOpError("copies from a tensor that is not a tile.view (or a slice of "
                           "one), whose sizes are unknown here; choose between indices "
                           "into one view instead");
          return signalPassFailure();
        }
        if (copy.isGather() && !rootView(copy.getRows())) {
          copy.emitOpError("gathers by an index tensor that is not a tile.view (or a slice "
                           "of one), whose sizes are unknown here");
          return signalPassFailure();
        }
        std::string why;
        if (!forceFallback && tmaEligible(copy, why)) {
          lowerToTma(copy, planTmaCopy(copy), kernel);
          continue;
        }
        if (!forceFallback && targetOf(kernel).has(minitile::Feature::tma))
          copy.emitRemark("copies element by element, not by the tensor-memory "
                          "accelerator: ") << why;
        lowerToPlainCopy(copy, kernel);
      }
    }
  }
};

} // namespace
