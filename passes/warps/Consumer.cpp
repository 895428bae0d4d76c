//===- Consumer.cpp - a pipelined loop as the compute threads run it ------===//
//
// Each compute group runs its iterations of the loop (j mod groups = its
// group): wait for the stage to be full, compute, release it. Where the
// group takes two or more stages in turn and nothing is carried, unrolled
// by that many (each copy of the body at a fixed stage); with the loop's
// `overlap`, each copy's gemm starts before the previous copy's code after
// its gemm. A stage is released as soon as its iteration has read it (a
// gemm's operands: once its result is first read); a gemm accumulating into
// a carried value releases its stage an iteration late. A cooperative loop
// is a copy of the loop per group, each holding the group's gemms and the
// code reading them, run over every iteration as a loop of one group on the
// shared ring (buildCooperativeConsumer). See Warps.h.
//
//===----------------------------------------------------------------------===//
#include "passes/warps/Warps.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace minitile::hopper;

namespace minitile::tile::warps {

/// A copy of an overlapped loop's body as overlapParts splits it: per gemm
/// of the copy (in order), its head -- for the first, the copy's wait for
/// its stage too -- and its rest: the code after the gemms that reads its
/// result (or, for the first, nothing's), in the copy's order.
struct OverlapPart {
  llvm::SetVector<Operation *> head;
  SmallVector<Operation *> rest;
};

/// `copy` (a pipelined body's ops, or one copy's, in order) as overlap
/// parts, one per top-level gemm: each gemm's head is it and what it is
/// computed from in the copy (pure arithmetic, stage tiles), the first's
/// with the copy's wait; every other op goes to the rest of the last part
/// whose gemm result it depends on (0 for none), an op with memory effects
/// or regions no earlier than any op before it, so that effects keep their
/// order and an early release stays after the read it follows. False unless
/// there is a gemm, none is nested in a region, and what comes before the
/// last gemm outside the heads is pure arithmetic (it moves after them).
static bool overlapParts(ArrayRef<Operation *> copy, SmallVector<OverlapPart> &parts) {
  SmallVector<GemmOp> gemms;
  MBarrierWaitOp wait;
  for (Operation *op : copy) {
    if (!wait)
      wait = llvm::dyn_cast<MBarrierWaitOp>(op);
    if (op->walk([](GemmOp) { return WalkResult::interrupt(); }).wasInterrupted()) {
      auto g = llvm::dyn_cast<GemmOp>(op);
      if (!g)
        return false;
      gemms.push_back(g);
    }
  }
  if (gemms.empty())
    return false;
  llvm::DenseSet<Operation *> inCopy(copy.begin(), copy.end());
  llvm::DenseMap<Operation *, int64_t> headOf; // op -> the part whose head holds it
  parts.assign(gemms.size(), OverlapPart());
  for (auto [p, gemm] : llvm::enumerate(gemms)) {
    SmallVector<Value> work(gemm->getOperands());
    if (p == 0 && wait)
      work.append(wait->operand_begin(), wait->operand_end());
    while (!work.empty()) {
      Operation *def = work.pop_back_val().getDefiningOp();
      if (!def || !inCopy.contains(def) || headOf.contains(def))
        continue;
      if (!llvm::isa<StageOp>(def) && (def->getNumRegions() || !isMemoryEffectFree(def)))
        return false;
      headOf[def] = p;
      work.append(def->operand_begin(), def->operand_end());
    }
    if (p == 0 && wait)
      headOf[wait] = 0;
    headOf[gemm] = p;
  }
  llvm::DenseMap<Operation *, int64_t> partOf; // the rest's ops
  int64_t latest = 0; // the last part of an op so far
  bool pastGemms = false;
  for (Operation *op : copy) {
    if (auto it = headOf.find(op); it != headOf.end()) {
      parts[it->second].head.insert(op);
      pastGemms = op == gemms.back().getOperation();
      continue;
    }
    bool pure = !op->getNumRegions() && isMemoryEffectFree(op);
    if (!pastGemms && !pure)
      return false;
    int64_t part = pure ? 0 : latest;
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands()) {
        Operation *def = v.getDefiningOp();
        if (!def)
          continue;
        if (auto g = llvm::dyn_cast<GemmOp>(def)) {
          if (auto it = headOf.find(def); it != headOf.end())
            part = std::max(part, it->second);
        } else if (auto it = partOf.find(def); it != partOf.end()) {
          part = std::max(part, it->second);
        }
      }
    });
    partOf[op] = part;
    parts[part].rest.push_back(op);
    latest = std::max(latest, part);
  }
  return true;
}

