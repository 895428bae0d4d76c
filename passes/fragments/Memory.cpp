//===- Memory.cpp - load_tile and store_tile ------------------------------===//
//
// load_tile (global tensors), shared_load_tile, store_tile and
// shared_store_tile.
// Layouts: a loaded fragment takes the layout its users need; a store's mask
// goes with its value.
// Distribution: each register's element is loaded or stored with its bounds
// checked (and the mask, for stores). Where a layout holds copies of an
// element on several lanes, a store does not let one lane store them all:
// the copy lanes split the registers between them, each storing a different
// element (selected from its registers by its lane bits), so a warp writes
// neighbouring elements in one instruction. A store into a shared tile is
// collective: its threads meet at a barrier after the stores (the tile is
// whole for its next reader), and before them where a reader of the tile
// may have run before (so none still reads the old contents); the stores
// are vectors of a thread's consecutive elements where the box lies inside
// the tile at a constant origin, else one element at a time, inside the
// tile only. A store_tile that adds (`add`) makes the same stores into
// reductions (tile.store add: red.global.add, vectors included); one into
// gathered rows reads each row's index once per row a thread holds, and
// leaves rows without one alone.
//
//===----------------------------------------------------------------------===//
#include "passes/Barriers.h"
#include "passes/TmaCopies.h"
#include "passes/fragments/Fragments.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <map>

using namespace mlir;

namespace minitile::tile {

namespace {

/// Whether index `i` of dimension `dim` lies inside `tensor`.
Value within(OpBuilder &b, Location loc, Value tensor, unsigned dim, Value i) {
  Value lo =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i, Distributor::index(b, loc, 0));
  Value hi = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, viewSize(b, tensor, dim));
  return arith::AndIOp::create(b, loc, lo, hi);
}

/// Tensor indices of the element at `coord` of a box at `origin` (this
/// thread's `offset` added), and whether it lies inside the tensor.
std::pair<SmallVector<Value>, Value> elementAt(OpBuilder &b, Location loc, Value tensor,
                                               ValueRange origin, ArrayRef<Value> offset,
                                               ArrayRef<int64_t> coord) {
  SmallVector<Value> index;
  Value inside = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  for (unsigned d = 0; d < coord.size(); ++d) {
    Value i = arith::AddIOp::create(
        b, loc, origin[d],
        arith::AddIOp::create(b, loc, offset[d], Distributor::index(b, loc, coord[d])));
    index.push_back(i);
    inside = arith::AndIOp::create(b, loc, inside, within(b, loc, tensor, d, i));
  }
  return {index, inside};
}

/// Whether a vector of `lanes` elements from `tensor[index]` on is aligned
/// to its size and starts at a column that is a multiple of `lanes`; with
/// the last dimension a multiple of `lanes` too (lastDimensionOfVectors),
/// each such vector is wholly inside the tensor or wholly outside.
Value alignedVector(OpBuilder &b, Location loc, Value tensor, ValueRange index,
                    int64_t lanes) {
  Type element = llvm::cast<GlobalTensorType>(tensor.getType()).getElementType();
  Value zero = Distributor::index(b, loc, 0);
  Value gap = ElemsToAlignedOp::create(
      b, loc, b.getIndexType(), tensor, index,
      b.getI64IntegerAttr(lanes * element.getIntOrFloatBitWidth() / 8));
  Value aligned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, gap, zero);
  Value column = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::AndIOp::create(b, loc, index.back(), Distributor::index(b, loc, lanes - 1)), zero);
  return arith::AndIOp::create(b, loc, aligned, column);
}

/// Whether the last dimension of `tensor` is a multiple of `lanes`.
Value lastDimensionOfVectors(OpBuilder &b, Location loc, Value tensor, int64_t lanes) {
  unsigned last = llvm::cast<GlobalTensorType>(tensor.getType()).getRank() - 1;
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::AndIOp::create(b, loc, viewSize(b, tensor, last),
                            Distributor::index(b, loc, lanes - 1)),
      Distributor::index(b, loc, 0));
}

/// `load` (built in the then-branch) where `inside`, else `padding`.
Value loadOrPad(OpBuilder &b, Location loc, Value inside, Type element, TypedAttr padding,
                llvm::function_ref<Value(OpBuilder &)> load) {
  auto guarded = IfOp::create(b, loc, TypeRange{element}, inside);
  OpBuilder then = OpBuilder::atBlockEnd(&guarded.getThenRegion().emplaceBlock());
  YieldOp::create(then, loc, ValueRange{load(then)});
  OpBuilder otherwise = OpBuilder::atBlockEnd(&guarded.getElseRegion().emplaceBlock());
  YieldOp::create(otherwise, loc, ValueRange{arith::ConstantOp::create(otherwise, loc, padding)});
  return guarded.getResult(0);
}

/// A load's padding attribute as a constant of the element type.
TypedAttr paddingOf(OpBuilder &b, Type element, llvm::APFloat padding) {
  return llvm::isa<FloatType>(element)
             ? TypedAttr(b.getFloatAttr(element, padding.convertToDouble()))
             : TypedAttr(b.getIntegerAttr(element, int64_t(padding.convertToDouble())));
}

bool isZero(ArrayRef<int64_t> basis) {
  return llvm::all_of(basis, [](int64_t x) { return x == 0; });
}

/// The shared tile's element at `indices` + `offset` + `c` (a register's
/// coordinate): its row (the outer indices flattened, as tile.shared_load
/// and tile.shared_store count them) and column, and whether it is inside
/// the tile of `shape` (not computed, true, when `known` says it is).
struct SharedElement {
  Value row, col, inside;
};
SharedElement sharedElementAt(OpBuilder &b, Location loc, ValueRange indices,
                              ArrayRef<Value> offset, const Coord &c, ArrayRef<int64_t> shape,
                              bool known = false) {
  SharedElement e{Distributor::index(b, loc, 0), Value(),
                  arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1)};
  for (unsigned dim = 0; dim < c.size(); ++dim) {
    Value i = arith::AddIOp::create(
        b, loc, indices[dim],
        arith::AddIOp::create(b, loc, offset[dim], Distributor::index(b, loc, c[dim])));
    if (!known) {
      Value lo = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i,
                                       Distributor::index(b, loc, 0));
      Value hi = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i,
                                       Distributor::index(b, loc, shape[dim]));
      e.inside = arith::AndIOp::create(b, loc, e.inside, arith::AndIOp::create(b, loc, lo, hi));
    }
    if (dim + 1 < c.size())
      e.row = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, e.row, Distributor::index(b, loc, shape[dim])), i);
    else
      e.col = i;
  }
  return e;
}

