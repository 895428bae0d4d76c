//===- Continuous.cpp - a continuous pipelined loop on the compute side ---===//
//
// A continuous loop (tile.pipelined {continuous}) nests in a pipelined loop
// of one group -- a prefetching persistent loop: the outer iterations are
// work items, the inner loop an item's tiles. Its producer side is what any
// nested loop's is (Producer.cpp): iteration j over all runs goes to group
// j mod groups, at stage j mod stages. Only the compute side changes: each
// group runs ONE loop over its iterations of all the items -- its k-th is
// iteration j = group + k * groups over all runs -- in rounds of U copies
// (U = stages / groups, 2 to 4), each copy at a fixed stage, overlapped as
// in Consumer.cpp:
//
//   walk0 H0 sw0 walk1 H1 R0 sw1 walk2 H2 R1 ... sw(U-1) R(U-1)
//
// H is a copy's head (wait for its stage, its gemm), R the rest of the
// body. A walk moves the group's cursor over the items to the one holding
// its next iteration: it releases the item it leaves (its buffers; after
// waiting for the gemm still reading it, where one is in flight) and, for
// each item it enters, waits for the item's copies and computes the item's
// trip count from the outer body's code before the loop (the prologue).
// sw switches the values the body reads from the prologue (weights loaded
// from the item's tiles, say) to the copy's item where it differs from the
// last one's: the prologue is cloned again there, on that item's stage.
// These values are carried in registers; values of other types (views) are
// recomputed for each copy from what the prologue computes them from, which
// then reads no memory. Where the stream ends inside a round, the copies
// past it still issue their gemms, on stale tiles, and their rests still
// compute on the results, only their stores and stage releases skipped
// (keeping every gemm and every partial wait in the same block as the reads
// it overlaps, so that tile-distribute-fragments waits for all but the ones
// after them and ptxas keeps the wgmma pipeline -- a rest under an if made
// it serialise every wgmma, C7514 -- and the rests' registers where ptxas
// puts them in a full round).
//
// No wgmma is in flight across a back edge (which makes ptxas serialise
// every wgmma). The rounds run in an outer tile.for of kRounds carrying the
// values above, inside a tile.while on whether the stream has ended (the
// values are reloaded there); the cursor lives in tile.locals.
//
// A group holds at most one item buffer besides the one its walk waits for
// (it releases the item it leaves before waiting for the next), so two item
// buffers never deadlock however few of an item's iterations a group takes.
//
//===----------------------------------------------------------------------===//
#include "passes/warps/Warps.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace minitile::hopper;

namespace minitile::tile::warps {

namespace {

/// Rounds an epoch: the carried values are reloaded once an epoch.
constexpr int64_t kRounds = 16;

/// Whether the values of `type` are carried from copy to copy (in
/// registers): fragments and scalars.
bool carriable(Type type) {
  return llvm::isa<RankedTensorType, IntegerType, IndexType, FloatType>(type);
}

/// Whether `op` (and what it holds) at most reads memory.
bool onlyReads(Operation *op) {
  auto effects = getEffectsRecursively(op);
  return effects && llvm::all_of(*effects, [](const MemoryEffects::EffectInstance &e) {
           return llvm::isa<MemoryEffects::Read>(e.getEffect());
         });
}

/// The ops of `block` before `end`, or all but the terminator.
SmallVector<Operation *> opsBefore(Block &block, Operation *end) {
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator()) {
    if (&op == end)
      break;
    ops.push_back(&op);
  }
  return ops;
}

/// The values defined by `prologue` that ops under `ops` read (its tiles
/// aside, which move to the kernel's entry).
SmallVector<Value> prologueReads(ArrayRef<Operation *> ops, ArrayRef<Operation *> prologue) {
  llvm::DenseSet<Operation *> defs(prologue.begin(), prologue.end());
  llvm::SetVector<Value> read;
  for (Operation *op : ops)
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (Operation *def = v.getDefiningOp();
            def && defs.contains(def) && !llvm::isa<AllocSharedOp, AllocLocalOp>(def))
          read.insert(v);
    });
  return read.takeVector();
}

/// Whether the prologue's ops computing `v` read memory.
bool readsMemory(Value v, const llvm::DenseSet<Operation *> &prologue) {
  Operation *def = v.getDefiningOp();
  if (!def || !prologue.contains(def))
    return false;
  if (!isMemoryEffectFree(def))
    return true;
  return llvm::any_of(def->getOperands(),
                      [&](Value operand) { return readsMemory(operand, prologue); });
}

