//===- OrderAsync.cpp - shared tiles ordered against the async proxy ------===//
//
// Expects: fragments distributed (tile-distribute-fragments): every gemm is
//          its wgmma_fence / wgmma / wgmma_commit / wgmma_wait ops, copies
//          are tma_load or shared_store ops, fills are bulk_store ops; shared
//          tiles are still tile.alloc_shared (and tile.stage of a ring), not
//          yet planned. A ring's releases (mbarrier_arrive on its empty
//          barriers) name the stage tiles they hand back (`releases`).
// Leaves:  the same kernel with the waits and fences that make this
//          invariant hold, per thread, on every path:
//
//   1. A shared tile is written (threads' stores, atomics, TMA) or released
//      to the producer only after every asynchronous read of its previous
//      contents by this thread's warpgroup has completed: a wgmma group
//      reading it is covered by a hopper.wgmma_wait, a bulk copy reading it
//      by a hopper.bulk_wait_read. Where another thread of the same role
//      may write the tile after a barrier (tile.barrier, a named barrier),
//      the wait comes before the barrier; before the kernel returns every
//      group is waited for.
//   2. A tile written by threads (the generic proxy) that the async proxy
//      reads or writes somewhere in the kernel is followed by
//      hopper.fence_proxy_async before this thread's next barrier or
//      mbarrier arrive, and before its own next wgmma or bulk copy reading
//      it: a barrier orders the threads, not the proxies.
//   3. Registers a wgmma reads -- its A operand from registers (a gemm's A
//      that is a fragment), the four i32 it takes and the insertelements
//      and bitcast that pack them -- are not read by another op or written
//      again (their op run again, in a loop; a loop's or an if's results
//      and arguments they are) before a hopper.wgmma_wait covers the group:
//      PTX leaves the access to them undefined until then (and ptxas,
//      which flags accumulators read early, says nothing about these).
//
// (Async-proxy writes, TMA loads, are read only after their mbarrier's wait:
// tile-lower-copies and the rings of tile-warp-specialize build every TMA
// load with its wait; this pass does not add those.)
//
// The analysis is a forward dataflow over the structured IR. A tile is its
// allocation and, for a ring, the stage index (with casts stripped): two
// different SSA indices of one ring at the same point are different stages
// (the ring builders keep this true: a loop holds two stages at once only
// with two or more), a constant is its value. At a loop's back edge an index
// becomes the iteration argument it is yielded as, or any stage. Each wait is
// placed at the hazard, then hoisted out of the ifs and loops the wgmma
// groups it waits for were not started in (a wgmma wait is warp-aligned, and
// waiting once before a loop beats waiting every iteration), no further than
// the warp-specialised role it is in; its count is the fewest groups
// committed since, on any path, by the groups it must cover. Inserted one at
// a time, the analysis rerun after each, so no wait is redundant with the
// one before it; a fence that a later one made redundant (the first in
// program order can be at a loop's top, for a write near its end) is taken
// out at the end. A register is its SSA value: a value defined in a loop is
// the same register in every iteration.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/Refs.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <array>
#include <map>
#include <set>

namespace minitile::tile {
#define GEN_PASS_DEF_TILEORDERASYNC
#include "passes/Passes.h.inc"
} // namespace minitile::tile

using namespace mlir;
using namespace minitile::tile;
using namespace minitile::hopper;

