//===- TmaCopies.cpp - copies by the tensor-memory accelerator ------------===//
#include "passes/TmaCopies.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace minitile::hopper;

namespace minitile::tile {

namespace {

/// Whether the launcher can run `op`: pure arithmetic without regions.
bool isHostArithmetic(Operation *op) {
  return op->getDialect() && op->getDialect()->getNamespace() == "arith" && isPure(op) &&
         !op->getNumRegions();
}

/// Whether the launcher can compute kernel value `v`: from arguments and
/// arithmetic alone.
bool hostComputable(Value v, KernelOp kernel) {
  if (auto arg = llvm::dyn_cast<BlockArgument>(v))
    return arg.getOwner() == &kernel.getBody().front();
  Operation *op = v.getDefiningOp();
  return isHostArithmetic(op) &&
         llvm::all_of(op->getOperands(),
                      [&](Value operand) { return hostComputable(operand, kernel); });
}

/// Clones the computation of kernel value `v`, which must be
/// hostComputable, into the launcher before its launch.
Value cloneToHost(Value v, KernelOp kernel, LaunchOp launch, IRMapping &map) {
  if (Value known = map.lookupOrNull(v))
    return known;
  if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
    assert(arg.getOwner() == &kernel.getBody().front() && "not hostComputable");
    Value host = launch.getArgs()[arg.getArgNumber()];
    map.map(v, host);
    return host;
  }
  Operation *op = v.getDefiningOp();
  assert(isHostArithmetic(op) && "not hostComputable");
  for (Value operand : op->getOperands())
    cloneToHost(operand, kernel, launch, map);
  OpBuilder b(launch);
  Operation *copy = b.clone(*op, map);
  return copy->getResult(llvm::cast<OpResult>(v).getResultNumber());
}

LaunchOp launchOf(KernelOp kernel) {
  auto module = kernel->getParentOfType<ModuleOp>();
  for (auto host : module.getOps<HostOp>())
    for (auto launch : host.getBody().getOps<LaunchOp>())
      if (launch.getKernel() == kernel.getSymName())
        return launch;
  return nullptr;
}

/// Adds a kernel argument of `type`, passed by the launcher as `value`.
Value addKernelArgument(KernelOp kernel, LaunchOp launch, Type type, Value value,
                        StringRef name) {
  Block &entry = kernel.getBody().front();
  Value arg = entry.addArgument(type, kernel.getLoc());
  SmallVector<Type> inputs(kernel.getArgumentTypes());
  inputs.push_back(type);
  kernel.setFunctionType(FunctionType::get(kernel.getContext(), inputs, {}));
  SmallVector<Attribute> attrs;
  if (ArrayAttr old = kernel.getArgAttrsAttr())
    attrs.assign(old.begin(), old.end());
  attrs.resize(inputs.size() - 1, DictionaryAttr::get(kernel.getContext()));
  Builder b(kernel.getContext());
  attrs.push_back(b.getDictionaryAttr(b.getNamedAttr("tile.name", b.getStringAttr(name))));
  kernel.setArgAttrsAttr(b.getArrayAttr(attrs));
  launch.getArgsMutable().append(value);
  return arg;
}

/// A copy's source traced to its root view: the root, the root dimension
/// of each of the copy's dimensions, and the copy's origin in every root
/// dimension (a tile.slice's index where one fixed it, else the copy's).
struct RootedCopy {
  ViewOp root;
  SmallVector<int64_t> dimOf;
  SmallVector<Value> origin;
};

RootedCopy traceToRoot(CopyOp copy) {
  Value source = copy.getSource();
  SmallVector<SliceOp> slices;
  while (auto slice = source.getDefiningOp<SliceOp>()) {
    slices.push_back(slice);
    source = slice.getSource();
  }
  RootedCopy r;
  r.root = source.getDefiningOp<ViewOp>();
  unsigned rank = r.root.getResult().getType().getRank();
  for (unsigned d = 0; d < rank; ++d)
    r.dimOf.push_back(d);
  r.origin.resize(rank);
  for (SliceOp slice : llvm::reverse(slices)) {
    r.origin[r.dimOf[slice.getDim()]] = slice.getIndex();
    r.dimOf.erase(r.dimOf.begin() + slice.getDim());
  }
  for (auto [i, d] : llvm::enumerate(r.dimOf))
    r.origin[d] = copy.getIndices()[i];
  return r;
}

} // namespace