struct Builder {
  PipelinedOp outer, inner;
  const Body &outerBody, &innerBody;
  const Ring &outerRing, &innerRing;
  Location loc;
  Type i32;
  int64_t groups, unroll;
  SmallVector<Operation *> prologue, head, rest;
  SmallVector<Value> carried;                      // prologue values the body reads, in registers
  Value oL, startL, endL, endedL, vItemL, roundsL; // the cursor
  Value count, group32;
  SmallVector<Value> stages; // copy c's stage (index)

  Builder(PipelinedOp outer, const Body &outerBody, const Ring &outerRing, PipelinedOp inner,
          const Body &innerBody, const Ring &innerRing)
      : outer(outer), inner(inner), outerBody(outerBody), innerBody(innerBody),
        outerRing(outerRing), innerRing(innerRing), loc(inner.getLoc()),
        groups(int64_t(inner.getGroups())), unroll(innerRing.stages / groups) {}

  Value c32(OpBuilder &b, int64_t v) { return arith::ConstantIntOp::create(b, loc, i32, v); }
  Value load(OpBuilder &b, Value local) { return LocalLoadOp::create(b, loc, i32, local); }
  void store(OpBuilder &b, Value v, Value local) { LocalStoreOp::create(b, loc, v, local); }
  Value toIndex(OpBuilder &b, Value v) {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  }

