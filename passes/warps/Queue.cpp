//===- Queue.cpp - a loop whose iterations come from a queue --------------===//
//
// A tile.pipelined with a `queue` (a persistent kernel's dynamic work items)
// does not know its trip count: a block's first index is the loop's lower
// bound, each later one `step` plus an atomic add on the queue, and the
// block stops at the first index past the upper bound. Each role runs it as
//
//   k = 0; go = true
//   while (go) {
//     (s, parity) = (k mod stages, k / stages mod 2)
//     prelude: the iteration's index, `item`
//     if (item < upper bound) { the body, for item; k += 1 } else go = false
//   }
//
// The producer's issuing thread claims each index as a stage frees (waits
// for the stage to be empty, claims, writes the index into the ring's slot
// for the stage, then arms the stage's barriers and starts the copies; past
// the end it arrives on them without copies: the sentinel). It claims after
// the wait, not before: an index claimed early waits on a block that cannot
// start it yet, where another might have (claimed first measured no
// faster: tune runners timed in turn on an H100, 2026-12-05). Everyone else waits for the stage to
// be full and reads the index from its slot: the mbarrier's arrive releases
// the slot's store, the wait acquires it. The issuing thread runs an
// iteration ahead of its body: iteration 0's copies before the loop, then
// at the top of iteration k's body those of k + 1, and only then waits for
// k's copies to land where the body reads its tiles (an item's bounds for
// its fills) -- so one item's claim and copies wait for a stage to free,
// not for the item before it to land as well. (Where what the copies'
// places are computed from cannot be cloned ahead, or the thread issues a
// nested loop's copies too and there are two stages, each iteration issues
// its own at its top.) The claim whose count is the upper bound minus one is the
// launch's last (each block stops at its first failing claim: upper bound
// minus `step` claims succeed and `step` fail), so it sets the queue back
// to zero. Without a producer warpgroup the loop is a while loop whose
// first thread claims between two barriers of the block (makeSerialQueue).
// See Warps.h.
//
//===----------------------------------------------------------------------===//
#include "passes/warps/Warps.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace minitile::hopper;

namespace minitile::tile::warps {

Value allocateQueueSlots(KernelOp kernel, int64_t stages, Location loc) {
  OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
  auto type = SharedType::get(kernel.getContext(), {stages}, b.getI32Type(), 0);
  return AllocSharedOp::create(b, loc, type, 1);
}

namespace {

Value c32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

Value toIndex(OpBuilder &b, Location loc, Value v32) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v32);
}

/// Stage and parity (index values) of iteration k (i32) of a queue loop,
/// which runs once a launch (its ring's count of earlier runs stays 0).
std::pair<Value, Value> stageOf(OpBuilder &b, Location loc, const Ring &ring, Value k) {
  auto [s, parity] = ring.cursor(b, loc, toIndex(b, loc, k));
  return {toIndex(b, loc, s), toIndex(b, loc, parity)};
}

/// One claim on `loop`'s queue at `b`: the count of the launch's claims
/// before it (i32). The launch's last claim (count ub - 1: each block stops
/// at its first failing claim) sets the queue back to zero. The atomics go
/// into `keeps` where given (the producer's slice keeps them).
Value claimCount(OpBuilder &b, Location loc, PipelinedOp loop, ProducerKeeps *keeps) {
  Type i32 = b.getI32Type();
  Value zero = constant(b, loc, 0), queue = loop.getQueue();
  auto add = AtomicOp::create(b, loc, i32, AtomicKind::add, c32(b, loc, 1), queue,
                              ValueRange{zero});
  Value last = arith::SubIOp::create(
      b, loc, arith::IndexCastOp::create(b, loc, i32, loop.getUpperBound()), c32(b, loc, 1));
  Value isLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, add, last);
  auto reset = IfOp::create(b, loc, TypeRange(), isLast);
  OpBuilder r = OpBuilder::atBlockEnd(&reset.getThenRegion().emplaceBlock());
  auto exchange =
      AtomicOp::create(r, loc, i32, AtomicKind::exchange, c32(r, loc, 0), queue, ValueRange{zero});
  YieldOp::create(r, loc);
  if (keeps)
    keeps->insert_range(std::initializer_list<Operation *>{add, exchange});
  return add;
}

