//===- Warps.h - the two sides of a warp-specialised pipelined loop -------===//
//
// tile-warp-specialize (passes/WarpSpecialize.cpp) splits a kernel into a
// producer warpgroup and the compute threads and builds each pipelined loop
// twice, once for each side, around a ring of stages:
//   Ring.cpp      the ring's bookkeeping: which stage and phase an iteration
//                 takes, counted over every run of the loop
//   Consumer.cpp  the loop as a compute group runs it: wait full, compute,
//                 release; unrolled over the stages the group takes in turn,
//                 its gemms overlapped with the code after them on request;
//                 a cooperative loop as a copy per group of its share
//   Continuous.cpp a continuous loop and the loop around it as a compute
//                 group runs them: one stream of its iterations of every run
//   Producer.cpp  the loop as a producer warp issues it: its group's
//                 iterations' copies (or a loop holding others, whole); the
//                 producer's slice of the program; which fills it can take
//
//===----------------------------------------------------------------------===//
#pragma once

#include "passes/Passes.h"
#include "passes/TmaCopies.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <functional>
#include <string>
#include <tuple>

namespace minitile::tile::warps {

using llvm::SmallVector;
using mlir::Block;
using mlir::Location;
using mlir::MutableArrayRef;
using mlir::LogicalResult;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::Region;
using mlir::Type;
using mlir::Value;
using mlir::ValueRange;
using llvm::ArrayRef;
using minitile::hopper::MBarrierArriveOp;

/// An index constant.
Value constant(OpBuilder &b, Location loc, int64_t v);

/// The shared tiles a pipelined body allocates and the copies into them;
/// and whether a gemm accumulates into a value the loop carries, reading
/// the loop's tiles (then a stage is released one iteration late, once the
/// gemm that read it is done).
struct Body {
  SmallVector<AllocSharedOp> allocs;
  SmallVector<CopyOp> copies;
  SmallVector<GemmOp> accumulating;
  bool nests = false; // holds a pipelined loop of its own
  /// Per copy (empty: none): whether it lands on the ring's early barrier
  /// (see Ring::early).
  SmallVector<bool, 0> early;
  /// Some gathered copies' rows go by cp.async (byLanes()): each producer
  /// warp then runs its loop on every lane, its TMA copies and arms on one,
  /// and every lane arrives on the full barrier once a stage, after its
  /// last piece (the barrier counts 1 + 32); the compute threads order the
  /// stage's generic-proxy writes before their wgmmas (Ring::generic).
  bool lanes = false;

  bool isEarly(size_t copy) const { return !early.empty() && early[copy]; }
};

/// Whether the consumer of `loop` releases each stage an iteration late,
/// once the gemm that read it is done: a gemm result the loop carries, and
/// each group taking two or more stages in turn (with one, the previous
/// iteration's stage is this one's, which its running gemm still reads:
/// tile-order-async then waits for the gemm before the release instead).
bool releasesLate(PipelinedOp loop, const Body &body);

/// A tile.for over [lb, ub) by `step` carrying what `loop` carries, holding
/// `loop`'s body (its index and iter_args replaced); `loop`'s results are
/// replaced by the new loop's. `loop` is left empty.
ForOp moveIntoFor(PipelinedOp loop, OpBuilder &b, Value lb, Value ub, Value step,
                  ValueRange extra = {});

/// Iteration bookkeeping of one pipelined loop in one role: a per-thread
/// count of the iterations of earlier runs, so stages and phases continue
/// when the loop runs again. The count is kept modulo 2 * stages (an i32),
/// which keeps every stage, parity and group derived from it, in 32-bit
/// arithmetic.
struct Ring {
  int64_t stages;
  Value full, empty; // shared i64 tiles of `stages` mbarriers each
  /// A loop holding pipelined loops of its own whose body reads some of its
  /// tiles other than as a gemm's operand (a nested loop's bounds): those
  /// tiles' copies complete a barrier of their own per stage (false where
  /// there is no such split), so whoever reads only them -- the
  /// producer warps issuing the nested loops' copies -- starts when they
  /// land, not when the iteration's other tiles (a query tile) have too.
  /// The compute threads wait for both. The early barriers follow the full
  /// ones in `full`'s tile (stage s's at s + stages): no tile of its own.
  bool early = false;
  /// Some of the stage's copies land through the generic proxy (cp.async):
  /// whoever waits for a stage to land fences the async proxy after the
  /// wait, before a wgmma reads the stage.
  bool generic = false;
  Value runs;        // tile.local<i32>: iterations of earlier runs, mod 2 * stages
  bool runsVary = false; // the loop may run again (it is inside a loop)
  Value slots;       // a queue loop's: each stage's index (shared i32 x stages)

