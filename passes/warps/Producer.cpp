//===- Producer.cpp - a pipelined loop as a producer warp issues it -------===//
//
// One copy of the program per producer warp, sliced to what the warp
// issues: its elected thread waits for a stage to be empty, arms its
// barriers with the bytes to come and starts the copies of its group's
// iterations (a loop holding others: all of them, on the `aux` warp). What
// the compute threads alone need is sliced away. Which fills the producer
// can issue: those whose range it computes. See Warps.h.
//
//===----------------------------------------------------------------------===//
#include "passes/warps/Warps.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace minitile::hopper;

namespace minitile::tile::warps {

void collectSlice(Value v, Block &block, llvm::SetVector<Operation *> &slice) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != &block || !slice.insert(def))
    return;
  for (Value operand : def->getOperands())
    collectSlice(operand, block, slice);
}

/// How many iterations ahead of the rest of its body the producer issues a
/// loop's copies: 0, where they stand, unless the loop holds pipelined loops
/// of its own and has three or more stages (a prefetching persistent loop
/// with more item buffers): then stages - 2 ahead, so that what the body
/// reads of them (a nested loop's bounds) has landed when the nested loop's
/// copies start, rather than being fetched only once the previous
/// iteration's nested copies are all out -- while the stage the compute
/// threads are finishing stays theirs. Needs what the copies' coordinates
/// are computed from in the body (`slice`) to be plain arithmetic on the
/// loop's index (cloned for later iterations), in a loop that runs once.
Operation *notClonableAhead(const llvm::SetVector<Operation *> &slice) {
  for (Operation *op : slice)
    if (op->getNumRegions() || !isMemoryEffectFree(op))
      return op;
  return nullptr;
}

int64_t issuesAhead(PipelinedOp loop, const Body &body, const Ring &ring,
                    const llvm::SetVector<Operation *> &slice) {
  if (!body.nests || ring.stages < 3 || ring.runsVary || body.copies.empty())
    return 0;
  if (Operation *op = notClonableAhead(slice)) {
    loop.emitRemark("the producer fetches each iteration's tiles when it starts it, not ")
        << ring.stages - 2 << " ahead: a copy's place is computed by '" << op->getName()
        << "', which cannot run ahead";
    return 0;
  }
  return ring.stages - 2;
}

Armed armStage(OpBuilder &b, Location loc, const Body &body, const Ring &ring, Value s,
               Value leader) {
  int64_t bytes = 0, earlyBytes = 0;
  for (auto [i, copy] : llvm::enumerate(body.copies))
    if (!leader || !byLanes(copy))
      (body.isEarly(i) ? earlyBytes : bytes) += CopyOp(copy).getDest().getType().getBytes();
  auto expect = [&](Value barrier, int64_t n) {
    if (!leader) {
      MBarrierExpectTxOp::create(b, loc, barrier, n);
      return;
    }
    auto only = IfOp::create(b, loc, TypeRange(), leader);
    OpBuilder then = OpBuilder::atBlockEnd(&only.getThenRegion().emplaceBlock());
    MBarrierExpectTxOp::create(then, loc, barrier, n);
    YieldOp::create(then, loc);
  };
  Armed armed;
  if (ring.early) {
    armed.early = ring.earlyBarrier(b, loc, s);
    expect(armed.early, earlyBytes);
  }
  armed.full = ring.barrier(b, loc, ring.full, s);
  expect(armed.full, bytes);
  return armed;
}

void issueCopiesFor(OpBuilder &b, Location loc, const Body &body, ArrayRef<TmaCopy> plans,
                    Block &block, const llvm::SetVector<Operation *> &slice, Value index,
                    Value at, Value s, const Armed &armed) {
  IRMapping map;
  map.map(index, at);
  for (Operation &op : block)
    if (slice.contains(&op))
      b.clone(op, map);
  SmallVector<TmaCopy, 2> moved;
  SmallVector<Value> stages, barriers;
  for (auto [i, original, plan] : llvm::enumerate(body.copies, plans)) {
    CopyOp copy = original;
    moved.push_back(plan.remapped(map));
    stages.push_back(StageOp::create(b, loc, copy.getDest().getType(), copy.getDest(), s));
    barriers.push_back(armed.of(body, i));
  }
  emitTmaLoads(b, loc, moved, stages, barriers);
}