/// What starts `copy` (the ops of a pipelined body, or of one copy of it,
/// in order) in an overlapped loop: its wait for its stage (a copy has one)
/// and the one gemm at the top level, with what they are computed from in
/// the copy (pure arithmetic and the stage's tiles). False unless there is
/// exactly one such gemm, nothing else feeds it, and what comes before it
/// beside them is pure arithmetic (which then moves after it): the head of
/// overlapParts' one part.
bool overlapHead(ArrayRef<Operation *> copy, llvm::SetVector<Operation *> &head) {
  SmallVector<OverlapPart> parts;
  if (!overlapParts(copy, parts) || parts.size() != 1)
    return false;
  head = std::move(parts[0].head);
  return true;
}

/// Whether distribute-fragments makes `op` read the registers of its
/// fragment operands -- waiting there for the gemm that writes them -- rather
/// than rename them (reshape, transpose, broadcast), chain them into another
/// gemm, or carry them: arith and math elementwise ops, stores, reductions.
static bool readsRegisters(Operation *op) {
  if (llvm::isa<StoreTileOp, SharedStoreTileOp, ReduceOp>(op))
    return true;
  StringRef ns = op->getDialect() ? op->getDialect()->getNamespace() : "";
  return (ns == "arith" || ns == "math") && op->hasTrait<OpTrait::Elementwise>();
}

/// Whether something in `ops` (or under them) uses a value of `values`.
bool usesAny(ArrayRef<Operation *> ops, const llvm::DenseSet<Value> &values) {
  for (Operation *op : ops)
    if (op->walk([&](Operation *inner) {
            for (Value v : inner->getOperands())
              if (values.contains(v))
                return WalkResult::interrupt();
            return WalkResult::advance();
          }).wasInterrupted())
      return true;
  return false;
}

/// The op of `ops` (one copy of a pipelined body, at its top level, in
/// order) after which the copy's stage may be released: the last one that
/// reads a tile of `tiles` (or a view of one). A gemm's shared operands are
/// read by the tensor cores until its result is first read, where
/// distribute-fragments waits for it: for a gemm the op that counts is the
/// first reading its result's registers (readsRegisters; through reshapes,
/// transposes and broadcasts of it), itself, not under an if that may not
/// run. Null where that does not hold (or a gemm's result is not read in the
/// copy): the stage is then released at the end.
static Operation *lastStageRead(ArrayRef<Operation *> ops, ArrayRef<Value> tiles) {
  llvm::DenseSet<Value> shared(tiles.begin(), tiles.end());
  Operation *last = nullptr;
  for (auto [i, op] : llvm::enumerate(ops)) {
    if (!usesAny(op, shared))
      continue;
    // Views of the tiles read them too.
    for (Value r : op->getResults())
      if (llvm::isa<SharedType>(r.getType()))
        shared.insert(r);
    Operation *done = op;
    if (auto gemm = llvm::dyn_cast<GemmOp>(op)) {
      done = nullptr;
      llvm::DenseSet<Value> result{gemm.getResult()};
      for (Operation *later : ops.drop_front(i + 1)) {
        if (!usesAny(later, result))
          continue;
        bool direct = llvm::any_of(later->getOperands(),
                                   [&](Value v) { return result.contains(v); });
        if (direct && llvm::isa<ReshapeOp, TransposeOp, BroadcastOp>(later)) {
          result.insert(later->getResult(0)); // the same registers, renamed
          continue;
        }
        if (!direct || !readsRegisters(later))
          return nullptr;
        done = later;
        break;
      }
      if (!done)
        return nullptr;
    } else if (op->walk([](GemmOp) { return WalkResult::interrupt(); }).wasInterrupted()) {
      return nullptr; // a gemm under a region: its wait may be anywhere
    }
    if (!last || last->isBeforeInBlock(done))
      last = done;
  }
  return last;
}