namespace {

/// Counts of commits since a group are kept up to this (a wait_group takes
/// at most 7; more groups than that in flight wait at 7).
constexpr int kMaxAfter = 7;

/// (wgmma_commit, tile its group reads) -> fewest commits since.
using Groups = std::map<std::pair<Operation *, Ref>, int>;

/// Records that `key`'s group has had `after` commits since on some path:
/// the fewest over the paths is what a wait must count.
void keepFewest(Groups &groups, const std::pair<Operation *, Ref> &key, int after) {
  auto [it, added] = groups.emplace(key, after);
  if (!added)
    it->second = std::min(it->second, after);
}

/// A register a wgmma reads (its A operand from registers), as a key.
using Reg = const void *;
Reg regOf(Value v) { return v.getAsOpaquePointer(); }

/// `a` (a wgmma's A register) and the values it is packed from in place --
/// the vector of two bf16 it is a bitcast of, and that vector as each
/// insertelement builds it -- which LLVM may fold into the one instruction
/// that writes the register: waiting before the first of them keeps the
/// write after the wait, wherever the fold puts it.
SmallVector<Value> packedFrom(Value a) {
  SmallVector<Value> chain{a};
  for (Value v = a;;) {
    Operation *def = v.getDefiningOp();
    if (auto cast = llvm::dyn_cast_or_null<LLVM::BitcastOp>(def))
      v = cast.getArg();
    else if (auto insert = llvm::dyn_cast_or_null<LLVM::InsertElementOp>(def))
      v = insert.getVector();
    else
      return chain;
    // (Not the poison the first insertelement starts from: a constant that
    // other code may share.)
    if (!llvm::isa_and_nonnull<LLVM::BitcastOp, LLVM::InsertElementOp>(v.getDefiningOp()))
      return chain;
    chain.push_back(v);
  }
}

/// (wgmma_commit, register its group reads) -> fewest commits since.
using RegGroups = std::map<std::pair<Operation *, Reg>, int>;

void keepFewest(RegGroups &groups, const std::pair<Operation *, Reg> &key, int after) {
  auto [it, added] = groups.emplace(key, after);
  if (!added)
    it->second = std::min(it->second, after);
}

/// What one thread has in flight at a point, over every path to it.
struct State {
  Groups wgmma;
  std::set<Ref> open;  // read by wgmmas not yet committed
  std::set<Ref> bulk;  // read by bulk copies not yet waited for
  std::set<Ref> dirty; // written by this thread since its last proxy fence
  // Registers read by wgmma groups in flight (A from registers), and by
  // wgmmas not yet committed.
  RegGroups regs;
  std::set<Reg> openRegs;

  bool operator==(const State &o) const {
    return wgmma == o.wgmma && open == o.open && bulk == o.bulk && dirty == o.dirty &&
           regs == o.regs && openRegs == o.openRegs;
  }
  void join(const State &o) {
    for (auto &[k, after] : o.wgmma)
      keepFewest(wgmma, k, after);
    open.insert(o.open.begin(), o.open.end());
    bulk.insert(o.bulk.begin(), o.bulk.end());
    dirty.insert(o.dirty.begin(), o.dirty.end());
    for (auto &[k, after] : o.regs)
      keepFewest(regs, k, after);
    openRegs.insert(o.openRegs.begin(), o.openRegs.end());
  }
  /// Every tile renamed by `f` (a tile may become several, or stay); the
  /// registers stay (an SSA value is the same register on every path).
  State renamed(llvm::function_ref<SmallVector<Ref>(const Ref &)> f) const {
    State s;
    s.regs = regs;
    s.openRegs = openRegs;
    for (auto &[k, after] : wgmma)
      for (const Ref &r : f(k.second))
        keepFewest(s.wgmma, {k.first, r}, after);
    auto set = [&](const std::set<Ref> &from, std::set<Ref> &to) {
      for (const Ref &r : from)
        for (const Ref &n : f(r))
          to.insert(n);
    };
    set(open, s.open);
    set(bulk, s.bulk);
    set(dirty, s.dirty);
    return s;
  }
};

/// What must be put before an op.
struct Need {
  bool fence = false;
  bool bulkWait = false;
  llvm::SmallSetVector<Operation *, 4> commits; // wgmma groups to wait for
  bool empty() const { return !fence && !bulkWait && commits.empty(); }
};

class Analysis {
public:
  explicit Analysis(KernelOp kernel) : kernel_(kernel) {
    if (kernel.getProducerThreads() > 0)
      for (Operation &op : kernel.getBody().front())
        if (auto split = llvm::dyn_cast<IfOp>(op))
          if (!split.getElseRegion().empty())
            split_ = split;
    kernel.walk([&](Operation *op) {
      if (auto desc = llvm::dyn_cast<WgmmaDescOp>(op))
        noteAsync(refOf(desc.getTile()));
      else if (auto store = llvm::dyn_cast<BulkStoreOp>(op))
        noteAsync(refOf(store.getSource()));
      else if (auto load = llvm::dyn_cast<TmaLoadOp>(op))
        noteAsync(refOf(load.getDest())); // written over: ordered after the threads' writes
      for (const Ref &r : written(op))
        writers_.push_back({op, r});
    });
  }