/// The loop skeleton of one role (see the file comment). `prelude` builds
/// the iteration's index (an index value) at `b` from k (i32), s and
/// parity (index); the result gives the builder inside the if (before its
/// yield), the index and the stage.
struct Skeleton {
  WhileOp loop;
  OpBuilder body; // inside `if (item < ub)`, before its yield
  Value item, k, s, parity;
};

Skeleton skeleton(OpBuilder &b, Location loc, PipelinedOp pipelined, const Ring &ring,
                  const std::function<Value(OpBuilder &, Value, Value, Value)> &prelude) {
  // (At the kernel's entry, where LLVM keeps them in registers: the loop
  // runs once a launch.)
  auto kernel = pipelined->getParentOfType<KernelOp>();
  Value kL = newLocal(kernel, loc, b.getI32Type(), 0);
  Value goL = newLocal(kernel, loc, b.getI1Type(), 1);
  auto loop = WhileOp::create(b, loc);
  {
    OpBuilder c = OpBuilder::atBlockEnd(&loop.getCondition().emplaceBlock());
    ConditionOp::create(c, loc, LocalLoadOp::create(c, loc, c.getI1Type(), goL));
  }
  Block &block = loop.getBody().emplaceBlock();
  OpBuilder w = OpBuilder::atBlockEnd(&block);
  YieldOp::create(w, loc);
  w.setInsertionPoint(block.getTerminator());
  Value k = LocalLoadOp::create(w, loc, w.getI32Type(), kL);
  auto [s, parity] = stageOf(w, loc, ring, k);
  Value item = prelude(w, k, s, parity);
  Value valid = arith::CmpIOp::create(w, loc, arith::CmpIPredicate::slt, item,
                                      pipelined.getUpperBound());
  auto branch = IfOp::create(w, loc, TypeRange(), valid);
  OpBuilder then = OpBuilder::atBlockEnd(&branch.getThenRegion().emplaceBlock());
  YieldOp::create(then, loc);
  then.setInsertionPoint(branch.getThenRegion().front().getTerminator());
  LocalStoreOp::create(then, loc, arith::AddIOp::create(then, loc, k, c32(then, loc, 1)), kL);
  OpBuilder otherwise = OpBuilder::atBlockEnd(&branch.getElseRegion().emplaceBlock());
  LocalStoreOp::create(otherwise, loc,
                       arith::ConstantIntOp::create(otherwise, loc, otherwise.getI1Type(), 0),
                       goL);
  YieldOp::create(otherwise, loc);
  // The body goes before the count's increment.
  then.setInsertionPoint(&branch.getThenRegion().front().front());
  return {loop, then, item, k, s, parity};
}

/// Moves `pipelined`'s body (its index replaced by `item`) to `at`, without
/// its terminator.
void spliceBody(PipelinedOp pipelined, OpBuilder &at, Value item) {
  Block &from = pipelined.getBody().front();
  pipelined.getInductionVar().replaceAllUsesWith(item);
  from.getTerminator()->erase();
  Block *to = at.getInsertionBlock();
  to->getOperations().splice(at.getInsertionPoint(), from.getOperations());
}

/// The index in slot `s` of `slots`.
Value readSlot(OpBuilder &b, Location loc, Value slots, Value s) {
  Value v = SharedLoadOp::create(b, loc, b.getI32Type(), slots, constant(b, loc, 0), s);
  return toIndex(b, loc, v);
}

/// Waits for stage s's copies and reads its index: every copy (`all`: the
/// compute threads), else those the producer reads (the early ones where
/// the ring has them: producer warps that follow the loop without issuing
/// it). Both barriers are armed after the slot's store.
Value awaitItem(OpBuilder &b, Location loc, const Ring &ring, Value s, Value parity, bool all) {
  if (all)
    ring.waitLanded(b, loc, s, parity);
  else
    MBarrierWaitOp::create(b, loc, ring.readable(b, loc, s), parity);
  return readSlot(b, loc, ring.slots, s);
}

