//===- WarpSpecialize.cpp - pipelined loops fed by a producer warpgroup ---===//
//
// Expects: tile.pipelined loops whose bodies copy (tile.copy) into shared
//          tiles they allocate; layouts assigned and tile.parallel
//          distributed; a 1-D block of whole warpgroups.
// Leaves:  when every such copy can use the TMA, a warp-specialised kernel: a
//          producer warpgroup goes first (threads 0..127), the original threads
//          follow as the compute threads. Each pipelined loop gets a ring of
//          `stages` tiles with a full and an empty mbarrier per stage. Each
//          producer warp runs its own copy of the program, sliced to what it
//          issues: warp w's elected thread, for each iteration j that compute
//          group w reads (j mod groups = w; all of them on warp 0 where a loop
//          has more groups than the producer has warps), waits for stage j %
//          stages to be empty, arms its full barrier with the bytes to come and
//          starts the box copies -- so no group's next tile waits behind
//          another group's slot. The compute threads run the program (thread
//          ids shifted past the producer) with each pipelined loop turned into
//          a loop over their group's iterations: wait full, compute, arrive
//          empty (unrolled by the stages each group uses where nothing is
//          carried: each copy of the body then has a fixed stage; with the
//          loop's `overlap`, the unrolled iterations that run every copy come
//          first, each copy's gemm started before the previous copy's code
//          after its gemm). A pipelined loop nested in one of one group (a
//          prefetching persistent loop) gets a ring of its own; its copies and
//          the fills go to warp `aux` (the first warp the nested loops leave
//          idle, else the last), which issues the outer iteration's copies as
//          the stages free -- with three or more outer stages stages - 2 outer
//          iterations before it reads them (coordinates cloned with the later
//          index). The warps issuing the nested loops run the outer body too:
//          they wait for each outer iteration's copies, read what they need of
//          them (a nested loop's bounds) and release the outer stage with the
//          compute threads. Where the issuing warp's slice reads a tile its
//          copies fill, it waits for the copies to land first, as the compute
//          threads do. The program's block barriers become barriers of the
//          compute threads. The producer gives registers up, the compute
//          warpgroups take them (setmaxnreg). A tile.fill_async goes to the
//          producer, marked `single`: to the warps issuing the loop it is in
//          where that loop holds no other (each for its iterations), else to
//          `aux` (its elected thread in a pipelined loop, its first thread
//          elsewhere); one whose range, or the tests and bounds around it, the
//          producer cannot compute (from a fragment, a carried value, the
//          thread id, a tensor the kernel writes) stays on the first compute
//          thread, with a remark. Otherwise (a copy the TMA cannot serve, a
//          block that cannot take a producer warpgroup, a target without
//          mbarrier transactions) each pipelined loop becomes a plain tile.for
//          whose copies tile-lower-copies makes synchronous, with a remark
//          saying why. setmaxnreg only where the target has it.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/TmaCopies.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace minitile::tile {
#define GEN_PASS_DEF_TILEWARPSPECIALIZE
#include "passes/Passes.h.inc"
} // namespace minitile::tile

using namespace mlir;
using namespace minitile::tile;
using namespace minitile::hopper;

