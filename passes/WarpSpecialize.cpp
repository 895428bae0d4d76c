//===- WarpSpecialize.cpp - pipelined loops fed by a producer warpgroup ---===//
//
// Expects: tile.pipelined loops whose bodies copy (tile.copy) into shared
//          tiles they allocate; layouts assigned and tile.parallel
//          distributed; a 1-D block of whole warpgroups.
// Leaves:  when every such copy can use the TMA, a warp-specialised kernel: a
//          producer warpgroup goes first (threads 0..127), the original threads
//          follow as the compute threads. Each pipelined loop gets a ring of
//          `stages` tiles with a full and an empty mbarrier per stage (and an
//          early one where a loop holding others reads some of its tiles
//          other than as a gemm's operand: those tiles' copies complete it,
//          the producer's readers wait for it alone; see Ring). Each
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
//          after its gemm, which a hopper.warp_sync keeps in place). A
//          pipelined loop nested in one of one group (a
//          prefetching persistent loop) gets a ring of its own; its copies and
//          the fills go to warp `aux` (the first warp the nested loops leave
//          idle, else the last), which issues the outer iteration's copies as
//          the stages free -- with three or more outer stages stages - 2 outer
//          iterations before it reads them (coordinates cloned with the later
//          index). The warps issuing the nested loops run the outer body too:
//          they wait for each outer iteration's copies (the early ones where
//          the ring has them), read what they need of them (a nested loop's
//          bounds) and release the outer stage with the compute threads.
//          Where the issuing warp's slice reads a tile its copies fill, it
//          waits for the copies to land first (likewise). The program's
//          block barriers become barriers of the compute threads. The
//          producer gives registers up (to 40, or the kernel's
//          producer_registers), the compute warpgroups take them
//          (setmaxnreg). A tile.fill_async goes to the
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
//          saying why. setmaxnreg only where the target has it. A
//          `continuous` loop nested so (overlapped, two to four stages a
//          group, the last thing the outer body does) has the same producer
//          side, but its compute side and the outer loop's are built
//          together: one stream of each group's iterations of every outer
//          iteration (passes/warps/Continuous.cpp); one that cannot be runs
//          per outer iteration, with a remark saying why. A `cooperative`
//          loop's iterations are every group's: one producer warp issues
//          them all, each group runs a copy of the loop holding its share of
//          the body (its gemms and the code reading them), and a stage's
//          empty barrier counts every group's threads (Consumer.cpp).
//
// This file decides who does what (the warps' shares, the fills, the
// registers) and splits the kernel; passes/warps/ builds each loop's two
// sides (Warps.h says which file does what).
//
//===----------------------------------------------------------------------===//
#include "passes/warps/Warps.h"

#include "mlir/IR/IRMapping.h"

namespace minitile::tile {
#define GEN_PASS_DEF_TILEWARPSPECIALIZE
#include "passes/Passes.h.inc"
} // namespace minitile::tile

using namespace mlir;
using namespace minitile::tile;
using namespace minitile::hopper;
using namespace minitile::tile::warps;