namespace {

/// Replaces what `loop` carries, in the producer, by zeros: the producer
/// computes none of it (copies do not depend on it: see analyse()); what
/// used it is sliced away.
void dropCarried(PipelinedOp loop) {
  OpBuilder placeholder(loop);
  Location loc = loop.getLoc();
  for (Value carried : llvm::concat<Value>(loop.getRegionIterArgs(), loop.getResults())) {
    Type t = carried.getType();
    auto zero = arith::ConstantOp::create(
        placeholder, loc,
        llvm::isa<RankedTensorType>(t)
            ? TypedAttr(DenseElementsAttr::get(llvm::cast<RankedTensorType>(t),
                                               placeholder.getZeroAttr(
                                                   llvm::cast<RankedTensorType>(t).getElementType())))
            : placeholder.getZeroAttr(t));
    carried.replaceAllUsesWith(zero);
  }
}

} // namespace

namespace {

/// One producer warp's rebuilding of a pipelined loop (buildProducer): the
/// serial loop its issuing thread runs, holding the loop's body, and what
/// the steps below share.
struct ProducerLoop {
  PipelinedOp loop;
  const Body &body;
  const Ring &ring;
  const Share &share;
  Location loc;
  Operation *issuer = nullptr; // what runs on the elected thread
  ForOp serial;
  SmallVector<TmaCopy, 2> plans;
  // What the copies' coordinates are computed from in the body.
  llvm::SetVector<Operation *> slice;
  Value s, parity;     // this iteration's stage and phase parity
  Value readable;      // the barrier the body's reads of its tiles wait for
  Value leader;        // the lane that arms and starts the TMA's copies, where
                       // the whole warp runs the loop (body.lanes)
  Operation *wait = nullptr, *lastCopy = nullptr;

  ProducerLoop(PipelinedOp loop, const Body &body, const Ring &ring, const Share &share)
      : loop(loop), body(body), ring(ring), share(share), loc(loop.getLoc()) {}

  Block &block() { return serial.getBody().front(); }

  /// The serial loop over the warp's share of the iterations, on its
  /// elected thread (a loop nested in another pipelined loop is already
  /// on it), with the loop's body moved in.
  void makeSerial() {
    OpBuilder b(loop);
    // A warp issuing one group's iterations starts at the group's first of
    // this run and steps over the other groups' (see buildConsumer).
    Value lb = loop.getLowerBound(), step = loop.getStep();
    if (share.groups > 1)
      std::tie(std::ignore, lb, step) =
          ring.groupIterations(b, loc, loop, constant(b, loc, share.group), share.groups);
    if (loop->getParentOfType<PipelinedOp>()) {
      serial = ForOp::create(b, loc, lb, loop.getUpperBound(), step);
      issuer = serial;
    } else if (body.lanes && share.issues) {
      // Every lane copies rows; lane 0 arms the stages and starts the boxes.
      Value lane = arith::RemUIOp::create(b, loc, ThreadIdOp::create(b, loc, Dim::x),
                                          constant(b, loc, 32));
      leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, constant(b, loc, 0));
      serial = ForOp::create(b, loc, lb, loop.getUpperBound(), step);
      issuer = serial;
    } else {
      Value one = ElectOneOp::create(b, loc, b.getI1Type());
      auto elected = IfOp::create(b, loc, TypeRange(), one);
      OpBuilder e = OpBuilder::atBlockEnd(&elected.getThenRegion().emplaceBlock());
      serial = ForOp::create(e, loc, lb, loop.getUpperBound(), step);
      YieldOp::create(e, loc);
      issuer = elected;
    }
    Block &to = block();
    to.getTerminator()->erase();
    loop.getInductionVar().replaceAllUsesWith(serial.getInductionVar());
    Block &from = loop.getBody().front();
    from.getTerminator()->erase();
    to.getOperations().splice(to.end(), from.getOperations());
  }