/// Moves `arrive` (a stage's release at the end of a copy `ops` of the body,
/// after the op computing its barrier) to just after the copy's last read
/// of the stage (lastStageRead), so that the producer refills it while the
/// code after the gemm runs. False where it stays at the end.
bool releaseEarly(MBarrierArriveOp arrive, ArrayRef<Operation *> ops, ArrayRef<Value> tiles) {
  Operation *after = lastStageRead(ops, tiles);
  if (!after)
    return false;
  Operation *barrier = arrive->getOperand(0).getDefiningOp();
  if (barrier && barrier->getBlock() == arrive->getBlock()) {
    barrier->moveAfter(after);
    after = barrier;
  }
  arrive->moveAfter(after);
  return true;
}

namespace {

/// One loop of buildUnrolledConsumer, built at `b`: over [lb, ub) by
/// `step` * stages.size(), carrying one parity per copy (`parities` to
/// start); copy c of the body runs iteration iv + c * step at stage
/// stages[c]: waits for it to be full, reads its tiles, releases it at its
/// end. `guarded`: copies 1.. run only where their iteration exists.
/// `overlap` (not guarded; the body as overlapParts needs): copy c's gemm
/// starts before copy c - 1's code after its gemm, which then runs while the
/// tensor cores work on it (at most two gemms' registers live); with
/// several gemms a copy, each gemm before the code of the gemm before it. A
/// copy releases its stage once it has read it (releaseEarly).
ForOp buildUnrolledLoop(PipelinedOp loop, const Body &body, const Ring &ring, OpBuilder &b,
                        Value lb, Value ub, Value step, ArrayRef<Value> stages,
                        ValueRange parities, bool guarded, bool overlap) {
  Location loc = loop.getLoc();
  int64_t unroll = stages.size();
  Type i32 = b.getI32Type();
  Value unrolledStep = arith::MulIOp::create(b, loc, step, constant(b, loc, unroll));
  auto serial = ForOp::create(b, loc, lb, ub, unrolledStep, parities);
  serial->setDiscardableAttrs(loop->getDiscardableAttrDictionary()); // tile.ping_pong
  Block &to = serial.getBody().front();
  // (A loop carrying values is built without a terminator: a placeholder
  // marks the end until the flipped parities are yielded.)
  OpBuilder end = OpBuilder::atBlockEnd(&to);
  Operation *yield = YieldOp::create(end, loc, serial.getRegionIterArgs());
  OpBuilder at(yield);
  Block &from = loop.getBody().front();
  SmallVector<SmallVector<Operation *>> copies(unroll);
  Operation *arrive0 = nullptr;
  bool early0 = false;
  for (int64_t c = 0; c < unroll; ++c) {
    OpBuilder into = at;
    Operation *last = yield->getPrevNode(); // before this copy's ops
    Value iv = serial.getInductionVar();
    if (c) {
      iv = arith::AddIOp::create(at, loc, iv,
                                 arith::MulIOp::create(at, loc, step, constant(at, loc, c)));
      if (guarded) {
        Value inRange = arith::CmpIOp::create(at, loc, arith::CmpIPredicate::slt, iv, ub);
        auto guard = IfOp::create(at, loc, TypeRange(), inRange);
        // Copy 0 releases its stage once the guards' tests are made (where
        // it does not release it earlier).
        if (c == 1 && !early0) {
          arrive0->getOperand(0).getDefiningOp()->moveBefore(guard);
          arrive0->moveBefore(guard);
        }
        Block &then = guard.getThenRegion().emplaceBlock();
        into = OpBuilder::atBlockEnd(&then);
        YieldOp::create(into, loc);
        into.setInsertionPoint(then.getTerminator());
      }
    }
    // Wait for the stage, then the body on its tiles.
    Value parity = arith::IndexCastUIOp::create(into, loc, into.getIndexType(),
                                                serial.getRegionIterArgs()[c]);
    ring.waitLanded(into, loc, stages[c], parity);
    IRMapping map;
    map.map(loop.getInductionVar(), iv);
    SmallVector<Value> tiles;
    for (AllocSharedOp alloc : body.allocs) {
      tiles.push_back(
          StageOp::create(into, loc, alloc.getType(), alloc, stages[c]).getResult());
      map.map(alloc.getResult(), tiles.back());
    }
    SmallVector<Operation *> cloned;
    for (Operation &op : from.without_terminator())
      cloned.push_back(into.clone(op, map));
    auto arrive = ring.release(into, loc, stages[c], tiles);
    bool early = releaseEarly(arrive, cloned, tiles);
    if (!c) {
      arrive0 = arrive;
      early0 = early;
    }
    if (!guarded || !c) {
      for (Operation *op = last ? last->getNextNode() : &to.front(); op != yield;
           op = op->getNextNode())
        copies[c].push_back(op);
      // Copy 0 runs unguarded; the guarded copies follow it.
      at.setInsertionPoint(yield);
    } else {
      // A guarded copy: its ops in its guard (for the warp syncs below only).
      for (Operation &op : into.getInsertionBlock()->without_terminator())
        copies[c].push_back(&op);
    }
  }
  SmallVector<Value> flipped;
  for (Value parity : serial.getRegionIterArgs())
    flipped.push_back(arith::XOrIOp::create(at, loc, parity,
                                            arith::ConstantIntOp::create(at, loc, i32, 1)));
  YieldOp::create(at, loc, flipped);
  yield->erase();
  if (!overlap) {
    // A copy of several gemms (a gemm for each part of N) runs each part's
    // code as its gemm is done, the later gemms under the earlier parts'
    // code: each part's code but the first starts with a warp sync, so that
    // ptxas does not hoist its wait for its gemm above the code before it
    // (which would then no longer run under that gemm).
    for (ArrayRef<Operation *> copy : copies) {
      SmallVector<OverlapPart> parts;
      if (copy.empty() || !overlapParts(copy, parts) || parts.size() < 2)
        continue;
      for (size_t p = 1; p < parts.size(); ++p)
        if (!parts[p].rest.empty()) {
          OpBuilder before(parts[p].rest.front());
          WarpSyncOp::create(before, loc);
        }
    }
    return serial;
  }
  assert(!guarded && "an overlapped loop runs every copy");
  // The copies' parts in order -- (copy 0, gemm 0), (0, 1), ..., (1, 0), ...
  // -- each as its head then its rest; each head moves before the rest of
  // the part before it: h0 h1 r0 h2 r1 ... With one gemm a copy, copy c's
  // gemm starts before copy c - 1's code after its gemm (two gemms'
  // registers live); with several (a gemm for each part of N, say), part p
  // of copy c starts before the rest of part p - 1 (part p + 1 of copy c - 1
  // for the first), which then runs under it -- one part's gemm in flight
  // while the next part's code runs, with the registers of one copy's gemms.
  // (Each rest reading its gemm waits for all but the one started after it.)
  SmallVector<OverlapPart> flat;
  for (int64_t c = 0; c < unroll; ++c) {
    SmallVector<OverlapPart> parts;
    [[maybe_unused]] bool starts = overlapParts(copies[c], parts);
    assert(starts && "a copy starts as the body does (buildUnrolledConsumer checked it)");
    flat.append(parts.begin(), parts.end());
  }
  Operation *terminator = serial.getBody().front().getTerminator();
  auto place = [&](ArrayRef<Operation *> ops) {
    for (Operation *op : ops)
      op->moveBefore(terminator);
  };
  place(flat[0].head.getArrayRef());
  for (size_t k = 0; k < flat.size(); ++k) {
    if (k + 1 < flat.size())
      place(flat[k + 1].head.getArrayRef());
    // Each rest but the first starts with a warp sync, which ptxas moves no
    // wgmma wait across: a rest's wait for its gemm stays after the rest
    // before it. (Without it, where a copy releases its stage early, ptxas
    // hoists the wait above the rest of copy c - 1's code, which then no
    // longer runs under the gemm: the overlapped indexer kernels were 4-6 %
    // slower on an H200, 2026-12-03, minitile-bench indexer.)
    if (k > 0 && !flat[k].rest.empty()) {
      OpBuilder before(terminator);
      WarpSyncOp::create(before, loc);
    }
    place(flat[k].rest);
  }
  return serial;
}

/// buildConsumer's loop unrolled by `unroll` = stages / groups: copy c of
/// the body runs the group's iteration lb + (u * unroll + c) * step of
/// unrolled iteration u, at the fixed stage of iteration first + c * groups
/// of the run (`first`, the group's first: Ring::groupIterations; copies
/// past the upper bound skipped), with a parity of its
/// own that flips each iteration. Nothing is carried and no gemm lags (the
/// caller checked). With `overlap` (the loop's attribute) the unrolled
/// iterations that run every copy come first, in a loop of their own whose
/// copies overlap their gemms with the code after them (buildUnrolledLoop);
/// the rest (fewer than `unroll` iterations) follow as above.
void buildUnrolledConsumer(PipelinedOp loop, const Body &body, const Ring &ring, Value first,
                           Value lb, Value step, int64_t unroll) {
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  int64_t groups = loop.getGroups();
  SmallVector<Value> stages, parities;
  for (int64_t c = 0; c < unroll; ++c) {
    auto [s, parity] = ring.cursor(
        b, loc, arith::AddIOp::create(b, loc, first, constant(b, loc, c * groups)));
    stages.push_back(arith::IndexCastUIOp::create(b, loc, b.getIndexType(), s));
    parities.push_back(parity);
  }
  Value ub = loop.getUpperBound();
  // Whether the body starts as an overlapped loop needs (its copies then
  // do too: a wait and stage tiles before each).
  SmallVector<Operation *> ops;
  for (Operation &op : loop.getBody().front().without_terminator())
    ops.push_back(&op);
  SmallVector<OverlapPart> parts;
  bool overlap = loop.getOverlap() && overlapParts(ops, parts);
  if (loop.getOverlap() && !overlap)
    loop.emitRemark("runs without overlapping its gemms: overlap needs its gemms at the top "
                    "level of the body, each reading only its stage's tiles and pure "
                    "arithmetic, and only pure arithmetic before the last");
  if (overlap) {
    // Iterations iv with iv + (unroll - 1) * step < ub run every copy.
    Value whole = arith::SubIOp::create(
        b, loc, ub, arith::MulIOp::create(b, loc, step, constant(b, loc, unroll - 1)));
    ForOp main = buildUnrolledLoop(loop, body, ring, b, lb, whole, step, stages, parities,
                                   /*guarded=*/false, /*overlap=*/true);
    b.setInsertionPointAfter(main);
    // The first iteration the main loop left: lb + its trip count * its step.
    Value unrolledStep = arith::MulIOp::create(b, loc, step, constant(b, loc, unroll));
    Value span = arith::SubIOp::create(b, loc, whole, lb);
    Value zero = constant(b, loc, 0);
    Value rounds = arith::CeilDivSIOp::create(b, loc, span, unrolledStep);
    Value trips = arith::MaxSIOp::create(b, loc, rounds, zero);
    lb = arith::AddIOp::create(b, loc, lb, arith::MulIOp::create(b, loc, trips, unrolledStep));
    parities.assign(main.getResults().begin(), main.getResults().end());
  }
  buildUnrolledLoop(loop, body, ring, b, lb, ub, step, stages, parities, /*guarded=*/true,
                    /*overlap=*/false);
  ring.advance(b, loc, loop);
  loop.erase();
}

} // namespace

