//===- ShapeOps.cpp - broadcast, reshape, transpose, convert_layout -------===//
//
// Layouts: reshape and transpose carry a layout both ways (the bases are
// re-indexed); a broadcast's source needs the result's layout without the
// repeated dimensions (their register bits dropped, their lanes and warps
// holding copies). convert_layout's two layouts are given.
// Distribution: broadcast, reshape and transpose rename registers (no
// instruction). convert_layout renames where only registers differ, moves
// values with warp shuffles where each element stays in its warp and the
// register a lane sends does not depend on the lane, and goes through shared
// memory otherwise.
//
//===----------------------------------------------------------------------===//
#include "passes/Barriers.h"
#include "passes/fragments/Fragments.h"

using namespace mlir;

namespace minitile::tile {

namespace {

class ShapeFamily : public FragmentFamily {
public:
  bool handles(Operation *op) const override {
    return llvm::isa<BroadcastOp, ReshapeOp, TransposeOp, ConvertLayoutOp>(op);
  }

  LogicalResult inferLayouts(Operation *op, LayoutSolver &s) const override {
    if (auto reshape = llvm::dyn_cast<ReshapeOp>(op)) {
      auto from = reshape.getSource().getType().getShape();
      auto to = reshape.getResult().getType().getShape();
      if (FragLayoutAttr l = s.get(reshape.getSource()))
        if (!s.get(reshape.getResult()) &&
            failed(s.set(reshape.getResult(), reshapeLayout(l, from, to), op)))
          return failure();
      if (FragLayoutAttr l = s.get(reshape.getResult()))
        s.require(reshape.getSourceMutable(), reshapeLayout(l, to, from));
      return success();
    }
    if (auto transpose = llvm::dyn_cast<TransposeOp>(op)) {
      if (FragLayoutAttr l = s.get(transpose.getSource()))
        if (!s.get(transpose.getResult()) &&
            failed(s.set(transpose.getResult(), transposeLayout(l, transpose.getPerm()), op)))
          return failure();
      if (FragLayoutAttr l = s.get(transpose.getResult()))
        s.require(transpose.getSourceMutable(), untransposeLayout(l, transpose.getPerm()));
      return success();
    }
    if (auto broadcast = llvm::dyn_cast<BroadcastOp>(op)) {
      if (FragLayoutAttr l = s.get(broadcast.getResult()))
        if (isFragment(broadcast.getSource()))
          s.require(broadcast.getSourceMutable(), broadcastSourceLayout(l, broadcast.getDims()));
      return success();
    }
    return success();
  }

  LogicalResult distribute(Operation *op, Distributor &d, OpBuilder &b) const override {
    if (auto x = llvm::dyn_cast<BroadcastOp>(op)) {
      if (!isFragment(x.getSource())) {
        d.define(x.getResult(), Registers(d.layout(x.getResult()).getNumRegs(), x.getSource()));
        return success();
      }
      ArrayRef<int64_t> dims = x.getDims();
      return d.rename(op, x.getSource(), x.getResult(), [&](ArrayRef<int64_t> c) {
        Coord out;
        for (int64_t dim : dims)
          out.push_back(c[dim]);
        return out;
      });
    }
    if (auto x = llvm::dyn_cast<ReshapeOp>(op)) {
      auto from = x.getSource().getType().getShape(), to = x.getResult().getType().getShape();
      return d.rename(op, x.getSource(), x.getResult(), [&](ArrayRef<int64_t> c) {
        int64_t linear = 0;
        for (unsigned dim = 0; dim < to.size(); ++dim)
          linear = linear * to[dim] + c[dim];
        Coord out(from.size());
        for (int dim = from.size() - 1; dim >= 0; --dim) {
          out[dim] = linear % from[dim];
          linear /= from[dim];
        }
        return out;
      });
    }
    if (auto x = llvm::dyn_cast<TransposeOp>(op)) {
      ArrayRef<int64_t> perm = x.getPerm();
      return d.rename(op, x.getSource(), x.getResult(), [&](ArrayRef<int64_t> c) {
        Coord out(c.size());
        for (unsigned i = 0; i < perm.size(); ++i)
          out[perm[i]] = c[i];
        return out;
      });
    }
    return convertLayout(llvm::cast<ConvertLayoutOp>(op), d, b);
  }

private:
  static bool sameBases(FragLayoutAttr a, FragLayoutAttr b, bool lanes) {
    if (a.getNumWarpBits() != b.getNumWarpBits())
      return false;
    for (unsigned bit = 0; bit < a.getNumWarpBits(); ++bit)
      if (a.warpBasis(bit) != b.warpBasis(bit))
        return false;
    if (lanes)
      for (unsigned bit = 0; bit < 5; ++bit)
        if (a.laneBasis(bit) != b.laneBasis(bit))
          return false;
    return true;
  }