int64_t knownMultiple(Value v, unsigned depth) {
  static constexpr int64_t kAny = int64_t(1) << 30; // 0: a multiple of every power asked
  auto lowBit = [](int64_t c) { return c == 0 ? kAny : std::min(kAny, c & -c); };
  if (depth > 24)
    return 1;
  auto of = [&](Value x) { return knownMultiple(x, depth + 1); };
  if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
    // A loop's induction variable: lb + k * step.
    Operation *owner = arg.getOwner()->getParentOp();
    if (arg.getArgNumber() != 0 || arg.getOwner() != &owner->getRegion(0).front())
      return 1;
    return llvm::TypeSwitch<Operation *, int64_t>(owner)
        .Case<ForOp, ParallelOp, PipelinedOp>([&](auto loop) {
          return std::min(of(loop.getLowerBound()), of(loop.getStep()));
        })
        .Default([](Operation *) { return int64_t(1); });
  }
  Operation *op = v.getDefiningOp();
  if (!op)
    return 1;
  if (auto c = llvm::dyn_cast<arith::ConstantOp>(op))
    if (auto i = llvm::dyn_cast<IntegerAttr>(c.getValue()))
      return lowBit(i.getValue().getSExtValue());
  if (llvm::isa<arith::MulIOp>(op))
    return std::min(kAny, of(op->getOperand(0)) * of(op->getOperand(1)));
  if (llvm::isa<arith::AddIOp, arith::SubIOp, arith::SelectOp, arith::MinSIOp, arith::MaxSIOp,
                arith::MinUIOp, arith::MaxUIOp>(op)) {
    int64_t m = kAny;
    for (Value x : op->getOperands().take_back(2))
      m = std::min(m, of(x));
    return m;
  }
  if (llvm::isa<arith::AndIOp>(op))
    return std::max(of(op->getOperand(0)), of(op->getOperand(1)));
  if (auto shl = llvm::dyn_cast<arith::ShLIOp>(op)) {
    IntegerAttr amount;
    if (matchPattern(shl.getRhs(), m_Constant(&amount)) && amount.getInt() >= 0 &&
        amount.getInt() < 30)
      return std::min(kAny, of(shl.getLhs()) << amount.getInt());
    return of(shl.getLhs());
  }
  if (llvm::isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp,
                arith::TruncIOp>(op))
    return of(op->getOperand(0));
  return 1;
}

bool tmaEligible(CopyOp copy, std::string &why) {
  auto kernel = copy->getParentOfType<KernelOp>();
  const minitile::Target &target = targetOf(copy);
  if (!target.has(minitile::Feature::tma)) {
    why = target.arch + " has no tensor-memory accelerator";
    return false;
  }
  if (!launchOf(kernel)) {
    why = "no tile.host launches '" + kernel.getSymName().str() + "' to make its tensor map";
    return false;
  }
  SharedType dest = copy.getDest().getType();
  int64_t e = elementBytes(dest.getElementType());
  ViewOp root = rootView(copy.getSource());
  if (!root) {
    why = "its source is not a tile.view (or a slice of one)";
    return false;
  }
  unsigned rank = root.getResult().getType().getRank();
  if (rank > 5) {
    why = "its tensor has " + std::to_string(rank) + " dimensions; a tensor map has at most 5";
    return false;
  }
  SmallVector<Value> values{root.getBase()};
  if (root.getOffset())
    values.push_back(root.getOffset());
  values.append(root.getSizes().begin(), root.getSizes().end());
  values.append(root.getStrides().begin(), root.getStrides().end());
  for (Value v : values)
    if (!hostComputable(v, kernel)) {
      why = "the launcher cannot compute its view's origin, sizes or strides "
            "(they depend on more than the kernel's arguments)";
      return false;
    }
  if (copy.isGather() && !rootView(copy.getRows())) {
    why = "its index tensor is not a tile.view (or a slice of one), whose sizes are "
          "unknown here";
    return false;
  }
  if (copy.isGather() && copy.getBox().front() > 256) {
    why = "it gathers " + std::to_string(copy.getBox().front()) +
          " rows, a box each, more than the 256 a copy issues";
    return false;
  }
  for (int64_t x : copy.isGather() ? copy.getBox().drop_front() : copy.getBox())
    if (x > 256) {
      why = "its box extent " + std::to_string(x) + " exceeds the TMA's 256";
      return false;
    }
  // Swizzled rows are whole panels of 32 bytes or more (SharedType's
  // verifier sees to it); unswizzled ones are one panel.
  int64_t rowBytes = copy.getBox().back() * e;
  if (!dest.getSwizzle() && rowBytes % 16) {
    why = "a row of its box is " + std::to_string(rowBytes) +
          " bytes, not a multiple of 16";
    return false;
  }
  if (!dest.getSwizzle() && rowBytes > 256) {
    why = "an unswizzled row of its box is " + std::to_string(rowBytes) +
          " bytes, more than 256";
    return false;
  }
  // A box starts on a 16-byte boundary of its row: a copy from elsewhere
  // is an illegal instruction on the H200 (tests/codegen small_tiles).
  if (int64_t granule = 16 / std::min<int64_t>(e, 16);
      knownMultiple(traceToRoot(copy).origin.back()) % granule) {
    why = "its innermost origin is not known to be a multiple of " + std::to_string(granule) +
          " elements (a box starts on a 16-byte boundary of a row); copy the box "
          "from the origin rounded down (o / " + std::to_string(granule) + " * " +
          std::to_string(granule) + ") and read the tile from the remainder on";
    return false;
  }
  return true;
}