namespace {

constexpr int64_t kProducerThreads = 128;
/// The producer's registers: at least kProducerRegisters (or the kernel's
/// producer_registers), and what the compute threads leave of the block's
/// registers up to kProducerMaxRegisters (a fill's address arithmetic on
/// the elected thread spills in fewer than 40 in some kernels).
constexpr int64_t kProducerRegisters = 40;
constexpr int64_t kProducerMaxRegisters = 64;
static_assert(isProducerRegisterCount(kProducerRegisters) &&
              isProducerRegisterCount(kProducerMaxRegisters));

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

/// Whether `loop`'s groups each run every iteration (a cooperative loop of
/// one group is a plain one).
bool cooperative(PipelinedOp loop) { return loop.getCooperative() && loop.getGroups() > 1; }

FailureOr<Body> analyse(PipelinedOp loop) {
  Body body;
  for (auto alloc : loop.getBody().getOps<AllocSharedOp>())
    body.allocs.push_back(alloc);
  auto yield = llvm::cast<YieldOp>(loop.getBody().front().getTerminator());
  // A gemm whose result the loop carries (whatever its accumulator is: the
  // carried value, a scaled or summed one, none) runs on into the next
  // iteration, so its stage is released an iteration late.
  for (Value v : yield.getValues())
    if (auto gemm = v.getDefiningOp<GemmOp>())
      if (!llvm::is_contained(body.accumulating, gemm))
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
    for (Value index : llvm::concat<Value>(copy.getIndices(), copy.getRowIndices()))
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
  body.lanes = llvm::any_of(body.copies, [](CopyOp c) { return byLanes(c); });
  if (body.lanes) {
    // A producer warp runs such a loop on every lane: the plain loop's
    // producer, not yet a queue's, a stream's or one around or inside
    // another pipelined loop.
    const char *why = body.nests                                ? "holds a pipelined loop"
                      : loop->getParentOfType<PipelinedOp>()    ? "is inside a pipelined loop"
                      : loop.getQueue()                         ? "takes its items from a queue"
                      : loop.getContinuous()                    ? "is continuous"
                                                                : nullptr;
    if (why) {
      auto copy = llvm::find_if(body.copies, [](CopyOp c) { return byLanes(c); });
      return CopyOp(*copy).emitOpError("gathers its rows by cp.async in a pipelined loop that ")
             << why << "; the TMA's one box a row serves there (GatherBy::tma)";
    }
  }
  // A loop holding pipelined loops of its own: the copies into tiles its
  // body reads other than as a gemm's operand (a nested loop's bounds, a
  // persistent item's weights) land on a barrier of their own where the
  // others do not, so the nested loops' copies start when those land.
  if (body.nests) {
    for (CopyOp copy : body.copies)
      body.early.push_back(llvm::any_of(copy.getDest().getUses(), [](OpOperand &use) {
        return !llvm::isa<CopyOp, GemmOp>(use.getOwner());
      }));
    if (!llvm::is_contained(body.early, true) || !llvm::is_contained(body.early, false))
      body.early.clear();
  }
  return body;
}

/// Turns a pipelined loop into the serial loop it means.
void makeSerial(PipelinedOp loop) {
  if (loop.getQueue())
    return makeSerialQueue(loop);
  OpBuilder b(loop);
  moveIntoFor(loop, b, loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
  loop.erase();
}

/// Each fill of `kernel` with why the producer cannot issue it ("" where it
/// can), asked before the tiles move.
using Fills = SmallVector<std::pair<FillAsyncOp, std::string>>;

Fills classifyFills(KernelOp kernel) {
  Fills fills;
  llvm::DenseSet<Value> written = writtenPointers(kernel);
  kernel.walk(
      [&](FillAsyncOp fill) { fills.emplace_back(fill, producerRefusal(fill, written)); });
  return fills;
}

/// The continuous loops whose compute side runs as one stream
/// (Continuous.cpp), by the loop around each; the others lose the flag,
/// with a remark, and run a loop per outer iteration, as any nested loop.
llvm::DenseMap<Operation *, PipelinedOp>
continuousStreams(MutableArrayRef<std::pair<PipelinedOp, Body>> bodies, Fills &fills) {
  llvm::DenseMap<Operation *, PipelinedOp> continuousIn; // outer loop -> its continuous loop
  auto producerTakes = [&](Operation *op) {
    return llvm::any_of(
        fills, [&](auto &f) { return f.first.getOperation() == op && f.second.empty(); });
  };
  for (auto &[loop, body] : bodies) {
    if (!loop.getContinuous())
      continue;
    auto outer = llvm::cast<PipelinedOp>(loop->getParentOp());
    std::string why = outer.getQueue() ? "the loop around it takes its iterations from a "
                                         "queue, which a stream cannot cross yet"
                                       : continuousRefusal(loop, body, producerTakes);
    if (why.empty()) {
      continuousIn[loop->getParentOp()] = loop;
      continue;
    }
    loop.emitRemark("runs as a loop per iteration of the loop around it, not as one "
                    "stream: ")
        << why;
    loop.setContinuous(false);
  }
  return continuousIn;
}

/// Moves the shared and local tiles to the kernel's entry; a pipelined
/// body's shared tiles get one copy per stage.
void hoistTiles(KernelOp kernel) {
  Block &entry = kernel.getBody().front();
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
}

/// The role split: `if (tid < kProducerThreads)` the producer block, else
/// the compute block holding the program (its block barriers now gather
/// the compute threads only: the producer never reaches them).
struct Roles {
  IfOp split;
  Value tid;
  Block *producer, *compute;
};

Roles splitRoles(KernelOp kernel) {
  Location loc = kernel.getLoc();
  Block &entry = kernel.getBody().front();
  OpBuilder b(entry.getTerminator());
  Block::iterator firstOp = entry.begin();
  while (llvm::isa<AllocSharedOp, AllocLocalOp>(*firstOp))
    ++firstOp;
  b.setInsertionPoint(&entry, firstOp);
  Roles roles;
  roles.tid = ThreadIdOp::create(b, loc, Dim::x);
  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, roles.tid,
                                           constant(b, loc, kProducerThreads));
  roles.split = IfOp::create(b, loc, TypeRange(), isProducer);
  roles.producer = &roles.split.getThenRegion().emplaceBlock();
  roles.compute = &roles.split.getElseRegion().emplaceBlock();
  Block &compute = *roles.compute;
  compute.getOperations().splice(compute.end(), entry.getOperations(),
                                 std::next(Block::iterator(roles.split)),
                                 Block::iterator(entry.getTerminator()));
  OpBuilder computeEnd = OpBuilder::atBlockEnd(&compute);
  YieldOp::create(computeEnd, loc);
  SmallVector<BarrierOp> barriers;
  compute.walk([&](BarrierOp op) { barriers.push_back(op); });
  for (BarrierOp op : barriers) {
    OpBuilder at(op);
    NamedBarrierOp::create(at, op.getLoc(), 1, kernel.getNumThreads());
    op.erase();
  }
  return roles;
}

/// Which producer warp does what (see Share): warp w issues compute group
/// w's iterations of each loop without nested loops (all of a loop of more
/// groups than warps: warp 0); warp `aux` -- the first warp no such loop
/// uses, else the last -- issues the copies of loops that hold others and
/// the fills outside loops without nested loops. Each of the `roles` warps
/// runs its own copy of the program, sliced to what it does.
struct WarpPlan {
  static constexpr int64_t warps = kProducerThreads / 32;
  llvm::DenseMap<Operation *, int64_t> issuingWarps; // loop without nested loops -> warps
  // A loop holding others: the warps 0.. issuing iterations of loops nested
  // in it.
  llvm::DenseMap<Operation *, int64_t> nestedWarps;
  int64_t aux = 0, roles = 1;