  /// Where `layout` keeps the coordinate bit `basis` (one dimension, a power
  /// of two): {0 = register / 1 = lane, bit number}, or {-1, -1}.
  static std::pair<int, int> holder(FragLayoutAttr layout, ArrayRef<int64_t> basis) {
    for (unsigned bit = 0; bit < layout.getNumRegBits(); ++bit)
      if (layout.regBasis(bit) == basis)
        return {0, int(bit)};
    for (unsigned bit = 0; bit < 5; ++bit)
      if (layout.laneBasis(bit) == basis)
        return {1, int(bit)};
    return {-1, -1};
  }

  static LogicalResult convertLayout(ConvertLayoutOp op, Distributor &d, OpBuilder &b) {
    FragLayoutAttr src = d.layout(op.getSource()), dst = d.layout(op.getResult());
    if (sameBases(src, dst, /*lanes=*/true))
      return d.rename(op, op.getSource(), op.getResult(), [](ArrayRef<int64_t> c) {
        return Coord(c);
      });
    if (sameBases(src, dst, /*lanes=*/false) && succeeded(byShuffles(op, d, b)))
      return success();
    return throughShared(op, d, b);
  }

  /// Each destination register r of lane l is source register reg(r) of lane
  /// lane(r) ^ map(l): one shfl.idx per register, when the source register
  /// does not depend on the lane.
  static LogicalResult byShuffles(ConvertLayoutOp op, Distributor &d, OpBuilder &b) {
    FragLayoutAttr src = d.layout(op.getSource()), dst = d.layout(op.getResult());
    unsigned rank = src.getRank();
    auto split = [&](ArrayRef<int64_t> c, int64_t &reg, int64_t &lane) {
      reg = lane = 0;
      for (unsigned dim = 0; dim < rank; ++dim)
        for (int64_t v = 1; v <= c[dim] && v > 0; v <<= 1) {
          if (!(c[dim] & v))
            continue;
          Coord basis(rank, 0);
          basis[dim] = v;
          auto [kind, bit] = holder(src, basis);
          if (kind < 0)
            return false;
          (kind == 0 ? reg : lane) |= int64_t(1) << bit;
        }
      return true;
    };
    // The source lane bits each destination lane bit reaches.
    int64_t laneMap[5];
    for (unsigned bit = 0; bit < 5; ++bit) {
      int64_t reg, lane;
      if (!split(dst.laneBasis(bit), reg, lane) || reg)
        return failure();
      laneMap[bit] = lane;
    }
    Location loc = op.getLoc();
    auto [laneId, warp] = d.laneAndWarp(b, loc, dst.getNumWarps());
    (void)warp;
    // map(l) = xor of laneMap[bit] over the set bits of l.
    Value mapped = Distributor::index(b, loc, 0);
    for (unsigned bit = 0; bit < 5; ++bit) {
      if (!laneMap[bit])
        continue;
      Value set = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, laneId, Distributor::index(b, loc, bit)),
          Distributor::index(b, loc, 1));
      mapped = arith::XOrIOp::create(
          b, loc, mapped, arith::MulIOp::create(b, loc, set, Distributor::index(b, loc, laneMap[bit])));
    }
    const Registers &in = d.read(b, loc, op.getSource());
    Registers out;
    for (int64_t r = 0; r < dst.getNumRegs(); ++r) {
      int64_t reg, lane;
      if (!split(dst.coordinate(r, 0, 0), reg, lane))
        return failure();
      Value from = arith::XOrIOp::create(b, loc, mapped, Distributor::index(b, loc, lane));
      Value v = in[reg];
      Type t = v.getType();
      if (!t.isF32() && !t.isInteger(32))
        return failure();
      out.push_back(ShuffleIdxOp::create(b, loc, t, v,
                                         arith::IndexCastOp::create(b, loc, b.getI32Type(), from)));
    }
    d.define(op.getResult(), out);
    return success();
  }