/// Adds the tensor map of `root` with box `box` (the innermost dimension
/// split in panels of `panel` elements) to the launcher of `copy`'s kernel
/// and to the kernel's arguments; returns the kernel's argument.
static Value addTensorMap(CopyOp copy, ViewOp root, ArrayRef<int64_t> box, int64_t panel) {
  auto kernel = copy->getParentOfType<KernelOp>();
  LaunchOp launch = launchOf(kernel);
  SharedType dest = copy.getDest().getType();
  int64_t e = elementBytes(dest.getElementType());
  unsigned rank = root.getResult().getType().getRank();
  // The launcher: the tensor map of the root view (tmaEligible has checked
  // that it can compute every value cloned here).
  IRMapping map;
  SmallVector<Value> hostSizes, hostStrides;
  Value base = cloneToHost(root.getBase(), kernel, launch, map);
  Value offset = root.getOffset();
  OpBuilder hb(launch);
  Value hostOffset = offset ? cloneToHost(offset, kernel, launch, map) : Value();
  for (unsigned d = 0; d < rank; ++d) {
    OpBuilder eb(root);
    hostSizes.push_back(cloneToHost(root.getSize(eb, d), kernel, launch, map));
    if (d + 1 < rank) {
      Value stride = cloneToHost(root.getStrides()[d], kernel, launch, map);
      Value bytes = arith::ConstantIndexOp::create(hb, copy.getLoc(), e);
      hostStrides.push_back(arith::MulIOp::create(hb, copy.getLoc(), stride, bytes));
    }
  }
  std::reverse(hostSizes.begin(), hostSizes.end());
  std::reverse(hostStrides.begin(), hostStrides.end());
  SmallVector<int64_t> boxInnerFirst(box.rbegin(), box.rend());
  boxInnerFirst[0] = panel;
  if (!hostOffset)
    hostOffset = arith::ConstantIndexOp::create(hb, copy.getLoc(), 0);
  auto host = launch->getParentOfType<HostOp>();
  StringRef tensorName;
  if (auto arg = llvm::dyn_cast<BlockArgument>(base))
    tensorName = host.getArgName(arg.getArgNumber());
  auto desc = MakeTmaDescOp::create(hb, copy.getLoc(), TmaDescType::get(copy.getContext()),
                                    base, hostOffset, hostSizes, hostStrides,
                                    hb.getDenseI64ArrayAttr(boxInnerFirst),
                                    dest.getSwizzle(), tensorName);
  return addKernelArgument(kernel, launch, desc.getType(), desc, (tensorName + "_tma").str());
}