/// Replaces the uses of the body's shared tiles inside `region` (but by
/// copies and stages) by stage `s` of them, made at `b`; the stages made.
SmallVector<Value> useStages(const Body &body, OpBuilder &b, Location loc, Value s,
                             Operation *region) {
  SmallVector<Value> tiles;
  for (AllocSharedOp alloc : body.allocs) {
    Value stage = StageOp::create(b, loc, alloc.getType(), alloc, s);
    tiles.push_back(stage);
    alloc.getResult().replaceUsesWithIf(stage, [&](OpOperand &use) {
      return region->isProperAncestor(use.getOwner()) &&
             !llvm::isa<CopyOp, StageOp>(use.getOwner());
    });
  }
  return tiles;
}

/// `loop` run at `b` by threads that follow it without issuing it (the
/// compute threads; producer warps feeding nested loops): wait for each
/// iteration's copies, read its index, run the body on its stage's tiles
/// (`tiles`), then release the stage (the arrive returned, the body's last
/// op before the count's increment). `loop` is left empty.
MBarrierArriveOp follow(OpBuilder &b, PipelinedOp loop, const Body &body, const Ring &ring,
                        bool compute, SmallVector<Value> &tiles) {
  Location loc = loop.getLoc();
  for (CopyOp copy : body.copies)
    copy.erase();
  Skeleton sk = skeleton(b, loc, loop, ring,
                         [&](OpBuilder &w, Value, Value s, Value parity) {
                           return awaitItem(w, loc, ring, s, parity, compute);
                         });
  OpBuilder &at = sk.body;
  Operation *first = &*at.getInsertionPoint();
  spliceBody(loop, at, sk.item);
  OpBuilder head(first->getBlock(), first->getBlock()->begin());
  tiles = useStages(body, head, loc, sk.s, sk.loop);
  return ring.release(at, loc, sk.s, tiles);
}

} // namespace

void buildQueueConsumer(PipelinedOp loop, const Body &body, const Ring &ring) {
  OpBuilder b(loop);
  SmallVector<Value> tiles;
  // Release the stage after its last read.
  MBarrierArriveOp arrive = follow(b, loop, body, ring, /*compute=*/true, tiles);
  SmallVector<Operation *> ops;
  for (Operation &op : *arrive->getBlock())
    if (&op != arrive && &op != arrive->getOperand(0).getDefiningOp() &&
        !op.hasTrait<OpTrait::IsTerminator>() && op.isBeforeInBlock(arrive))
      ops.push_back(&op);
  releaseEarly(arrive, ops, tiles);
  loop.erase();
}

