//===- PingPong.cpp - compute warpgroups taking turns at their gemms ------===//
//
// Expects: gemms distributed and ordered (after tile-order-async): each is a
//          hopper.wgmma_fence, wgmmas and a hopper.wgmma_commit, its waits
//          and the rings' releases placed. A tile.for marked tile.ping_pong
//          (the loop a pipelined loop of one group became) is run by every
//          compute thread of the kernel, the same number of iterations each.
// Leaves:  no tile.ping_pong. In such a loop of a kernel with N >= 2 compute
//          warpgroups, the warpgroups take turns at issuing the body's gemms,
//          through N named barriers (one a warpgroup, numbered past those
//          the kernel uses): warpgroup w waits at its own barrier
//          (hopper.bar_sync) before a turn's first wgmma_fence and hands the
//          turn to w + 1 (hopper.bar_arrive at that one's barrier) after the
//          turn's last commit. A turn is a run of gemms with no wait
//          between them for a gemm of the turn (nor a release): attention's
//          Q K^T and, under it, the previous tile's P V, in
//          FlashAttention-3's order. Where the body has two turns or more,
//          its last and the next iteration's first are one across the back
//          edge: attention's P V and the next Q K^T, with the softmax that
//          waits for S between turns. Between its turns a warpgroup runs
//          its other code while the tensor cores work on the others' gemms.
//          The last warpgroup hands warpgroup 0 the first
//          turn before the loop, and warpgroup 0 takes the last hand-over
//          after it, so every barrier's arrivals balance at the loop's end
//          (it may run again: a persistent kernel's loop per item).
//
//          No warpgroup may then wait, inside a turn, for another that
//          waits for its turn. So a turn holds no barrier, and a ring's
//          release at the end of a body that ends in a turn moves before
//          that turn (after a wgmma wait for every group committed before
//          it, added unless one is there): a producer refilling a stage
//          that a turn's copy waits for needs every warpgroup's release. A
//          release is moved only where no wgmma of the turn before it reads
//          the tiles it releases. Where a loop does not meet these
//          conditions (gemms inside ifs, a barrier in the body, a release
//          inside a turn that cannot move, one compute warpgroup) it stays
//          as it is, with a remark saying why.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/Refs.h"

#include "dialect/HopperDialect.h"

#include <optional>

namespace minitile::tile {
#define GEN_PASS_DEF_TILEPINGPONG
#include "passes/Passes.h.inc"
} // namespace minitile::tile

using namespace mlir;
using namespace minitile::tile;
using namespace minitile::hopper;

namespace {

/// Threads a turn's barrier counts: the warpgroup waiting and the one
/// handing it the turn.
constexpr int64_t kTurnThreads = 256;

/// One gemm's issue: its wgmma_fence and its wgmma_commit, at the top level
/// of the loop body.
struct Run {
  Operation *fence;
  Operation *commit;
};

/// Whether a wgmma among `ops` (or inside them) may read one of `tiles`.
bool readsAny(ArrayRef<Operation *> ops, ValueRange tiles) {
  bool reads = false;
  for (Operation *op : ops)
    op->walk([&](WgmmaOp mma) {
      for (const Ref &read : readsOf(mma))
        for (Value t : tiles)
          reads |= mayAlias(read, refOf(t));
    });
  return reads;
}

bool isBarrier(Operation *op) {
  return llvm::isa<BarrierOp, NamedBarrierOp, BarSyncOp, BarArriveOp>(op);
}

bool isRelease(Operation *op) {
  auto arrive = llvm::dyn_cast<MBarrierArriveOp>(op);
  return arrive && !arrive.getReleases().empty();
}

/// The ops of `block` from `from` up to (not including) `to`.
SmallVector<Operation *> range(Operation *from, Operation *to) {
  SmallVector<Operation *> ops;
  for (Operation *op = from; op && op != to; op = op->getNextNode())
    ops.push_back(op);
  return ops;
}

/// The first barrier number past those the kernel uses already.
int64_t firstFreeBarrier(KernelOp kernel) {
  int64_t used = 1; // 1: the compute threads' barrier (passes/Barriers.h)
  kernel.walk([&](NamedBarrierOp op) { used = std::max<int64_t>(used, op.getId()); });
  return used + 1;
}

/// Whether a wgmma wait among `ops` (or inside them) waits for one of the
/// newest `groups` groups: `hopper.wgmma_wait N` leaves only the newest N
/// pending.
bool waitsForNewest(ArrayRef<Operation *> ops, int64_t groups) {
  bool waits = false;
  for (Operation *op : ops)
    op->walk([&](WgmmaWaitOp wait) { waits |= static_cast<int64_t>(wait.getPending()) < groups; });
  return waits;
}

class PingPongLoop {
public:
  PingPongLoop(ForOp loop, KernelOp kernel) : loop_(loop), kernel_(kernel) {}

