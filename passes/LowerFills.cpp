//===- LowerFills.cpp - tile.fill_async to bulk copies of a shared tile ---===//
//
// Expects: tile.fill_async ops reached by every thread of the block, or
//          marked `single` where one thread alone reaches them (what
//          tile-warp-specialize leaves); run after tile-lower-copies, so that
//          the kernel's barrier-initialising prologue, if it has one, is
//          there to share.
// Leaves:  no tile.fill_async. Per kernel and per (element type, value) a
//          shared tile of kSourceBytes holding the value, written by every
//          thread at the kernel's start, fenced for the async proxy, before
//          the block-wide barrier of the prologue (or one of its own). Each
//          fill becomes, on its issuing thread (thread 0 of the block, unless
//          `single`) and where its range is not empty: single stores up to
//          the first 16-byte boundary (each under its own test, no loop),
//          bulk copies of the tile (hopper.bulk_store, at most kSourceBytes
//          each) for the aligned run, single stores for the rest, and a
//          hopper.bulk_commit; every thread waits for its groups' reads
//          (hopper.bulk_wait_read) before the kernel returns. On a target
//          without bulk copies the issuing thread stores the aligned run
//          itself, 16 bytes at a time (with a remark).
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/TmaCopies.h"

#include "llvm/ADT/MapVector.h"

namespace minitile::tile {
#define GEN_PASS_DEF_TILELOWERFILLS
#include "passes/Passes.h.inc"
} // namespace minitile::tile

using namespace mlir;
using namespace minitile::tile;
using namespace minitile::hopper;

namespace {

/// Bytes of each shared tile of a fill value: what one bulk copy moves at
/// most. Small beside a kernel's stages; a 64 KiB row takes 32 copies.
constexpr int64_t kSourceBytes = kFillSourceBytes;

Value constant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The kernel's block-wide barrier after its prologue (made here when there
/// is none): the source tiles are written just before it.
BarrierOp startBarrier(KernelOp kernel) {
  if (IfOp prologue = barrierPrologue(kernel))
    if (auto barrier = llvm::dyn_cast_or_null<BarrierOp>(prologue->getNextNode()))
      return barrier;
  Block &entry = kernel.getBody().front();
  Block::iterator at = entry.begin();
  while (llvm::isa<AllocSharedOp, AllocLocalOp>(*at))
    ++at;
  OpBuilder b(&entry, at);
  return BarrierOp::create(b, kernel.getLoc());
}

/// A shared tile of kSourceBytes holding `value`, written by every thread of
/// the block before `barrier` and fenced for the bulk copies that read it.
Value sourceTile(KernelOp kernel, TypedAttr value, BarrierOp barrier) {
  Location loc = kernel.getLoc();
  Type element = value.getType();
  int64_t bytes = elementBytes(element), lanes = 16 / bytes;
  OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
  auto type = SharedType::get(kernel.getContext(), {kSourceBytes / bytes}, element, 0);
  Value tile = AllocSharedOp::create(b, loc, type, 1);

  b.setInsertionPoint(barrier);
  Value tid = linearThreadId(b, loc, kernel.getBlock());
  int64_t threads = kernel.getNumThreads();
  Value v = arith::ConstantOp::create(b, loc, value);
  Value vec = SplatOp::create(b, loc, VectorType::get({lanes}, element), v);
  auto loop = ForOp::create(b, loc, arith::MulIOp::create(b, loc, tid, constant(b, loc, lanes)),
                            constant(b, loc, kSourceBytes / bytes),
                            constant(b, loc, threads * lanes));
  OpBuilder body = OpBuilder::atBlockBegin(&loop.getBody().front());
  SharedStoreOp::create(body, loc, vec, tile, constant(body, loc, 0), loop.getInductionVar());
  FenceProxyAsyncOp::create(b, loc);
  return tile;
}

/// A tile.for over [lo, hi) by `step` whose body `body` builds.
void forLoop(OpBuilder &b, Location loc, Value lo, Value hi, int64_t step,
             llvm::function_ref<void(OpBuilder &, Value)> body) {
  auto loop = ForOp::create(b, loc, lo, hi, constant(b, loc, step));
  OpBuilder in = OpBuilder::atBlockBegin(&loop.getBody().front());
  body(in, loop.getInductionVar());
}

/// The fill on its issuing thread: single stores at the unaligned ends, bulk
/// copies of `source` (or, without one, 16-byte stores) in between.
void emitFill(OpBuilder &outer, FillAsyncOp fill, Value source) {
  Location loc = fill.getLoc();
  Value t = fill.getTensor();
  Type element = fill.getValue().getType();
  int64_t bytes = elementBytes(element), lanes = 16 / bytes;
  Value lo = fill.getLo();
  // Nothing at all for an empty range (the issuing thread's time is the
  // producer's, between its copies).
  Value any = arith::CmpIOp::create(outer, loc, arith::CmpIPredicate::sgt, fill.getHi(), lo);
  auto nonEmpty = IfOp::create(outer, loc, TypeRange(), any);
  OpBuilder b = OpBuilder::atBlockEnd(&nonEmpty.getThenRegion().emplaceBlock());
  auto done = YieldOp::create(b, loc);
  b.setInsertionPoint(done);
  Value v = arith::ConstantOp::create(b, loc, fill.getValue());
  Value n = arith::SubIOp::create(b, loc, fill.getHi(), lo);
  Value head = arith::MinSIOp::create(
      b, loc, ElemsToAlignedOp::create(b, loc, b.getIndexType(), t, ValueRange{lo}, 16), n);
  Value bodyBegin = arith::AddIOp::create(b, loc, lo, head);
  Value runs = arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, n, head),
                                      constant(b, loc, lanes));
  Value bodyEnd = arith::AddIOp::create(
      b, loc, bodyBegin, arith::MulIOp::create(b, loc, runs, constant(b, loc, lanes)));
  Value stop = arith::AddIOp::create(b, loc, lo, n);
  // The `count` (< lanes) elements from `from`, each under its own test:
  // straight-line code, no loop for LLVM to unroll and strength-reduce
  // (the issuing thread may be a producer's, with few registers).
  auto ends = [&](Value from, Value count) {
    for (int64_t k = 0; k + 1 < lanes; ++k) {
      Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, constant(b, loc, k),
                                       count);
      auto store = IfOp::create(b, loc, TypeRange(), in);
      OpBuilder then = OpBuilder::atBlockEnd(&store.getThenRegion().emplaceBlock());
      Value at = arith::AddIOp::create(then, loc, from, constant(then, loc, k));
      StoreOp::create(then, loc, v, t, ValueRange{at});
      YieldOp::create(then, loc);
    }
  };
  ends(lo, head);
  if (source) {
    int64_t chunk = kSourceBytes / bytes;
    forLoop(b, loc, bodyBegin, bodyEnd, chunk, [&](OpBuilder &in, Value c) {
      Value count = arith::MinUIOp::create(in, loc, arith::SubIOp::create(in, loc, bodyEnd, c),
                                           constant(in, loc, chunk));
      Value size = arith::IndexCastOp::create(
          in, loc, in.getI32Type(), arith::MulIOp::create(in, loc, count, constant(in, loc, bytes)));
      BulkStoreOp::create(in, loc, source, t, ValueRange{c}, size);
    });
  } else {
    Value vec = SplatOp::create(b, loc, VectorType::get({lanes}, element), v);
    forLoop(b, loc, bodyBegin, bodyEnd, lanes,
            [&](OpBuilder &in, Value c) { StoreOp::create(in, loc, vec, t, ValueRange{c}); });
  }
  ends(bodyEnd, arith::SubIOp::create(b, loc, stop, bodyEnd));
  if (source)
    BulkCommitOp::create(b, loc);
}