  /// The copies are tmaEligible: runOnOperation checked the originals, and
  /// their twins read the same kernel arguments through clones of the same
  /// arithmetic. Each is planned where it stands (its coordinates computed
  /// from this iteration's index); the warps issuing a copy share its
  /// tensor map (`descs`, one per copy of the body, made by the first).
  void planCopies(MutableArrayRef<Value> descs) {
    if (share.issues)
      for (auto [copy, desc] : llvm::zip(body.copies, descs)) {
        plans.push_back(planTmaCopy(copy, desc));
        desc = plans.back().desc;
      }
    for (const TmaCopy &plan : plans)
      for (Value c : plan.operands())
        collectSlice(c, block(), slice);
  }

  /// Waits for stage `st` (of phase `ph`) to be empty and arms its
  /// barriers with the copies' bytes.
  Armed arm(OpBuilder &b, Value st, Value ph) {
    Value flipped = arith::XOrIOp::create(b, loc, ph, constant(b, loc, 1));
    MBarrierWaitOp::create(b, loc, ring.barrier(b, loc, ring.empty, st), flipped);
    return armStage(b, loc, body, ring, st, leader);
  }

  /// Iteration `at`'s copies, issued at `b`: its stage armed, the boxes
  /// started (coordinates cloned from this iteration's with `at` for the
  /// index).
  void issue(OpBuilder &b, Value at) {
    auto [jAt, sAt, parityAt] = ring.position(b, loc, at, loop);
    (void)jAt;
    Armed armedAt = arm(b, sAt, parityAt);
    issueCopiesFor(b, loc, body, plans, block(), slice, serial.getInductionVar(), at, sAt,
                   armedAt);
  }

  /// Another warp issues the copies: this one waits for each iteration's
  /// to land before anything else (always: its release below must not run
  /// a phase ahead) and releases the stage at the end. (What it reads is
  /// early where the ring splits: the compute threads, who wait for the
  /// rest, hold the stage until it has landed too.)
  void follow(OpBuilder &head) {
    readable = ring.readable(head, loc, s);
    wait = MBarrierWaitOp::create(head, loc, readable, parity);
    OpBuilder end = OpBuilder::atBlockEnd(&block());
    ring.release(end, loc, s, body.allocs);
  }

  /// This iteration's copies where they stand. (Copies of the same
  /// gathered rows go out together, at the last of them: each row's index
  /// read once.) Where lanes copy rows, each arrives on the full barrier
  /// after its last piece, at the last copy.
  void issueInPlace(OpBuilder &head) {
    Armed armed = arm(head, s, parity);
    readable = armed.readable();
    SmallVector<TmaCopy, 2> group;
    SmallVector<Value> stages, barriers;
    for (auto [i, original, plan] : llvm::enumerate(body.copies, plans)) {
      CopyOp copy = original;
      OpBuilder at(copy);
      group.push_back(plan);
      stages.push_back(StageOp::create(at, loc, copy.getDest().getType(), copy.getDest(), s));
      barriers.push_back(armed.of(body, i));
      if (i + 1 < plans.size() && sameGatheredRows(plan, plans[i + 1]))
        continue;
      emitTmaLoads(at, loc, group, stages, barriers, leader);
      group.clear();
      stages.clear();
      barriers.clear();
    }
    lastCopy = body.copies.empty() ? nullptr : CopyOp(body.copies.back()).getOperation();
    if (leader) {
      OpBuilder at(lastCopy);
      CpAsyncArriveOp::create(at, loc, armed.full);
    }
  }

