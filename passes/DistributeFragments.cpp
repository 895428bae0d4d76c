//===- DistributeFragments.cpp - fragments to per-thread registers --------===//
//
// Expects: every fragment typed with a #tile.frag layout (tile-assign-layouts),
//          copies lowered (tile-lower-copies).
// Leaves:  no fragment values. Each fragment becomes the scalars one thread
//          holds, one per register of its layout; each op that touched
//          fragments is replaced by the scalar code its family
//          (passes/fragments/) writes. Registers of a gemm stay in flight on
//          the tensor cores until the first op that reads them, where a
//          wgmma wait is put.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/fragments/Fragments.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <array>

namespace minitile::tile {
#define GEN_PASS_DEF_TILEDISTRIBUTEFRAGMENTS
#include "passes/Passes.h.inc"
} // namespace minitile::tile

using namespace mlir;
using namespace minitile::tile;

namespace {

LogicalResult distribute(KernelOp kernel) {
  Distributor d(kernel);
  SmallVector<Operation *> ops, done;
  kernel.walk<WalkOrder::PreOrder>([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : ops) {
    if (auto wait = llvm::dyn_cast<minitile::hopper::WgmmaWaitOp>(op))
      if (wait.getPending() == 0)
        d.noteWait(op);
    if (!touchesFragments(op))
      continue;
    for (Value v : op->getResults())
      if (isFragment(v) && !d.layout(v))
        return op->emitOpError("has a fragment without a layout (run tile-assign-layouts)");
    const FragmentFamily *family = familyOf(op);
    if (!family)
      return op->emitOpError("does not take fragments");
    OpBuilder b(op);
    if (failed(family->distribute(op, d, b)))
      return failure();
    done.push_back(op);
  }
  // Users before their definitions; loops after their bodies.
  for (Operation *op : llvm::reverse(done)) {
    op->dropAllUses();
    op->erase();
  }
  return success();
}

struct DistributeFragments
    : minitile::tile::impl::TileDistributeFragmentsBase<DistributeFragments> {
  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<KernelOp>())
      if (failed(distribute(kernel)))
        return signalPassFailure();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Distributor
//===----------------------------------------------------------------------===//

namespace minitile::tile {

Value Distributor::index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value Distributor::vector(OpBuilder &b, Location loc, ArrayRef<Value> elements) {
  Value v = LLVM::PoisonOp::create(
      b, loc, VectorType::get({int64_t(elements.size())}, elements.front().getType()));
  for (auto [i, e] : llvm::enumerate(elements))
    v = LLVM::InsertElementOp::create(b, loc, v, e,
                                      arith::ConstantIntOp::create(b, loc, b.getI32Type(), i));
  return v;
}

Value Distributor::pair(OpBuilder &b, Location loc, Value lo, Value hi) {
  return vector(b, loc, {lo, hi});
}

OpBuilder::InsertPoint Distributor::invariantPoint(OpBuilder &b, ValueRange operands) {
  OpBuilder::InsertPoint point = b.saveInsertionPoint();
  for (Operation *op = b.getInsertionBlock()->getParentOp();
       op && llvm::isa<ForOp, PipelinedOp, WhileOp, IfOp>(op); op = op->getParentOp()) {
    bool invariant = llvm::all_of(operands, [&](Value v) {
      Region *r = v.getParentRegion();
      return !r || !op->isAncestor(r->getParentOp());
    });
    if (!invariant)
      break;
    if (!llvm::isa<IfOp>(op))
      point = OpBuilder::InsertPoint(op->getBlock(), Block::iterator(op));
  }
  return point;
}

const Registers &Distributor::registers(Value v) {
  return regs_[v.getAsOpaquePointer()];
}

void Distributor::markInFlight(ArrayRef<Value> regs, int group) {
  for (Value r : regs)
    inFlight_[r] = group;
}

/// Whether `op` comes before the insertion point of `b` on every path to it:
/// in the same block earlier, or before an ancestor of the point.
static bool precedes(Operation *op, OpBuilder &b) {
  Block *block = b.getInsertionBlock();
  Operation *at = b.getInsertionPoint() == block->end() ? nullptr : &*b.getInsertionPoint();
  while (block != op->getBlock()) {
    at = block->getParentOp();
    if (!at || !at->getBlock())
      return false;
    block = at->getBlock();
  }
  return !at || op->isBeforeInBlock(at);
}

const Registers &Distributor::read(OpBuilder &b, Location loc, Value v) {
  const Registers &regs = regs_[v.getAsOpaquePointer()];
  int group = 0;
  for (Value r : regs)
    group = std::max(group, groupOf(r));
  if (!group || llvm::any_of(waits_, [&](auto &w) {
        return w.second >= group && precedes(w.first, b);
      }))
    return regs;
  // The commits of later groups that come before this point on every path:
  // a wait for all but that many of the most recent groups completes
  // `group` (and every group started before the oldest of them), while they
  // run on. (Commits under an if or in an earlier iteration do not count.)
  int64_t pending = 0;
  int completes = groups_; // the groups before the oldest of them
  for (auto &[commit, started] : commits_)
    if (started > group && precedes(commit, b)) {
      ++pending;
      completes = std::min(completes, started - 1);
    }
  waits_.push_back({hopper::WgmmaWaitOp::create(b, loc, pending), completes});
  return regs;
}

/// The block at whose start thread geometry for code at `at` is computed:
/// that of the region, directly under the kernel, holding `at` (the compute
/// side of a warp-specialised kernel), or the kernel's entry block.
static Block *geometryBlock(Operation *at, KernelOp kernel) {
  Operation *top = at;
  while (top->getParentOp() != kernel.getOperation())
    top = top->getParentOp();
  if (top == at || top->getNumRegions() == 0)
    return &kernel.getBody().front();
  for (Region &region : top->getRegions())
    if (region.isAncestor(at->getParentRegion()))
      return &region.front();
  return &kernel.getBody().front();
}

std::pair<Value, Value> Distributor::laneAndWarp(OpBuilder &b, Location loc, int64_t warps) {
  Operation *at = b.getInsertionBlock()->getParentOp();
  if (b.getInsertionPoint() != b.getInsertionBlock()->end())
    at = &*b.getInsertionPoint();
  Block *block = geometryBlock(at, kernel_);
  auto key = std::make_pair(block, warps);
  auto it = geometry_.find(key);
  if (it != geometry_.end())
    return it->second;
  OpBuilder g(b.getContext());
  // After the allocations the kernel's entry starts with, and after a
  // setmaxnreg the block starts with (ptxas spills what is live across it).
  auto pos = block->begin();
  while (pos != block->end() &&
         llvm::isa<AllocSharedOp, AllocLocalOp, minitile::hopper::SetMaxNRegOp>(*pos))
    ++pos;
  g.setInsertionPoint(block, pos);
  Value tid = arith::SubIOp::create(g, loc, ThreadIdOp::create(g, loc, Dim::x),
                                    index(g, loc, kernel_.getProducerThreads()));
  Value lane = arith::RemUIOp::create(g, loc, tid, index(g, loc, 32));
  Value warp = arith::DivUIOp::create(g, loc, tid, index(g, loc, 32));
  warp = arith::RemUIOp::create(g, loc, warp, index(g, loc, warps));
  // Broadcast from lane 0: the same in every lane, which the assembler then
  // knows, so what derives from it may live in uniform registers.
  Type i32 = g.getI32Type();
  warp = arith::IndexCastOp::create(
      g, loc, g.getIndexType(),
      ShuffleIdxOp::create(g, loc, i32, arith::IndexCastOp::create(g, loc, i32, warp),
                           arith::ConstantIntOp::create(g, loc, i32, 0)));
  return geometry_[key] = {lane, warp};
}

/// `offset` plus, per dimension, basis[d] for each set bit of `id`.
static void addBits(OpBuilder &b, Location loc, SmallVector<Value> &offset, Value id,
                    unsigned bits, llvm::function_ref<ArrayRef<int64_t>(unsigned)> basis) {
  for (unsigned bit = 0; bit < bits; ++bit)
    for (unsigned d = 0; d < offset.size(); ++d) {
      if (!basis(bit)[d])
        continue;
      Value set = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, id, Distributor::index(b, loc, bit)),
          Distributor::index(b, loc, 1));
      Value term = arith::MulIOp::create(b, loc, set, Distributor::index(b, loc, basis(bit)[d]));
      offset[d] = arith::AddIOp::create(b, loc, offset[d], term);
    }
}

SmallVector<Value> Distributor::warpOffset(OpBuilder &b, Location loc, FragLayoutAttr layout) {
  auto [lane, warp] = laneAndWarp(b, loc, layout.getNumWarps());
  (void)lane;
  SmallVector<Value> offset(layout.getRank(), index(b, loc, 0));
  addBits(b, loc, offset, warp, layout.getNumWarpBits(),
          [&](unsigned bit) { return layout.warpBasis(bit); });
  return offset;
}

SmallVector<Value> Distributor::threadOffset(OpBuilder &b, Location loc, FragLayoutAttr layout) {
  auto [lane, warp] = laneAndWarp(b, loc, layout.getNumWarps());
  SmallVector<Value> offset(layout.getRank(), index(b, loc, 0));
  addBits(b, loc, offset, lane, 5, [&](unsigned bit) { return layout.laneBasis(bit); });
  addBits(b, loc, offset, warp, layout.getNumWarpBits(),
          [&](unsigned bit) { return layout.warpBasis(bit); });
  return offset;
}

LogicalResult Distributor::rename(Operation *op, Value from, Value to,
                                  llvm::function_ref<Coord(ArrayRef<int64_t>)> mapCoord) {
  FragLayoutAttr src = layout(from), dst = layout(to);
  std::map<Coord, int64_t> index;
  for (int64_t r = 0; r < src.getNumRegs(); ++r)
    index.emplace(src.coordinate(r, 0, 0), r);
  for (unsigned bit = 0; bit < 5; ++bit)
    if (mapCoord(dst.laneBasis(bit)) != Coord(src.laneBasis(bit)))
      return op->emitOpError("its operand's layout spreads lanes differently");
  for (unsigned bit = 0; bit < dst.getNumWarpBits(); ++bit)
    if (bit >= src.getNumWarpBits() ||
        mapCoord(dst.warpBasis(bit)) != Coord(src.warpBasis(bit)))
      return op->emitOpError("its operand's layout spreads warps differently");
  const Registers &in = registers(from);
  Registers out;
  for (int64_t r = 0; r < dst.getNumRegs(); ++r) {
    auto it = index.find(mapCoord(dst.coordinate(r, 0, 0)));
    if (it == index.end())
      return op->emitOpError("its operand's registers do not hold the elements it needs");
    out.push_back(in[it->second]);
  }
  define(to, out);
  return success();
}

const FragmentFamily *familyOf(Operation *op) {
  for (const FragmentFamily *f : {&gemmFamily(), &reductionFamily(), &memoryFamily(),
                                  &shapeFamily(), &loopFamily(), &elementwiseFamily()})
    if (f->handles(op))
      return f;
  return nullptr;
}

} // namespace minitile::tile