  /// Whether the group's stream goes on (an i1).
  Value notEnded(OpBuilder &b) {
    Value ended = load(b, endedL);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ended, c32(b, 0));
  }

  /// A per-thread i32 at the kernel's entry, `init` there.
  Value local(int64_t init) {
    return newCounter(outer->getParentOfType<KernelOp>(), loc, init);
  }

  /// Item o's (an i32 below the outer trip count) stage and phase parity in
  /// the outer ring (the outer loop runs once).
  std::pair<Value, Value> itemCursor(OpBuilder &b, Value o) {
    Value n = c32(b, outerRing.stages);
    Value s = arith::RemUIOp::create(b, loc, o, n);
    Value round = arith::DivUIOp::create(b, loc, o, n);
    Value parity = arith::AndIOp::create(b, loc, round, c32(b, 1));
    return {toIndex(b, s), toIndex(b, parity)};
  }

  /// What the outer body's values are at item o: its index and its stage's
  /// tiles.
  IRMapping itemMap(OpBuilder &b, Value o) {
    IRMapping map;
    Value step = arith::MulIOp::create(b, loc, toIndex(b, o), outer.getStep());
    map.map(outer.getInductionVar(), arith::AddIOp::create(b, loc, outer.getLowerBound(), step));
    Value s = itemCursor(b, o).first;
    for (AllocSharedOp alloc : outerBody.allocs)
      map.map(alloc.getResult(), StageOp::create(b, loc, alloc.getType(), alloc, s));
    return map;
  }

  void clonePrologue(OpBuilder &b, IRMapping &map) {
    for (Operation *op : prologue)
      b.clone(*op, map);
  }

  /// An if without results; the builder at the end of its then-block.
  OpBuilder ifThen(OpBuilder &b, Value cond) {
    auto op = IfOp::create(b, loc, TypeRange(), cond);
    Block &then = op.getThenRegion().emplaceBlock();
    OpBuilder in = OpBuilder::atBlockEnd(&then);
    YieldOp::create(in, loc);
    in.setInsertionPoint(then.getTerminator());
    return in;
  }

  /// The walk to the group's iteration j (i32): returns whether it exists,
  /// its item and its index in the inner loop. `inFlight`: a gemm on the
  /// item the walk may leave is still running.
  std::tuple<Value, Value, Value> walk(OpBuilder &b, Value j, bool inFlight) {
    auto loop = WhileOp::create(b, loc);
    {
      OpBuilder c = OpBuilder::atBlockEnd(&loop.getCondition().emplaceBlock());
      Value going = notEnded(c);
      Value past = arith::CmpIOp::create(c, loc, arith::CmpIPredicate::sge, j, load(c, endL));
      ConditionOp::create(c, loc, arith::AndIOp::create(c, loc, going, past));
    }
    Block &body = loop.getBody().emplaceBlock();
    OpBuilder w = OpBuilder::atBlockEnd(&body);
    YieldOp::create(w, loc);
    w.setInsertionPoint(body.getTerminator());
    Value o = load(w, oL);
    {
      // Leave item o: its buffers go back once nothing reads them.
      Value held = arith::CmpIOp::create(w, loc, arith::CmpIPredicate::sge, o, c32(w, 0));
      OpBuilder leave = ifThen(w, held);
      if (inFlight)
        WgmmaWaitOp::create(leave, loc, 0);
      Value s = itemCursor(leave, o).first;
      outerRing.release(leave, loc, s, outerBody.allocs);
    }
    Value next = arith::AddIOp::create(w, loc, o, c32(w, 1));
    store(w, next, oL);
    Value over = arith::CmpIOp::create(w, loc, arith::CmpIPredicate::sge, next, count);
    auto branch = IfOp::create(w, loc, TypeRange(), over);
    {
      OpBuilder t = OpBuilder::atBlockEnd(&branch.getThenRegion().emplaceBlock());
      store(t, c32(t, 1), endedL);
      YieldOp::create(t, loc);
      // Enter item next: wait for its tiles, count its iterations.
      OpBuilder e = OpBuilder::atBlockEnd(&branch.getElseRegion().emplaceBlock());
      auto [s, parity] = itemCursor(e, next);
      outerRing.waitLanded(e, loc, s, parity);
      IRMapping map = itemMap(e, next);
      clonePrologue(e, map);
      Value trips32 = tripCount32(e, loc, inner.getLowerBound(),
                                  map.lookupOrDefault(inner.getUpperBound()), inner.getStep());
      Value end = load(e, endL);
      store(e, end, startL);
      store(e, arith::AddIOp::create(e, loc, end, trips32), endL);
      YieldOp::create(e, loc);
    }
    Value exists = notEnded(b);
    Value item = load(b, oL);
    Value i = arith::SubIOp::create(b, loc, j, load(b, startL));
    Value step = arith::MulIOp::create(b, loc, toIndex(b, i), inner.getStep());
    Value iv = arith::AddIOp::create(b, loc, inner.getLowerBound(), step);
    return {exists, item, iv};
  }

  /// The carried values switched to item o where the last switch was to
  /// another (and `exists`, where given).
  SmallVector<Value> switchTo(OpBuilder &b, Value o, Value exists, ValueRange values) {
    Value other = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, o, load(b, vItemL));
    if (exists)
      other = arith::AndIOp::create(b, loc, other, exists);
    auto op = IfOp::create(b, loc, values.getTypes(), other);
    OpBuilder t = OpBuilder::atBlockEnd(&op.getThenRegion().emplaceBlock());
    IRMapping map = itemMap(t, o);
    clonePrologue(t, map);
    store(t, o, vItemL);
    SmallVector<Value> now;
    for (Value v : carried)
      now.push_back(map.lookup(v));
    YieldOp::create(t, loc, now);
    OpBuilder e = OpBuilder::atBlockEnd(&op.getElseRegion().emplaceBlock());
    YieldOp::create(e, loc, values);
    return SmallVector<Value>(op.getResults());
  }

  /// Copy c's head at b: wait for its stage (where `exists`), its gemm on
  /// item o's tiles at iteration iv. Returns the mapping the rest goes on
  /// with, and the gemm.
  std::pair<IRMapping, Operation *> buildHead(OpBuilder &b, int64_t c, Value exists, Value o,
                                              Value iv, Value parity) {
    OpBuilder at = exists ? ifThen(b, exists) : b;
    MBarrierWaitOp::create(at, loc, innerRing.barrier(at, loc, innerRing.full, stages[c]), parity);
    IRMapping map = itemMap(b, o);
    map.map(inner.getInductionVar(), iv);
    for (AllocSharedOp alloc : innerBody.allocs)
      map.map(alloc.getResult(), StageOp::create(b, loc, alloc.getType(), alloc, stages[c]));
    Operation *gemm = nullptr;
    for (Operation *op : head)
      gemm = b.clone(*op, map);
    return {map, gemm};
  }

  /// Copy c's rest at b, reading `values` for the carried ones; releases
  /// its stage once the gemm's result is first read. With `exists`, what it
  /// writes (its stores, its release) only where its iteration exists: the
  /// rest computes unguarded, on a stale gemm's result past the stream's
  /// end. (Under an if the whole rest gets registers of its own choosing,
  /// and ptxas put a store's value in the next round's first gemm's
  /// accumulator, which then waited for the store to read it: 20 % slower.)
  void buildRest(OpBuilder &b, int64_t c, IRMapping map, Operation *gemm, Value o,
                 ValueRange values, Value exists = Value()) {
    // Values of the prologue that are not carried: recomputed (they read
    // no memory; checked).
    IRMapping item = itemMap(b, o);
    clonePrologue(b, item);
    for (Operation *op : prologue)
      for (Value r : op->getResults())
        map.map(r, item.lookup(r));
    for (auto [v, now] : llvm::zip(carried, values))
      map.map(v, now);
    SmallVector<Operation *> ops{gemm};
    for (Operation *op : rest)
      ops.push_back(b.clone(*op, map));
    SmallVector<Value> tiles;
    for (AllocSharedOp alloc : innerBody.allocs)
      tiles.push_back(map.lookup(alloc.getResult()));
    auto arrive = innerRing.release(b, loc, stages[c], tiles);
    (void)releaseEarly(arrive, ops, tiles);
    if (!exists)
      return;
    ops.push_back(arrive);
    for (Operation *op : llvm::drop_begin(ops)) {
      if (isMemoryEffectFree(op))
        continue;
      assert(op->getNumResults() == 0 && "checked by continuousRefusal");
      OpBuilder at(op);
      OpBuilder in = ifThen(at, exists);
      op->moveBefore(in.getInsertionBlock()->getTerminator());
    }
  }

  /// One round of the copies, at b (the first copy's iteration exists):
  /// H0 sw0 walk1 H1 R0 sw1 walk2 H2 R1 ... R(U-1). Returns the carried
  /// values after it.
  SmallVector<Value> buildRound(OpBuilder &b, Value o0, Value iv0, ValueRange values) {
    Value rounds = load(b, roundsL);
    Value parity = toIndex(b, arith::AndIOp::create(b, loc, rounds, c32(b, 1)));
    SmallVector<Value> exists{Value()}, items{o0};
    SmallVector<IRMapping> maps;
    SmallVector<Operation *> gemms;
    auto [map0, gemm0] = buildHead(b, 0, Value(), o0, iv0, parity);
    maps.push_back(map0);
    gemms.push_back(gemm0);
    SmallVector<Value> now = switchTo(b, o0, Value(), values);
    Value first = arith::MulIOp::create(b, loc, rounds, c32(b, unroll));
    for (int64_t c = 1; c < unroll; ++c) {
      // Copy c: iteration j = group + (rounds * unroll + c) * groups.
      Value k = arith::AddIOp::create(b, loc, first, c32(b, c));
      Value step = arith::MulIOp::create(b, loc, k, c32(b, groups));
      Value j = arith::AddIOp::create(b, loc, group32, step);
      auto [there, o, iv] = walk(b, j, /*inFlight=*/true);
      auto [map, gemm] = buildHead(b, c, there, o, iv, parity);
      exists.push_back(there);
      items.push_back(o);
      maps.push_back(map);
      gemms.push_back(gemm);
      // Copy c - 1's rest under copy c's gemm.
      buildRest(b, c - 1, maps[c - 1], gemms[c - 1], items[c - 1], now, exists[c - 1]);
      now = switchTo(b, o, there, now);
    }
    buildRest(b, unroll - 1, maps[unroll - 1], gemms[unroll - 1], items[unroll - 1], now,
              exists[unroll - 1]);
    // Gemms issued past the stream's end: done before anything reuses
    // their registers.
    WgmmaWaitOp::create(b, loc, 0);
    store(b, arith::AddIOp::create(b, loc, rounds, c32(b, 1)), roundsL);
    return now;
  }

  void build(Value group) {
    OpBuilder b(outer);
    i32 = b.getI32Type();
    for (CopyOp copy : outerBody.copies)
      copy.erase();
    for (CopyOp copy : innerBody.copies)
      copy.erase();
    prologue = opsBefore(outer.getBody().front(), inner);
    SmallVector<Operation *> body = opsBefore(inner.getBody().front(), nullptr);
    llvm::SetVector<Operation *> heads;
    [[maybe_unused]] bool starts = overlapHead(body, heads);
    assert(starts && "checked by continuousRefusal");
    head.assign(heads.begin(), heads.end());
    for (Operation *op : body)
      if (!heads.contains(op))
        rest.push_back(op);
    for (Value v : prologueReads(rest, prologue))
      if (carriable(v.getType()))
        carried.push_back(v);

    oL = local(-1);
    startL = local(0);
    endL = local(0);
    endedL = local(0);
    vItemL = local(-1);
    roundsL = local(0);
    count = tripCount32(b, loc, outer.getLowerBound(), outer.getUpperBound(), outer.getStep());
    group32 = arith::IndexCastOp::create(b, loc, i32, group);
    for (int64_t c = 0; c < unroll; ++c)
      stages.push_back(
          arith::AddIOp::create(b, loc, group, arith::ConstantIndexOp::create(b, loc, c * groups)));

    Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, count, c32(b, 0));
    OpBuilder top = ifThen(b, any);
    auto epochs = WhileOp::create(top, loc);
    {
      OpBuilder c = OpBuilder::atBlockEnd(&epochs.getCondition().emplaceBlock());
      ConditionOp::create(c, loc, notEnded(c));
    }
    Block &epoch = epochs.getBody().emplaceBlock();
    OpBuilder e = OpBuilder::atBlockEnd(&epoch);
    YieldOp::create(e, loc);
    e.setInsertionPoint(epoch.getTerminator());
    // The carried values of the item last switched to (item 0 at first),
    // which the group still holds.
    Value last = load(e, vItemL);
    Value v = arith::MaxSIOp::create(e, loc, last, c32(e, 0));
    auto [vs, vparity] = itemCursor(e, v);
    outerRing.waitLanded(e, loc, vs, vparity);
    IRMapping first = itemMap(e, v);
    clonePrologue(e, first);
    SmallVector<Value> inits;
    for (Value c : carried)
      inits.push_back(first.lookup(c));
    store(e, v, vItemL);
    Value zero = arith::ConstantIndexOp::create(e, loc, 0);
    Value one = arith::ConstantIndexOp::create(e, loc, 1);
    auto rounds =
        ForOp::create(e, loc, zero, arith::ConstantIndexOp::create(e, loc, kRounds), one, inits);
    Block &round = rounds.getBody().front();
    OpBuilder r = OpBuilder::atBlockEnd(&round);
    ValueRange values = rounds.getRegionIterArgs();
    Value going = notEnded(r);
    auto live = IfOp::create(r, loc, values.getTypes(), going);
    {
      OpBuilder t = OpBuilder::atBlockEnd(&live.getThenRegion().emplaceBlock());
      Value done = load(t, roundsL);
      Value k = arith::MulIOp::create(t, loc, done, c32(t, unroll));
      Value j =
          arith::AddIOp::create(t, loc, group32, arith::MulIOp::create(t, loc, k, c32(t, groups)));
      auto [exists, o, iv] = walk(t, j, /*inFlight=*/false);
      auto full = IfOp::create(t, loc, values.getTypes(), exists);
      {
        OpBuilder f = OpBuilder::atBlockEnd(&full.getThenRegion().emplaceBlock());
        SmallVector<Value> out = buildRound(f, o, iv, values);
        YieldOp::create(f, loc, out);
        OpBuilder n = OpBuilder::atBlockEnd(&full.getElseRegion().emplaceBlock());
        YieldOp::create(n, loc, values);
      }
      YieldOp::create(t, loc, SmallVector<Value>(full.getResults()));
      OpBuilder n = OpBuilder::atBlockEnd(&live.getElseRegion().emplaceBlock());
      YieldOp::create(n, loc, values);
    }
    YieldOp::create(r, loc, SmallVector<Value>(live.getResults()));

    // What the clones of the prologue computed and nothing reads.
    outer.erase();
    for (bool changed = true; changed;) {
      SmallVector<Operation *> dead;
      epochs.walk<WalkOrder::PostOrder>([&](Operation *op) {
        if (op != epochs && isOpTriviallyDead(op))
          dead.push_back(op);
      });
      for (Operation *op : dead)
        op->erase();
      changed = !dead.empty();
    }
  }
};

} // namespace