/// The group index of the compute thread `computeTid` among groups of
/// `threadsPerGroup`, made warp-uniform by a broadcast from lane 0 so that
/// what derives from it (stages, shared addresses, wgmma descriptors) can
/// live in uniform registers. Made once per group size, at the top of the
/// compute threads' code after setmaxnreg (ptxas spills what is live
/// across setmaxnreg), not at each loop.
Value groupIndex(OpBuilder &b, Location loc, Value computeTid, int64_t threadsPerGroup) {
  // (One statement an op, as in Ring::groupIterations.)
  Value lane0 = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  Value group = arith::DivUIOp::create(b, loc, computeTid, constant(b, loc, threadsPerGroup));
  Value group32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), group);
  Value uniform = ShuffleIdxOp::create(b, loc, b.getI32Type(), group32, lane0);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), uniform);
}

bool releasesLate(PipelinedOp loop, const Body &body) {
  return !body.accumulating.empty() && loop.getStages() / loop.getGroups() >= 2;
}

/// The consumer side: a loop over the group's iterations (`group`: this
/// thread's, from groupIndex). A stage is released once its iteration has
/// read it -- after the first read of a gemm's result, which waits for the
/// gemm (lastStageRead), so the code after the gemm runs while the producer
/// refills the stage; one iteration later where a gemm accumulates into a
/// carried value (it runs on while the next iteration starts; at most one
/// is left pending).
void buildConsumer(PipelinedOp loop, const Body &body, const Ring &ring, Value group) {
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  // Iteration j over all runs goes to group j mod groups, so that a stage
  // (j mod stages, stages a multiple of groups) is always read by the same
  // group, in order: an mbarrier's parity tells only its last two phases
  // apart, and a group that waited on a stage another group has yet to
  // release could pass a phase early -- or wait for one that has gone by (a
  // loop that runs again, a persistent kernel's KV loop per item, hung with
  // stages = groups when a run's trip count was not a multiple of the
  // groups). This run's first iteration for the group is then
  // (group - runs) mod groups.
  auto [first, lb, step] = ring.groupIterations(b, loc, loop, group, loop.getGroups());
  bool lagged = releasesLate(loop, body);
  if (lagged)
    for (GemmOp gemm : body.accumulating)
      gemm.setMaxPending(1);
  for (CopyOp copy : body.copies)
    copy.erase();
  // Where each group sees `unroll` > 1 stages in turn and nothing is
  // carried, the loop is unrolled by that many: copy c of the body always
  // takes the same stage (the group's iterations step through the ring by
  // `groups` stages, `unroll` of them go round it once), so its stage, its
  // barriers and its tiles' addresses are made before the loop and only the
  // parities change, flipping every iteration.
  // (Not a loop holding a pipelined loop: its body would be copied whole.)
  int64_t groups = loop.getGroups(), unroll = ring.stages / groups;
  if (ring.stages % groups || lagged || !loop.getInitArgs().empty() || body.nests)
    unroll = 1;
  if (loop.getOverlap() && unroll == 1)
    loop.emitRemark("runs without overlapping its gemms: overlap needs each group to take "
                    "two or more stages in turn and the loop to carry nothing");
  if (unroll > 1)
    return buildUnrolledConsumer(loop, body, ring, first, lb, step, unroll);
  // The stage and parity travel with the loop (a few uniform instructions
  // an iteration rather than a division).
  auto [s0, parity0] = ring.cursor(b, loc, first);
  SmallVector<Value> cursor{s0, parity0};
  // Lagged: the stage the previous iteration read travels too; before the
  // first iteration it is the spare barrier past the ring, which no one
  // waits for. (No test of the first iteration: a branch or select on it
  // makes LLVM peel that iteration, and the copies joining the peeled
  // accumulator to the loop's then read registers of a wgmma still running,
  // which makes ptxas serialise every wgmma.)
  if (lagged)
    cursor.push_back(arith::ConstantIntOp::create(b, loc, b.getI32Type(), ring.stages));
  ForOp serial = moveIntoFor(loop, b, lb, loop.getUpperBound(), step, cursor);
  Block &to = serial.getBody().front();
  OpBuilder head = OpBuilder::atBlockBegin(&to);
  unsigned carried = loop.getInitArgs().size();
  Value s32 = serial.getRegionIterArgs()[carried], p32 = serial.getRegionIterArgs()[carried + 1];
  Value s = arith::IndexCastUIOp::create(head, loc, head.getIndexType(), s32);
  Value parity = arith::IndexCastUIOp::create(head, loc, head.getIndexType(), p32);
  ring.waitLanded(head, loc, s, parity);
  SmallVector<Value> tiles;
  for (AllocSharedOp alloc : body.allocs) {
    Value stage = StageOp::create(head, loc, alloc.getType(), alloc, s);
    tiles.push_back(stage);
    alloc.getResult().replaceUsesWithIf(stage, [&](OpOperand &use) {
      return use.getOwner() != stage.getDefiningOp() &&
             serial->isProperAncestor(use.getOwner());
    });
  }
  OpBuilder tail(to.getTerminator());
  auto [sNext, pNext] = ring.advanceCursor(tail, loc, s32, p32, loop.getGroups());
  to.getTerminator()->insertOperands(to.getTerminator()->getNumOperands(), {sNext, pNext});
  if (!lagged) {
    auto arrive = ring.release(tail, loc, s, tiles);
    SmallVector<Operation *> ops;
    for (Operation &op : to.without_terminator())
      if (&op != arrive && &op != arrive->getOperand(0).getDefiningOp())
        ops.push_back(&op);
    releaseEarly(arrive, ops, tiles);
  } else {
    // The previous iteration's stage, once its gemm is done (max_pending 1).
    Value previous = arith::IndexCastUIOp::create(tail, loc, tail.getIndexType(),
                                                  serial.getRegionIterArgs()[carried + 2]);
    ring.release(tail, loc, previous, body.allocs);
    to.getTerminator()->insertOperands(to.getTerminator()->getNumOperands(), {s32});
  }
  b.setInsertionPointAfter(serial);
  if (lagged) {
    // The last iteration's stage (the spare if none ran), once every gemm
    // is done.
    WgmmaWaitOp::create(b, loc, 0);
    Value last = arith::IndexCastUIOp::create(b, loc, b.getIndexType(),
                                              serial.getResults()[carried + 2]);
    ring.release(b, loc, last, body.allocs);
  }
  ring.advance(b, loc, loop);
  loop.erase();
}

