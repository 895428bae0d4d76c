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
    if (byLanes(copy)) {
      plan.lanes = true;
      plan.source = copy.getSource();
      plan.origin.assign(copy.getIndices().begin(), copy.getIndices().end());
    }
  }
  return plan;
}

bool byLanes(CopyOp copy) { return copy.isGather() && copy->hasAttr(kCpAsyncAttr); }

/// Whether `u` and `v` are the same value or equal constants.
static bool sameValue(Value u, Value v) {
  APInt cu, cv;
  return u == v ||
         (matchPattern(u, m_ConstantInt(&cu)) && matchPattern(v, m_ConstantInt(&cv)) && cu == cv);
}

SmallVector<Value> TmaCopy::operands() const {
  SmallVector<Value> values(coords);
  if (gather) {
    values.append(gather->at);
    values.push_back(gather->base);
  }
  if (lanes) {
    values.push_back(source);
    values.append(origin);
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
  if (moved.lanes) {
    moved.source = map.lookupOrDefault(moved.source);
    for (Value &v : moved.origin)
      v = map.lookupOrDefault(v);
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
  if (!a.gather || !b.gather || a.lanes != b.lanes)
    return false;
  const TmaGather &x = *a.gather, &y = *b.gather;
  if (x.rows != y.rows || x.count != y.count || x.at.size() != y.at.size() ||
      !sameValue(x.base, y.base))
    return false;
  for (auto [u, v] : llvm::zip(x.at, y.at))
    if (!sameValue(u, v))
      return false;
  return true;
}

/// Index arithmetic for the lanes' copies.
namespace {
struct IndexMath {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t y) { return arith::MulIOp::create(b, loc, x, c(y)); }
  Value div(Value x, int64_t y) { return arith::DivUIOp::create(b, loc, x, c(y)); }
  Value rem(Value x, int64_t y) { return arith::RemUIOp::create(b, loc, x, c(y)); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
  }
  Value select(Value p, Value x, Value y) { return arith::SelectOp::create(b, loc, p, x, y); }
  Value clamp(Value x, int64_t lo, int64_t hi) {
    return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, x, c(lo)), c(hi));
  }
};
} // namespace

/// Where 16-byte piece `piece` of a tile's row lands, in two parts: what
/// the piece alone gives (`at`) and what its row adds (`of(r)`). Rows of
/// `rowBytes`, or -- swizzled by `swizzle` bytes -- panels of
/// `swizzle`-byte rows `panelBytes` apart, each 16-byte piece of a row
/// exchanged with the one its row's low bits name (the TMA's and wgmma's
/// layout: byte bits [4, 7) xor bits [7, 10), for 128 bytes).
namespace {
struct PieceOffset {
  int64_t rowBytes, swizzle;
  Value at, inPanel; // inPanel: the piece within its panel (swizzled)

  PieceOffset(IndexMath &m, Value piece, int64_t rowBytes, int64_t swizzle, int64_t panelBytes)
      : rowBytes(rowBytes), swizzle(swizzle) {
    if (!swizzle) {
      at = m.mul(piece, 16);
      return;
    }
    int64_t perPanel = swizzle / 16;
    at = m.mul(m.div(piece, perPanel), panelBytes);
    inPanel = m.rem(piece, perPanel);
  }

  Value of(IndexMath &m, Value r) const {
    if (!swizzle)
      return m.add(at, m.mul(r, rowBytes));
    // The row's bits [7, 10) of the byte: r * swizzle / 128, mod the pieces
    // of a panel's row.
    Value bits = m.rem(m.div(m.mul(r, swizzle), 128), swizzle / 16);
    Value piece = arith::XOrIOp::create(m.b, m.loc, inPanel, bits);
    return m.add(m.add(at, m.mul(r, swizzle)), m.mul(piece, 16));
  }
};
} // namespace