/// Where a store_tile's elements go: the origin to index from and, for
/// gathered rows, whether the element's row has an index. A gathered
/// row's index is read once per row coordinate of the thread's elements.
class StoreTargets {
public:
  StoreTargets(StoreTileOp op, ArrayRef<Value> offset) : op(op), offset(offset) {}

  std::pair<SmallVector<Value>, Value> at(OpBuilder &b, Location loc, const Coord &c) {
    SmallVector<Value> origin(op.getIndices());
    if (!op.getRows())
      return {origin, Value()};
    auto [it, fresh] = rows.try_emplace(c[0]);
    if (fresh) {
      // The fragment row, its slot in the index tensor, and the index
      // there (-1 past the tensor's end).
      Value row = arith::AddIOp::create(b, loc, offset[0], Distributor::index(b, loc, c[0]));
      Value picked =
          rowIndexOrNone(b, loc, op.getRows(), op.getRowIndices(), row, b.getIndexType());
      // elementAt adds the row back: origin + row = indices[0] + picked.
      it->second.first = arith::SubIOp::create(
          b, loc, arith::AddIOp::create(b, loc, origin[0], picked), row);
      it->second.second = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, picked,
                                                Distributor::index(b, loc, 0));
    }
    origin[0] = it->second.first;
    return {origin, it->second.second};
  }

private:
  StoreTileOp op;
  ArrayRef<Value> offset;
  std::map<int64_t, std::pair<Value, Value>> rows;
};

class MemoryFamily : public FragmentFamily {
public:
  bool handles(Operation *op) const override {
    return llvm::isa<LoadTileOp, SharedLoadTileOp, StoreTileOp, SharedStoreTileOp>(op);
  }

  LogicalResult inferLayouts(Operation *op, LayoutSolver &s) const override {
    auto store = llvm::dyn_cast<StoreTileOp>(op);
    if (!store || !store.getMask())
      return success();
    if (FragLayoutAttr l = s.get(store.getValue()))
      s.require(store.getMaskMutable()[0], l);
    else if (FragLayoutAttr l = s.get(store.getMask()))
      s.require(store.getValueMutable(), l);
    return success();
  }

  LogicalResult distribute(Operation *op, Distributor &d, OpBuilder &b) const override {
    if (auto load = llvm::dyn_cast<SharedLoadTileOp>(op))
      return loadSharedTile(load, d, b);
    if (auto store = llvm::dyn_cast<SharedStoreTileOp>(op))
      return storeSharedTile(store, d, b);
    // Bounds come from the view's sizes; a tensor chosen at run time (by
    // tile.if, say) has none to read.
    Value tensor = llvm::isa<LoadTileOp>(op) ? llvm::cast<LoadTileOp>(op).getSource()
                                             : llvm::cast<StoreTileOp>(op).getDest();
    if (!rootView(tensor))
      return op->emitOpError("accesses a tensor that is not a tile.view (or a slice of "
                             "one), whose sizes are unknown here; choose between indices "
                             "into one view instead");
    if (auto load = llvm::dyn_cast<LoadTileOp>(op))
      return loadTile(load, d, b);
    auto store = llvm::cast<StoreTileOp>(op);
    if (store.getRows() && !rootView(store.getRows()))
      return op->emitOpError("writes rows picked by an index tensor that is not a tile.view "
                             "(or a slice of one), whose sizes are unknown here");
    return storeTile(store, d, b);
  }

private:
  static LogicalResult loadTile(LoadTileOp op, Distributor &d, OpBuilder &b) {
    Location loc = op.getLoc();
    FragLayoutAttr l = d.layout(op.getResult());
    Type element = op.getResult().getType().getElementType();
    SmallVector<Value> offset = d.threadOffset(b, loc, l);
    TypedAttr padding = paddingOf(b, element, op.getPadding());
    std::map<Coord, Value> loaded;
    // Whole rows: a thread's consecutive innermost elements come in as one
    // vector load of up to 16 bytes where all are inside and the address is
    // aligned (else one by one, padded, as below).
    // Every vector is loaded before any is taken apart, so that the loads
    // are all in flight before the first use waits for one.
    if (int64_t lanes = vectorLanes(l, 0, element); lanes > 1) {
      std::map<Coord, Value> vectors;
      for (int64_t r = 0; r < l.getNumRegs(); r += lanes) {
        Coord c = l.coordinate(r, 0, 0);
        if (!vectors.count(c))
          vectors.emplace(c, loadVector(b, loc, op, lanes, c, offset, padding));
      }
      for (auto &[c, vec] : vectors)
        for (int64_t i = 0; i < lanes; ++i) {
          Coord ci = c;
          ci.back() += i;
          loaded.emplace(ci, LLVM::ExtractElementOp::create(
                                 b, loc, vec, arith::ConstantIntOp::create(b, loc, b.getI32Type(), i)));
        }
    }
    Registers out;
    for (int64_t r = 0; r < l.getNumRegs(); ++r) {
      Coord c = l.coordinate(r, 0, 0);
      auto it = loaded.find(c);
      if (it == loaded.end()) {
        auto [index, inside] = elementAt(b, loc, op.getSource(), op.getIndices(), offset, c);
        Value v = loadOrPad(b, loc, inside, element, padding, [&](OpBuilder &then) {
          return LoadOp::create(then, loc, element, op.getSource(), index);
        });
        it = loaded.emplace(c, v).first;
      }
      out.push_back(it->second);
    }
    d.define(op.getResult(), out);
    return success();
  }