  Value loadRuns(OpBuilder &b, Location loc) const;

  /// j (the iteration's number over all runs, mod 2 * stages), its stage
  /// and phase parity.
  std::tuple<Value, Value, Value> position(OpBuilder &b, Location loc, Value iv,
                                           PipelinedOp loop) const;

  /// The stage and phase parity (i32) of iteration n of this run (an index,
  /// below 2^31): where a loop that carries them starts.
  std::pair<Value, Value> cursor(OpBuilder &b, Location loc, Value n) const;

  /// Group `group`'s iterations of this run of `loop` (group an index of
  /// `groups`): the number within the run of its first (what cursor()
  /// takes), that iteration's index, and the step between them. Iteration j
  /// over all runs goes to group j mod groups, so where the loop runs again
  /// the group's first is iteration (group - runs) mod groups of the run.
  std::tuple<Value, Value, Value> groupIterations(OpBuilder &b, Location loc,
                                                  PipelinedOp loop, Value group,
                                                  int64_t groups) const;

  /// The cursor `by` iterations (at most `stages`) after (s, parity).
  std::pair<Value, Value> advanceCursor(OpBuilder &b, Location loc, Value s, Value parity,
                                        int64_t by) const;

  Value barrier(OpBuilder &b, Location loc, Value tile, Value s) const;

  /// Hands stage s back to the producer: an arrive on its empty barrier
  /// naming the stage's tiles (`tiles`, or stage s of each of `allocs`), so
  /// that tile-order-async waits for every wgmma still reading them.
  MBarrierArriveOp release(OpBuilder &b, Location loc, Value s, ValueRange tiles) const;
  MBarrierArriveOp release(OpBuilder &b, Location loc, Value s,
                           ArrayRef<AllocSharedOp> allocs) const;

  /// Stage s's early barrier (the ring has them).
  Value earlyBarrier(OpBuilder &b, Location loc, Value s) const;

  /// The barrier of stage s that what the producer reads of the stage's
  /// tiles completes: the early one where the ring has one, else the full.
  Value readable(OpBuilder &b, Location loc, Value s) const;

  /// Waits until every copy of stage s (phase parity) has landed: its
  /// early barrier (if any), then its full one; the last wait.
  Operation *waitLanded(OpBuilder &b, Location loc, Value s, Value parity) const;