namespace {

constexpr int64_t kProducerThreads = 128;
/// The producer's registers: at least kProducerRegisters, and what the
/// compute threads leave of the block's registers up to kProducerMaxRegisters
/// (a fill's address arithmetic on the elected thread spills in 40).
constexpr int64_t kProducerRegisters = 40;
constexpr int64_t kProducerMaxRegisters = 64;

Value constant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The shared tiles a pipelined body allocates and the copies into them;
/// and whether a gemm accumulates into a value the loop carries, reading
/// the loop's tiles (then a stage is released one iteration late, once the
/// gemm that read it is done).
struct Body {
  SmallVector<AllocSharedOp> allocs;
  SmallVector<CopyOp> copies;
  SmallVector<GemmOp> accumulating;
  bool nests = false; // holds a pipelined loop of its own
};

/// Whether `v` depends, within `loop`, on a value the loop carries.
bool dependsOnCarried(Value v, PipelinedOp loop) {
  if (auto arg = llvm::dyn_cast<BlockArgument>(v))
    return arg.getOwner() == &loop.getBody().front() && arg.getArgNumber() > 0;
  Operation *def = v.getDefiningOp();
  if (!def || !loop->isProperAncestor(def))
    return false;
  return llvm::any_of(def->getOperands(),
                      [&](Value operand) { return dependsOnCarried(operand, loop); });
}

FailureOr<Body> analyse(PipelinedOp loop) {
  Body body;
  for (auto alloc : loop.getBody().getOps<AllocSharedOp>())
    body.allocs.push_back(alloc);
  auto yield = llvm::cast<YieldOp>(loop.getBody().front().getTerminator());
  for (Value v : yield.getValues())
    if (auto gemm = v.getDefiningOp<GemmOp>())
      if (gemm.getAcc() && llvm::is_contained(loop.getRegionIterArgs(), gemm.getAcc()))
        body.accumulating.push_back(gemm);
  body.nests = loop.getBody()
                   .walk([&](PipelinedOp inner) {
                     return inner == loop ? WalkResult::advance() : WalkResult::interrupt();
                   })
                   .wasInterrupted();
  WalkResult r = loop.walk([&](CopyOp copy) {
    // A nested pipelined loop's copies are its own.
    if (copy->getParentOfType<PipelinedOp>() != loop)
      return WalkResult::advance();
    for (Value index : copy.getIndices())
      if (dependsOnCarried(index, loop)) {
        copy.emitOpError("in a pipelined loop copies from a place that depends on a "
                         "value the loop carries; the copies run ahead, before it is known");
        return WalkResult::interrupt();
      }
    auto alloc = copy.getDest().getDefiningOp<AllocSharedOp>();
    if (!alloc || alloc->getParentOp() != loop) {
      copy.emitOpError("in a pipelined loop copies into a shared tile the loop body "
                       "does not allocate; allocate it in the body, which gets one "
                       "per stage");
      return WalkResult::interrupt();
    }
    if (copy->getParentOp() != loop) {
      copy.emitOpError("in a pipelined loop is inside '")
          << copy->getParentOp()->getName()
          << "'; the copies of a pipelined loop are at the top level of its body";
      return WalkResult::interrupt();
    }
    body.copies.push_back(copy);
    return WalkResult::advance();
  });
  if (r.wasInterrupted())
    return failure();
  return body;
}

/// A tile.for over [lb, ub) by `step` carrying what `loop` carries, holding
/// `loop`'s body (its index and iter_args replaced); `loop`'s results are
/// replaced by the new loop's. `loop` is left empty.
ForOp moveIntoFor(PipelinedOp loop, OpBuilder &b, Value lb, Value ub, Value step,
                  ValueRange extra = {}) {
  SmallVector<Value> inits(loop.getInitArgs());
  inits.append(extra.begin(), extra.end());
  auto serial = ForOp::create(b, loop.getLoc(), lb, ub, step, inits);
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

/// Turns a pipelined loop into the serial loop it means.
void makeSerial(PipelinedOp loop) {
  OpBuilder b(loop);
  moveIntoFor(loop, b, loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
  loop.erase();
}

/// Iteration bookkeeping of one pipelined loop in one role: a per-thread
/// count of the iterations of earlier runs, so stages and phases continue
/// when the loop runs again. The count is kept modulo 2 * stages (an i32),
/// which keeps every stage, parity and group derived from it, in 32-bit
/// arithmetic.
struct Ring {
  int64_t stages;
  Value full, empty; // shared i64 tiles of `stages` mbarriers each
  Value runs;        // tile.local<i32>: iterations of earlier runs, mod 2 * stages
  bool runsVary = false; // the loop may run again (it is inside a loop)

  Value loadRuns(OpBuilder &b, Location loc) const {
    return LocalLoadOp::create(b, loc, b.getI32Type(), runs);
  }

  /// j (the iteration's number over all runs, mod 2 * stages), its stage
  /// and phase parity.
  std::tuple<Value, Value, Value> position(OpBuilder &b, Location loc, Value iv,
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

  /// The stage and phase parity (i32) of iteration n of this run (an index,
  /// below 2^31): where a loop that carries them starts.
  std::pair<Value, Value> cursor(OpBuilder &b, Location loc, Value n) const {
    Type i32 = b.getI32Type();
    Value j = arith::AddIOp::create(b, loc, loadRuns(b, loc),
                                    arith::IndexCastOp::create(b, loc, i32, n));
    Value count = arith::ConstantIntOp::create(b, loc, i32, stages);
    Value s = arith::RemUIOp::create(b, loc, j, count);
    Value parity = arith::AndIOp::create(b, loc, arith::DivUIOp::create(b, loc, j, count),
                                         arith::ConstantIntOp::create(b, loc, i32, 1));
    return {s, parity};
  }

  /// The first iteration of this run that group `group` (an index) of
  /// `groups` takes, (group - runs) mod groups, as an index: iteration j
  /// over all runs goes to group j mod groups.
  Value firstOfGroup(OpBuilder &b, Location loc, Value group, int64_t groups) const {
    Type i32 = b.getI32Type();
    // (One statement an op: the order of the IR does not hang on the order
    // in which a compiler evaluates arguments.)
    Value g = arith::ConstantIntOp::create(b, loc, i32, groups);
    Value past = arith::RemUIOp::create(b, loc, loadRuns(b, loc), g);
    Value group32 = arith::IndexCastOp::create(b, loc, i32, group);
    Value plus = arith::AddIOp::create(b, loc, group32, g);
    Value diff = arith::SubIOp::create(b, loc, plus, past);
    Value first = arith::RemUIOp::create(b, loc, diff, g);
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), first);
  }

  /// The cursor `by` iterations (at most `stages`) after (s, parity).
  std::pair<Value, Value> advanceCursor(OpBuilder &b, Location loc, Value s, Value parity,
                                        int64_t by) const {
    Type i32 = b.getI32Type();
    Value next = arith::AddIOp::create(b, loc, s, arith::ConstantIntOp::create(b, loc, i32, by));
    Value count = arith::ConstantIntOp::create(b, loc, i32, stages);
    Value wrap = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, next, count);
    next = arith::SelectOp::create(b, loc, wrap, arith::SubIOp::create(b, loc, next, count), next);
    parity = arith::XOrIOp::create(b, loc, parity,
                                   arith::ExtUIOp::create(b, loc, i32, wrap));
    return {next, parity};
  }

  Value barrier(OpBuilder &b, Location loc, Value tile, Value s) const {
    return MBarrierOfOp::create(b, loc, MBarrierType::get(b.getContext()), tile, s);
  }

  /// After a run of the loop: runs += its trip count (below 2^31), mod
  /// 2 * stages.
  void advance(OpBuilder &b, Location loc, PipelinedOp loop) const {
    Type i32 = b.getI32Type();
    Value span = arith::SubIOp::create(b, loc, loop.getUpperBound(), loop.getLowerBound());
    Value trips = arith::CeilDivSIOp::create(b, loc, span, loop.getStep());
    trips = arith::MaxSIOp::create(b, loc, trips, constant(b, loc, 0));
    Value trips32 = arith::IndexCastOp::create(b, loc, i32, trips);
    Value sum = arith::AddIOp::create(b, loc, loadRuns(b, loc), trips32);
    Value wrapped = arith::RemUIOp::create(
        b, loc, sum, arith::ConstantIntOp::create(b, loc, i32, 2 * stages));
    LocalStoreOp::create(b, loc, wrapped, runs);
  }
};

Value newCounter(KernelOp kernel, Location loc) {
  Block &entry = kernel.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Value local = AllocLocalOp::create(b, loc, LocalType::get(b.getContext(), b.getI32Type()));
  LocalStoreOp::create(b, loc, arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0), local);
  return local;
}