TmaCopy planTmaCopy(CopyOp copy, Value desc) {
  SharedType dest = copy.getDest().getType();
  Type element = dest.getElementType();
  int64_t e = elementBytes(element);

  // The root view, and the dimensions tile.slice fixed.
  auto [root, dimOf, origin] = traceToRoot(copy);
  unsigned rank = root.getResult().getType().getRank();

  // The box in root dimensions, the innermost split into swizzle panels
  // (a gathered copy's: one row).
  SmallVector<int64_t> box(rank, 1);
  for (auto [i, d] : llvm::enumerate(dimOf))
    box[d] = copy.isGather() && i == 0 ? 1 : copy.getBox()[i];
  int64_t panel = dest.getSwizzle() ? dest.getSwizzle() / e : box.back();

  TmaCopy plan;
  plan.desc = desc ? desc : addTensorMap(copy, root, box, panel);
  plan.panels = box.back() / panel;
  plan.panelElements = panel;
  plan.panelBytes = dest.getSwizzle() ? dest.getNumElements() / dest.getShape().back() *
                                            dest.getSwizzle()
                                      : 0;
  plan.bytes = dest.getBytes();

  // Device coordinates, innermost first.
  OpBuilder db(copy);
  for (int d = rank - 1; d >= 0; --d)
    plan.coords.push_back(arith::IndexCastOp::create(db, copy.getLoc(),
                                                     db.getI32Type(), origin[d]));
  if (copy.isGather()) {
    TmaGather g;
    g.rows = copy.getRows();
    g.at.assign(copy.getRowIndices().begin(), copy.getRowIndices().end());
    g.base = origin[dimOf[0]];
    g.count = copy.getBox().front();
    g.rowBytes = panel * e;
    g.coord = rank - 1 - dimOf[0];
    plan.gather = g;
  }
  return plan;
}

SmallVector<Value> TmaCopy::operands() const {
  SmallVector<Value> values(coords);
  if (gather) {
    values.append(gather->at);
    values.push_back(gather->base);
  }
  return values;
}

TmaCopy TmaCopy::remapped(const IRMapping &map) const {
  TmaCopy moved = *this;
  for (Value &c : moved.coords)
    c = map.lookupOrDefault(c);
  if (moved.gather) {
    for (Value &v : moved.gather->at)
      v = map.lookupOrDefault(v);
    moved.gather->base = map.lookupOrDefault(moved.gather->base);
  }
  return moved;
}

Value rowIndexOrNone(OpBuilder &b, Location loc, Value rows, ValueRange at, Value r,
                     Type type) {
  SmallVector<Value> slot(at);
  unsigned last = slot.size() - 1;
  slot[last] = arith::AddIOp::create(b, loc, slot[last], r);
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, slot[last],
                                       viewSize(b, rows, last));
  auto read = IfOp::create(b, loc, TypeRange{type}, inside);
  OpBuilder then = OpBuilder::atBlockEnd(&read.getThenRegion().emplaceBlock());
  Value v = LoadOp::create(then, loc, then.getI32Type(), rows, slot);
  if (type.isIndex())
    v = arith::IndexCastOp::create(then, loc, type, v);
  YieldOp::create(then, loc, ValueRange{v});
  OpBuilder otherwise = OpBuilder::atBlockEnd(&read.getElseRegion().emplaceBlock());
  Value none = type.isIndex() ? Value(arith::ConstantIndexOp::create(otherwise, loc, -1))
                              : Value(arith::ConstantIntOp::create(otherwise, loc, type, -1));
  YieldOp::create(otherwise, loc, ValueRange{none});
  return read.getResult(0);
}

/// The row coordinates of rows [from, to) of gathered copy `g`: base + the
/// row's index, or -1 (a box wholly outside the tensor: zeros) where it has
/// none. All the rows' loads come first, so their latencies overlap.
static SmallVector<Value> gatheredRows(OpBuilder &b, Location loc, const TmaGather &g,
                                       int64_t from, int64_t to) {
  Type i32 = b.getI32Type();
  Value none = arith::ConstantIntOp::create(b, loc, i32, -1);
  Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
  Value base = arith::IndexCastOp::create(b, loc, i32, g.base);
  SmallVector<Value> loaded;
  for (int64_t r = from; r < to; ++r)
    loaded.push_back(
        rowIndexOrNone(b, loc, g.rows, g.at, arith::ConstantIndexOp::create(b, loc, r), i32));
  SmallVector<Value> coords;
  for (Value v : loaded) {
    Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, v, zero);
    Value row = arith::AddIOp::create(b, loc, base, v);
    coords.push_back(arith::SelectOp::create(b, loc, valid, row, none));
  }
  return coords;
}

/// The box copies of `plan`'s panels at `coords`, landing `offset` bytes
/// into `dest` (panel p at offset + p * panelBytes, its innermost
/// coordinate p panels on).
static void emitPanels(OpBuilder &b, Location loc, const TmaCopy &plan, ValueRange coords,
                       Value dest, int64_t offset, Value barrier) {
  for (int64_t p = 0; p < plan.panels; ++p) {
    SmallVector<Value> at(coords);
    if (p) {
      Value shift = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                 p * plan.panelElements);
      at[0] = arith::AddIOp::create(b, loc, at[0], shift);
    }
    TmaLoadOp::create(b, loc, plan.desc, at, dest, offset + p * plan.panelBytes, barrier);
  }
}