  /// The first `lookahead` iterations' copies before the loop, then at the
  /// top of iteration i those of iteration i + lookahead, each if in range.
  void issueAhead(OpBuilder &head, int64_t lookahead) {
    auto ifInRange = [&](OpBuilder &b, Value at) {
      Value inRange =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at, loop.getUpperBound());
      auto guarded = IfOp::create(b, loc, TypeRange(), inRange);
      OpBuilder then = OpBuilder::atBlockEnd(&guarded.getThenRegion().emplaceBlock());
      issue(then, at);
      YieldOp::create(then, loc);
      return guarded;
    };
    OpBuilder before(serial);
    for (int64_t k = 0; k < lookahead; ++k)
      ifInRange(before, arith::AddIOp::create(
                            before, loc, loop.getLowerBound(),
                            arith::MulIOp::create(before, loc, loop.getStep(),
                                                  constant(before, loc, k))));
    Value ahead = arith::AddIOp::create(
        head, loc, serial.getInductionVar(),
        arith::MulIOp::create(head, loc, loop.getStep(), constant(head, loc, lookahead)));
    ifInRange(head, ahead);
    readable = ring.readable(head, loc, s);
    // What the body reads of its tiles is there once this iteration's full
    // (or early) barrier completes: wait for it right away (its copies went
    // out an iteration or more ago).
    wait = MBarrierWaitOp::create(head, loc, readable, parity);
  }

  /// The body's other uses of its tiles read this iteration's stage, after
  /// the wait for the copies (placed after the last one); an error at a
  /// read before a copy of the body.
  LogicalResult redirectReads(ProducerReads &reads) {
    Block &to = block();
    for (AllocSharedOp alloc : body.allocs) {
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : alloc.getResult().getUses())
        if (serial->isProperAncestor(use.getOwner()) &&
            !llvm::isa<CopyOp, StageOp>(use.getOwner()))
          uses.push_back(&use);
      if (uses.empty() || (!lastCopy && !wait))
        continue;
      if (!wait) {
        OpBuilder after(lastCopy->getBlock(), std::next(Block::iterator(lastCopy)));
        wait = MBarrierWaitOp::create(after, loc, readable, parity);
      }
      OpBuilder at(wait);
      at.setInsertionPointAfter(wait);
      auto stage = StageOp::create(at, loc, alloc.getType(), alloc, s);
      // (A warp that does not issue the copies always waits: see follow.)
      if (share.issues)
        reads[stage] = wait;
      for (OpOperand *use : uses) {
        Operation *top = to.findAncestorOpInBlock(*use->getOwner());
        if (top && top->isBeforeInBlock(wait))
          return readBeforeCopy(use, top, alloc);
        use->set(stage);
      }
    }
    return success();
  }

  /// The error at `use` (in `top` of the body), a read of `alloc` before
  /// its own tile's copy, or after it but before a later copy of the body:
  /// the body waits for all its copies at once.
  LogicalResult readBeforeCopy(OpOperand *use, Operation *top, AllocSharedOp alloc) {
    Block &to = block();
    auto own = llvm::find_if(body.copies, [&](CopyOp c) { return c.getDest() == alloc; });
    Operation *ownTop = own == body.copies.end() ? nullptr : to.findAncestorOpInBlock(**own);
    if (!ownTop || top->isBeforeInBlock(ownTop))
      return use->getOwner()->emitOpError(
          "reads a shared tile of a pipelined loop before the loop body's copy into it; "
          "copy first, then read");
    auto later = llvm::find_if(body.copies, [&](CopyOp c) {
      Operation *at = to.findAncestorOpInBlock(*c);
      return at && top->isBeforeInBlock(at);
    });
    InFlightDiagnostic error = use->getOwner()->emitOpError(
        "reads a shared tile of a pipelined loop before a later copy of the loop body: "
        "the body waits for all its copies at once, so every copy comes before the first "
        "read; move that copy up");
    if (later != body.copies.end())
      error.attachNote(CopyOp(*later)->getLoc()) << "the later copy";
    return error;
  }

  /// The copies gone, the serial loop closed, the ring's runs counted and
  /// the pipelined loop erased.
  void finish() {
    for (CopyOp copy : body.copies)
      copy.erase();
    OpBuilder end = OpBuilder::atBlockEnd(&block());
    YieldOp::create(end, loc);
    OpBuilder b(loop);
    b.setInsertionPointAfter(issuer);
    ring.advance(b, loc, loop);
    loop.erase();
  }
};

} // namespace