/// What starts copy `copy` (the ops of one copy of a pipelined body, in
/// order) of an overlapped loop: its wait for its stage and the one gemm at
/// the top level of the copy, with what they are computed from in the copy
/// (pure arithmetic and the stage's tiles). False unless there is exactly
/// one such gemm and nothing else feeds it.
bool overlapHead(ArrayRef<Operation *> copy, llvm::SetVector<Operation *> &head) {
  GemmOp gemm;
  MBarrierWaitOp wait;
  for (Operation *op : copy) {
    if (!wait)
      wait = llvm::dyn_cast<MBarrierWaitOp>(op);
    if (op->walk([](GemmOp) { return WalkResult::interrupt(); }).wasInterrupted()) {
      auto g = llvm::dyn_cast<GemmOp>(op);
      if (!g || gemm)
        return false;
      gemm = g;
    }
  }
  if (!gemm || !wait)
    return false;
  llvm::DenseSet<Operation *> inCopy(copy.begin(), copy.end());
  llvm::SetVector<Operation *> found;
  SmallVector<Value> work(gemm->getOperands());
  work.append(wait->operand_begin(), wait->operand_end());
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || !inCopy.contains(def) || found.contains(def))
      continue;
    if (!llvm::isa<StageOp>(def) && (def->getNumRegions() || !isMemoryEffectFree(def)))
      return false;
    found.insert(def);
    work.append(def->operand_begin(), def->operand_end());
  }
  found.insert(wait);
  found.insert(gemm);
  // In the copy's order. What else comes before the gemm moves after it
  // (pure arithmetic only).
  for (Operation *op : copy) {
    if (found.contains(op))
      head.insert(op);
    else if (!head.contains(gemm) && (op->getNumRegions() || !isMemoryEffectFree(op)))
      return false;
  }
  return true;
}

/// One loop of buildUnrolledConsumer, built at `b`: over [lb, ub) by
/// `step` * stages.size(), carrying one parity per copy (`parities` to
/// start); copy c of the body runs iteration iv + c * step at stage
/// stages[c]: waits for it to be full, reads its tiles, releases it at its
/// end. `guarded`: copies 1.. run only where their iteration exists.
/// `overlap` (not guarded): copy c's gemm starts before copy c - 1's code
/// after its gemm, which then runs while the tensor cores work on it (at
/// most two gemms' registers live); set to false where a copy does not
/// start as overlapHead needs.
ForOp buildUnrolledLoop(PipelinedOp loop, const Body &body, const Ring &ring, OpBuilder &b,
                        Value lb, Value ub, Value step, ArrayRef<Value> stages,
                        ValueRange parities, bool guarded, bool &overlap) {
  Location loc = loop.getLoc();
  int64_t unroll = stages.size();
  Type i32 = b.getI32Type();
  Value unrolledStep = arith::MulIOp::create(b, loc, step, constant(b, loc, unroll));
  auto serial = ForOp::create(b, loc, lb, ub, unrolledStep, parities);
  Block &to = serial.getBody().front();
  // (A loop carrying values is built without a terminator: a placeholder
  // marks the end until the flipped parities are yielded.)
  OpBuilder end = OpBuilder::atBlockEnd(&to);
  Operation *yield = YieldOp::create(end, loc, serial.getRegionIterArgs());
  OpBuilder at(yield);
  Block &from = loop.getBody().front();
  SmallVector<SmallVector<Operation *>> copies(unroll);
  Operation *arrive0 = nullptr;
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
        // Copy 0 releases its stage once the guards' tests are made.
        if (c == 1) {
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
    Value full = ring.barrier(into, loc, ring.full, stages[c]);
    MBarrierWaitOp::create(into, loc, full, parity);
    IRMapping map;
    map.map(loop.getInductionVar(), iv);
    for (AllocSharedOp alloc : body.allocs)
      map.map(alloc.getResult(),
              StageOp::create(into, loc, alloc.getType(), alloc, stages[c]).getResult());
    for (Operation &op : from.without_terminator())
      into.clone(op, map);
    auto arrive =
        MBarrierArriveOp::create(into, loc, ring.barrier(into, loc, ring.empty, stages[c]));
    if (!c)
      arrive0 = arrive;
    if (!guarded || !c) {
      for (Operation *op = last ? last->getNextNode() : &to.front(); op != yield;
           op = op->getNextNode())
        copies[c].push_back(op);
      // Copy 0 runs unguarded; the guarded copies follow it.
      at.setInsertionPoint(yield);
    }
  }
  SmallVector<Value> flipped;
  for (Value parity : serial.getRegionIterArgs())
    flipped.push_back(arith::XOrIOp::create(at, loc, parity,
                                            arith::ConstantIntOp::create(at, loc, i32, 1)));
  YieldOp::create(at, loc, flipped);
  yield->erase();
  if (!overlap || guarded)
    return serial;
  // Copy c's wait, stage tiles and gemm move before copy c - 1's code after
  // its gemm: g0 g1 e0 g2 e1 ... (each e reading its gemm waits for all
  // but the one started after it).
  SmallVector<llvm::SetVector<Operation *>> heads(unroll);
  for (int64_t c = 0; c < unroll; ++c)
    if (!overlapHead(copies[c], heads[c])) {
      overlap = false;
      return serial;
    }
  // Each copy as its head, then the rest.
  for (int64_t c = 0; c < unroll; ++c) {
    Operation *gemm = heads[c].back();
    Operation *after = gemm;
    for (Operation *op : copies[c]) {
      if (op == gemm)
        break;
      if (!heads[c].contains(op)) {
        op->moveAfter(after);
        after = op;
      }
    }
  }
  for (int64_t c = 1; c < unroll; ++c) {
    // Copy c - 1's first op after its head.
    Operation *rest = nullptr;
    for (Operation *op : copies[c - 1])
      if (!heads[c - 1].contains(op)) {
        rest = op;
        break;
      }
    for (Operation *op : copies[c])
      if (heads[c].contains(op))
        op->moveBefore(rest);
  }
  return serial;
}