  /// Why the loop cannot take turns, or nothing once it does.
  std::optional<std::string> apply() {
    int64_t compute = kernel_.getNumComputeThreads();
    groups_ = compute / 128;
    if (compute % 128 || groups_ < 2)
      return "it needs two or more compute warpgroups, and the kernel has " +
             std::to_string(compute) + " compute threads";
    if (auto why = findRuns())
      return why;
    base_ = firstFreeBarrier(kernel_);
    if (base_ + groups_ - 1 > 15)
      return std::string("the kernel's named barriers leave too few for one a warpgroup");
    findTurns();
    if (across_)
      if (auto why = moveTailReleases())
        return why;
    build();
    return std::nullopt;
  }

private:
  Block &body() { return loop_.getBody().front(); }

  /// The body's gemms as runs, checking they can take turns.
  std::optional<std::string> findRuns() {
    std::optional<std::string> why;
    loop_.getBody().walk([&](Operation *op) {
      if (isBarrier(op))
        why = "its body holds a barrier, which would wait for a warpgroup waiting for its turn";
      else if (llvm::isa<WgmmaFenceOp, WgmmaOp, WgmmaCommitOp>(op) && op->getBlock() != &body())
        why = "its gemms are not all at the top level of its body";
    });
    if (why)
      return why;
    Operation *fence = nullptr;
    for (Operation &op : body()) {
      if (llvm::isa<WgmmaFenceOp>(op) && !fence) {
        fence = &op;
      } else if (llvm::isa<WgmmaCommitOp>(op)) {
        if (!fence)
          return std::string("a wgmma_commit in its body has no wgmma_fence before it");
        runs_.push_back({fence, &op});
        fence = nullptr;
      } else if (isRelease(&op) && fence) {
        return std::string("a ring's release lies inside a gemm's issue");
      }
    }
    if (fence)
      return std::string("a wgmma_fence in its body has no wgmma_commit after it");
    if (runs_.empty())
      return std::string("its body has no gemm");
    return std::nullopt;
  }

  /// Groups the runs into turns: a run joins the turn before it unless the
  /// code between them waits for one of that turn's gemms (the softmax
  /// reading S) or releases a stage. Where the body has two turns or more,
  /// its last joins the next iteration's first the same way across the
  /// back edge (`across_`): attention's P V with the next Q K^T.
  void findTurns() {
    turns_.push_back({0, 0});
    for (size_t r = 1; r < runs_.size(); ++r) {
      auto between = range(runs_[r - 1].commit->getNextNode(), runs_[r].fence);
      int64_t inTurn = r - turns_.back().first;
      if (waitsForNewest(between, inTurn) || llvm::any_of(between, isRelease))
        turns_.push_back({r, r});
      else
        turns_.back().second = r;
    }
    if (turns_.size() < 2)
      return;
    // Across the back edge the turn holds the last turn's runs; a release
    // after them moves before the turn (moveTailReleases), one before the
    // first run of the body ends the turn.
    int64_t inTurn = turns_.back().second - turns_.back().first + 1;
    auto tail = range(runs_.back().commit->getNextNode(), body().getTerminator());
    auto head = range(&body().front(), runs_.front().fence);
    across_ = !waitsForNewest(tail, inTurn) && !waitsForNewest(head, inTurn) &&
              !llvm::any_of(head, isRelease);
  }

  /// Moves the releases after the body's last gemm to before its turn.
  std::optional<std::string> moveTailReleases() {
    Operation *start = runs_[turns_.back().first].fence, *end = body().getTerminator();
    SmallVector<Operation *> releases;
    for (Operation *op : range(runs_.back().commit, end))
      if (isRelease(op))
        releases.push_back(op);
    if (releases.empty())
      return std::nullopt;
    for (Operation *release : releases)
      if (readsAny(range(start, release), llvm::cast<MBarrierArriveOp>(release).getReleases()))
        return std::string("a ring's release at the end of its body follows a gemm that may "
                           "read the tiles it releases");
    // What a release reads that the turn computes moves with it (its
    // barrier's address): pure ops only.
    SetVector<Operation *> slice;
    SmallVector<Value> work;
    for (Operation *release : releases)
      work.append(release->operand_begin(), release->operand_end());
    while (!work.empty()) {
      Operation *def = work.pop_back_val().getDefiningOp();
      if (!def || def->getBlock() != &body() || def->isBeforeInBlock(start) ||
          !slice.insert(def))
        continue;
      if (!isPure(def))
        return std::string("a ring's release at the end of its body needs a value the turn "
                           "computes with side effects");
      work.append(def->operand_begin(), def->operand_end());
    }
    // Every group committed before the turn has completed where the releases
    // go: a wait for all of them, unless one is there already.
    bool waited = false;
    for (Operation *op : range(runs_[turns_.back().first - 1].commit, start))
      if (auto wait = llvm::dyn_cast<WgmmaWaitOp>(op))
        waited |= wait.getPending() == 0;
    if (!waited) {
      OpBuilder at(start);
      WgmmaWaitOp::create(at, start->getLoc(), 0);
    }
    for (Operation *op : range(start, end))
      if (slice.contains(op) || llvm::is_contained(releases, op))
        op->moveBefore(start);
    return std::nullopt;
  }