  /// After a run of the loop: runs += its trip count (below 2^31), mod
  /// 2 * stages.
  void advance(OpBuilder &b, Location loc, PipelinedOp loop) const;
};

/// A per-thread tile.local of integer `type` at the kernel's entry, `init`
/// there.
Value newLocal(KernelOp kernel, Location loc, Type type, int64_t init);

/// A per-thread tile.local<i32> at the kernel's entry, `init` there (a
/// ring's count of earlier iterations: 0).
Value newCounter(KernelOp kernel, Location loc, int64_t init = 0);

/// The trip count of a loop over [lb, ub) by `step` (index values), at
/// least 0, as an i32.
Value tripCount32(OpBuilder &b, Location loc, Value lb, Value ub, Value step);

// Consumer.cpp

/// What starts `copy` (a pipelined body's ops, or one copy's, in order) in
/// an overlapped loop: its wait for its stage and its one top-level gemm,
/// with what they are computed from in it (pure arithmetic, stage tiles),
/// into `head` in order. False unless there is exactly one such gemm and
/// what else comes before it is pure arithmetic.
bool overlapHead(llvm::ArrayRef<Operation *> copy, llvm::SetVector<Operation *> &head);

/// Whether something in `ops` (or under them) uses a value of `values`.
bool usesAny(llvm::ArrayRef<Operation *> ops, const llvm::DenseSet<Value> &values);

/// Moves `arrive` (a stage's release at the end of a copy `ops` of the body)
/// to just after the copy's last read of its stage, `tiles` (for a gemm, the
/// first op reading its result's registers); false where it stays.
bool releaseEarly(minitile::hopper::MBarrierArriveOp arrive, llvm::ArrayRef<Operation *> ops,
                  llvm::ArrayRef<Value> tiles);

/// The group index of the compute thread `computeTid` among groups of
/// `threadsPerGroup`, made warp-uniform (see Consumer.cpp).
Value groupIndex(OpBuilder &b, Location loc, Value computeTid, int64_t threadsPerGroup);

/// `loop` as the compute threads run it: a loop over the iterations of
/// `group` (this thread's, from groupIndex) on `ring`.
void buildConsumer(PipelinedOp loop, const Body &body, const Ring &ring, Value group);

/// A cooperative loop as the compute threads run it: for each group, under
/// a test of `group` (groupIndex), a copy of the loop holding that group's
/// share of the body -- its gemms (the body's top-level gemms dealt out in
/// order) and the code reading their results, and the pure code the share
/// needs -- run over every iteration as a loop of one group. Fails, with an
/// error at the op, where code reads the results of two groups' gemms or
/// writes memory without reading any gemm's result.
LogicalResult buildCooperativeConsumer(PipelinedOp loop, const Body &body, const Ring &ring,
                                       Value group);

// Continuous.cpp

/// Why the compute side cannot run the continuous loop `inner` as one
/// stream (see Continuous.cpp), or "": asked before the kernel is split,
/// with `producerTakes` saying which fills the producer issues.
std::string continuousRefusal(PipelinedOp inner, const Body &innerBody,
                              const std::function<bool(Operation *)> &producerTakes);

/// The compute side of a continuous loop `inner` and the loop `outer`
/// around it (one group, whose body is built around inner's): one stream of
/// each group's iterations of every run, on `group` (groupIndex). Replaces
/// both.
void buildContinuousConsumer(PipelinedOp outer, const Body &outerBody, const Ring &outerRing,
                             PipelinedOp inner, const Body &innerBody, const Ring &innerRing,
                             Value group);

// Producer.cpp

/// Where the producer reads a tile its own copies fill (a prefetched item's
/// window bounds, say): the stage it reads, and the wait for the copies to
/// land that then has to come before the read. sliceProducer keeps a wait
/// only if such a read is live.
using ProducerReads = llvm::DenseMap<Operation *, Operation *>; // tile.stage -> mbarrier wait

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
  bool alsoNested = false; // issues: the warp issues nested loops' copies too
  int64_t group = 0; // a loop without nested loops: the group whose
  int64_t groups = 1; // iterations this warp issues, of `groups`
};

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
                            ProducerReads &reads);

/// Ops the producer keeps besides its copies, fills and barriers (a queue
/// loop's claims and the index slots it writes).
using ProducerKeeps = llvm::DenseSet<Operation *>;

/// Keeps in `region` only what the TMA copies, fills, barrier waits and
/// `keeps` need (a wait before a read of the producer's own tiles, only if
/// the read is).
void sliceProducer(Region &region, const ProducerReads &reads, const ProducerKeeps &keeps);