/// Gathered copies `plans` (the same rows) into `dests` by every lane of the
/// warp: lane l reads the indices of rows l, l + 32, ... once; each copy's
/// 16-byte pieces go out 32 at a time in row order (consecutive lanes,
/// consecutive bytes of a row), a loop over each 32 rows' pieces, each lane
/// taking its row's index from the lane that read it. Where a row's pieces
/// divide 32, a lane's piece of a row (its column, the bytes it reads there
/// and where they land in the row) is the same at every step: computed
/// once. A piece of a row without one, or outside the source, is zeros
/// (partly, at the source's last column).
static void emitLaneGather(OpBuilder &b, Location loc, ArrayRef<TmaCopy> plans,
                           ValueRange dests) {
  IndexMath m{b, loc};
  Type i32 = b.getI32Type();
  const TmaGather &g = *plans.front().gather;
  // (Read here, in the loop issuing the copies: the pieces' addresses are
  // computed from it piece by piece, not all hoisted out of the loop.)
  Value lane = LaneIdOp::create(b, loc, b.getIndexType());
  SmallVector<Value> held;
  for (int64_t k = 0; k * 32 < g.count; ++k)
    held.push_back(rowIndexOrNone(b, loc, g.rows, g.at, m.add(lane, m.c(32 * k)), i32));
  Value zero32 = arith::ConstantIntOp::create(b, loc, i32, 0);
  for (auto [plan, dest] : llvm::zip(plans, dests)) {
    auto type = llvm::cast<SharedType>(dest.getType());
    int64_t e = elementBytes(type.getElementType());
    int64_t rowBytes = type.getShape().back() * e, pieces = rowBytes / 16;
    Value sourceRows = viewSize(b, plan.source, 0), sourceColumns = viewSize(b, plan.source, 1);
    // A piece's column and the bytes of it the source holds (0 to 16).
    auto columnOf = [&](IndexMath &n, Value piece) {
      Value column = n.add(plan.origin[1], n.mul(piece, 16 / e));
      return std::make_pair(column, n.clamp(n.mul(n.sub(sourceColumns, column), e), 0, 16));
    };
    // Each lane's piece where a row's pieces divide 32.
    bool fixed = 32 % pieces == 0;
    Value fixedPiece = fixed ? m.rem(lane, pieces) : Value();
    auto [fixedColumn, fixedBytes] = fixed ? columnOf(m, fixedPiece) : std::pair<Value, Value>();
    std::optional<PieceOffset> fixedOffset;
    if (fixed)
      fixedOffset.emplace(m, fixedPiece, rowBytes, type.getSwizzle(), plan.panelBytes);
    Value rowInStep = fixed ? m.div(lane, pieces) : Value();
    // Rows [32 k, 32 k + 32): their pieces start at a multiple of 32, so
    // each step's rows are among them, their indices in held[k].
    for (auto [k, indices] : llvm::enumerate(held)) {
      int64_t first = int64_t(k) * 32 * pieces,
              count = std::min<int64_t>(32, g.count - int64_t(k) * 32) * pieces;
      auto steps = ForOp::create(b, loc, m.c(0), m.c((count + 31) / 32), m.c(1));
      OpBuilder in(steps.getBody().front().getTerminator());
      IndexMath n{in, loc};
      Value step = steps.getInductionVar();
      Value p = n.add(n.add(n.mul(step, 32), n.c(first)), lane);
      if (count % 32) {
        auto inside = IfOp::create(in, loc, TypeRange(), n.lt(p, n.c(first + count)));
        OpBuilder then = OpBuilder::atBlockEnd(&inside.getThenRegion().emplaceBlock());
        in.setInsertionPoint(YieldOp::create(then, loc));
      }
      Value r, column, bytes, offset;
      if (fixed) {
        r = n.add(n.add(n.mul(step, 32 / pieces), n.c(32 * int64_t(k))), rowInStep);
        column = fixedColumn;
        bytes = fixedBytes;
        offset = fixedOffset->of(n, r);
      } else {
        r = n.div(p, pieces);
        Value piece = n.rem(p, pieces);
        std::tie(column, bytes) = columnOf(n, piece);
        offset = PieceOffset(n, piece, rowBytes, type.getSwizzle(), plan.panelBytes).of(n, r);
      }
      Value from = arith::IndexCastOp::create(in, loc, i32, n.rem(r, 32));
      Value index = ShuffleIdxOp::create(in, loc, i32, indices, from);
      Value row = n.add(g.base, arith::IndexCastOp::create(in, loc, in.getIndexType(), index));
      Value valid = arith::AndIOp::create(
          in, loc, arith::CmpIOp::create(in, loc, arith::CmpIPredicate::sge, index, zero32),
          n.lt(row, sourceRows));
      bytes = n.select(valid, bytes, n.c(0));
      Value some = n.lt(n.c(0), bytes);
      CpAsyncOp::create(in, loc, plan.source,
                        ValueRange{n.select(some, row, n.c(0)), n.select(some, column, n.c(0))},
                        dest, offset, arith::IndexCastOp::create(in, loc, i32, bytes));
    }
  }
}

/// `emit` at `b`, or -- with `leader` -- inside an if on it.
static void onLeader(OpBuilder &b, Location loc, Value leader,
                     llvm::function_ref<void(OpBuilder &)> emit) {
  if (!leader)
    return emit(b);
  auto only = IfOp::create(b, loc, TypeRange(), leader);
  OpBuilder then = OpBuilder::atBlockEnd(&only.getThenRegion().emplaceBlock());
  emit(then);
  YieldOp::create(then, loc);
}

void emitTmaLoads(OpBuilder &b, Location loc, ArrayRef<TmaCopy> plans, ValueRange dests,
                  ValueRange barriers, Value leader) {
  for (size_t i = 0, j; i < plans.size(); i = j) {
    j = i + 1;
    if (!plans[i].gather) {
      onLeader(b, loc, leader, [&](OpBuilder &at) {
        emitPanels(at, loc, plans[i], plans[i].coords, dests[i], 0, barriers[i]);
      });
      continue;
    }
    while (j < plans.size() && sameGatheredRows(plans[i], plans[j]))
      ++j;
    if (leader && plans[i].lanes) {
      emitLaneGather(b, loc, plans.slice(i, j - i), dests.slice(i, j - i));
      continue;
    }
    // Copies i .. j - 1 gather the same rows: each row's index read once,
    // in groups of rows whose indices are in registers at once (few enough
    // for a producer warp's registers: setmaxnreg leaves it 64 or fewer).
    onLeader(b, loc, leader, [&](OpBuilder &at) {
      const TmaGather &g = *plans[i].gather;
      for (int64_t from = 0; from < g.count; from += kGatherRowsAtOnce) {
        int64_t to = std::min(g.count, from + kGatherRowsAtOnce);
        for (auto [r, row] : llvm::enumerate(gatheredRows(at, loc, g, from, to)))
          for (size_t k = i; k < j; ++k) {
            SmallVector<Value> coords(plans[k].coords);
            coords[plans[k].gather->coord] = row;
            emitPanels(at, loc, plans[k], coords, dests[k],
                       (from + int64_t(r)) * plans[k].gather->rowBytes, barriers[k]);
          }
      }
    });
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