/// The producer side, in one producer warp's copy of the program: its
/// elected thread issues the copies of the warp's share of the loop's
/// iterations. A loop nested in another pipelined loop is already on that
/// thread (the outer loop is built after it and takes it along): it becomes
/// a plain loop in place. Where the body reads its own tiles other than by
/// its copies, the producer reads the iteration's stage after waiting for
/// the copies to land (as the compute threads do), so what it computes from
/// them (a nested loop's bounds) is what they compute.
LogicalResult buildProducer(PipelinedOp loop, const Body &body, const Ring &ring,
                            const Share &share, MutableArrayRef<Value> descs,
                            ProducerReads &reads) {
  dropCarried(loop);
  if (!share.issues && !share.arrives) {
    loop.erase();
    return success();
  }
  ProducerLoop p(loop, body, ring, share);
  p.makeSerial();
  p.planCopies(descs);
  int64_t lookahead = share.issues ? issuesAhead(loop, body, ring, p.slice) : 0;
  OpBuilder head = OpBuilder::atBlockBegin(&p.block());
  std::tie(std::ignore, p.s, p.parity) =
      ring.position(head, p.loc, p.serial.getInductionVar(), loop);
  if (!share.issues)
    p.follow(head);
  else if (lookahead == 0)
    p.issueInPlace(head);
  else
    p.issueAhead(head, lookahead);
  if (failed(p.redirectReads(reads)))
    return failure();
  p.finish();
  return success();
}

/// Keeps in `region` only what the TMA copies, fills, barrier waits and
/// `keeps` need (a wait before a read of the producer's own tiles, only if
/// the read is).
void sliceProducer(Region &region, const ProducerReads &reads, const ProducerKeeps &keeps) {
  llvm::DenseSet<Operation *> live, guards;
  for (auto &[stage, wait] : reads)
    guards.insert(wait);
  SmallVector<Operation *> work;
  region.walk([&](Operation *op) {
    if ((llvm::isa<TmaLoadOp, MBarrierWaitOp, MBarrierExpectTxOp, MBarrierArriveOp, SetMaxNRegOp,
                   FillAsyncOp, CpAsyncOp, CpAsyncArriveOp>(op) &&
         !guards.contains(op)) ||
        keeps.contains(op))
      work.push_back(op);
  });
  Operation *top = region.getParentOp();
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!top->isProperAncestor(op) || !live.insert(op).second)
      continue;
    if (auto it = reads.find(op); it != reads.end())
      work.push_back(it->second);
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        work.push_back(def);
    for (Operation *p = op->getParentOp(); p != top; p = p->getParentOp())
      work.push_back(p);
    for (Region &r : op->getRegions())
      for (Block &block : r)
        work.push_back(block.getTerminator());
    if (auto load = llvm::dyn_cast<LocalLoadOp>(op))
      for (Operation *user : load.getLocal().getUsers())
        if (llvm::isa<LocalStoreOp>(user))
          work.push_back(user);
  }
  SmallVector<Operation *> dead;
  region.walk([&](Operation *op) {
    if (!live.contains(op) && !op->hasTrait<OpTrait::IsTerminator>() &&
        (op->getParentOp() == top || live.contains(op->getParentOp())))
      dead.push_back(op);
  });
  // A dead op may still be used by another one (the placeholder of a
  // carried value before the loop, by a gemm inside it): drop every dead
  // op's operands before erasing any.
  for (Operation *op : dead)
    op->dropAllReferences();
  for (Operation *op : llvm::reverse(dead))
    op->erase();
}