  /// Every thread writes its registers to a scratch tile at their elements'
  /// row-major positions; after a barrier each reads the elements it needs.
  static LogicalResult throughShared(ConvertLayoutOp op, Distributor &d, OpBuilder &b) {
    KernelOp kernel = d.kernel();
    FragLayoutAttr src = d.layout(op.getSource()), dst = d.layout(op.getResult());
    Location loc = op.getLoc();
    if (dst.getNumWarps() * 32 != kernel.getNumComputeThreads()) {
      auto diag = op.emitOpError("moves elements between warps inside a group of a pipelined "
                                 "loop, which is not supported yet");
      if (llvm::any_of(op->getUsers(), [&](Operation *user) {
            auto gemm = llvm::dyn_cast<GemmOp>(user);
            return gemm && gemm.getA() == op.getResult();
          }))
        diag << " (the fragment is a gemm's A from registers, which wgmma reads in its "
                "A-operand layout, the layout of a gemm's result: compute it from a gemm's "
                "result element by element, or store it into a shared tile and pass the tile)";
      return diag;
    }
    auto type = op.getResult().getType();
    ArrayRef<int64_t> shape = type.getShape();
    Type element = type.getElementType();
    int64_t elements = type.getNumElements();
    OpBuilder entry = OpBuilder::atBlockBegin(&kernel.getBody().front());
    auto scratchType = SharedType::get(b.getContext(), {1, elements}, element, 0);
    Value scratch = AllocSharedOp::create(entry, loc, scratchType, 1);
    auto linear = [&](FragLayoutAttr l, ArrayRef<Value> offset, int64_t r) {
      Coord c = l.coordinate(r, 0, 0);
      Value at = Distributor::index(b, loc, 0);
      for (unsigned dim = 0; dim < shape.size(); ++dim)
        at = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, at, Distributor::index(b, loc, shape[dim])),
            arith::AddIOp::create(b, loc, offset[dim], Distributor::index(b, loc, c[dim])));
      return at;
    };
    const Registers &in = d.read(b, loc, op.getSource());
    SmallVector<Value> srcOffset = d.threadOffset(b, loc, src);
    Value zero = Distributor::index(b, loc, 0);
    for (int64_t r = 0; r < src.getNumRegs(); ++r)
      SharedStoreOp::create(b, loc, in[r], scratch, zero, linear(src, srcOffset, r));
    createComputeBarrier(b, loc, kernel);
    SmallVector<Value> dstOffset = d.threadOffset(b, loc, dst);
    Registers out;
    for (int64_t r = 0; r < dst.getNumRegs(); ++r)
      out.push_back(SharedLoadOp::create(b, loc, element, scratch, zero,
                                         linear(dst, dstOffset, r)));
    // The scratch tile is written again only after everyone has read it.
    createComputeBarrier(b, loc, kernel);
    d.define(op.getResult(), out);
    return success();
  }
};

} // namespace

const FragmentFamily &shapeFamily() {
  static ShapeFamily family;
  return family;
}

} // namespace minitile::tile