  Value i32(OpBuilder &b, int64_t v) {
    return arith::ConstantIntOp::create(b, loop_.getLoc(), b.getI32Type(), v);
  }

  /// `then` inside `if (cond)` at `b`.
  void onlyIf(OpBuilder &b, Value cond, llvm::function_ref<void(OpBuilder &)> then) {
    auto guard = IfOp::create(b, loop_.getLoc(), TypeRange(), cond);
    OpBuilder in = OpBuilder::atBlockEnd(&guard.getThenRegion().emplaceBlock());
    then(in);
    YieldOp::create(in, loop_.getLoc());
  }

  void build() {
    Location loc = loop_.getLoc();
    OpBuilder b(loop_);
    Type i32Type = b.getI32Type();
    // This thread's warpgroup among the compute threads.
    Value thread = ThreadIdOp::create(b, loc, Dim::x);
    Value producers = arith::ConstantIndexOp::create(b, loc, kernel_.getProducerThreads());
    Value tid = arith::SubIOp::create(b, loc, thread, producers);
    Value size = arith::ConstantIndexOp::create(b, loc, 128);
    Value index = arith::DivUIOp::create(b, loc, tid, size);
    Value group = arith::IndexCastOp::create(b, loc, i32Type, index);
    // Broadcast from lane 0: the assembler then knows it is the same in every
    // lane, and the barrier numbers made from it live in uniform registers.
    Value lane0 = i32(b, 0);
    group = ShuffleIdxOp::create(b, loc, i32Type, group, lane0);
    // (One op a statement: the IR's order does not hang on the order in
    // which the compiler evaluates arguments.)
    Value first = i32(b, base_), one = i32(b, 1), count = i32(b, groups_);
    Value mine = arith::AddIOp::create(b, loc, group, first);
    Value after = arith::AddIOp::create(b, loc, group, one);
    Value wrapped = arith::RemUIOp::create(b, loc, after, count);
    Value next = arith::AddIOp::create(b, loc, wrapped, first);
    // Whether the loop runs at least once (its turns exist).
    Value entered = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          loop_.getLowerBound(), loop_.getUpperBound());
    auto groupIs = [&](OpBuilder &at, int64_t g) {
      Value which = i32(at, g);
      Value is = arith::CmpIOp::create(at, loc, arith::CmpIPredicate::eq, group, which);
      return arith::AndIOp::create(at, loc, entered, is);
    };
    auto wait = [&](OpBuilder &at, Value id) { BarSyncOp::create(at, loc, id, kTurnThreads); };
    auto handOver = [&](OpBuilder &at, Value id) {
      BarArriveOp::create(at, loc, id, kTurnThreads);
    };
    // The last warpgroup gives warpgroup 0 the first turn.
    onlyIf(b, groupIs(b, groups_ - 1), [&](OpBuilder &in) { handOver(in, first); });
    // Across the back edge the first iteration's first turn starts before
    // the loop, and the last iteration's last turn ends after it.
    if (across_)
      onlyIf(b, entered, [&](OpBuilder &in) { wait(in, mine); });
    for (size_t t = 0; t < turns_.size(); ++t) {
      if (!across_ || t != 0) {
        OpBuilder before(runs_[turns_[t].first].fence);
        wait(before, mine);
      }
      if (!across_ || t + 1 != turns_.size()) {
        Operation *commit = runs_[turns_[t].second].commit;
        OpBuilder after(commit->getBlock(), ++Block::iterator(commit));
        handOver(after, next);
      }
    }
    OpBuilder post(loop_->getBlock(), ++Block::iterator(loop_));
    if (across_)
      onlyIf(post, entered, [&](OpBuilder &in) { handOver(in, next); });
    // Warpgroup 0 takes the last hand-over, so the barriers end balanced.
    onlyIf(post, groupIs(post, 0), [&](OpBuilder &in) { wait(in, first); });
  }

  ForOp loop_;
  KernelOp kernel_;
  int64_t groups_ = 0, base_ = 0;
  SmallVector<Run> runs_;
  /// Each turn's first and last run.
  SmallVector<std::pair<size_t, size_t>> turns_;
  bool across_ = false;
};

struct PingPong : minitile::tile::impl::TilePingPongBase<PingPong> {
  void runOnOperation() override {
    SmallVector<ForOp> loops;
    getOperation().walk([&](ForOp loop) {
      if (loop->hasAttr(kPingPongAttr))
        loops.push_back(loop);
    });
    for (ForOp loop : loops) {
      loop->removeAttr(kPingPongAttr);
      auto kernel = loop->getParentOfType<KernelOp>();
      if (!kernel)
        continue;
      if (auto why = PingPongLoop(loop, kernel).apply())
        loop.emitRemark("runs without ping-pong: ") << *why;
    }
  }
};

} // namespace