/// buildConsumer's loop unrolled by `unroll` = stages / groups: copy c of
/// the body runs the group's iteration lb + (u * unroll + c) * step of
/// unrolled iteration u, at the fixed stage of iteration group + c * groups
/// of the run (copies past the upper bound skipped), with a parity of its
/// own that flips each iteration. Nothing is carried and no gemm lags (the
/// caller checked). With `overlap` (the loop's attribute) the unrolled
/// iterations that run every copy come first, in a loop of their own whose
/// copies overlap their gemms with the code after them (buildUnrolledLoop);
/// the rest (fewer than `unroll` iterations) follow as above.
void buildUnrolledConsumer(PipelinedOp loop, const Body &body, const Ring &ring, Value group,
                           Value lb, Value step, int64_t unroll) {
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  int64_t groups = loop.getGroups();
  SmallVector<Value> stages, parities;
  for (int64_t c = 0; c < unroll; ++c) {
    auto [s, parity] = ring.cursor(
        b, loc, arith::AddIOp::create(b, loc, group, constant(b, loc, c * groups)));
    stages.push_back(arith::IndexCastUIOp::create(b, loc, b.getIndexType(), s));
    parities.push_back(parity);
  }
  Value ub = loop.getUpperBound();
  bool overlap = loop.getOverlap();
  if (overlap) {
    // Iterations iv with iv + (unroll - 1) * step < ub run every copy.
    Value whole = arith::SubIOp::create(
        b, loc, ub, arith::MulIOp::create(b, loc, step, constant(b, loc, unroll - 1)));
    ForOp main = buildUnrolledLoop(loop, body, ring, b, lb, whole, step, stages, parities,
                                   /*guarded=*/false, overlap);
    if (!overlap) {
      loop.emitRemark("runs without overlapping its gemms: overlap needs one gemm at the top "
                      "level of the body, reading only its stage's tiles and pure arithmetic");
      Operation *span = whole.getDefiningOp()->getOperand(1).getDefiningOp();
      main.erase();
      whole.getDefiningOp()->erase();
      span->erase();
    } else {
      b.setInsertionPointAfter(main);
      // The first iteration the main loop left: lb + its trip count * its step.
      Value unrolledStep = arith::MulIOp::create(b, loc, step, constant(b, loc, unroll));
      Value span = arith::SubIOp::create(b, loc, whole, lb);
      Value trips = arith::MaxSIOp::create(
          b, loc, arith::CeilDivSIOp::create(b, loc, span, unrolledStep), constant(b, loc, 0));
      lb = arith::AddIOp::create(b, loc, lb, arith::MulIOp::create(b, loc, trips, unrolledStep));
      parities.assign(main.getResults().begin(), main.getResults().end());
    }
  }
  bool none = false;
  buildUnrolledLoop(loop, body, ring, b, lb, ub, step, stages, parities, /*guarded=*/true, none);
  ring.advance(b, loc, loop);
  loop.erase();
}

/// The group index of the compute thread `computeTid` among groups of
/// `threadsPerGroup`, made warp-uniform by a broadcast from lane 0 so that
/// what derives from it (stages, shared addresses, wgmma descriptors) can
/// live in uniform registers. Made once per group size, at the top of the
/// compute threads' code after setmaxnreg (ptxas spills what is live
/// across setmaxnreg), not at each loop.
Value groupIndex(OpBuilder &b, Location loc, Value computeTid, int64_t threadsPerGroup) {
  return arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      ShuffleIdxOp::create(
          b, loc, b.getI32Type(),
          arith::IndexCastOp::create(
              b, loc, b.getI32Type(),
              arith::DivUIOp::create(b, loc, computeTid, constant(b, loc, threadsPerGroup))),
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0)));
}

/// The consumer side: a loop over the group's iterations (`group`: this
/// thread's, from groupIndex). A stage is released when its iteration's
/// computation is done -- one iteration later where a gemm accumulates into
/// a carried value (it runs on while the next iteration starts; at most one
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
  int64_t groupCount = loop.getGroups();
  if (groupCount > 1 && ring.runsVary)
    group = ring.firstOfGroup(b, loc, group, groupCount);
  Value lb = arith::AddIOp::create(b, loc, loop.getLowerBound(),
                                   arith::MulIOp::create(b, loc, group, loop.getStep()));
  Value step = arith::MulIOp::create(b, loc, loop.getStep(),
                                     constant(b, loc, loop.getGroups()));
  bool lagged = !body.accumulating.empty();
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
  if (unroll > 1)
    return buildUnrolledConsumer(loop, body, ring, group, lb, step, unroll);
  // The stage and parity travel with the loop (a few uniform instructions
  // an iteration rather than a division).
  auto [s0, parity0] = ring.cursor(b, loc, group);
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
  MBarrierWaitOp::create(head, loc, ring.barrier(head, loc, ring.full, s), parity);
  for (AllocSharedOp alloc : body.allocs) {
    Value stage = StageOp::create(head, loc, alloc.getType(), alloc, s);
    alloc.getResult().replaceUsesWithIf(stage, [&](OpOperand &use) {
      return use.getOwner() != stage.getDefiningOp() &&
             serial->isProperAncestor(use.getOwner());
    });
  }
  OpBuilder tail(to.getTerminator());
  auto [sNext, pNext] = ring.advanceCursor(tail, loc, s32, p32, loop.getGroups());
  to.getTerminator()->insertOperands(to.getTerminator()->getNumOperands(), {sNext, pNext});
  if (!lagged) {
    MBarrierArriveOp::create(tail, loc, ring.barrier(tail, loc, ring.empty, s));
  } else {
    // The previous iteration's stage, once its gemm is done (max_pending 1).
    Value previous = arith::IndexCastUIOp::create(tail, loc, tail.getIndexType(),
                                                  serial.getRegionIterArgs()[carried + 2]);
    MBarrierArriveOp::create(tail, loc, ring.barrier(tail, loc, ring.empty, previous));
    to.getTerminator()->insertOperands(to.getTerminator()->getNumOperands(), {s32});
  }
  b.setInsertionPointAfter(serial);
  if (lagged) {
    // The last iteration's stage (the spare if none ran), once every gemm
    // is done.
    WgmmaWaitOp::create(b, loc, 0);
    Value last = arith::IndexCastUIOp::create(b, loc, b.getIndexType(),
                                              serial.getResults()[carried + 2]);
    MBarrierArriveOp::create(b, loc, ring.barrier(b, loc, ring.empty, last));
  }
  ring.advance(b, loc, loop);
  loop.erase();
}