bool sameGatheredRows(const TmaCopy &a, const TmaCopy &b) {
  if (!a.gather || !b.gather)
    return false;
  const TmaGather &x = *a.gather, &y = *b.gather;
  auto same = [](Value u, Value v) {
    APInt cu, cv;
    return u == v || (matchPattern(u, m_ConstantInt(&cu)) &&
                      matchPattern(v, m_ConstantInt(&cv)) && cu == cv);
  };
  if (x.rows != y.rows || x.count != y.count || x.at.size() != y.at.size() ||
      !same(x.base, y.base))
    return false;
  for (auto [u, v] : llvm::zip(x.at, y.at))
    if (!same(u, v))
      return false;
  return true;
}

void emitTmaLoads(OpBuilder &b, Location loc, ArrayRef<TmaCopy> plans, ValueRange dests,
                  ValueRange barriers) {
  for (size_t i = 0, j; i < plans.size(); i = j) {
    j = i + 1;
    if (!plans[i].gather) {
      emitPanels(b, loc, plans[i], plans[i].coords, dests[i], 0, barriers[i]);
      continue;
    }
    while (j < plans.size() && sameGatheredRows(plans[i], plans[j]))
      ++j;
    // Copies i .. j - 1 gather the same rows: each row's index read once,
    // in groups of rows whose indices are in registers at once (few enough
    // for a producer warp's registers: setmaxnreg leaves it 64 or fewer).
    const TmaGather &g = *plans[i].gather;
    for (int64_t from = 0; from < g.count; from += kGatherRowsAtOnce) {
      int64_t to = std::min(g.count, from + kGatherRowsAtOnce);
      for (auto [r, row] : llvm::enumerate(gatheredRows(b, loc, g, from, to)))
        for (size_t k = i; k < j; ++k) {
          SmallVector<Value> coords(plans[k].coords);
          coords[plans[k].gather->coord] = row;
          emitPanels(b, loc, plans[k], coords, dests[k],
                     (from + int64_t(r)) * plans[k].gather->rowBytes, barriers[k]);
        }
    }
  }
}

void emitTmaLoads(OpBuilder &b, Location loc, const TmaCopy &plan, Value dest,
                  Value barrier) {
  emitTmaLoads(b, loc, ArrayRef<TmaCopy>(plan), ValueRange(dest), ValueRange(barrier));
}

IfOp barrierPrologue(KernelOp kernel) {
  for (auto op : kernel.getBody().front().getOps<IfOp>())
    if (op->hasAttr("tile.barrier_init"))
      return op;
  return IfOp();
}

Value allocateBarriers(KernelOp kernel, int64_t count, int64_t arrivals, Location loc) {
  Block &entry = kernel.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  auto type = SharedType::get(kernel.getContext(), {count}, b.getI64Type(), 0);
  Value tile = AllocSharedOp::create(b, loc, type, 1);

  // The prologue: thread 0 initialises every barrier, then the whole block
  // meets once before any of them is used.
  IfOp prologue = barrierPrologue(kernel);
  if (!prologue) {
    b.setInsertionPointAfter(tile.getDefiningOp());
    Value tid = ThreadIdOp::create(b, loc, Dim::x);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
    prologue = IfOp::create(b, loc, TypeRange(), first);
    prologue->setAttr("tile.barrier_init", b.getUnitAttr());
    OpBuilder then = OpBuilder::atBlockEnd(&prologue.getThenRegion().emplaceBlock());
    FenceMBarrierInitOp::create(then, loc);
    YieldOp::create(then, loc);
    BarrierOp::create(b, loc);
  }
  Block &then = prologue.getThenRegion().front();
  b.setInsertionPoint(&then, std::prev(then.end(), 2)); // before the fence
  for (int64_t i = 0; i < count; ++i) {
    Value index = arith::ConstantIndexOp::create(b, loc, i);
    Value barrier = MBarrierOfOp::create(b, loc, MBarrierType::get(kernel.getContext()),
                                         tile, index);
    MBarrierInitOp::create(b, loc, barrier, arrivals);
  }
  return tile;
}

} // namespace minitile::tile