  void run() {
    needs_.clear();
    before_.clear();
    block(kernel_->getRegion(0).front(), State());
  }

  /// The first op, in program order, that needs something; null if none.
  Operation *firstNeed(Need &need) const {
    Operation *first = nullptr;
    kernel_->walk<WalkOrder::PreOrder>([&](Operation *op) {
      auto it = needs_.find(op);
      if (it == needs_.end() || it->second.empty())
        return WalkResult::advance();
      first = op;
      need = it->second;
      return WalkResult::interrupt();
    });
    return first;
  }

  /// Where a wait for `commits` needed at `op` goes: out of the ifs and
  /// loops that do not start them, not out of a role.
  Operation *hoist(Operation *op, ArrayRef<Operation *> commits) const {
    for (;;) {
      Operation *parent = op->getParentOp();
      if (!parent || llvm::isa<KernelOp>(parent) || parent == split_)
        return op;
      if (!llvm::isa<IfOp, ForOp, WhileOp>(parent))
        return op;
      if (llvm::any_of(commits, [&](Operation *c) { return parent->isAncestor(c); }))
        return op;
      op = parent;
    }
  }

  /// The wait_group count that covers `commits` before `op`.
  int64_t pendingAt(Operation *op, ArrayRef<Operation *> commits) const {
    auto it = before_.find(op);
    int n = kMaxAfter;
    bool found = false;
    auto count = [&](Operation *commit, int after) {
      if (llvm::is_contained(commits, commit)) {
        n = std::min(n, after);
        found = true;
      }
    };
    if (it != before_.end()) {
      for (auto &[k, after] : it->second.wgmma)
        count(k.first, after);
      for (auto &[k, after] : it->second.regs)
        count(k.first, after);
    }
    return found ? n : 0;
  }

private:
  /// Tiles the async proxy reads or writes somewhere in the kernel (where
  /// the threads' writes to them need a proxy fence).
  void noteAsync(const Ref &r) {
    if (!r.root)
      anyAsync_ = true;
    else
      async_.insert(r.root);
  }
  bool asyncTouched(const Ref &r) const {
    if (anyAsync_)
      return true;
    if (!r.root)
      return !async_.empty();
    return async_.count(r.root);
  }

  /// The shared tiles `op` itself writes.
  static SmallVector<Ref> written(Operation *op) {
    if (auto store = llvm::dyn_cast<SharedStoreOp>(op))
      return {refOf(store.getTile())};
    if (auto atomic = llvm::dyn_cast<SharedAtomicOp>(op))
      return {refOf(atomic.getTile())};
    if (auto load = llvm::dyn_cast<TmaLoadOp>(op))
      return {refOf(load.getDest())};
    if (op->getNumRegions() ||
        llvm::isa<SharedLoadOp, StageOp, WgmmaDescOp, BulkStoreOp, MBarrierArriveOp>(op))
      return {};
    SmallVector<Ref> refs;
    bool writes = true;
    if (auto effects = llvm::dyn_cast<MemoryEffectOpInterface>(op))
      writes = effects.hasEffect<MemoryEffects::Write>();
    if (writes)
      for (Value v : op->getOperands())
        if (llvm::isa<SharedType>(v.getType()))
          refs.push_back(refOf(v));
    return refs;
  }

  /// Whether this thread passes a generic-proxy write to the async proxy.
  static bool generic(Operation *op) { return !llvm::isa<TmaLoadOp>(op); }

  /// The role holding `op`: the producer or compute region of a
  /// warp-specialised kernel, or null (every thread).
  Region *roleOf(Operation *op) const {
    if (!split_)
      return nullptr;
    for (; op; op = op->getParentOp())
      if (op->getParentOp() == split_)
        return op->getParentRegion();
    return nullptr;
  }

  /// Whether `w` may run after `at` in one run of the kernel.
  static bool mayFollow(Operation *w, Operation *at) {
    for (Operation *p = at->getParentOp(); p && !llvm::isa<KernelOp>(p); p = p->getParentOp())
      if (!llvm::isa<IfOp>(p) && p->isAncestor(w))
        return true;
    for (Operation *a = at; a && !llvm::isa<KernelOp>(a); a = a->getParentOp()) {
      Operation *wa = a->getBlock()->findAncestorOpInBlock(*w);
      if (!wa)
        continue;
      return wa == a || a->isBeforeInBlock(wa);
    }
    return true;
  }