/// Where the producer reads a tile its own copies fill (a prefetched item's
/// window bounds, say): the stage it reads, and the wait for the copies to
/// land that then has to come before the read. sliceProducer keeps a wait
/// only if such a read is live.
using ProducerReads = llvm::DenseMap<Operation *, Operation *>; // tile.stage -> mbarrier wait

/// Adds to `slice` what `v` is computed from in `block` (ops of the block
/// itself, not nested ones), in no particular order.
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
int64_t issuesAhead(PipelinedOp loop, const Body &body, const Ring &ring,
                    const llvm::SetVector<Operation *> &slice) {
  if (!body.nests || ring.stages < 3 || ring.runsVary || body.copies.empty())
    return 0;
  for (Operation *op : slice)
    if (op->getNumRegions() || !isMemoryEffectFree(op)) {
      loop.emitRemark("the producer fetches each iteration's tiles when it starts it, not ")
          << ring.stages - 2 << " ahead: a copy's place is computed by '" << op->getName()
          << "', which cannot run ahead";
      return 0;
    }
  return ring.stages - 2;
}

/// What one producer warp does with a pipelined loop (its share): warp w
/// of a loop of G groups issues the copies of the iterations compute group
/// w reads, j mod G = w (none where w >= G); a loop holding pipelined loops
/// of its own (a prefetching persistent loop) is issued whole by one warp
/// (`issues`), and the warps that issue its nested loops' iterations run its
/// body too -- waiting for each iteration's copies before reading its tiles
/// and releasing the iteration's stage after (`arrives`; its empty barriers
/// count them).
struct Share {
  bool issues = false;
  bool arrives = false;
  int64_t group = 0; // a loop without nested loops: the group whose
  int64_t groups = 1; // iterations this warp issues, of `groups`
};

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
  Location loc = loop.getLoc();
  dropCarried(loop);
  if (!share.issues && !share.arrives) {
    loop.erase();
    return success();
  }
  OpBuilder b(loop);
  Operation *issuer = nullptr; // what runs on the elected thread
  // A warp issuing one group's iterations starts at the group's first of
  // this run and steps over the other groups' (see buildConsumer).
  Value lb = loop.getLowerBound(), step = loop.getStep();
  if (share.groups > 1) {
    Value first = ring.firstOfGroup(b, loc, constant(b, loc, share.group), share.groups);
    lb = arith::AddIOp::create(b, loc, lb, arith::MulIOp::create(b, loc, first, step));
    step = arith::MulIOp::create(b, loc, step, constant(b, loc, share.groups));
  }
  ForOp serial;
  if (loop->getParentOfType<PipelinedOp>()) {
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

  Block &to = serial.getBody().front();
  to.getTerminator()->erase();
  loop.getInductionVar().replaceAllUsesWith(serial.getInductionVar());
  Block &from = loop.getBody().front();
  from.getTerminator()->erase();
  to.getOperations().splice(to.end(), from.getOperations());
  int64_t bytes = 0;
  for (CopyOp copy : body.copies)
    bytes += copy.getDest().getType().getBytes();
  // The copies are tmaEligible: runOnOperation checked the originals, and
  // their twins read the same kernel arguments through clones of the same
  // arithmetic. Each is planned where it stands (its coordinates computed
  // from this iteration's index); the warps issuing a copy share its tensor
  // map (`descs`, one per copy of the body, made by the first).
  SmallVector<TmaCopy> plans;
  if (share.issues)
    for (auto [copy, desc] : llvm::zip(body.copies, descs)) {
      plans.push_back(planTmaCopy(copy, desc));
      desc = plans.back().desc;
    }
  Value iv = serial.getInductionVar();
  // What the coordinates are computed from in the body.
  llvm::SetVector<Operation *> slice;
  for (const TmaCopy &plan : plans)
    for (Value c : plan.coords)
      collectSlice(c, to, slice);
  int64_t lookahead = share.issues ? issuesAhead(loop, body, ring, slice) : 0;
  OpBuilder head = OpBuilder::atBlockBegin(&to);
  Operation *wait = nullptr;
  auto [j, s, parity] = ring.position(head, loc, iv, loop);
  (void)j;
  Value full;
  // Waits for stage `st` (of phase `ph`) to be empty and arms its full
  // barrier with the copies' bytes; returns that barrier.
  auto arm = [&](OpBuilder &b, Value st, Value ph) {
    Value flipped = arith::XOrIOp::create(b, loc, ph, constant(b, loc, 1));
    MBarrierWaitOp::create(b, loc, ring.barrier(b, loc, ring.empty, st), flipped);
    Value barrier = ring.barrier(b, loc, ring.full, st);
    MBarrierExpectTxOp::create(b, loc, barrier, bytes);
    return barrier;
  };
  // Iteration `at`'s copies, issued at `b`: its stage armed, the boxes
  // started (coordinates cloned from this iteration's with `at` for the
  // index).
  auto issue = [&](OpBuilder &b, Value at) {
    auto [jAt, sAt, parityAt] = ring.position(b, loc, at, loop);
    (void)jAt;
    Value fullAt = arm(b, sAt, parityAt);
    IRMapping map;
    map.map(iv, at);
    for (Operation &op : to)
      if (slice.contains(&op))
        b.clone(op, map);
    for (auto [original, plan] : llvm::zip(body.copies, plans)) {
      CopyOp copy = original;
      TmaCopy moved = plan;
      for (Value &c : moved.coords)
        c = map.lookupOrDefault(c);
      Value stage = StageOp::create(b, loc, copy.getDest().getType(), copy.getDest(), sAt);
      emitTmaLoads(b, loc, moved, stage, fullAt);
    }
  };
  Operation *lastCopy = nullptr;
  if (!share.issues) {
    // Another warp issues the copies: this one waits for each iteration's
    // to land before anything else (always: its release below must not
    // run a phase ahead) and releases the stage at the end.
    full = ring.barrier(head, loc, ring.full, s);
    wait = MBarrierWaitOp::create(head, loc, full, parity);
    OpBuilder end = OpBuilder::atBlockEnd(&to);
    MBarrierArriveOp::create(end, loc, ring.barrier(end, loc, ring.empty, s));
  } else if (lookahead == 0) {
    // This iteration's copies where they stand.
    full = arm(head, s, parity);
    for (auto [original, plan] : llvm::zip(body.copies, plans)) {
      CopyOp copy = original;
      OpBuilder at(copy);
      Value stage = StageOp::create(at, loc, copy.getDest().getType(), copy.getDest(), s);
      emitTmaLoads(at, loc, plan, stage, full);
    }
    lastCopy = body.copies.empty() ? nullptr : CopyOp(body.copies.back()).getOperation();
  } else {
    // The first `lookahead` iterations' copies before the loop, then at the
    // top of iteration i those of iteration i + lookahead, each if in range.
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
        head, loc, iv,
        arith::MulIOp::create(head, loc, loop.getStep(), constant(head, loc, lookahead)));
    ifInRange(head, ahead);
    full = ring.barrier(head, loc, ring.full, s);
    // What the body reads of its tiles is there once this iteration's full
    // barrier completes: wait for it right away (its copies went out an
    // iteration or more ago).
    wait = MBarrierWaitOp::create(head, loc, full, parity);
  }
  // The body's other uses of its tiles read this iteration's stage, after
  // the wait for the copies (placed after the last one).
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
      wait = MBarrierWaitOp::create(after, loc, full, parity);
    }
    OpBuilder at(wait);
    at.setInsertionPointAfter(wait);
    auto stage = StageOp::create(at, loc, alloc.getType(), alloc, s);
    // (A warp that does not issue the copies always waits: see above.)
    if (share.issues)
      reads[stage] = wait;
    for (OpOperand *use : uses) {
      Operation *top = to.findAncestorOpInBlock(*use->getOwner());
      if (top && top->isBeforeInBlock(wait))
        return use->getOwner()->emitOpError(
            "reads a shared tile of a pipelined loop before the loop body's copy into it; "
            "copy first, then read");
      use->set(stage);
    }
  }
  for (CopyOp copy : body.copies)
    copy.erase();
  OpBuilder end = OpBuilder::atBlockEnd(&to);
  YieldOp::create(end, loc);
  b.setInsertionPointAfter(issuer);
  ring.advance(b, loc, loop);
  loop.erase();
  return success();
}