  WarpPlan(MutableArrayRef<std::pair<PipelinedOp, Body>> bodies, Fills &fills) {
    int64_t leafWarps = 1;
    bool needsAux = false;
    for (auto &[loop, body] : bodies) {
      if (body.nests) {
        needsAux = true;
        continue;
      }
      // (A cooperative loop's iterations are every group's: one warp.)
      int64_t n =
          loop.getGroups() <= warps && !cooperative(loop) ? int64_t(loop.getGroups()) : 1;
      issuingWarps[loop] = n;
      leafWarps = std::max(leafWarps, n);
    }
    for (auto &[fill, why] : fills)
      if (why.empty()) {
        Operation *loop = fill->getParentOfType<PipelinedOp>();
        needsAux |= !loop || !issuingWarps.count(loop);
      }
    aux = std::min(leafWarps, warps - 1);
    roles = needsAux ? std::max(leafWarps, aux + 1) : leafWarps;
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
  }

  /// A loop holding others: whether warp w, other than `aux`, issues
  /// iterations of loops nested in it, and so runs its body too and
  /// releases its stages (asked before the loops are rebuilt); its empty
  /// barriers count such warps.
  bool arrives(PipelinedOp loop, int64_t w) const {
    return w != aux && w < nestedWarps.lookup(loop);
  }
  int64_t participants(PipelinedOp loop) const {
    int64_t n = 0;
    for (int64_t w = 0; w < roles; ++w)
      n += arrives(loop, w);
    return n;
  }
  Share share(PipelinedOp loop, const Body &body, int64_t w) const {
    Share share;
    if (body.nests) {
      share.issues = w == aux;
      share.arrives = arrives(loop, w);
      share.alsoNested = w == aux && aux < nestedWarps.lookup(loop);
    } else {
      int64_t n = issuingWarps.lookup(loop);
      share.issues = w < n;
      share.group = w;
      share.groups = n;
    }
    return share;
  }
};

/// Each producer warp's copy of the compute block's program, under a test
/// of the warp's index; maps[w] maps the program's ops to warp w's.
SmallVector<IRMapping> cloneForWarps(const Roles &roles, int64_t warps, Location loc) {
  SmallVector<IRMapping> maps(warps);
  OpBuilder p = OpBuilder::atBlockEnd(roles.producer);
  Value warp = arith::DivUIOp::create(p, loc, roles.tid, constant(p, loc, 32));
  for (int64_t w = 0; w < warps; ++w) {
    Value mine =
        arith::CmpIOp::create(p, loc, arith::CmpIPredicate::eq, warp, constant(p, loc, w));
    auto role = IfOp::create(p, loc, TypeRange(), mine);
    OpBuilder r = OpBuilder::atBlockEnd(&role.getThenRegion().emplaceBlock());
    for (Operation &op : roles.compute->without_terminator())
      r.clone(op, maps[w]);
    YieldOp::create(r, loc);
  }
  YieldOp::create(p, loc);
  return maps;
}

/// The registers each side keeps (setmaxnreg, where the target can move
/// them), and the compute threads' ids moved past the producer's; returns
/// the compute thread id.
Value shareRegisters(KernelOp kernel, const Roles &roles) {
  Location loc = kernel.getLoc();
  int64_t threads = kernel.getNumThreads();
  const minitile::Target &target = targetOf(kernel);
  bool moveRegisters = target.has(minitile::Feature::setmaxnreg);
  OpBuilder c = OpBuilder::atBlockBegin(roles.compute);
  // The block's registers at launch: each thread's share of the file (the
  // most ptxas gives a kernel of this block size, with min_blocks_per_sm
  // blocks on a multiprocessor at once), which setmaxnreg moves: the
  // compute threads take what the producer's least leaves, the producer
  // what is left beside them (up to kProducerMaxRegisters).
  int64_t blockThreads = threads + kProducerThreads;
  int64_t launchRegisters =
      target.registersAtLaunch(blockThreads, kernel.getMinBlocksPerSm().value_or(1));
  int64_t pool = launchRegisters * blockThreads;
  int64_t producerLeast = kernel.getProducerRegisters().value_or(kProducerRegisters);
  int64_t computeRegisters =
      std::min<int64_t>(target.maxRegistersPerThread / 8 * 8,
                        (pool - kProducerThreads * producerLeast) / threads / 8 * 8);
  int64_t producerRegisters = std::min<int64_t>(
      (pool - computeRegisters * threads) / kProducerThreads / 8 * 8, kProducerMaxRegisters);
  // Nothing to move where the block's share is too small for the producer's
  // least beside more for the compute threads (many blocks a multiprocessor:
  // setmaxnreg takes 24 to 256, and .inc does not shrink a count).
  if (computeRegisters < launchRegisters || producerRegisters < 24)
    moveRegisters = false;
  if (moveRegisters)
    SetMaxNRegOp::create(c, loc, computeRegisters, /*increase=*/true);
  Value hw = ThreadIdOp::create(c, loc, Dim::x);
  Value computeTid = arith::SubIOp::create(c, loc, hw, constant(c, loc, kProducerThreads));
  roles.compute->walk([&](ThreadIdOp op) {
    if (op.getResult() != hw)
      op.getResult().replaceAllUsesWith(computeTid);
  });
  roles.compute->walk([&](ThreadIdOp op) {
    if (op.getResult().use_empty() && op.getResult() != hw)
      op.erase();
  });
  OpBuilder pb = OpBuilder::atBlockBegin(roles.producer);
  if (moveRegisters)
    SetMaxNRegOp::create(pb, loc, producerRegisters, /*increase=*/false);
  return computeTid;
}

/// A fill goes to the producer: to the warps issuing the loop it is in,
/// for their iterations, where that loop holds no other; else to `aux`'s
/// elected thread where it issues a pipelined loop's copies, to its first
/// thread outside. The compute threads keep one whose range the producer
/// cannot compute, on their first.
void placeFills(Fills &fills, const WarpPlan &plan, ArrayRef<IRMapping> maps,
                Value computeTid, Location loc) {
  for (auto &[fill, why] : fills) {
    Operation *loop = fill->getParentOfType<PipelinedOp>();
    bool everyWarp = loop && plan.issuingWarps.count(loop);
    for (int64_t w = 0; w < plan.roles; ++w) {
      auto twin = llvm::cast<FillAsyncOp>(maps[w].lookup(fill.getOperation()));
      if (!why.empty() || (!everyWarp && w != plan.aux)) {
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
}

/// What building each loop's sides shares: the producer's reads and keeps
/// for its slice, each group size's group index, and the continuous loops'
/// compute sides waiting for the loop around them.
struct LoopSides {
  LoopSides(KernelOp kernel, const WarpPlan &plan, ArrayRef<IRMapping> maps,
            const llvm::DenseMap<Operation *, PipelinedOp> &continuousIn, Value computeTid,
            OpBuilder &atCompute)
      : kernel(kernel), plan(plan), maps(maps), continuousIn(continuousIn),
        computeTid(computeTid), atCompute(atCompute) {}

  KernelOp kernel;
  const WarpPlan &plan;
  ArrayRef<IRMapping> maps;
  const llvm::DenseMap<Operation *, PipelinedOp> &continuousIn;
  Value computeTid;
  OpBuilder &atCompute; // where the group indices go
  ProducerReads reads;
  ProducerKeeps keeps;
  llvm::DenseMap<int64_t, Value> groups; // threads per group -> this thread's group
  // A continuous loop -> its body, ring and group, for the loop around it.
  llvm::DenseMap<Operation *, std::tuple<const Body *, Ring, Value>> streams;

  /// `loop`'s ring: `stages` full barriers (and early ones after them where
  /// the body has early copies) and empty ones counting the threads that
  /// read a stage and the producer warps that follow the loop.
  Ring ringOf(PipelinedOp loop, const Body &body) {
    Location loc = kernel.getLoc();
    int64_t threads = kernel.getNumThreads();
    // The threads of a group, and those that read each iteration's stage
    // (every group's, in a cooperative loop): its empty barriers count them.
    int64_t perGroup = threads / loop.getGroups();
    int64_t perIteration = cooperative(loop) ? threads : perGroup;
    // A loop whose stages are released one iteration late has a spare
    // empty barrier (see buildConsumer).
    int64_t spare = releasesLate(loop, body) ? 1 : 0;
    // (A ring with early barriers keeps them after its full ones: see Ring.)
    Ring ring;
    ring.stages = loop.getStages();
    // (Copies by lanes: the 32 lanes' arrivals besides the leader's.)
    ring.full = allocateBarriers(kernel, loop.getStages() * (body.early.empty() ? 1 : 2),
                                 body.lanes ? 1 + 32 : 1, loc);
    ring.generic = body.lanes;
    ring.empty = allocateBarriers(kernel, loop.getStages() + spare,
                                  perIteration + plan.participants(loop), loc);
    ring.early = !body.early.empty();
    for (Operation *p = loop->getParentOp(); !llvm::isa<KernelOp>(p); p = p->getParentOp())
      ring.runsVary |= llvm::isa<ForOp, PipelinedOp, WhileOp>(p);
    if (loop.getQueue())
      ring.slots = allocateQueueSlots(kernel, ring.stages, loc);
    return ring;
  }

  /// Each producer warp's side of `loop` (on a ring counting its own runs).
  LogicalResult buildProducers(PipelinedOp loop, const Body &body, const Ring &ring) {
    Ring producerRing = ring;
    producerRing.runs = newCounter(kernel, kernel.getLoc());
    SmallVector<Value> descs(body.copies.size());
    for (int64_t w = 0; w < plan.roles; ++w) {
      auto twin = llvm::cast<PipelinedOp>(maps[w].lookup(loop.getOperation()));
      Body twinBody;
      for (AllocSharedOp alloc : body.allocs)
        twinBody.allocs.push_back(alloc);
      for (CopyOp copy : body.copies)
        twinBody.copies.push_back(llvm::cast<CopyOp>(maps[w].lookup(copy.getOperation())));
      twinBody.nests = body.nests;
      twinBody.early = body.early;
      twinBody.lanes = body.lanes;
      Share share = plan.share(loop, body, w);
      if (failed(loop.getQueue()
                     ? buildQueueProducer(twin, twinBody, producerRing, share, descs, reads,
                                          keeps)
                     : buildProducer(twin, twinBody, producerRing, share, descs, reads)))
        return failure();
    }
    return success();
  }

  /// The compute side of `loop`, by its kind: one stream with its
  /// continuous loop, a queue's, a cooperative one, or a group's
  /// iterations; a continuous loop's waits for the loop around it.
  LogicalResult buildCompute(PipelinedOp loop, const Body &body, Ring &ring) {
    Location loc = kernel.getLoc();
    int64_t perGroup = kernel.getNumThreads() / loop.getGroups();
    // The compute side's count of earlier runs; a continuous loop and the
    // loop around it keep a cursor of their own instead (Continuous.cpp).
    if (!loop.getContinuous() && !continuousIn.contains(loop.getOperation()))
      ring.runs = newCounter(kernel, loc);
    auto [at, made] = groups.try_emplace(perGroup, Value());
    if (made)
      at->second = loop.getGroups() == 1 ? constant(atCompute, loc, 0)
                                         : groupIndex(atCompute, loc, computeTid, perGroup);
    // A continuous loop's compute side is built with the loop around it.
    if (loop.getContinuous()) {
      streams.try_emplace(loop.getOperation(), &body, ring, at->second);
      return success();
    }
    if (auto it = continuousIn.find(loop.getOperation()); it != continuousIn.end()) {
      PipelinedOp inner = it->second;
      auto &[innerBody, innerRing, innerGroup] = streams.find(inner.getOperation())->second;
      buildContinuousConsumer(loop, body, ring, inner, *innerBody, innerRing, innerGroup);
      return success();
    }
    if (loop.getQueue())
      buildQueueConsumer(loop, body, ring);
    else if (cooperative(loop))
      return buildCooperativeConsumer(loop, body, ring, at->second);
    else
      buildConsumer(loop, body, ring, at->second);
    return success();
  }
};

LogicalResult specialise(KernelOp kernel,
                         MutableArrayRef<std::pair<PipelinedOp, Body>> bodies) {
  Location loc = kernel.getLoc();
  Fills fills = classifyFills(kernel);
  llvm::DenseMap<Operation *, PipelinedOp> continuousIn = continuousStreams(bodies, fills);
  hoistTiles(kernel);
  Roles roles = splitRoles(kernel);
  WarpPlan plan(bodies, fills);
  SmallVector<IRMapping> maps = cloneForWarps(roles, plan.roles, loc);
  Value computeTid = shareRegisters(kernel, roles);
  placeFills(fills, plan, maps, computeTid, loc);

  // Group indices go after the compute threads' id (shareRegisters' ops).
  OpBuilder atCompute = OpBuilder::atBlockBegin(roles.compute);
  atCompute.setInsertionPointAfterValue(computeTid);
  LoopSides sides(kernel, plan, maps, continuousIn, computeTid, atCompute);
  for (auto &[loop, body] : bodies) {
    Ring ring = sides.ringOf(loop, body);
    if (failed(sides.buildProducers(loop, body, ring)) ||
        failed(sides.buildCompute(loop, body, ring)))
      return failure();
  }
  sliceProducer(roles.split.getThenRegion(), sides.reads, sides.keeps);

  kernel.setBlock({int32_t(kernel.getNumThreads() + kProducerThreads), 1, 1});
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