/// Adds to `slice` what `v` is computed from in `block` (ops of the block
/// itself, not nested ones), in no particular order.
void collectSlice(Value v, Block &block, llvm::SetVector<Operation *> &slice);

/// The first op of `slice` (what copies' coordinates are computed from in a
/// body) that cannot be cloned into an earlier iteration -- it reads memory,
/// which the body before may not have written yet, or holds regions --
/// else null.
Operation *notClonableAhead(const llvm::SetVector<Operation *> &slice);

/// How many iterations ahead of the rest of its body the producer issues a
/// loop's copies (see Producer.cpp); `slice`: what their coordinates are
/// computed from in the body.
int64_t issuesAhead(PipelinedOp loop, const Body &body, const Ring &ring,
                    const llvm::SetVector<Operation *> &slice);

/// A stage's barriers, armed for the bytes of the copies that land on
/// each: the full one, and the early one where the ring has one.
struct Armed {
  Value full, early;
  /// The barrier copy number `copy` of `body` completes.
  Value of(const Body &body, size_t copy) const { return body.isEarly(copy) ? early : full; }
  /// The one what the producer reads of the stage completes (as
  /// Ring::readable).
  Value readable() const { return early ? early : full; }
};

/// Arms stage s of `ring` for `body`'s copies (arrive.expect_tx on each of
/// its barriers with the bytes that land on it).
/// (With `leader`, the whole warp runs this and the leader arms; the
/// copies by lanes arrive on their own, their bytes not expected.)
Armed armStage(OpBuilder &b, Location loc, const Body &body, const Ring &ring, Value s,
               Value leader = {});

/// The copies of `body` (planned as `plans` where they stand in `block`)
/// for the iteration whose index is `at`, at `b`: what their coordinates
/// are computed from in `block` (`slice`) cloned with `at` for `index`,
/// then the boxes started into stage `s` on the barriers `armed`.
void issueCopiesFor(OpBuilder &b, Location loc, const Body &body,
                    llvm::ArrayRef<TmaCopy> plans, Block &block,
                    const llvm::SetVector<Operation *> &slice, Value index, Value at, Value s,
                    const Armed &armed);

// Queue.cpp

/// A queue loop's index slots: a shared i32 tile of `stages` at the
/// kernel's entry.
Value allocateQueueSlots(KernelOp kernel, int64_t stages, Location loc);

/// A loop with a queue as the compute threads run it (one group): a while
/// loop over the indices the producer hands out through `ring.slots`.
void buildQueueConsumer(PipelinedOp loop, const Body &body, const Ring &ring);

/// A loop with a queue as producer warp `share` runs it: its issuing
/// thread claims each index from the queue as a stage frees, writes it to
/// the stage's slot and starts the copies; a warp that follows the loop
/// reads the index from the slot. Claims and slot stores go into `keeps`.
LogicalResult buildQueueProducer(PipelinedOp loop, const Body &body, const Ring &ring,
                                 const Share &share, MutableArrayRef<Value> descs,
                                 ProducerReads &reads, ProducerKeeps &keeps);

/// A loop with a queue where no producer warpgroup feeds it: a while loop
/// whose first compute thread claims each next index and hands it to the
/// others through shared memory, between two barriers of the block.
void makeSerialQueue(PipelinedOp loop);

/// The pointers behind every tensor `kernel` writes.
llvm::DenseSet<Value> writtenPointers(KernelOp kernel);

/// Why the producer cannot issue `fill` -- it computes what copies need:
/// arithmetic on kernel arguments and loop indices, loads of tensors the
/// kernel never writes (`written`: writtenPointers), reads of the tiles its
/// copies fill -- from its range and from the conditions and bounds of the
/// loops and ifs around it; or "".
std::string producerRefusal(FillAsyncOp fill, const llvm::DenseSet<Value> &written);

/// An `if (tid == at)` around `op`, which is then the only thread's.
void onOneThread(Operation *op, Value tid, int64_t at);

} // namespace minitile::tile::warps