LogicalResult buildQueueProducer(PipelinedOp loop, const Body &body, const Ring &ring,
                                 const Share &share, MutableArrayRef<Value> descs,
                                 ProducerReads &reads, ProducerKeeps &keeps) {
  Location loc = loop.getLoc();
  if (!share.issues && !share.arrives) {
    loop.erase();
    return success();
  }
  // The warp's elected thread runs the loop (as buildProducer's).
  OpBuilder b(loop);
  Value one = ElectOneOp::create(b, loc, b.getI1Type());
  auto elected = IfOp::create(b, loc, TypeRange(), one);
  OpBuilder e = OpBuilder::atBlockEnd(&elected.getThenRegion().emplaceBlock());
  YieldOp::create(e, loc);
  e.setInsertionPoint(elected.getThenRegion().front().getTerminator());
  if (!share.issues) {
    SmallVector<Value> tiles;
    follow(e, loop, body, ring, /*compute=*/false, tiles);
    loop.erase();
    return success();
  }

  Value ub = loop.getUpperBound();
  Type i32 = b.getI32Type();
  // Iteration k's index, claimed at `w`: the lower bound for the first,
  // else step + the queue's count before an add (the launch's last claim,
  // count ub - 1, resets it).
  auto claim = [&](OpBuilder &w, Value k, bool mayBeFirst) -> Value {
    auto fromQueue = [&](OpBuilder &q) {
      Value count = claimCount(q, loc, loop, &keeps);
      return arith::AddIOp::create(q, loc, loop.getStep(), toIndex(q, loc, count)).getResult();
    };
    if (!mayBeFirst)
      return fromQueue(w);
    Value isFirst = arith::CmpIOp::create(w, loc, arith::CmpIPredicate::eq, k, c32(w, loc, 0));
    auto pick = IfOp::create(w, loc, TypeRange{w.getIndexType()}, isFirst);
    OpBuilder t = OpBuilder::atBlockEnd(&pick.getThenRegion().emplaceBlock());
    YieldOp::create(t, loc, ValueRange{loop.getLowerBound()});
    OpBuilder f = OpBuilder::atBlockEnd(&pick.getElseRegion().emplaceBlock());
    YieldOp::create(f, loc, ValueRange{fromQueue(f)});
    return pick.getResult(0);
  };

  // What each issue clones for the index it claims: the copies' plans and
  // what their coordinates are computed from in the body (set below).
  SmallVector<TmaCopy, 2> plans;
  llvm::SetVector<Operation *> slice;
  Value bodyItem;
  Block *bodyBlock = nullptr;
  // Issues iteration k (i32) at `w`: waits for its stage to be empty,
  // claims its index and writes it to the stage's slot, then arms the
  // stage's barriers and starts the copies -- or, past the end, arrives on
  // them bare.
  auto issue = [&](OpBuilder &w, Value k, bool mayBeFirst) -> Value {
    auto [s, parity] = stageOf(w, loc, ring, k);
    Value flipped = arith::XOrIOp::create(w, loc, parity, constant(w, loc, 1));
    MBarrierWaitOp::create(w, loc, ring.barrier(w, loc, ring.empty, s), flipped);
    Value item = claim(w, k, mayBeFirst);
    keeps.insert(SharedStoreOp::create(w, loc, arith::IndexCastOp::create(w, loc, i32, item),
                                       ring.slots, constant(w, loc, 0), s));
    Value valid = arith::CmpIOp::create(w, loc, arith::CmpIPredicate::slt, item, ub);
    auto branch = IfOp::create(w, loc, TypeRange(), valid);
    OpBuilder t = OpBuilder::atBlockEnd(&branch.getThenRegion().emplaceBlock());
    Armed armed = armStage(t, loc, body, ring, s);
    issueCopiesFor(t, loc, body, plans, *bodyBlock, slice, bodyItem, item, s, armed);
    YieldOp::create(t, loc);
    OpBuilder f = OpBuilder::atBlockEnd(&branch.getElseRegion().emplaceBlock());
    if (ring.early)
      MBarrierArriveOp::create(f, loc, ring.earlyBarrier(f, loc, s));
    MBarrierArriveOp::create(f, loc, ring.barrier(f, loc, ring.full, s));
    YieldOp::create(f, loc);
    return item;
  };

  // The copies planned where they stand in the body, and what their
  // coordinates are computed from there: each issue clones that for the
  // index it claims (all issues are built before the body moves).
  bodyBlock = &loop.getBody().front();
  bodyItem = loop.getInductionVar();
  for (auto [copy, desc] : llvm::zip(body.copies, descs)) {
    plans.push_back(planTmaCopy(copy, desc));
    desc = plans.back().desc;
  }
  for (const TmaCopy &plan : plans)
    for (Value c : plan.operands())
      collectSlice(c, *bodyBlock, slice);
  // Ahead, unless what the coordinates are computed from cannot be cloned
  // an iteration early (notClonableAhead). Nor with two stages where this
  // warp issues nested loops' copies too: the next iteration's stage is the
  // one the compute threads are finishing, and waiting for it would hold
  // back this iteration's nested copies.
  bool ahead = (!share.alsoNested || ring.stages >= 3) && !notClonableAhead(slice);
  // Ahead: the index claimed last (each iteration's, claimed the iteration
  // before), kept by the issuing thread rather than read back from its slot.
  Value claimedL;
  if (ahead) {
    claimedL = newLocal(loop->getParentOfType<KernelOp>(), loc, i32, 0);
    Value first = issue(e, c32(e, loc, 0), /*mayBeFirst=*/true);
    LocalStoreOp::create(e, loc, arith::IndexCastOp::create(e, loc, i32, first), claimedL);
  }
  Skeleton sk = skeleton(e, loc, loop, ring,
                         [&](OpBuilder &w, Value k, Value, Value) -> Value {
                           if (!ahead)
                             return issue(w, k, /*mayBeFirst=*/true);
                           return toIndex(w, loc, LocalLoadOp::create(w, loc, i32, claimedL));
                         });
  if (ahead) {
    Value next = arith::AddIOp::create(sk.body, loc, sk.k, c32(sk.body, loc, 1));
    Value claimed = issue(sk.body, next, /*mayBeFirst=*/false);
    LocalStoreOp::create(sk.body, loc, arith::IndexCastOp::create(sk.body, loc, i32, claimed),
                         claimedL);
  }
  // The last op the issue put before the body (none: the body comes first).
  Block *then = sk.body.getInsertionBlock();
  Operation *issued = sk.body.getInsertionPoint() == then->begin()
                          ? nullptr
                          : &*std::prev(sk.body.getInsertionPoint());
  // The body's own copies go: the issue started them.
  for (CopyOp copy : body.copies)
    copy.erase();
  spliceBody(loop, sk.body, sk.item);
  // The body's other uses of its tiles read this iteration's stage, after
  // the copies have landed.
  bool used = llvm::any_of(body.allocs, [&](AllocSharedOp alloc) {
    return llvm::any_of(alloc.getResult().getUses(), [&](OpOperand &use) {
      return sk.loop->isProperAncestor(use.getOwner()) &&
             !llvm::isa<CopyOp, StageOp>(use.getOwner());
    });
  });
  if (used) {
    // (After the next iteration's issue, where it runs ahead.)
    OpBuilder head = issued ? OpBuilder(then, std::next(Block::iterator(issued)))
                            : OpBuilder(then, then->begin());
    Operation *wait =
        MBarrierWaitOp::create(head, loc, ring.readable(head, loc, sk.s), sk.parity);
    for (Value stage : useStages(body, head, loc, sk.s, sk.loop))
      reads[stage.getDefiningOp()] = wait;
  }
  loop.erase();
  return success();
}