  /// The async reads in `s` of tiles that may be `r` (see mayAlias), as
  /// what `need` must wait for.
  static void conflicts(const State &s, const Ref &r, Need &need, bool sameIndices = true) {
    for (auto &[k, after] : s.wgmma)
      if (mayAlias(k.second, r, sameIndices))
        need.commits.insert(k.first);
    for (const Ref &b : s.bulk)
      if (mayAlias(b, r, sameIndices))
        need.bulkWait = true;
  }

  /// Whether `s` holds a tile written by threads that the async proxy may
  /// touch (one of `among`, or any).
  bool dirty(const State &s, ArrayRef<Ref> among = {}) const {
    for (const Ref &d : s.dirty) {
      if (among.empty() ? asyncTouched(d)
                        : llvm::any_of(among, [&](const Ref &r) { return mayAlias(d, r); }))
        return true;
    }
    return false;
  }

  /// Hazards at a barrier `op`: groups reading tiles a thread of its role
  /// may write after it.
  void barrierConflicts(Operation *op, const State &s, Need &need) const {
    Region *role = roleOf(op);
    for (auto &[w, r] : writers_) {
      if (role && roleOf(w) && roleOf(w) != role)
        continue;
      if (mayFollow(w, op))
        conflicts(s, r, need, /*sameIndices=*/false);
    }
  }

