//===- DistributeFragments.cpp - fragments to per-thread registers --------===//
//
// Expects: every fragment typed with a #tile.frag layout (tile-assign-layouts),
//          copies lowered (tile-lower-copies).
// Leaves:  no fragment values. Each fragment becomes the scalars one thread
//          holds, one per register of its layout:
//          - elementwise arith ops and splat constants: one scalar op per
//            register;
//          - broadcast, reshape, transpose: registers renamed (the layouts
//            were made to line up);
//          - iota, load_tile: each register's coordinate, from its register
//            bits and the thread's lane and warp; loads guarded by bounds;
//          - store_tile: one store per distinct element, by the one thread
//            whose copy bits are zero, guarded by bounds and mask;
//          - reduce: registers combined in the thread, then butterfly
//            shuffles across lanes, then shared memory across warps;
//          - gemm: per warpgroup, wgmma m64nNk16 over K with shared-memory
//            descriptors, fenced, committed and waited for.
//
//===----------------------------------------------------------------------===//
#include "passes/Barriers.h"
#include "passes/Layouts.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

#include <map>
#include <set>

namespace minitile::tile {
#define GEN_PASS_DEF_TILEDISTRIBUTEFRAGMENTS
#include "passes/Passes.h.inc"
} // namespace minitile::tile

using namespace mlir;
using namespace minitile::tile;
using namespace minitile::hopper;

namespace {

using Registers = SmallVector<Value>;
using Coord = SmallVector<int64_t>;

Value cidx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

class Distributor {
public:
  explicit Distributor(KernelOp kernel) : kernel_(kernel) {}

  LogicalResult run() {
    SmallVector<Operation *> ops;
    kernel_.walk<WalkOrder::PreOrder>([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops) {
      if (!touchesFragments(op))
        continue;
      OpBuilder b(op);
      if (failed(lower(op, b)))
        return failure();
      done_.push_back(op);
    }
    for (Operation *op : llvm::reverse(done_)) {
      op->dropAllUses();
      op->erase();
    }
    return success();
  }

private:
  static bool isFragment(Value v) { return llvm::isa<RankedTensorType>(v.getType()); }
  static bool touchesFragments(Operation *op) {
    return llvm::any_of(op->getOperands(), isFragment) ||
           llvm::any_of(op->getResults(), isFragment);
  }

  //===--------------------------------------------------------------------===//
  // Threads, lanes, warps
  //===--------------------------------------------------------------------===//

  /// The thread's lane and its warp among the `warps` warps executing here.
  std::pair<Value, Value> laneAndWarp(OpBuilder &b, Location loc, int64_t warps) {
    Value tid = arith::SubIOp::create(b, loc, ThreadIdOp::create(b, loc, Dim::x),
                                      cidx(b, loc, kernel_.getProducerThreads()));
    Value lane = arith::RemUIOp::create(b, loc, tid, cidx(b, loc, 32));
    Value warp = arith::DivUIOp::create(b, loc, tid, cidx(b, loc, 32));
    warp = arith::RemUIOp::create(b, loc, warp, cidx(b, loc, warps));
    return {lane, warp};
  }

  /// Per dimension, the coordinate offset of this thread's lane and warp.
  SmallVector<Value> threadOffset(OpBuilder &b, Location loc, FragLayoutAttr layout) {
    auto [lane, warp] = laneAndWarp(b, loc, layout.getNumWarps());
    SmallVector<Value> offset(layout.getRank(), cidx(b, loc, 0));
    auto add = [&](Value id, unsigned bit, ArrayRef<int64_t> basis) {
      for (unsigned d = 0; d < basis.size(); ++d) {
        if (!basis[d])
          continue;
        Value set = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, id, cidx(b, loc, bit)),
                                          cidx(b, loc, 1));
        Value term = arith::MulIOp::create(b, loc, set, cidx(b, loc, basis[d]));
        offset[d] = arith::AddIOp::create(b, loc, offset[d], term);
      }
    };
    for (unsigned bit = 0; bit < 5; ++bit)
      add(lane, bit, layout.laneBasis(bit));
    for (unsigned bit = 0; bit < layout.getNumWarpBits(); ++bit)
      add(warp, bit, layout.warpBasis(bit));
    return offset;
  }