  /// Each register's element from the shared tile (row: the outer indices
  /// flattened, as tile.shared_load counts them), `padding` outside it.
  static LogicalResult loadSharedTile(SharedLoadTileOp op, Distributor &d, OpBuilder &b) {
    Location loc = op.getLoc();
    FragLayoutAttr l = d.layout(op.getResult());
    Type element = op.getResult().getType().getElementType();
    ArrayRef<int64_t> shape = op.getTile().getType().getShape();
    SmallVector<Value> offset = d.threadOffset(b, loc, l);
    TypedAttr padding = paddingOf(b, element, op.getPadding());
    std::map<Coord, Value> loaded;
    Registers out;
    for (int64_t r = 0; r < l.getNumRegs(); ++r) {
      Coord c = l.coordinate(r, 0, 0);
      auto it = loaded.find(c);
      if (it == loaded.end()) {
        auto [row, col, inside] =
            sharedElementAt(b, loc, op.getIndices(), offset, c, shape);
        Value v = loadOrPad(b, loc, inside, element, padding, [&](OpBuilder &then) {
          return SharedLoadOp::create(then, loc, element, op.getTile(), row, col);
        });
        it = loaded.emplace(c, v).first;
      }
      out.push_back(it->second);
    }
    d.define(op.getResult(), out);
    return success();
  }

  /// Whether `reader` may run before `op` in one run of the kernel: a loop
  /// holds both, or it comes first.
  static bool mayRunBefore(Operation *reader, Operation *op) {
    for (Operation *p = op->getParentOp(); p && !llvm::isa<KernelOp>(p); p = p->getParentOp())
      if (!llvm::isa<IfOp>(p) && p->isAncestor(reader))
        return true;
    for (Operation *a = op; a && !llvm::isa<KernelOp>(a); a = a->getParentOp())
      if (Operation *r = a->getBlock()->findAncestorOpInBlock(*reader))
        return r != a && r->isBeforeInBlock(a);
    return false;
  }

  /// Whether something may read `op`'s tile before `op` writes it (another
  /// thread then needs a barrier before overwriting what it reads): a gemm,
  /// a wgmma's descriptor, a load, an atomic -- anything but a write. A
  /// stage of a ring, whose stages the uses do not tell apart, counts as
  /// read in any loop.
  static bool readBefore(SharedStoreTileOp op) {
    Value tile = op.getTile();
    if (!tile.getDefiningOp<AllocSharedOp>()) {
      for (Operation *p = op->getParentOp(); p && !llvm::isa<KernelOp>(p); p = p->getParentOp())
        if (!llvm::isa<IfOp>(p))
          return true;
    }
    for (Operation *user : tile.getUsers()) {
      if (user == op.getOperation() ||
          llvm::isa<SharedStoreOp, SharedStoreTileOp, CopyOp, hopper::TmaLoadOp>(user))
        continue;
      if (mayRunBefore(user, op))
        return true;
    }
    return false;
  }