/// Keeps in `region` only what the TMA copies, fills and barrier waits need
/// (a wait before a read of the producer's own tiles, only if the read is).
void sliceProducer(Region &region, const ProducerReads &reads) {
  llvm::DenseSet<Operation *> live, guards;
  for (auto &[stage, wait] : reads)
    guards.insert(wait);
  SmallVector<Operation *> work;
  region.walk([&](Operation *op) {
    if (llvm::isa<TmaLoadOp, MBarrierWaitOp, MBarrierExpectTxOp, MBarrierArriveOp, SetMaxNRegOp,
                  FillAsyncOp>(op) &&
        !guards.contains(op))
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

/// The pointer behind a tensor (its root view's base), or null.
Value basePointer(Value tensor) {
  ViewOp view = rootView(tensor);
  return view ? view.getBase() : Value();
}

/// The pointers behind every tensor `kernel` writes.
llvm::DenseSet<Value> writtenPointers(KernelOp kernel) {
  llvm::DenseSet<Value> written;
  kernel.walk([&](Operation *op) {
    Value t;
    if (auto store = llvm::dyn_cast<StoreOp>(op))
      t = store.getTensor();
    else if (auto store = llvm::dyn_cast<StoreTileOp>(op))
      t = store.getDest();
    else if (auto atomic = llvm::dyn_cast<AtomicOp>(op))
      t = atomic.getTensor();
    else if (auto other = llvm::dyn_cast<FillAsyncOp>(op))
      t = other.getTensor();
    if (Value base = t ? basePointer(t) : Value())
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
    std::string name = "'" + def->getName().getStringRef().str() + "'";
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

LogicalResult specialise(KernelOp kernel,
                         MutableArrayRef<std::pair<PipelinedOp, Body>> bodies) {
  Location loc = kernel.getLoc();
  int64_t threads = kernel.getNumThreads();
  Block &entry = kernel.getBody().front();

  // Which fills the producer can issue (asked before the tiles move).
  SmallVector<std::pair<FillAsyncOp, std::string>> fills;
  llvm::DenseSet<Value> written = writtenPointers(kernel);
  kernel.walk(
      [&](FillAsyncOp fill) { fills.emplace_back(fill, producerRefusal(fill, written)); });

  // Shared tiles live at the kernel's entry; a pipelined body's, per stage.
  SmallVector<Operation *> allocs;
  kernel.walk([&](Operation *op) {
    if (llvm::isa<AllocSharedOp, AllocLocalOp>(op))
      allocs.push_back(op);
  });
  for (Operation *op : llvm::reverse(allocs)) {
    if (auto alloc = llvm::dyn_cast<AllocSharedOp>(op))
      if (auto loop = llvm::dyn_cast<PipelinedOp>(alloc->getParentOp()))
        alloc.setStages(loop.getStages());
    op->moveBefore(&entry, entry.begin());
  }

  // The role split: producer warpgroup first, compute threads after it.
  OpBuilder b(entry.getTerminator());
  Block::iterator firstOp = entry.begin();
  while (llvm::isa<AllocSharedOp, AllocLocalOp>(*firstOp))
    ++firstOp;
  b.setInsertionPoint(&entry, firstOp);
  Value tid = ThreadIdOp::create(b, loc, Dim::x);
  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                                           constant(b, loc, kProducerThreads));
  auto split = IfOp::create(b, loc, TypeRange(), isProducer);
  Block &producer = split.getThenRegion().emplaceBlock();
  Block &compute = split.getElseRegion().emplaceBlock();
  compute.getOperations().splice(compute.end(), entry.getOperations(),
                                 std::next(Block::iterator(split)),
                                 Block::iterator(entry.getTerminator()));
  OpBuilder computeEnd = OpBuilder::atBlockEnd(&compute);
  YieldOp::create(computeEnd, loc);
  // The program's own block barriers now gather the compute threads only:
  // the producer never reaches them.
  SmallVector<BarrierOp> barriers;
  compute.walk([&](BarrierOp op) { barriers.push_back(op); });
  for (BarrierOp op : barriers) {
    OpBuilder at(op);
    NamedBarrierOp::create(at, op.getLoc(), 1, threads);
    op.erase();
  }
  // Which producer warp does what (see Share): warp w issues compute group
  // w's iterations of each loop without nested loops (all of a loop of more
  // groups than warps: warp 0); warp `aux` -- the first warp no such loop
  // uses, else the last -- issues the copies of loops that hold others and
  // the fills outside loops without nested loops. Each warp runs its own
  // copy of the program, sliced to what it does.
  constexpr int64_t warps = kProducerThreads / 32;
  llvm::DenseMap<Operation *, int64_t> issuingWarps; // loop without nested loops -> warps
  int64_t leafWarps = 1;
  bool needsAux = false;
  for (auto &[loop, body] : bodies) {
    if (body.nests) {
      needsAux = true;
      continue;
    }
    int64_t n = loop.getGroups() <= warps ? int64_t(loop.getGroups()) : 1;
    issuingWarps[loop] = n;
    leafWarps = std::max(leafWarps, n);
  }
  auto innermostLoop = [&](Operation *op) -> Operation * {
    return op->getParentOfType<PipelinedOp>();
  };
  for (auto &[fill, why] : fills)
    if (why.empty()) {
      Operation *loop = innermostLoop(fill);
      needsAux |= !loop || !issuingWarps.count(loop);
    }
  int64_t aux = std::min(leafWarps, warps - 1);
  int64_t roles = needsAux ? std::max(leafWarps, aux + 1) : leafWarps;
  // A loop holding others: the warps other than `aux` that issue
  // iterations of loops nested in it run its body too and release its
  // stages (asked before the loops are rebuilt).
  llvm::DenseMap<Operation *, int64_t> nestedWarps; // loop -> warps 0.. issuing in it
  for (auto &[loop, body] : bodies) {
    if (!body.nests)
      continue;
    int64_t n = 0;
    loop.getBody().walk([&](PipelinedOp inner) {
      auto it = issuingWarps.find(inner);
      if (it != issuingWarps.end())
        n = std::max(n, it->second);
    });
    nestedWarps[loop] = n;
  }
  auto participants = [&](PipelinedOp loop) {
    int64_t n = nestedWarps.lookup(loop);
    return aux < n ? n - 1 : n;
  };

  SmallVector<IRMapping> maps(roles);
  OpBuilder p = OpBuilder::atBlockEnd(&producer);
  Value warp = arith::DivUIOp::create(p, loc, tid, constant(p, loc, 32));
  for (int64_t w = 0; w < roles; ++w) {
    Value mine =
        arith::CmpIOp::create(p, loc, arith::CmpIPredicate::eq, warp, constant(p, loc, w));
    auto role = IfOp::create(p, loc, TypeRange(), mine);
    OpBuilder r = OpBuilder::atBlockEnd(&role.getThenRegion().emplaceBlock());
    for (Operation &op : compute.without_terminator())
      r.clone(op, maps[w]);
    YieldOp::create(r, loc);
  }
  YieldOp::create(p, loc);

  // Compute threads: ids past the producer; more registers where the target
  // can move them.
  const minitile::Target &target = targetOf(kernel);
  bool moveRegisters = target.has(minitile::Feature::setmaxnreg);
  OpBuilder c = OpBuilder::atBlockBegin(&compute);
  // The block's registers at launch: each thread's share of the file (the
  // most ptxas gives a kernel of this block size), which setmaxnreg moves:
  // the compute threads take what the producer's least leaves, the producer
  // what is left beside them (up to kProducerMaxRegisters).
  int64_t blockThreads = threads + kProducerThreads;
  int64_t launchRegisters = std::min<int64_t>(target.maxRegistersPerThread / 8 * 8,
                                              target.registersPerSM / blockThreads / 8 * 8);
  int64_t pool = launchRegisters * blockThreads;
  int64_t computeRegisters =
      std::min<int64_t>(target.maxRegistersPerThread / 8 * 8,
                        (pool - kProducerThreads * kProducerRegisters) / threads / 8 * 8);
  int64_t producerRegisters = std::min<int64_t>(
      (pool - computeRegisters * threads) / kProducerThreads / 8 * 8, kProducerMaxRegisters);
  if (moveRegisters)
    SetMaxNRegOp::create(c, loc, computeRegisters, /*increase=*/true);
  Value hw = ThreadIdOp::create(c, loc, Dim::x);
  Value computeTid = arith::SubIOp::create(c, loc, hw, constant(c, loc, kProducerThreads));
  compute.walk([&](ThreadIdOp op) {
    if (op.getResult() != hw)
      op.getResult().replaceAllUsesWith(computeTid);
  });
  compute.walk([&](ThreadIdOp op) {
    if (op.getResult().use_empty() && op.getResult() != hw)
      op.erase();
  });
  OpBuilder pb = OpBuilder::atBlockBegin(&producer);
  if (moveRegisters)
    SetMaxNRegOp::create(pb, loc, producerRegisters, /*increase=*/false);

  // A fill goes to the producer: to the warps issuing the loop it is in,
  // for their iterations, where that loop holds no other; else to `aux`'s
  // elected thread where it issues a pipelined loop's copies, to its first
  // thread outside. The compute threads keep one whose range the producer
  // cannot compute, on their first.
  for (auto &[fill, why] : fills) {
    Operation *loop = innermostLoop(fill);
    bool everyWarp = loop && issuingWarps.count(loop);
    for (int64_t w = 0; w < roles; ++w) {
      auto twin = llvm::cast<FillAsyncOp>(maps[w].lookup(fill.getOperation()));
      if (!why.empty() || (!everyWarp && w != aux)) {
        twin.erase();
        continue;
      }
      if (!loop) {
        OpBuilder at(twin);
        onOneThread(twin, ThreadIdOp::create(at, loc, Dim::x), w * 32);
      }
      twin.setSingle(true);
    }
    if (!why.empty()) {
      fill.emitRemark("is issued by a compute thread, not the producer warpgroup: ") << why;
      onOneThread(fill, computeTid, 0);
      fill.setSingle(true);
      continue;
    }
    fill.erase();
  }

  ProducerReads reads;
  llvm::DenseMap<int64_t, Value> groups; // threads per group -> this thread's group
  for (auto &[loop, body] : bodies) {
    int64_t perIteration = threads / loop.getGroups();
    // A loop whose stages are released one iteration late has a spare
    // empty barrier (see buildConsumer).
    int64_t spare = body.accumulating.empty() ? 0 : 1;
    Ring ring{int64_t(loop.getStages()), allocateBarriers(kernel, loop.getStages(), 1, loc),
              allocateBarriers(kernel, loop.getStages() + spare,
                               perIteration + participants(loop), loc),
              Value()};
    for (Operation *p = loop->getParentOp(); !llvm::isa<KernelOp>(p); p = p->getParentOp())
      ring.runsVary |= llvm::isa<ForOp, PipelinedOp, WhileOp>(p);
    Ring producerRing = ring;
    producerRing.runs = newCounter(kernel, loc);
    SmallVector<Value> descs(body.copies.size());
    for (int64_t w = 0; w < roles; ++w) {
      auto twin = llvm::cast<PipelinedOp>(maps[w].lookup(loop.getOperation()));
      Body twinBody;
      for (AllocSharedOp alloc : body.allocs)
        twinBody.allocs.push_back(alloc);
      for (CopyOp copy : body.copies)
        twinBody.copies.push_back(llvm::cast<CopyOp>(maps[w].lookup(copy.getOperation())));
      twinBody.nests = body.nests;
      Share share;
      if (body.nests) {
        share.issues = w == aux;
        share.arrives = w != aux && w < nestedWarps.lookup(loop);
      } else {
        int64_t n = issuingWarps.lookup(loop);
        share.issues = w < n;
        share.group = w;
        share.groups = n;
      }
      if (failed(buildProducer(twin, twinBody, producerRing, share, descs, reads)))
        return failure();
    }
    ring.runs = newCounter(kernel, loc);
    auto [at, made] = groups.try_emplace(perIteration, Value());
    if (made)
      at->second = loop.getGroups() == 1 ? constant(c, loc, 0)
                                         : groupIndex(c, loc, computeTid, perIteration);
    buildConsumer(loop, body, ring, at->second);
  }
  sliceProducer(split.getThenRegion(), reads);

  kernel.setBlock({int32_t(threads + kProducerThreads), 1, 1});
  kernel.setProducerThreads(kProducerThreads);
  return success();
}

/// Why `kernel`'s block cannot take a producer warpgroup, or "".
std::string blockRefusal(KernelOp kernel, const minitile::Target &target) {
  ArrayRef<int32_t> block = kernel.getBlock();
  if (kernel.getProducerThreads())
    return "the kernel is already warp-specialised";
  if (block[1] != 1 || block[2] != 1 || block[0] % 128)
    return "its block is not a row of whole warpgroups";
  if (block[0] + kProducerThreads > target.maxThreadsPerBlock)
    return "a producer warpgroup would make the block larger than " +
           std::to_string(target.maxThreadsPerBlock) + " threads";
  if (!target.has(minitile::Feature::tma))
    return target.arch + " has no tensor-memory accelerator";
  assert(target.has(minitile::Feature::elect) &&
         "every target with the TMA (sm_90 on) has elect.sync, which the producer uses");
  return "";
}

struct WarpSpecialize : minitile::tile::impl::TileWarpSpecializeBase<WarpSpecialize> {
  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<KernelOp>()) {
      SmallVector<PipelinedOp> loops;
      // Post-order: a nested loop before the loop around it, which then
      // carries the nested loop's producer and consumer along.
      kernel.walk([&](PipelinedOp loop) { loops.push_back(loop); });
      if (loops.empty())
        continue;
      // Why each loop cannot be fed by a producer warpgroup: the kernel's
      // reason, or one of its own copies'. One refusal makes them all serial.
      std::string kernelWhy = blockRefusal(kernel, targetOf(kernel));
      bool refused = !kernelWhy.empty();
      SmallVector<std::string> whys(loops.size(), kernelWhy);
      SmallVector<std::pair<PipelinedOp, Body>> bodies;
      for (auto [loop, why] : llvm::zip(loops, whys)) {
        FailureOr<Body> body = analyse(loop);
        if (failed(body))
          return signalPassFailure();
        for (CopyOp copy : body->copies) {
          std::string copyWhy;
          if (why.empty() && !tmaEligible(copy, copyWhy)) {
            why = "a copy cannot use the tensor-memory accelerator: " + copyWhy;
            refused = true;
          }
        }
        bodies.emplace_back(loop, *body);
      }
      if (refused) {
        for (auto [loop, why] : llvm::zip(loops, whys)) {
          loop.emitRemark("runs as a serial loop without a producer warpgroup: ")
              << (why.empty() ? "another pipelined loop of the kernel has a copy the "
                                "tensor-memory accelerator cannot serve"
                              : why);
          makeSerial(loop);
        }
        continue;
      }
      if (failed(specialise(kernel, bodies)))
        return signalPassFailure();
    }
  }
};

} // namespace