void makeSerialQueue(PipelinedOp loop) {
  Location loc = loop.getLoc();
  auto kernel = loop->getParentOfType<KernelOp>();
  OpBuilder b(loop);
  Value slot = allocateQueueSlots(kernel, 1, loc);
  OpBuilder entry = OpBuilder::atBlockBegin(&kernel.getBody().front());
  Value positionL =
      AllocLocalOp::create(entry, loc, LocalType::get(b.getContext(), b.getIndexType()));
  LocalStoreOp::create(b, loc, loop.getLowerBound(), positionL);
  auto whileOp = WhileOp::create(b, loc);
  {
    OpBuilder c = OpBuilder::atBlockEnd(&whileOp.getCondition().emplaceBlock());
    Value position = LocalLoadOp::create(c, loc, c.getIndexType(), positionL);
    ConditionOp::create(c, loc,
                        arith::CmpIOp::create(c, loc, arith::CmpIPredicate::slt, position,
                                              loop.getUpperBound()));
  }
  Block &block = whileOp.getBody().emplaceBlock();
  OpBuilder w = OpBuilder::atBlockEnd(&block);
  YieldOp::create(w, loc);
  w.setInsertionPoint(block.getTerminator());
  Value position = LocalLoadOp::create(w, loc, w.getIndexType(), positionL);
  spliceBody(loop, w, position);
  // Everyone is done with the item (and with the slot's last index) before
  // the first thread claims the next.
  BarrierOp::create(w, loc);
  Value zero = constant(w, loc, 0);
  Value first;
  for (Dim d : {Dim::x, Dim::y, Dim::z}) {
    Value isZero = arith::CmpIOp::create(w, loc, arith::CmpIPredicate::eq,
                                         ThreadIdOp::create(w, loc, d), zero);
    first = first ? arith::AndIOp::create(w, loc, first, isZero).getResult() : isZero;
  }
  auto claimer = IfOp::create(w, loc, TypeRange(), first);
  {
    OpBuilder t = OpBuilder::atBlockEnd(&claimer.getThenRegion().emplaceBlock());
    Value c = claimCount(t, loc, loop, nullptr);
    SharedStoreOp::create(t, loc, c, slot, zero, zero);
    YieldOp::create(t, loc);
  }
  BarrierOp::create(w, loc);
  Value claimed = readSlot(w, loc, slot, zero);
  LocalStoreOp::create(w, loc, arith::AddIOp::create(w, loc, loop.getStep(), claimed),
                       positionL);
  loop.erase();
}

} // namespace minitile::tile::warps