struct LowerFills : minitile::tile::impl::TileLowerFillsBase<LowerFills> {
  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<KernelOp>()) {
      SmallVector<FillAsyncOp> fills;
      kernel.walk([&](FillAsyncOp fill) { fills.push_back(fill); });
      if (fills.empty())
        continue;
      const minitile::Target &target = targetOf(kernel);
      bool bulk = target.has(minitile::Feature::tma);
      llvm::MapVector<Attribute, Value> sources; // fill value -> its shared tile
      BarrierOp barrier = bulk ? startBarrier(kernel) : BarrierOp();
      for (FillAsyncOp fill : fills) {
        Location loc = fill.getLoc();
        Value source;
        if (bulk) {
          auto [at, made] = sources.try_emplace(fill.getValue(), Value());
          if (made)
            at->second = sourceTile(kernel, fill.getValue(), barrier);
          source = at->second;
        } else {
          fill.emitRemark("the issuing thread stores the range itself, 16 bytes at a time: ")
              << target.arch << " has no bulk copies";
        }
        OpBuilder b(fill);
        if (fill.getSingle()) {
          emitFill(b, fill, source);
        } else {
          Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              linearThreadId(b, loc, kernel.getBlock()),
                                              constant(b, loc, 0));
          auto issue = IfOp::create(b, loc, TypeRange(), first);
          OpBuilder then = OpBuilder::atBlockEnd(&issue.getThenRegion().emplaceBlock());
          emitFill(then, fill, source);
          YieldOp::create(then, loc);
        }
        fill.erase();
      }
      // The shared tiles stay until every bulk copy has read them.
      if (bulk)
        kernel.walk([&](ReturnOp ret) {
          OpBuilder b(ret);
          BulkWaitReadOp::create(b, ret.getLoc());
        });
    }
  }
};

} // namespace
