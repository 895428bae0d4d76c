//===- Ring.cpp - stages and phases of a pipelined loop's ring ------------===//
//
// See Warps.h.
//
//===----------------------------------------------------------------------===//
#include "passes/warps/Warps.h"

using namespace mlir;
using namespace minitile::hopper;

namespace minitile::tile::warps {

Value constant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// A tile.for over [lb, ub) by `step` carrying what `loop` carries, holding
/// `loop`'s body (its index and iter_args replaced); `loop`'s results are
/// replaced by the new loop's. `loop` is left empty.
ForOp moveIntoFor(PipelinedOp loop, OpBuilder &b, Value lb, Value ub, Value step,
                  ValueRange extra) {
  SmallVector<Value> inits(loop.getInitArgs());
  inits.append(extra.begin(), extra.end());
  auto serial = ForOp::create(b, loop.getLoc(), lb, ub, step, inits);
  serial->setDiscardableAttrs(loop->getDiscardableAttrDictionary()); // tile.ping_pong
  Block &to = serial.getBody().front();
  if (inits.empty())
    to.getTerminator()->erase();
  Block &from = loop.getBody().front();
  for (auto [old, now] : llvm::zip(from.getArguments(), to.getArguments()))
    old.replaceAllUsesWith(now);
  to.getOperations().splice(to.end(), from.getOperations());
  loop.replaceAllUsesWith(serial.getResults().take_front(loop.getNumResults()));
  return serial;
}

Value Ring::loadRuns(OpBuilder &b, Location loc) const {
  return LocalLoadOp::create(b, loc, b.getI32Type(), runs);
}

std::tuple<Value, Value, Value> Ring::position(OpBuilder &b, Location loc, Value iv,
                                               PipelinedOp loop) const {
  Value n = arith::DivSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()), loop.getStep());
  Value past = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), loadRuns(b, loc));
  Value j = arith::AddIOp::create(b, loc, past, n);
  Value s = arith::RemUIOp::create(b, loc, j, constant(b, loc, stages));
  Value round = arith::DivUIOp::create(b, loc, j, constant(b, loc, stages));
  Value parity = arith::AndIOp::create(b, loc, round, constant(b, loc, 1));
  return {j, s, parity};
}

std::pair<Value, Value> Ring::cursor(OpBuilder &b, Location loc, Value n) const {
  Type i32 = b.getI32Type();
  // (One statement an op, as in groupIterations.)
  Value n32 = arith::IndexCastOp::create(b, loc, i32, n);
  Value j = arith::AddIOp::create(b, loc, loadRuns(b, loc), n32);
  Value count = arith::ConstantIntOp::create(b, loc, i32, stages);
  Value s = arith::RemUIOp::create(b, loc, j, count);
  Value one = arith::ConstantIntOp::create(b, loc, i32, 1);
  Value round = arith::DivUIOp::create(b, loc, j, count);
  Value parity = arith::AndIOp::create(b, loc, round, one);
  return {s, parity};
}

std::tuple<Value, Value, Value> Ring::groupIterations(OpBuilder &b, Location loc,
                                                      PipelinedOp loop, Value group,
                                                      int64_t groups) const {
  if (groups > 1 && runsVary) {
    Type i32 = b.getI32Type();
    // (One statement an op: the order of the IR does not hang on the order
    // in which a compiler evaluates arguments.)
    Value g = arith::ConstantIntOp::create(b, loc, i32, groups);
    Value past = arith::RemUIOp::create(b, loc, loadRuns(b, loc), g);
    Value group32 = arith::IndexCastOp::create(b, loc, i32, group);
    Value plus = arith::AddIOp::create(b, loc, group32, g);
    Value diff = arith::SubIOp::create(b, loc, plus, past);
    Value first = arith::RemUIOp::create(b, loc, diff, g);
    group = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), first);
  }
  Value lb = arith::AddIOp::create(b, loc, loop.getLowerBound(),
                                   arith::MulIOp::create(b, loc, group, loop.getStep()));
  Value step = arith::MulIOp::create(b, loc, loop.getStep(), constant(b, loc, groups));
  return {group, lb, step};
}