std::string continuousRefusal(PipelinedOp inner, const Body &innerBody,
                              const std::function<bool(Operation *)> &producerTakes) {
  auto outer = llvm::dyn_cast<PipelinedOp>(inner->getParentOp());
  if (!outer || outer.getGroups() != 1 || !outer.getInitArgs().empty())
    return "it is not directly in a pipelined loop of one group that carries nothing";
  for (Operation *p = outer->getParentOp(); !llvm::isa<KernelOp>(p); p = p->getParentOp())
    if (llvm::isa<ForOp, PipelinedOp, WhileOp>(p))
      return "the loop around it runs inside another loop";
  int64_t groups = inner.getGroups(), stages = inner.getStages();
  if (!inner.getOverlap() || stages % groups || stages / groups < 2 || stages / groups > 4)
    return "it is not an overlapped loop whose groups each take two to four stages in turn "
           "(a round runs a copy of the body for each; more would only lengthen its code)";
  if (!inner.getInitArgs().empty() || !innerBody.accumulating.empty())
    return "it carries values";
  auto outside = [&](Value v) {
    Operation *def = v.getDefiningOp();
    return !def || !outer->isAncestor(def);
  };
  if (!outside(inner.getLowerBound()) || !outside(inner.getStep()))
    return "its lower bound or step is computed in the loop around it";
  Block &outerBlock = outer.getBody().front();
  SmallVector<Operation *> prologue = opsBefore(outerBlock, inner);
  llvm::DenseSet<Operation *> prologueSet(prologue.begin(), prologue.end());
  for (Operation *op : prologue)
    if (!llvm::isa<CopyOp, AllocSharedOp, AllocLocalOp>(op) && !onlyReads(op))
      return "the code before it in the loop around it writes memory ('" +
             op->getName().getStringRef().str() + "')";
  // After it: nothing the compute threads do (fills the producer issues).
  for (Operation *op = inner->getNextNode(); op && op != outerBlock.getTerminator();
       op = op->getNextNode()) {
    bool computeFree =
        !op->walk([&](Operation *inner) {
             if (llvm::isa<FillAsyncOp>(inner))
               return producerTakes(inner) ? WalkResult::skip() : WalkResult::interrupt();
             if (inner->getNumRegions() == 0 && !isMemoryEffectFree(inner))
               return WalkResult::interrupt();
             return WalkResult::advance();
           }).wasInterrupted();
    if (!computeFree)
      return "the loop around it does more after it than fills the producer issues";
  }
  SmallVector<Operation *> body;
  for (Operation &op : inner.getBody().front().without_terminator())
    if (!llvm::isa<CopyOp, AllocSharedOp>(op))
      body.push_back(&op);
  llvm::SetVector<Operation *> heads;
  if (!overlapHead(body, heads))
    return "its body does not start with one gemm";
  SmallVector<Operation *> headOps(heads.begin(), heads.end()), rest;
  for (Operation *op : body)
    if (!heads.contains(op))
      rest.push_back(op);
  if (!prologueReads(headOps, prologue).empty())
    return "its gemm reads a value the code before the loop computes";
  // The rest runs after the walk to the next copy's iteration may have
  // released the item's tiles: it reads them only through carried values.
  llvm::DenseSet<Value> outerTiles;
  for (auto alloc : outerBlock.getOps<AllocSharedOp>())
    outerTiles.insert(alloc.getResult());
  if (usesAny(rest, outerTiles))
    return "the code after its gemm reads the tiles of the loop around it";
  for (Operation *op : rest)
    if (op->getNumResults() && !isMemoryEffectFree(op))
      return "the code after its gemm has an op with results that touches memory ('" +
             op->getName().getStringRef().str() +
             "'), which a copy past the stream's end cannot run";
  for (Value v : prologueReads(rest, prologue))
    if (llvm::isa<SharedType>(v.getType()) ||
        (!carriable(v.getType()) && readsMemory(v, prologueSet)))
      return "the code after its gemm reads a value (not a fragment or scalar) that the "
             "code before the loop computes from memory";
  return "";
}

void buildContinuousConsumer(PipelinedOp outer, const Body &outerBody, const Ring &outerRing,
                             PipelinedOp inner, const Body &innerBody, const Ring &innerRing,
                             Value group) {
  Builder builder(outer, outerBody, outerRing, inner, innerBody, innerRing);
  builder.build(group);
}

} // namespace minitile::tile::warps