namespace {

/// Whether `op` (or an op nested in it) may write memory.
bool mayWrite(Operation *op) {
  auto effects = getEffectsRecursively(op);
  if (!effects)
    return true;
  return llvm::any_of(*effects, [](const MemoryEffects::EffectInstance &e) {
    return !llvm::isa<MemoryEffects::Read>(e.getEffect());
  });
}

/// Each top-level op of a cooperative loop's body: the group whose share it
/// is -- a gemm's, the group it is dealt to (the k-th of n gemms to group
/// k * groups / n); an op reading (it or an op nested in it) the results of
/// one group's ops, that group -- or -1, read by every group's share that
/// needs it. Fails with an error at an op reading two groups' results, or
/// writing memory while reading no gemm's (every group would run it).
FailureOr<llvm::DenseMap<Operation *, int64_t>> shareOut(PipelinedOp loop, const Body &body) {
  int64_t groups = loop.getGroups();
  Block &block = loop.getBody().front();
  SmallVector<GemmOp> gemms(block.getOps<GemmOp>());
  llvm::DenseMap<Operation *, int64_t> gemmGroup;
  for (auto [k, gemm] : llvm::enumerate(gemms))
    gemmGroup[gemm] = int64_t(k) * groups / int64_t(gemms.size());
  llvm::DenseSet<Operation *> copies;
  for (CopyOp copy : body.copies)
    copies.insert(copy);
  llvm::DenseMap<Value, int64_t> owner;
  llvm::DenseMap<Operation *, int64_t> of;
  for (Operation &op : block.without_terminator()) {
    auto dealt = gemmGroup.find(&op);
    int64_t g = dealt == gemmGroup.end() ? -1 : dealt->second;
    Operation *clash = nullptr;
    op.walk([&](Operation *inner) {
      for (Value v : inner->getOperands()) {
        auto it = owner.find(v);
        if (it == owner.end())
          continue;
        if (g < 0)
          g = it->second;
        else if (g != it->second && !clash)
          clash = inner;
      }
    });
    if (clash)
      return op.emitOpError("in a cooperative pipelined loop reads the results of gemms "
                            "that different groups compute (each group runs the code "
                            "reading its own gemms); combine them after the loop, or give "
                            "the loop one group");
    if (g < 0 && !copies.contains(&op) && mayWrite(&op))
      return op.emitOpError("in a cooperative pipelined loop writes memory but reads no "
                            "gemm's result, so no one group's share holds it and every "
                            "group would run it; make it depend on a gemm, or move it out of "
                            "the loop");
    of[&op] = g;
    if (g >= 0)
      for (Value r : op.getResults())
        owner[r] = g;
  }
  return of;
}

} // namespace