  /// True in the one thread of each set of copies (its copy bits are zero).
  Value isOwner(OpBuilder &b, Location loc, FragLayoutAttr layout) {
    auto [lane, warp] = laneAndWarp(b, loc, layout.getNumWarps());
    int64_t laneMask = 0, warpMask = 0;
    auto zero = [](ArrayRef<int64_t> v) { return llvm::all_of(v, [](int64_t x) { return !x; }); };
    for (unsigned bit = 0; bit < 5; ++bit)
      if (zero(layout.laneBasis(bit)))
        laneMask |= 1 << bit;
    for (unsigned bit = 0; bit < layout.getNumWarpBits(); ++bit)
      if (zero(layout.warpBasis(bit)))
        warpMask |= 1 << bit;
    Value l = arith::AndIOp::create(b, loc, lane, cidx(b, loc, laneMask));
    Value w = arith::AndIOp::create(b, loc, warp, cidx(b, loc, warpMask));
    Value lw = arith::OrIOp::create(b, loc, l, w);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lw, cidx(b, loc, 0));
  }

  FragLayoutAttr layout(Value v) { return layoutOf(v.getType()); }
  Registers &regs(Value v) { return regs_[v.getAsOpaquePointer()]; }

  /// For each register of `to`, the register of `from` holding the element
  /// `mapCoord` maps its coordinate to; fails if the layouts disagree on
  /// lanes or warps.
  FailureOr<SmallVector<int64_t>>
  renaming(Operation *op, FragLayoutAttr from, FragLayoutAttr to,
           llvm::function_ref<Coord(ArrayRef<int64_t>)> mapCoord) {
    std::map<Coord, int64_t> index;
    for (int64_t r = 0; r < from.getNumRegs(); ++r)
      index.emplace(from.coordinate(r, 0, 0), r);
    for (unsigned bit = 0; bit < 5; ++bit)
      if (mapCoord(to.laneBasis(bit)) != Coord(from.laneBasis(bit)))
        return op->emitOpError("its operand's layout spreads lanes differently");
    for (unsigned bit = 0; bit < to.getNumWarpBits(); ++bit)
      if (bit >= from.getNumWarpBits() ||
          mapCoord(to.warpBasis(bit)) != Coord(from.warpBasis(bit)))
        return op->emitOpError("its operand's layout spreads warps differently");
    SmallVector<int64_t> result;
    for (int64_t r = 0; r < to.getNumRegs(); ++r) {
      auto it = index.find(mapCoord(to.coordinate(r, 0, 0)));
      if (it == index.end())
        return op->emitOpError("its operand's registers do not hold the elements it needs");
      result.push_back(it->second);
    }
    return result;
  }

  LogicalResult rename(Operation *op, Value from, Value to,
                       llvm::function_ref<Coord(ArrayRef<int64_t>)> mapCoord) {
    auto map = renaming(op, layout(from), layout(to), mapCoord);
    if (failed(map))
      return failure();
    Registers &src = regs(from);
    Registers out;
    for (int64_t r : *map)
      out.push_back(src[r]);
    regs(to) = out;
    return success();
  }

  //===--------------------------------------------------------------------===//
  // One op
  //===--------------------------------------------------------------------===//

  LogicalResult lower(Operation *op, OpBuilder &b) {
    Location loc = op->getLoc();
    for (Value v : op->getResults())
      if (isFragment(v) && !layout(v))
        return op->emitOpError("has a fragment without a layout (run tile-assign-layouts)");

    if (auto c = llvm::dyn_cast<arith::ConstantOp>(op)) {
      auto dense = llvm::cast<DenseElementsAttr>(c.getValue());
      Value scalar = arith::ConstantOp::create(
          b, loc, llvm::cast<TypedAttr>(dense.getSplatValue<Attribute>()));
      regs(c.getResult()) = Registers(layout(c.getResult()).getNumRegs(), scalar);
      return success();
    }
    if (op->getDialect() && op->getDialect()->getNamespace() == "arith" &&
        op->hasTrait<OpTrait::Elementwise>())
      return elementwise(op, b);
    if (auto x = llvm::dyn_cast<BroadcastOp>(op))
      return broadcast(x, b);
    if (auto x = llvm::dyn_cast<ReshapeOp>(op)) {
      auto from = x.getSource().getType().getShape(), to = x.getResult().getType().getShape();
      return rename(op, x.getSource(), x.getResult(), [&](ArrayRef<int64_t> c) {
        int64_t linear = 0;
        for (unsigned d = 0; d < to.size(); ++d)
          linear = linear * to[d] + c[d];
        Coord out(from.size());
        for (int d = from.size() - 1; d >= 0; --d) {
          out[d] = linear % from[d];
          linear /= from[d];
        }
        return out;
      });
    }
    if (auto x = llvm::dyn_cast<TransposeOp>(op)) {
      ArrayRef<int64_t> perm = x.getPerm();
      return rename(op, x.getSource(), x.getResult(), [&](ArrayRef<int64_t> c) {
        Coord out(c.size());
        for (unsigned i = 0; i < perm.size(); ++i)
          out[perm[i]] = c[i];
        return out;
      });
    }
    if (auto x = llvm::dyn_cast<IotaOp>(op))
      return iota(x, b);
    if (auto x = llvm::dyn_cast<LoadTileOp>(op))
      return loadTile(x, b);
    if (auto x = llvm::dyn_cast<StoreTileOp>(op))
      return storeTile(x, b);
    if (auto x = llvm::dyn_cast<ReduceOp>(op))
      return reduce(x, b);
    if (auto x = llvm::dyn_cast<GemmOp>(op))
      return gemm(x, b);
    return op->emitOpError("does not take fragments");
  }

  LogicalResult elementwise(Operation *op, OpBuilder &b) {
    Value result = op->getResult(0);
    Type element = llvm::cast<RankedTensorType>(result.getType()).getElementType();
    int64_t n = layout(result).getNumRegs();
    Registers out;
    for (int64_t r = 0; r < n; ++r) {
      OperationState state(op->getLoc(), op->getName());
      for (Value operand : op->getOperands())
        state.addOperands(isFragment(operand) ? regs(operand)[r] : operand);
      state.addTypes(element);
      state.addAttributes(op->getAttrs());
      out.push_back(b.create(state)->getResult(0));
    }
    regs(result) = out;
    return success();
  }

  LogicalResult broadcast(BroadcastOp op, OpBuilder &b) {
    int64_t n = layout(op.getResult()).getNumRegs();
    if (!isFragment(op.getSource())) {
      regs(op.getResult()) = Registers(n, op.getSource());
      return success();
    }
    ArrayRef<int64_t> dims = op.getDims();
    return rename(op, op.getSource(), op.getResult(), [&](ArrayRef<int64_t> c) {
      Coord out;
      for (int64_t d : dims)
        out.push_back(c[d]);
      return out;
    });
  }

  LogicalResult iota(IotaOp op, OpBuilder &b) {
    Location loc = op.getLoc();
    FragLayoutAttr l = layout(op.getResult());
    int64_t axis = op.getAxis();
    Value base = threadOffset(b, loc, l)[axis];
    Type element = op.getResult().getType().getElementType();
    Registers out;
    for (int64_t r = 0; r < l.getNumRegs(); ++r) {
      Value v = arith::AddIOp::create(b, loc, base, cidx(b, loc, l.coordinate(r, 0, 0)[axis]));
      out.push_back(element.isIndex() ? v : arith::IndexCastOp::create(b, loc, element, v));
    }
    regs(op.getResult()) = out;
    return success();
  }

  /// Tensor indices of register `r` of a box at `origin`, and whether they
  /// lie inside the tensor.
  std::pair<SmallVector<Value>, Value> elementAt(OpBuilder &b, Location loc, Value tensor,
                                               ValueRange origin, ArrayRef<Value> offset,
                                               ArrayRef<int64_t> coord) {
    SmallVector<Value> index;
    Value inside = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    for (unsigned d = 0; d < coord.size(); ++d) {
      Value i = arith::AddIOp::create(b, loc, origin[d],
                                      arith::AddIOp::create(b, loc, offset[d], cidx(b, loc, coord[d])));
      index.push_back(i);
      Value lo = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i, cidx(b, loc, 0));
      Value hi = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i,
                                       viewSize(b, tensor, d));
      inside = arith::AndIOp::create(b, loc, inside, arith::AndIOp::create(b, loc, lo, hi));
    }
    return {index, inside};
  }

  LogicalResult loadTile(LoadTileOp op, OpBuilder &b) {
    Location loc = op.getLoc();
    FragLayoutAttr l = layout(op.getResult());
    Type element = op.getResult().getType().getElementType();
    SmallVector<Value> offset = threadOffset(b, loc, l);
    TypedAttr padding = llvm::isa<FloatType>(element)
                            ? TypedAttr(b.getFloatAttr(element, op.getPadding().convertToDouble()))
                            : TypedAttr(b.getIntegerAttr(element, int64_t(op.getPadding().convertToDouble())));
    std::map<Coord, Value> loaded;
    Registers out;
    for (int64_t r = 0; r < l.getNumRegs(); ++r) {
      Coord c = l.coordinate(r, 0, 0);
      auto it = loaded.find(c);
      if (it == loaded.end()) {
        auto [index, inside] = elementAt(b, loc, op.getSource(), op.getIndices(), offset, c);
        auto guarded = IfOp::create(b, loc, TypeRange{element}, inside);
        OpBuilder then = OpBuilder::atBlockEnd(&guarded.getThenRegion().emplaceBlock());
        Value v = LoadOp::create(then, loc, element, op.getSource(), index);
        YieldOp::create(then, loc, ValueRange{v});
        OpBuilder otherwise = OpBuilder::atBlockEnd(&guarded.getElseRegion().emplaceBlock());
        YieldOp::create(otherwise, loc, ValueRange{arith::ConstantOp::create(otherwise, loc, padding)});
        it = loaded.emplace(c, guarded.getResult(0)).first;
      }
      out.push_back(it->second);
    }
    regs(op.getResult()) = out;
    return success();
  }

  LogicalResult storeTile(StoreTileOp op, OpBuilder &b) {
    Location loc = op.getLoc();
    FragLayoutAttr l = layout(op.getValue());
    if (op.getMask() && layout(op.getMask()) != l)
      return op.emitOpError("its mask's layout differs from its value's");
    SmallVector<Value> offset = threadOffset(b, loc, l);
    Value owner = isOwner(b, loc, l);
    std::set<Coord> stored;
    for (int64_t r = 0; r < l.getNumRegs(); ++r) {
      Coord c = l.coordinate(r, 0, 0);
      if (!stored.insert(c).second)
        continue;
      auto [index, inside] = elementAt(b, loc, op.getDest(), op.getIndices(), offset, c);
      Value pred = arith::AndIOp::create(b, loc, inside, owner);
      if (op.getMask())
        pred = arith::AndIOp::create(b, loc, pred, regs(op.getMask())[r]);
      auto guarded = IfOp::create(b, loc, TypeRange(), pred);
      OpBuilder then = OpBuilder::atBlockEnd(&guarded.getThenRegion().emplaceBlock());
      StoreOp::create(then, loc, regs(op.getValue())[r], op.getDest(), index);
      YieldOp::create(then, loc);
    }
    return success();
  }

  Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value x, Value y) {
    bool fl = llvm::isa<FloatType>(x.getType());
    switch (kind) {
    case ReduceKind::sum:
      return fl ? Value(arith::AddFOp::create(b, loc, x, y)) : Value(arith::AddIOp::create(b, loc, x, y));
    case ReduceKind::max:
      return fl ? Value(arith::MaximumFOp::create(b, loc, x, y)) : Value(arith::MaxSIOp::create(b, loc, x, y));
    case ReduceKind::min:
      return fl ? Value(arith::MinimumFOp::create(b, loc, x, y)) : Value(arith::MinSIOp::create(b, loc, x, y));
    }
    return x;
  }

  LogicalResult reduce(ReduceOp op, OpBuilder &b) {
    Location loc = op.getLoc();
    FragLayoutAttr src = layout(op.getSource());
    FragLayoutAttr dst = layout(op.getResult());
    int64_t axis = op.getAxis();
    ReduceKind kind = op.getKind();
    Registers &in = regs(op.getSource());
    Type element = op.getResult().getType().getElementType();
    if (!element.isF32() && !element.isInteger(32))
      return op.emitOpError("reduces f32 or i32 fragments, not ") << element;

    // In the thread: registers differing only in bits along the axis.
    SmallVector<unsigned> kept, reduced;
    for (unsigned bit = 0; bit < src.getNumRegBits(); ++bit)
      (src.regBasis(bit)[axis] ? reduced : kept).push_back(bit);
    Registers out;
    for (int64_t q = 0; q < (int64_t(1) << kept.size()); ++q) {
      int64_t base = 0;
      for (unsigned i = 0; i < kept.size(); ++i)
        if (q >> i & 1)
          base |= int64_t(1) << kept[i];
      Value acc;
      for (int64_t z = 0; z < (int64_t(1) << reduced.size()); ++z) {
        int64_t r = base;
        for (unsigned i = 0; i < reduced.size(); ++i)
          if (z >> i & 1)
            r |= int64_t(1) << reduced[i];
        acc = acc ? combine(b, loc, kind, acc, in[r]) : in[r];
      }
      out.push_back(acc);
    }
    // Across lanes: butterflies over the lane bits along the axis.
    for (unsigned bit = 0; bit < 5; ++bit)
      if (src.laneBasis(bit)[axis])
        for (Value &v : out)
          v = combine(b, loc, kind, v, ShuffleXorOp::create(b, loc, v.getType(), v, int64_t(1) << bit));
    // Across warps: through shared memory.
    SmallVector<unsigned> warpBits;
    for (unsigned bit = 0; bit < src.getNumWarpBits(); ++bit)
      if (src.warpBasis(bit)[axis])
        warpBits.push_back(bit);
    if (!warpBits.empty() && failed(reduceAcrossWarps(op, b, dst, warpBits, out)))
      return failure();
    regs(op.getResult()) = out;
    return success();
  }

  /// Each warp writes its partial results to shared memory; after a barrier
  /// every thread combines the partials of the warps along the axis.
  LogicalResult reduceAcrossWarps(ReduceOp op, OpBuilder &b, FragLayoutAttr dst,
                                  ArrayRef<unsigned> warpBits, Registers &out) {
    Location loc = op.getLoc();
    int64_t warps = layout(op.getSource()).getNumWarps();
    if (warps * 32 != kernel_.getNumComputeThreads())
      return op.emitOpError("reduces across warps inside a group of a pipelined loop, "
                            "which is not supported yet");
    auto shape = op.getResult().getType().getShape();
    int64_t elements = 1;
    for (int64_t d : shape)
      elements *= d;
    int64_t partials = int64_t(1) << warpBits.size();
    Type element = op.getResult().getType().getElementType();
    OpBuilder entry = OpBuilder::atBlockBegin(&kernel_.getBody().front());
    auto scratchType = SharedType::get(b.getContext(), {partials, elements}, element, 0);
    Value scratch = AllocSharedOp::create(entry, loc, scratchType, 1);

    auto [lane, warp] = laneAndWarp(b, loc, warps);
    (void)lane;
    Value slot = cidx(b, loc, 0);
    for (unsigned i = 0; i < warpBits.size(); ++i) {
      Value bitSet = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, warp, cidx(b, loc, warpBits[i])), cidx(b, loc, 1));
      slot = arith::OrIOp::create(b, loc, slot,
                                  arith::ShLIOp::create(b, loc, bitSet, cidx(b, loc, i)));
    }
    SmallVector<Value> offset = threadOffset(b, loc, dst);
    auto linear = [&](int64_t r) {
      Coord c = dst.coordinate(r, 0, 0);
      Value l = cidx(b, loc, 0);
      for (unsigned d = 0; d < shape.size(); ++d)
        l = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, l, cidx(b, loc, shape[d])),
            arith::AddIOp::create(b, loc, offset[d], cidx(b, loc, c[d])));
      return l;
    };
    for (int64_t r = 0; r < int64_t(out.size()); ++r)
      SharedStoreOp::create(b, loc, out[r], scratch, slot, linear(r));
    createComputeBarrier(b, loc, kernel_);
    for (int64_t r = 0; r < int64_t(out.size()); ++r) {
      Value acc;
      for (int64_t p = 0; p < partials; ++p) {
        Value v = SharedLoadOp::create(b, loc, element, scratch, cidx(b, loc, p), linear(r));
        acc = acc ? combine(b, loc, op.getKind(), acc, v) : v;
      }
      out[r] = acc;
    }
    createComputeBarrier(b, loc, kernel_);
    return success();
  }

  LogicalResult gemm(GemmOp op, OpBuilder &b) {
    Location loc = op.getLoc();
    const minitile::Target &target = targetOf(op);
    if (!target.has(minitile::Feature::wgmma))
      return op.emitOpError("runs on wgmma, which ") << target.arch << " does not have";
    SharedType a = op.getA().getType(), bt = op.getB().getType();
    if (!op.getTransposeB())
      return op.emitOpError("needs B stored [N, K] (transpose_b); [K, N] is not supported yet");
    if (a.getSwizzle() != 128 || bt.getSwizzle() != 128)
      return op.emitOpError("needs operand tiles with a 128-byte swizzle (rows of a "
                            "multiple of 128 bytes, a multiple of 8 rows)");
    if (!a.getElementType().isBF16())
      return op.emitOpError("multiplies bf16 tiles, not ") << a.getElementType();
    FragLayoutAttr acc = layout(op.getResult());
    int64_t M = a.getShape()[0], K = a.getShape()[1], N = bt.getShape()[0];
    if (K % 16)
      return op.emitOpError("needs K a multiple of 16, not ") << K;
    int64_t warps = acc.getNumWarps();
    auto [lane, warp] = laneAndWarp(b, loc, warps);
    (void)lane;
    Value group = arith::DivUIOp::create(b, loc, warp, cidx(b, loc, 4));
    int64_t panelsA = M * 128, panelsB = N * 128; // bytes per 64-column panel
    Value rowOffset = arith::MulIOp::create(b, loc, group, cidx(b, loc, 64 * 128));
    Type f32 = b.getF32Type();
    Registers d;
    if (op.getAcc())
      d = regs(op.getAcc());
    else
      d = Registers(N / 2, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0)));
    WgmmaFenceOp::create(b, loc);
    for (int64_t k = 0; k < K / 16; ++k) {
      int64_t inPanel = (k % 4) * 32;
      Value offA = arith::AddIOp::create(b, loc, rowOffset, cidx(b, loc, (k / 4) * panelsA + inPanel));
      Type i64 = b.getI64Type();
      Value descA = WgmmaDescOp::create(b, loc, i64, op.getA(), offA, 1024);
      Value descB = WgmmaDescOp::create(b, loc, i64, op.getB(),
                                        cidx(b, loc, (k / 4) * panelsB + inPanel), 1024);
      auto mma = WgmmaOp::create(b, loc, SmallVector<Type>(N / 2, f32), descA, descB, d, N,
                                 /*zero_acc=*/k == 0 && !op.getAcc());
      d = Registers(mma.getResults().begin(), mma.getResults().end());
    }
    WgmmaCommitOp::create(b, loc);
    WgmmaWaitOp::create(b, loc, 0);
    if (int64_t(d.size()) != acc.getNumRegs())
      return op.emitOpError("its layout has ") << acc.getNumRegs() << " registers, wgmma "
                                                << d.size();
    regs(op.getResult()) = d;
    return success();
  }

  KernelOp kernel_;
  llvm::DenseMap<void *, Registers> regs_;
  SmallVector<Operation *> done_;
};

struct DistributeFragments
    : minitile::tile::impl::TileDistributeFragmentsBase<DistributeFragments> {
  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<KernelOp>())
      if (failed(Distributor(kernel).run()))
        return signalPassFailure();
  }
};

} // namespace