  /// Hazards on registers at `op`: wgmma groups in flight read registers
  /// (their A operand) that `op` reads, or writes -- its results, its
  /// regions' arguments, or, for a terminator, what it passes them on as
  /// (its parent's results and arguments). A value defined in a loop is
  /// written again by each iteration; PTX leaves a wgmma's input registers
  /// undefined if touched before a wait covers it.
  static void registerConflicts(Operation *op, const State &s, Need &need) {
    if (s.regs.empty() || llvm::isa<WgmmaOp>(op))
      return;
    auto touch = [&](Value v) {
      for (auto &[k, after] : s.regs)
        if (k.second == regOf(v))
          need.commits.insert(k.first);
    };
    auto regions = [&](Operation *o) {
      for (Region &region : o->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            touch(arg);
    };
    for (Value v : op->getOperands())
      touch(v);
    for (Value v : op->getResults())
      touch(v);
    regions(op);
    if (op->hasTrait<OpTrait::IsTerminator>())
      if (Operation *parent = op->getParentOp(); parent && !llvm::isa<KernelOp>(parent)) {
        for (Value v : parent->getResults())
          touch(v);
        regions(parent);
      }
  }

  State block(Block &b, State s) {
    for (Operation &op : b)
      s = transfer(&op, std::move(s));
    return s;
  }

  State transfer(Operation *op, State s) {
    before_[op] = s;
    Need need;
    registerConflicts(op, s, need);
    if (auto wgmma = llvm::dyn_cast<WgmmaOp>(op)) {
      for (const Ref &r : readsOf(wgmma))
        s.open.insert(r);
      for (Value a : wgmma.getA())
        for (Value v : packedFrom(a))
          s.openRegs.insert(regOf(v));
    } else if (llvm::isa<WgmmaCommitOp>(op)) {
      for (auto &[k, after] : s.wgmma)
        after = std::min(after + 1, kMaxAfter);
      for (auto &[k, after] : s.regs)
        after = std::min(after + 1, kMaxAfter);
      for (const Ref &r : s.open)
        keepFewest(s.wgmma, {op, r}, 0);
      for (Reg r : s.openRegs)
        keepFewest(s.regs, {op, r}, 0);
      s.open.clear();
      s.openRegs.clear();
    } else if (auto wait = llvm::dyn_cast<WgmmaWaitOp>(op)) {
      for (auto it = s.wgmma.begin(); it != s.wgmma.end();)
        it = it->second >= wait.getPending() ? s.wgmma.erase(it) : std::next(it);
      for (auto it = s.regs.begin(); it != s.regs.end();)
        it = it->second >= wait.getPending() ? s.regs.erase(it) : std::next(it);
    } else if (llvm::isa<WgmmaFenceOp>(op)) {
      // The group this fence opens: its wgmmas up to the commit.
      SmallVector<Ref> reads;
      for (Operation *n = op->getNextNode(); n && !llvm::isa<WgmmaCommitOp>(n);
           n = n->getNextNode())
        if (auto mma = llvm::dyn_cast<WgmmaOp>(n))
          llvm::append_range(reads, readsOf(mma));
      need.fence = !reads.empty() && dirty(s, reads);
    } else if (auto store = llvm::dyn_cast<BulkStoreOp>(op)) {
      Ref source = refOf(store.getSource());
      need.fence = dirty(s, {source});
      s.bulk.insert(source);
    } else if (llvm::isa<BulkWaitReadOp>(op)) {
      s.bulk.clear();
    } else if (llvm::isa<FenceProxyAsyncOp>(op)) {
      s.dirty.clear();
    } else if (auto arrive = llvm::dyn_cast<MBarrierArriveOp>(op)) {
      for (Value t : arrive.getReleases())
        conflicts(s, refOf(t), need);
      need.fence = dirty(s);
    } else if (llvm::isa<MBarrierExpectTxOp>(op)) {
      need.fence = dirty(s);
    } else if (llvm::isa<BarrierOp, NamedBarrierOp>(op)) {
      need.fence = dirty(s);
      barrierConflicts(op, s, need);
    } else if (llvm::isa<ReturnOp>(op)) {
      for (auto &[k, after] : s.wgmma)
        need.commits.insert(k.first);
      for (auto &[k, after] : s.regs)
        need.commits.insert(k.first);
      need.bulkWait = !s.bulk.empty();
    } else if (auto loop = llvm::dyn_cast<ForOp>(op)) {
      s = forLoop(loop, std::move(s));
    } else if (auto branch = llvm::dyn_cast<IfOp>(op)) {
      s = ifElse(branch, std::move(s));
    } else if (op->getNumRegions()) {
      s = anyLoop(op, std::move(s));
    } else {
      for (const Ref &r : written(op)) {
        conflicts(s, r, need);
        if (generic(op) && asyncTouched(r))
          s.dirty.insert(r);
      }
    }
    if (need.empty())
      needs_.erase(op);
    else
      needs_[op] = need;
    return s;
  }

  /// `r` as seen past an edge out of (or around) `inside`, which passes
  /// `yielded` on as `to` (a loop's inits or yields as its iteration
  /// arguments or results, an if's yields as its results): an index defined
  /// in `inside` becomes the values it is passed as, or any stage; one
  /// defined before stays, and is also each value it is passed as.
  static SmallVector<Ref> carry(const Ref &r, Operation *inside, ValueRange yielded,
                                ValueRange to) {
    if (!r.root || r.anyStage || r.isConstant)
      return {r};
    SmallVector<Ref> out;
    // Defined in `inside` (its regions' arguments too) or before it.
    Value stage = r.stage;
    if (!inside->isAncestor(stage.getParentRegion()->getParentOp()))
      out.push_back(r);
    for (auto [y, t] : llvm::zip(yielded, to))
      if (stripCasts(y) == r.stage) {
        Ref n = r;
        n.stage = t;
        out.push_back(n);
      }
    if (out.empty()) {
      Ref any = r;
      any.anyStage = true;
      any.stage = Value();
      out.push_back(any);
    }
    return out;
  }

  /// A loop's header state: `header` (the state entering it) joined with
  /// what `back` makes of `body`'s end, until that changes nothing; and the
  /// body's end from it.
  static std::pair<State, State> fixpoint(State header, llvm::function_ref<State(State)> body,
                                          llvm::function_ref<State(const State &)> back) {
    for (;;) {
      State end = body(header);
      State next = header;
      next.join(back(end));
      if (next == header)
        return {std::move(header), std::move(end)};
      header = std::move(next);
    }
  }

  State forLoop(ForOp loop, State in) {
    Block &body = loop.getBody().front();
    auto yield = llvm::cast<YieldOp>(body.getTerminator());
    ValueRange inits = loop.getInitArgs();
    State end =
        fixpoint(
            in.renamed(
                [&](const Ref &r) { return carry(r, loop, inits, loop.getRegionIterArgs()); }),
            [&](State s) { return block(body, std::move(s)); },
            [&](const State &e) {
              return e.renamed([&](const Ref &r) {
                return carry(r, loop, yield.getValues(), loop.getRegionIterArgs());
              });
            })
            .second;
    State out =
        in.renamed([&](const Ref &r) { return carry(r, loop, inits, loop.getResults()); });
    out.join(end.renamed(
        [&](const Ref &r) { return carry(r, loop, yield.getValues(), loop.getResults()); }));
    return out;
  }

  State ifElse(IfOp branch, State in) {
    auto leave = [&](Region &region, const State &start) {
      if (region.empty())
        return start;
      Block &b = region.front();
      State end = block(b, start);
      auto yield = llvm::cast<YieldOp>(b.getTerminator());
      return end.renamed([&](const Ref &r) {
        return carry(r, branch, yield.getValues(), branch.getResults());
      });
    };
    State out = leave(branch.getThenRegion(), in);
    out.join(leave(branch.getElseRegion(), in));
    return out;
  }

  /// A loop whose regions run in turn, carrying nothing but memory (a
  /// tile.while).
  State anyLoop(Operation *op, State in) {
    auto leave = [&](const State &e) {
      return e.renamed([&](const Ref &r) { return carry(r, op, {}, {}); });
    };
    State header = fixpoint(
                       std::move(in),
                       [&](State s) {
                         for (Region &region : op->getRegions())
                           for (Block &b : region)
                             s = block(b, std::move(s));
                         return s;
                       },
                       leave)
                       .first;
    // Leaving from the condition (the first region) after any iteration.
    State out = header;
    if (op->getNumRegions())
      for (Block &b : op->getRegion(0))
        out = block(b, out);
    return leave(out);
  }

  Operation *kernel_;
  Operation *split_ = nullptr; // a warp-specialised kernel's producer / compute if
  std::set<Operation *> async_; // allocations the async proxy touches
  bool anyAsync_ = false;        // ... or a tile of unknown allocation
  SmallVector<std::pair<Operation *, Ref>> writers_;
  llvm::DenseMap<Operation *, Need> needs_;
  llvm::DenseMap<Operation *, State> before_;
};

/// Bounds the rounds: each round puts one op, and a kernel needs a few.
constexpr int kMaxRounds = 1000;

/// Drops each of `fences` that the invariant holds without. Fences go in
/// at the first hazard in program order; where a loop's back edge carries a
/// write to a barrier at the top of the body, that one goes in before the
/// fence the write's own barrier gets later in the body -- which makes it
/// redundant.
void dropRedundantFences(Analysis &a, ArrayRef<Operation *> fences) {
  for (Operation *fence : fences) {
    Block *block = fence->getBlock();
    Operation *next = fence->getNextNode();
    Location loc = fence->getLoc();
    fence->erase();
    a.run();
    Need need;
    if (!a.firstNeed(need))
      continue;
    OpBuilder b(block, next ? Block::iterator(next) : block->end());
    FenceProxyAsyncOp::create(b, loc);
  }
  a.run();
}

LogicalResult order(KernelOp kernel) {
  Analysis a(kernel);
  SmallVector<Operation *> fences;
  for (int round = 0; round < kMaxRounds; ++round) {
    a.run();
    Need need;
    Operation *op = a.firstNeed(need);
    if (!op) {
      dropRedundantFences(a, fences);
      return success();
    }
    Location loc = op->getLoc();
    if (need.fence) {
      OpBuilder b(op);
      fences.push_back(FenceProxyAsyncOp::create(b, loc));
      continue;
    }
    if (need.bulkWait) {
      OpBuilder b(op);
      BulkWaitReadOp::create(b, loc);
      continue;
    }
    SmallVector<Operation *> commits(need.commits.begin(), need.commits.end());
    Operation *at = a.hoist(op, commits);
    OpBuilder b(at);
    WgmmaWaitOp::create(b, loc, a.pendingAt(at, commits));
  }
  return kernel.emitOpError("could not order its shared tiles against the async proxy in ")
         << kMaxRounds << " rounds";
}

struct OrderAsync : minitile::tile::impl::TileOrderAsyncBase<OrderAsync> {
  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<KernelOp>())
      if (failed(order(kernel)))
        return signalPassFailure();
  }
};

} // namespace