LogicalResult buildCooperativeConsumer(PipelinedOp loop, const Body &body, const Ring &ring,
                                       Value group) {
  auto shares = shareOut(loop, body);
  if (failed(shares))
    return failure();
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Block &from = loop.getBody().front();
  for (int64_t g = 0; g < int64_t(loop.getGroups()); ++g) {
    Value mine =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, group, constant(b, loc, g));
    auto branch = IfOp::create(b, loc, TypeRange(), mine);
    OpBuilder t = OpBuilder::atBlockEnd(&branch.getThenRegion().emplaceBlock());
    Operation *end = YieldOp::create(t, loc);
    t.setInsertionPoint(end);
    Value first = constant(t, loc, 0); // the group's first iteration: every group's
    IRMapping map;
    auto copy = llvm::cast<PipelinedOp>(t.clone(*loop, map));
    // Group g's share: the other groups' ops go (users first), then what
    // only they needed.
    SmallVector<Operation *> ops;
    for (Operation &op : from.without_terminator())
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops)) {
      int64_t owner = shares->lookup(op);
      if (owner >= 0 && owner != g)
        map.lookup(op)->erase();
    }
    SmallVector<Operation *> left;
    for (Operation &op : copy.getBody().front().without_terminator())
      left.push_back(&op);
    for (Operation *op : llvm::reverse(left))
      if (op->use_empty() && wouldOpBeTriviallyDead(op))
        op->erase();
    // The copy runs every iteration, as a loop of one group on the shared
    // ring: each stage's empty barrier waits for every group's release.
    copy.setGroups(1);
    copy.setCooperative(false);
    Body share;
    share.allocs = body.allocs;
    for (CopyOp c : body.copies)
      share.copies.push_back(llvm::cast<CopyOp>(map.lookup(c.getOperation())));
    buildConsumer(copy, share, ring, first);
  }
  loop.erase();
  return success();
}

} // namespace minitile::tile::warps