  /// A fragment of 16-bit elements whose 8 x 8 blocks are each in the
  /// layout of an mma accumulator (lane l: row l / 4, columns 2 (l % 4) and
  /// 2 (l % 4) + 1; register bit 0 the pair), or in its transpose, into a
  /// rank-2 tile at constant `origin`: hopper.stmatrix, four blocks an
  /// instruction (a gemm's result cast to bf16, 64 x 64 over a warpgroup,
  /// is four a warp; transposed, as the indexer's backward stores p^T for
  /// its third gemm, the same four with `trans`). Returns false, building
  /// nothing, for any other layout or target, which the stores element by
  /// element take.
  static bool storeMatrices(SharedStoreTileOp op, Distributor &d, OpBuilder &b,
                            FragLayoutAttr l, ArrayRef<int64_t> origin,
                            const Registers &values) {
    Type element = op.getValue().getType().getElementType();
    if (!targetOf(op).has(minitile::Feature::stmatrix) || !element.isIntOrFloat() ||
        element.getIntOrFloatBitWidth() != 16 || l.getRank() != 2 ||
        op.getTile().getType().getShape().size() != 2 || origin[1] % 8 ||
        l.getNumRegBits() < 1)
      return false;
    auto unit = [](unsigned dim, int64_t v) {
      Coord c(2, 0);
      c[dim] = v;
      return c;
    };
    // `pairs`: the dimension register bit 0 and lane bits 0-1 step along;
    // the lanes' other three bits step along the other one. Columns: the
    // plain layout; rows: the transposed one.
    std::optional<bool> trans;
    for (unsigned pairs : {1u, 0u}) {
      bool ok = Coord(l.regBasis(0)) == unit(pairs, 1) &&
                Coord(l.laneBasis(0)) == unit(pairs, 2) &&
                Coord(l.laneBasis(1)) == unit(pairs, 4);
      for (unsigned bit = 2; ok && bit < 5; ++bit)
        ok = Coord(l.laneBasis(bit)) == unit(1 - pairs, int64_t(1) << (bit - 2));
      if (ok)
        trans = pairs == 0;
    }
    if (!trans)
      return false;
    // The other register bits, and the warps, move whole blocks.
    auto blockStep = [](ArrayRef<int64_t> basis) {
      return basis[0] % 8 == 0 && basis[1] % 8 == 0 && (basis[0] || basis[1]);
    };
    SmallVector<unsigned> blockBits;
    for (unsigned bit = 1; bit < l.getNumRegBits(); ++bit) {
      if (!blockStep(l.regBasis(bit)))
        return false;
      blockBits.push_back(bit);
    }
    for (unsigned bit = 0; bit < l.getNumWarpBits(); ++bit)
      if (!blockStep(l.warpBasis(bit)))
        return false;
    Location loc = op.getLoc();
    auto [lane, warp] = d.laneAndWarp(b, loc, l.getNumWarps());
    (void)warp;
    auto bitOf = [&](Value id, unsigned bit) {
      return arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, id, Distributor::index(b, loc, bit)),
          Distributor::index(b, loc, 1));
    };
    auto addScaled = [&](Value to, Value bit, int64_t by) {
      return by ? arith::AddIOp::create(
                      b, loc, to,
                      arith::MulIOp::create(b, loc, bit, Distributor::index(b, loc, by)))
                : to;
    };
    // Lane l names row l % 8 of the block that its bits 3 and 4 pick (the
    // first two block bits: the x4's four blocks).
    unsigned picked = std::min<unsigned>(2, blockBits.size());
    SmallVector<Value> warpAt = d.warpOffset(b, loc, l);
    Value row = arith::AddIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, Distributor::index(b, loc, origin[0]),
                              arith::AndIOp::create(b, loc, lane, Distributor::index(b, loc, 7))),
        warpAt[0]);
    Value col = arith::AddIOp::create(b, loc, Distributor::index(b, loc, origin[1]), warpAt[1]);
    for (unsigned i = 0; i < picked; ++i) {
      Value set = bitOf(lane, 3 + i);
      row = addScaled(row, set, l.regBasis(blockBits[i])[0]);
      col = addScaled(col, set, l.regBasis(blockBits[i])[1]);
    }
    Type i32 = b.getI32Type();
    // One stmatrix for each setting of the remaining block bits.
    for (int64_t rest = 0; rest < int64_t(1) << (blockBits.size() - picked); ++rest) {
      int64_t base = 0;
      for (unsigned i = picked; i < blockBits.size(); ++i)
        if (rest >> (i - picked) & 1)
          base |= int64_t(1) << blockBits[i];
      Coord at = l.coordinate(base, 0, 0);
      SmallVector<Value> matrices;
      for (int64_t m = 0; m < int64_t(1) << picked; ++m) {
        int64_t r = base;
        for (unsigned i = 0; i < picked; ++i)
          if (m >> i & 1)
            r |= int64_t(1) << blockBits[i];
        matrices.push_back(LLVM::BitcastOp::create(
            b, loc, i32, Distributor::pair(b, loc, values[r], values[r | 1])));
      }
      hopper::StMatrixOp::create(
          b, loc, matrices, op.getTile(),
          arith::AddIOp::create(b, loc, row, Distributor::index(b, loc, at[0])),
          arith::AddIOp::create(b, loc, col, Distributor::index(b, loc, at[1])), *trans);
    }
    return true;
  }

  static LogicalResult storeSharedTile(SharedStoreTileOp op, Distributor &d, OpBuilder &b) {
    Location loc = op.getLoc();
    KernelOp kernel = d.kernel();
    FragLayoutAttr l = d.layout(op.getValue());
    if (l.getNumWarps() * 32 != kernel.getNumComputeThreads())
      return op.emitOpError("stores a fragment into a shared tile inside a group of a "
                            "pipelined loop, which is not supported yet (its barrier "
                            "would wait for the other groups)");
    Type element = op.getValue().getType().getElementType();
    ArrayRef<int64_t> shape = op.getTile().getType().getShape();
    ArrayRef<int64_t> box = op.getValue().getType().getShape();
    const Registers &values = d.read(b, loc, op.getValue());
    // A constant origin with the box inside the tile needs no bounds.
    SmallVector<int64_t> origin;
    for (Value i : op.getIndices())
      if (std::optional<int64_t> c = getConstantIntValue(i))
        origin.push_back(*c);
    bool inside = origin.size() == shape.size();
    for (unsigned dim = 0; inside && dim < shape.size(); ++dim)
      inside = origin[dim] >= 0 && origin[dim] + box[dim] <= shape[dim];
    int64_t lanes = inside ? vectorLanes(l, 0, element) : 1;
    if (lanes > 1 && origin.back() % lanes)
      lanes = 1;
    if (readBefore(op))
      createComputeBarrier(b, loc, kernel);
    if (inside && storeMatrices(op, d, b, l, origin, values)) {
      createComputeBarrier(b, loc, kernel);
      return success();
    }
    SmallVector<Value> offset = d.threadOffset(b, loc, l);
    std::set<Coord> stored;
    for (int64_t r = 0; r < l.getNumRegs(); r += lanes) {
      Coord c = l.coordinate(r, 0, 0);
      if (!stored.insert(c).second)
        continue;
      // The element's row (outer indices flattened, as tile.shared_store
      // counts them) and column, and whether it is inside the tile.
      auto [row, col, within] =
          sharedElementAt(b, loc, op.getIndices(), offset, c, shape, inside);
      Value v = values[r];
      if (lanes > 1)
        v = Distributor::vector(b, loc, ArrayRef<Value>(values).slice(r, lanes));
      if (inside) {
        SharedStoreOp::create(b, loc, v, op.getTile(), row, col);
        continue;
      }
      auto guarded = IfOp::create(b, loc, TypeRange(), within);
      OpBuilder then = OpBuilder::atBlockEnd(&guarded.getThenRegion().emplaceBlock());
      SharedStoreOp::create(then, loc, v, op.getTile(), row, col);
      YieldOp::create(then, loc);
    }
    // The tile is whole before anyone reads it (tile-order-async fences the
    // stores before this barrier where the async proxy reads the tile).
    createComputeBarrier(b, loc, kernel);
    return success();
  }

  /// Copy lanes paired with register bits: lane bit `lanes[i]` (whose basis
  /// is zero) picks register bit `regs[i]` (whose basis is not).
  struct Split {
    SmallVector<unsigned> lanes, regs;
  };

  static Split splitCopies(FragLayoutAttr l) {
    Split s;
    SmallVector<unsigned> distinct;
    for (unsigned bit = 0; bit < l.getNumRegBits(); ++bit)
      if (!isZero(l.regBasis(bit)))
        distinct.push_back(bit);
    for (unsigned bit = 0; bit < 5 && s.regs.size() < distinct.size(); ++bit)
      if (isZero(l.laneBasis(bit))) {
        s.lanes.push_back(bit);
        s.regs.push_back(distinct[s.regs.size()]);
      }
    return s;
  }

  static LogicalResult storeTile(StoreTileOp op, Distributor &d, OpBuilder &b) {
    Location loc = op.getLoc();
    FragLayoutAttr l = d.layout(op.getValue());
    if (op.getMask() && d.layout(op.getMask()) != l)
      return op.emitOpError("its mask's layout differs from its value's");
    const Registers &values = d.read(b, loc, op.getValue());
    const Registers *mask = op.getMask() ? &d.read(b, loc, op.getMask()) : nullptr;
    if (!mask && op.getAdd() && addWholeRows(op, d, b, l, values))
      return success();
    Split split = splitCopies(l);
    auto [lane, warp] = d.laneAndWarp(b, loc, l.getNumWarps());
    (void)warp;
    SmallVector<Value> offset = d.threadOffset(b, loc, l);
    // The lane bits that pick registers move this thread's elements too.
    SmallVector<Value> laneBit;
    for (unsigned i = 0; i < split.lanes.size(); ++i) {
      Value bit = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, lane, Distributor::index(b, loc, split.lanes[i])),
          Distributor::index(b, loc, 1));
      laneBit.push_back(bit);
      ArrayRef<int64_t> basis = l.regBasis(split.regs[i]);
      for (unsigned dim = 0; dim < basis.size(); ++dim)
        if (basis[dim])
          offset[dim] = arith::AddIOp::create(
              b, loc, offset[dim],
              arith::MulIOp::create(b, loc, bit, Distributor::index(b, loc, basis[dim])));
    }
    // Copies that remain (more copy lanes than register bits, copy warps)
    // store through their owner only.
    int64_t picked = 0;
    for (unsigned r : split.regs)
      picked |= int64_t(1) << r;
    Value owner = ownerOfRest(b, loc, d, l, split);
    // Whole rows: where a thread's low register bits step along the
    // innermost dimension (and no copy lane picks them), its `lanes`
    // consecutive elements go out as one vector store of up to 16 bytes,
    // when all are inside, unmasked and the address aligned (else one by
    // one, as below).
    Type element = op.getValue().getType().getElementType();
    int64_t lanes = vectorLanes(l, picked, element);
    std::set<Coord> stored;
    StoreTargets targets(op, offset);
    if (lanes > 1) {
      SmallVector<Vector> vectors;
      for (int64_t r = 0; r < l.getNumRegs(); r += lanes) {
        if (r & picked)
          continue;
        Coord c = l.coordinate(r, 0, 0);
        if (!stored.insert(c).second)
          continue;
        auto [origin, hasRow] = targets.at(b, loc, c);
        Value guard = owner;
        if (hasRow)
          guard = owner ? arith::AndIOp::create(b, loc, owner, hasRow) : hasRow;
        vectors.push_back({r, c, origin, guard});
      }
      storeVectors(b, loc, op, vectors, lanes, offset, laneBit, split, values, mask);
      return success();
    }
    for (int64_t r = 0; r < l.getNumRegs(); ++r) {
      if (r & picked)
        continue; // reached through the lane bits of register r & ~picked
      Coord c = l.coordinate(r, 0, 0);
      if (!stored.insert(c).second)
        continue;
      // The register this lane stores: r with the picked bits its lane's.
      Value v = select(b, loc, laneBit, split.regs, r, values);
      auto [origin, hasRow] = targets.at(b, loc, c);
      auto [index, inside] = elementAt(b, loc, op.getDest(), origin, offset, c);
      Value pred = owner ? arith::AndIOp::create(b, loc, inside, owner) : inside;
      if (hasRow)
        pred = arith::AndIOp::create(b, loc, pred, hasRow);
      if (mask)
        pred = arith::AndIOp::create(b, loc, pred, select(b, loc, laneBit, split.regs, r, *mask));
      auto guarded = IfOp::create(b, loc, TypeRange(), pred);
      OpBuilder then = OpBuilder::atBlockEnd(&guarded.getThenRegion().emplaceBlock());
      StoreOp::create(then, loc, v, op.getDest(), index, op.getAdd());
      YieldOp::create(then, loc);
    }
    return success();
  }

  /// Additions whose warps each hold whole rows of the box (a gemm's
  /// accumulator: a warp's 16 rows) go through a scratch tile of the warp's
  /// own, so that the lanes of one reduction instruction cover a row's
  /// columns side by side, 16 bytes each: red.global.add.v4 over whole
  /// 128-byte lines instead of 8-byte pieces of eight rows (on an H100,
  /// 64 x 128 f32 rows added at random rows of a 4096-row tensor: 3.25 TB/s
  /// against 2.0, 2026-12-07). The warp meets only itself: a warp barrier
  /// after the writes and after the reads. One test before all picks the
  /// path where each vector is aligned and wholly inside or outside (each
  /// then under its row's and column's bounds), else element by element.
  /// Returns false, building nothing, where the layout is not of that form.
  static bool addWholeRows(StoreTileOp op, Distributor &d, OpBuilder &b, FragLayoutAttr l,
                           const Registers &values) {
    auto type = op.getValue().getType();
    Type element = type.getElementType();
    if (type.getRank() != 2 || !element.isF32())
      return false;
    // A warp's elements: rows [0, R) and columns [0, C), each once.
    for (unsigned bit = 0; bit < l.getNumWarpBits(); ++bit)
      if (l.warpBasis(bit)[1])
        return false;
    std::set<std::pair<int64_t, int64_t>> held;
    int64_t R = 0, C = 0;
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t r = 0; r < l.getNumRegs(); ++r) {
        Coord c = l.coordinate(r, lane, 0);
        held.insert({c[0], c[1]});
        R = std::max(R, c[0] + 1);
        C = std::max(C, c[1] + 1);
      }
    const int64_t vec = 4, perRow = C / vec; // lanes a row
    if (int64_t(held.size()) != 32 * l.getNumRegs() || R * C != int64_t(held.size()) ||
        C % vec || 32 % perRow || R % (32 / perRow))
      return false;
    for (unsigned bit = 0; bit < l.getNumWarpBits(); ++bit)
      if (l.warpBasis(bit)[0] % R)
        return false;
    Location loc = op.getLoc();
    KernelOp kernel = d.kernel();
    ArrayRef<int64_t> shape = type.getShape();
    // The scratch: the box's rows, 16 bytes apart more than a row (a
    // register pair's stores and a row's 16-byte reads each in the fewest
    // wavefronts).
    OpBuilder entry = OpBuilder::atBlockBegin(&kernel.getBody().front());
    Value scratch = AllocSharedOp::create(
        entry, loc, SharedType::get(b.getContext(), {shape[0], C + vec}, element, 0), 1);
    SmallVector<Value> offset = d.threadOffset(b, loc, l);
    auto idx = [&](int64_t v) { return Distributor::index(b, loc, v); };
    // The registers at their elements, two side by side at once.
    int64_t pair = Coord(l.regBasis(0)) == Coord{0, 1} ? 2 : 1;
    for (int64_t r = 0; r < l.getNumRegs(); r += pair) {
      Coord c = l.coordinate(r, 0, 0);
      Value v = pair == 2 ? Distributor::pair(b, loc, values[r], values[r + 1]) : values[r];
      SharedStoreOp::create(b, loc, v, scratch, arith::AddIOp::create(b, loc, offset[0], idx(c[0])),
                            arith::AddIOp::create(b, loc, offset[1], idx(c[1])));
    }
    hopper::WarpSyncOp::create(b, loc);
    // Lane l reads row i * (32 / perRow) + l / perRow of its warp's, 4
    // columns from 4 (l % perRow) on.
    auto [lane, warp] = d.laneAndWarp(b, loc, l.getNumWarps());
    (void)warp;
    Value warpRow = d.warpOffset(b, loc, l)[0];
    Value laneRow = arith::DivUIOp::create(b, loc, lane, idx(perRow));
    Value col = arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, lane, idx(perRow)),
                                      idx(vec));
    Value dest = op.getDest();
    unsigned last = 1;
    auto vectorType = VectorType::get({vec}, element);
    struct Piece {
      Value data;
      SmallVector<Value> index; // into dest
      Value rowOk;              // the row has an index (gathered) and lies inside
    };
    SmallVector<Piece> pieces;
    Value zero = idx(0);
    Value uniform = lastDimensionOfVectors(b, loc, dest, vec);
    for (int64_t i = 0; i < R / (32 / perRow); ++i) {
      Value row = arith::AddIOp::create(
          b, loc, warpRow, arith::AddIOp::create(b, loc, laneRow, idx(i * (32 / perRow))));
      Piece piece;
      piece.data = SharedLoadOp::create(b, loc, vectorType, scratch, row, col);
      SmallVector<Value> origin(op.getIndices());
      Value destRow, has;
      if (op.getRows()) {
        Value picked = rowIndexOrNone(b, loc, op.getRows(), op.getRowIndices(), row,
                                      b.getIndexType());
        destRow = arith::AddIOp::create(b, loc, origin[0], picked);
        has = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, picked, zero);
      } else {
        destRow = arith::AddIOp::create(b, loc, origin[0], row);
      }
      Value destCol = arith::AddIOp::create(b, loc, origin[1], col);
      piece.index = {destRow, destCol};
      Value rowOk = within(b, loc, dest, 0, destRow);
      piece.rowOk = has ? arith::AndIOp::create(b, loc, rowOk, has) : rowOk;
      uniform = arith::AndIOp::create(b, loc, uniform,
                                      alignedVector(b, loc, dest, piece.index, vec));
      pieces.push_back(piece);
    }
    // The scratch is written again (the next iteration) only after every
    // lane has read it.
    hopper::WarpSyncOp::create(b, loc);
    auto branch = IfOp::create(b, loc, TypeRange(), uniform);
    OpBuilder then = OpBuilder::atBlockEnd(&branch.getThenRegion().emplaceBlock());
    OpBuilder otherwise = OpBuilder::atBlockEnd(&branch.getElseRegion().emplaceBlock());
    for (Piece &p : pieces) {
      Value col0 = p.index[1];
      auto whole = IfOp::create(
          then, loc, TypeRange(),
          arith::AndIOp::create(then, loc, p.rowOk, within(then, loc, dest, last, col0)));
      OpBuilder add = OpBuilder::atBlockEnd(&whole.getThenRegion().emplaceBlock());
      StoreOp::create(add, loc, p.data, dest, p.index, /*add=*/true);
      YieldOp::create(add, loc);
      for (int64_t e = 0; e < vec; ++e) {
        Value c = arith::AddIOp::create(otherwise, loc, col0,
                                        Distributor::index(otherwise, loc, e));
        Value ok = arith::AndIOp::create(otherwise, loc, p.rowOk,
                                         within(otherwise, loc, dest, last, c));
        auto one = IfOp::create(otherwise, loc, TypeRange(), ok);
        OpBuilder st = OpBuilder::atBlockEnd(&one.getThenRegion().emplaceBlock());
        Value x = LLVM::ExtractElementOp::create(
            st, loc, p.data, arith::ConstantIntOp::create(st, loc, st.getI32Type(), e));
        StoreOp::create(st, loc, x, dest, ValueRange{p.index[0], c}, /*add=*/true);
        YieldOp::create(st, loc);
      }
    }
    YieldOp::create(then, loc);
    YieldOp::create(otherwise, loc);
    return true;
  }

  /// How many consecutive innermost elements a thread's registers hold
  /// (register bits 0.. stepping 1, 2, 4 along the last dimension, none of
  /// them picked by copy lanes), up to 16 bytes; 1 if fewer than 2.
  static int64_t vectorLanes(FragLayoutAttr l, int64_t picked, Type element) {
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8)
      return 1;
    int64_t bytes = element.getIntOrFloatBitWidth() / 8, lanes = 1;
    unsigned last = l.getRank() - 1;
    for (unsigned bit = 0; bit < l.getNumRegBits() && lanes * 2 * bytes <= 16; ++bit) {
      ArrayRef<int64_t> basis = l.regBasis(bit);
      bool step = picked >> bit & 1 ? false : basis[last] == lanes;
      for (unsigned dim = 0; dim < last; ++dim)
        step = step && basis[dim] == 0;
      if (!step)
        break;
      lanes *= 2;
    }
    return lanes;
  }

  /// Where elements c .. c + lanes - 1 of `tensor` (along the last
  /// dimension) start, and whether all of them are inside and their address
  /// is aligned to the vector: what one vector access of them needs.
  static std::pair<SmallVector<Value>, Value> wholeVector(OpBuilder &b, Location loc,
                                                          Value tensor, ValueRange origin,
                                                          ArrayRef<Value> offset, const Coord &c,
                                                          int64_t lanes, Type element) {
    Coord lastCoord = c;
    lastCoord.back() += lanes - 1;
    auto [index, inside] = elementAt(b, loc, tensor, origin, offset, c);
    Value whole = arith::AndIOp::create(
        b, loc, inside, elementAt(b, loc, tensor, origin, offset, lastCoord).second);
    int64_t bytes = lanes * element.getIntOrFloatBitWidth() / 8;
    Value gap = ElemsToAlignedOp::create(b, loc, b.getIndexType(), tensor, index,
                                         b.getI64IntegerAttr(bytes));
    whole = arith::AndIOp::create(
        b, loc, whole,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, gap, Distributor::index(b, loc, 0)));
    return {index, whole};
  }

  /// Elements c .. c + lanes - 1 along the last dimension, as a vector: one
  /// vector load if all are inside and the address is aligned to the vector;
  /// else each element on its own, `padding` outside.
  static Value loadVector(OpBuilder &b, Location loc, LoadTileOp op, int64_t lanes,
                          const Coord &c, ArrayRef<Value> offset, TypedAttr padding) {
    Type element = op.getResult().getType().getElementType();
    auto [index, whole] =
        wholeVector(b, loc, op.getSource(), op.getIndices(), offset, c, lanes, element);
    auto vectorType = VectorType::get({lanes}, element);
    auto guarded = IfOp::create(b, loc, TypeRange{vectorType}, whole);
    OpBuilder then = OpBuilder::atBlockEnd(&guarded.getThenRegion().emplaceBlock());
    Value vec = LoadOp::create(then, loc, vectorType, op.getSource(), index);
    YieldOp::create(then, loc, ValueRange{vec});
    OpBuilder otherwise = OpBuilder::atBlockEnd(&guarded.getElseRegion().emplaceBlock());
    Value built = LLVM::PoisonOp::create(otherwise, loc, vectorType);
    for (int64_t i = 0; i < lanes; ++i) {
      Coord ci = c;
      ci.back() += i;
      auto [idx, in] = elementAt(otherwise, loc, op.getSource(), op.getIndices(), offset, ci);
      auto one = IfOp::create(otherwise, loc, TypeRange{element}, in);
      OpBuilder load = OpBuilder::atBlockEnd(&one.getThenRegion().emplaceBlock());
      YieldOp::create(load, loc,
                      ValueRange{LoadOp::create(load, loc, element, op.getSource(), idx)});
      OpBuilder pad = OpBuilder::atBlockEnd(&one.getElseRegion().emplaceBlock());
      YieldOp::create(pad, loc, ValueRange{arith::ConstantOp::create(pad, loc, padding)});
      built = LLVM::InsertElementOp::create(
          otherwise, loc, built, one.getResult(0),
          arith::ConstantIntOp::create(otherwise, loc, otherwise.getI32Type(), i));
    }
    YieldOp::create(otherwise, loc, ValueRange{built});
    return guarded.getResult(0);
  }

  /// A thread's `lanes` consecutive elements along the last dimension, from
  /// register r (element c of the box at `origin`), stored where `guard`.
  struct Vector {
    int64_t r;
    Coord c;
    SmallVector<Value> origin;
    Value guard;
  };

  /// Stores `vectors` (unmasked ones). Where one test before them all finds each vector
  /// aligned, starting at a column that is a multiple of `lanes`, and the
  /// last dimension a multiple of `lanes` too (so that each vector is wholly
  /// inside the tensor or wholly outside), each is one vector store under
  /// its first element's bounds; else each goes as storeVector() says. The
  /// test is usually a constant but for the tensor's origin (an f32 row of
  /// 128 from an even column), so it costs one branch, not one per vector.
  static void storeVectors(OpBuilder &b, Location loc, StoreTileOp op,
                           ArrayRef<Vector> vectors, int64_t lanes, ArrayRef<Value> offset,
                           ArrayRef<Value> laneBit, const Split &split,
                           const Registers &values, const Registers *mask) {
    if (mask) { // a vector whose mask is partly false goes element by element
      for (const Vector &v : vectors)
        storeVector(b, loc, op, v.origin, v.r, lanes, v.c, offset, v.guard, laneBit, split,
                    values, mask);
      return;
    }
    Value dest = op.getDest();
    unsigned last = op.getValue().getType().getRank() - 1;
    Value uniform = lastDimensionOfVectors(b, loc, dest, lanes);
    SmallVector<std::pair<SmallVector<Value>, Value>> at;
    for (const Vector &v : vectors) {
      at.push_back(elementAt(b, loc, dest, v.origin, offset, v.c));
      uniform = arith::AndIOp::create(b, loc, uniform,
                                      alignedVector(b, loc, dest, at.back().first, lanes));
    }
    auto branch = IfOp::create(b, loc, TypeRange(), uniform);
    OpBuilder then = OpBuilder::atBlockEnd(&branch.getThenRegion().emplaceBlock());
    // The vectors of one row (of the same guard) under one test of the
    // row's bounds, each under its column's (a constant, usually).
    std::map<std::pair<Coord, void *>, OpBuilder> rows;
    for (auto [v, where] : llvm::zip(vectors, at)) {
      std::pair<Coord, void *> key(Coord(v.c.begin(), v.c.end() - 1),
                                   v.guard.getAsOpaquePointer());
      auto it = rows.find(key);
      if (it == rows.end()) {
        Value pred = v.guard;
        for (unsigned d = 0; d < last; ++d) {
          Value in = within(then, loc, dest, d, where.first[d]);
          pred = pred ? arith::AndIOp::create(then, loc, pred, in) : in;
        }
        if (!pred)
          pred = arith::ConstantIntOp::create(then, loc, then.getI1Type(), 1);
        auto guarded = IfOp::create(then, loc, TypeRange(), pred);
        OpBuilder body = OpBuilder::atBlockEnd(&guarded.getThenRegion().emplaceBlock());
        body.setInsertionPoint(YieldOp::create(body, loc));
        it = rows.emplace(key, body).first;
      }
      OpBuilder &body = it->second;
      auto guarded =
          IfOp::create(body, loc, TypeRange(), within(body, loc, dest, last, where.first[last]));
      OpBuilder store = OpBuilder::atBlockEnd(&guarded.getThenRegion().emplaceBlock());
      SmallVector<Value> elems;
      for (int64_t i = 0; i < lanes; ++i)
        elems.push_back(select(store, loc, laneBit, split.regs, v.r + i, values));
      StoreOp::create(store, loc, Distributor::vector(store, loc, elems), dest, where.first,
                      op.getAdd());
      YieldOp::create(store, loc);
    }
    YieldOp::create(then, loc);
    OpBuilder otherwise = OpBuilder::atBlockEnd(&branch.getElseRegion().emplaceBlock());
    for (const Vector &v : vectors)
      storeVector(otherwise, loc, op, v.origin, v.r, lanes, v.c, offset, v.guard, laneBit, split,
                  values, mask);
    YieldOp::create(otherwise, loc);
  }

  /// Registers r .. r + lanes - 1 (elements c .. c + lanes - 1 along the
  /// last dimension): one vector store if all are inside, unmasked and the
  /// address is aligned to the vector; else each element on its own.
  static void storeVector(OpBuilder &b, Location loc, StoreTileOp op, ValueRange origin,
                          int64_t r, int64_t lanes, const Coord &c, ArrayRef<Value> offset,
                          Value owner, ArrayRef<Value> laneBit, const Split &split,
                          const Registers &values, const Registers *mask) {
    Type element = op.getValue().getType().getElementType();
    auto [index, whole] = wholeVector(b, loc, op.getDest(), origin, offset, c, lanes, element);
    if (owner)
      whole = arith::AndIOp::create(b, loc, whole, owner);
    SmallVector<Value> elems, masks;
    for (int64_t i = 0; i < lanes; ++i) {
      elems.push_back(select(b, loc, laneBit, split.regs, r + i, values));
      if (mask) {
        masks.push_back(select(b, loc, laneBit, split.regs, r + i, *mask));
        whole = arith::AndIOp::create(b, loc, whole, masks.back());
      }
    }
    auto guarded = IfOp::create(b, loc, TypeRange(), whole);
    OpBuilder then = OpBuilder::atBlockEnd(&guarded.getThenRegion().emplaceBlock());
    StoreOp::create(then, loc, Distributor::vector(then, loc, elems), op.getDest(), index,
                    op.getAdd());
    YieldOp::create(then, loc);
    // The rest: element by element.
    OpBuilder otherwise = OpBuilder::atBlockEnd(&guarded.getElseRegion().emplaceBlock());
    for (int64_t i = 0; i < lanes; ++i) {
      Coord ci = c;
      ci.back() += i;
      auto [idx, in] = elementAt(otherwise, loc, op.getDest(), origin, offset, ci);
      Value pred = owner ? arith::AndIOp::create(otherwise, loc, in, owner) : in;
      if (mask)
        pred = arith::AndIOp::create(otherwise, loc, pred, masks[i]);
      auto one = IfOp::create(otherwise, loc, TypeRange(), pred);
      OpBuilder store = OpBuilder::atBlockEnd(&one.getThenRegion().emplaceBlock());
      StoreOp::create(store, loc, elems[i], op.getDest(), idx, op.getAdd());
      YieldOp::create(store, loc);
    }
    YieldOp::create(otherwise, loc);
  }

  /// registers[r | sum(laneBit[i] << regBits[i])], by a tree of selects.
  static Value select(OpBuilder &b, Location loc, ArrayRef<Value> laneBit,
                      ArrayRef<unsigned> regBits, int64_t r, const Registers &registers) {
    std::function<Value(unsigned, int64_t)> pick = [&](unsigned i, int64_t reg) -> Value {
      if (i == laneBit.size())
        return registers[reg];
      Value zero = pick(i + 1, reg), one = pick(i + 1, reg | int64_t(1) << regBits[i]);
      if (zero == one)
        return zero;
      Value set = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, laneBit[i],
                                        Distributor::index(b, loc, 0));
      return arith::SelectOp::create(b, loc, set, one, zero);
    };
    return pick(0, r);
  }

  /// True in the one thread of each set of copies that the split leaves
  /// (null when none are left).
  static Value ownerOfRest(OpBuilder &b, Location loc, Distributor &d, FragLayoutAttr l,
                           const Split &split) {
    auto [lane, warp] = d.laneAndWarp(b, loc, l.getNumWarps());
    int64_t laneMask = 0, warpMask = 0;
    for (unsigned bit = 0; bit < 5; ++bit)
      if (isZero(l.laneBasis(bit)) && !llvm::is_contained(split.lanes, bit))
        laneMask |= 1 << bit;
    for (unsigned bit = 0; bit < l.getNumWarpBits(); ++bit)
      if (isZero(l.warpBasis(bit)))
        warpMask |= 1 << bit;
    if (!laneMask && !warpMask)
      return nullptr;
    Value lw = arith::OrIOp::create(
        b, loc, arith::AndIOp::create(b, loc, lane, Distributor::index(b, loc, laneMask)),
        arith::AndIOp::create(b, loc, warp, Distributor::index(b, loc, warpMask)));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lw,
                                 Distributor::index(b, loc, 0));
  }
};

} // namespace

const FragmentFamily &memoryFamily() {
  static MemoryFamily family;
  return family;
}

} // namespace minitile::tile