namespace {

/// The pointer behind a tensor: its root view's base, followed back through
/// the effect-free ops that derive a pointer from another (to a kernel
/// argument, as the DSL makes them), or null.
Value basePointer(Value tensor) {
  ViewOp view = rootView(tensor);
  Value p = view ? view.getBase() : Value();
  while (Operation *def = p ? p.getDefiningOp() : nullptr) {
    if (!isMemoryEffectFree(def) || def->getNumOperands() == 0 ||
        !llvm::isa<PtrType>(def->getOperand(0).getType()))
      break;
    p = def->getOperand(0);
  }
  return p;
}

} // namespace

/// The pointers behind every tensor `kernel` writes (as basePointer gives
/// them): those tile::pointerAccess finds written -- the analysis the
/// launcher's const pointers come from, so an op that declares a write is
/// seen by both.
llvm::DenseSet<Value> writtenPointers(KernelOp kernel) {
  llvm::DenseSet<Value> written, seen;
  kernel.walk([&](ViewOp view) {
    Value base = basePointer(view.getResult());
    if (base && seen.insert(base).second && pointerAccess(base).written)
      written.insert(base);
  });
  return written;
}

/// Why the producer cannot issue `fill` -- it computes what copies need:
/// arithmetic on kernel arguments and loop indices, loads of tensors the
/// kernel never writes (`written`: writtenPointers), reads of the tiles its
/// copies fill -- from its range and from the conditions and bounds of the
/// loops and ifs around it; or "".
std::string producerRefusal(FillAsyncOp fill, const llvm::DenseSet<Value> &written) {
  KernelOp kernel = fill->getParentOfType<KernelOp>();
  SmallVector<Value> work(fill->getOperands());
  for (Operation *p = fill->getParentOp(); p != kernel; p = p->getParentOp()) {
    if (auto branch = llvm::dyn_cast<IfOp>(p))
      work.push_back(branch.getCondition());
    else if (llvm::isa<ForOp, PipelinedOp>(p))
      work.append(p->operand_begin(), p->operand_end());
    else
      return "it is inside '" + p->getName().getStringRef().str() + "'";
  }
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (llvm::isa<RankedTensorType>(v.getType()))
      return "its range is computed from a fragment";
    if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (llvm::isa<KernelOp>(owner) ||
          (llvm::isa<ForOp, PipelinedOp>(owner) && arg.getArgNumber() == 0))
        continue;
      return "its range depends on a value '" + owner->getName().getStringRef().str() +
             "' carries";
    }
    Operation *def = v.getDefiningOp();
    std::string name = "'"; // (built up: GCC 12 warns falsely of "'" + std::string)
    name += def->getName().getStringRef();
    name += "'";
    if (def->getNumRegions())
      return "its range depends on the result of " + name;
    if (llvm::isa<ThreadIdOp>(def))
      return "its range depends on the thread's id";
    if (auto read = llvm::dyn_cast<SharedLoadOp>(def)) {
      auto alloc = read.getTile().getDefiningOp<AllocSharedOp>();
      if (!alloc || !llvm::isa<PipelinedOp>(alloc->getParentOp()))
        return "its range depends on a shared tile no copy of a pipelined loop fills";
      work.append({read.getRow(), read.getCol()});
      continue;
    }
    if (auto load = llvm::dyn_cast<LoadOp>(def)) {
      if (written.contains(basePointer(load.getTensor())))
        return "its range is read from a tensor the kernel writes";
    } else if (!isMemoryEffectFree(def)) {
      return "its range depends on " + name + ", which the producer does not run";
    }
    work.append(def->operand_begin(), def->operand_end());
  }
  return "";
}

/// An `if (tid == at)` around `op`, which is then the only thread's.
void onOneThread(Operation *op, Value tid, int64_t at) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, constant(b, loc, at));
  auto guard = IfOp::create(b, loc, TypeRange(), first);
  OpBuilder then = OpBuilder::atBlockEnd(&guard.getThenRegion().emplaceBlock());
  YieldOp::create(then, loc);
  op->moveBefore(guard.getThenRegion().front().getTerminator());
}

} // namespace minitile::tile::warps