std::pair<Value, Value> Ring::advanceCursor(OpBuilder &b, Location loc, Value s,
                                            Value parity, int64_t by) const {
  Type i32 = b.getI32Type();
  Value next = arith::AddIOp::create(b, loc, s, arith::ConstantIntOp::create(b, loc, i32, by));
  Value count = arith::ConstantIntOp::create(b, loc, i32, stages);
  Value wrap = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, next, count);
  next = arith::SelectOp::create(b, loc, wrap, arith::SubIOp::create(b, loc, next, count), next);
  parity = arith::XOrIOp::create(b, loc, parity,
                                 arith::ExtUIOp::create(b, loc, i32, wrap));
  return {next, parity};
}

Value Ring::barrier(OpBuilder &b, Location loc, Value tile, Value s) const {
  return MBarrierOfOp::create(b, loc, MBarrierType::get(b.getContext()), tile, s);
}

MBarrierArriveOp Ring::release(OpBuilder &b, Location loc, Value s, ValueRange tiles) const {
  return MBarrierArriveOp::create(b, loc, barrier(b, loc, empty, s), tiles);
}

MBarrierArriveOp Ring::release(OpBuilder &b, Location loc, Value s,
                               ArrayRef<AllocSharedOp> allocs) const {
  SmallVector<Value> tiles;
  for (AllocSharedOp alloc : allocs)
    tiles.push_back(StageOp::create(b, loc, alloc.getType(), alloc, s));
  return release(b, loc, s, tiles);
}

Value Ring::earlyBarrier(OpBuilder &b, Location loc, Value s) const {
  assert(early && "the ring has no early barriers");
  return barrier(b, loc, full, arith::AddIOp::create(b, loc, s, constant(b, loc, stages)));
}

Value Ring::readable(OpBuilder &b, Location loc, Value s) const {
  return early ? earlyBarrier(b, loc, s) : barrier(b, loc, full, s);
}

Operation *Ring::waitLanded(OpBuilder &b, Location loc, Value s, Value parity) const {
  if (early)
    MBarrierWaitOp::create(b, loc, earlyBarrier(b, loc, s), parity);
  Operation *wait = MBarrierWaitOp::create(b, loc, barrier(b, loc, full, s), parity);
  if (!generic)
    return wait;
  return FenceProxyAsyncOp::create(b, loc);
}

Value tripCount32(OpBuilder &b, Location loc, Value lb, Value ub, Value step) {
  Value span = arith::SubIOp::create(b, loc, ub, lb);
  Value trips = arith::CeilDivSIOp::create(b, loc, span, step);
  trips = arith::MaxSIOp::create(b, loc, trips, constant(b, loc, 0));
  return arith::IndexCastOp::create(b, loc, b.getI32Type(), trips);
}

void Ring::advance(OpBuilder &b, Location loc, PipelinedOp loop) const {
  Type i32 = b.getI32Type();
  Value trips32 =
      tripCount32(b, loc, loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
  Value sum = arith::AddIOp::create(b, loc, loadRuns(b, loc), trips32);
  Value wrapped = arith::RemUIOp::create(
      b, loc, sum, arith::ConstantIntOp::create(b, loc, i32, 2 * stages));
  LocalStoreOp::create(b, loc, wrapped, runs);
}

Value newLocal(KernelOp kernel, Location loc, Type type, int64_t init) {
  Block &entry = kernel.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Value local = AllocLocalOp::create(b, loc, LocalType::get(b.getContext(), type));
  LocalStoreOp::create(b, loc, arith::ConstantIntOp::create(b, loc, type, init), local);
  return local;
}

Value newCounter(KernelOp kernel, Location loc, int64_t init) {
  return newLocal(kernel, loc, IntegerType::get(kernel.getContext(), 32), init);
}

} // namespace minitile::tile::warps
