//===- Tiles.cpp - shared tiles, copies, gemm and fragment operations -----===//
//
// Shapes here are static: every mistake in them is reported at the caller's
// line while the kernel is built, naming the operands and their shapes.
//
//===----------------------------------------------------------------------===//
#include "dsl/KernelState.h"

namespace minitile {
using detail::Access;
using detail::KernelState;

namespace {

using detail::shapeText;

/// The number of elements of `shape`, or -1 when it overflows int64.
int64_t product(llvm::ArrayRef<int64_t> shape) {
  return tile::checkedProduct(shape).value_or(-1);
}

bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// Fragments are tiles of registers: static shapes with power-of-two extents
/// that fit the registers of a block. Checked before anything is built.
void checkFragmentShape(llvm::ArrayRef<int64_t> shape, const SourceLoc &loc,
                        const char *what) {
  if (shape.empty())
    throw Error(loc, std::string(what) + ": a fragment has at least one dimension");
  for (int64_t d : shape)
    if (!isPowerOfTwo(d))
      throw Error(loc, std::string(what) + ": fragment extents are powers of two; " +
                           shapeText(shape) + " is not");
  int64_t n = product(shape);
  if (n < 0 || n > tile::maxFragmentElements())
    throw Error(loc, std::string(what) + ": a fragment of " + shapeText(shape) + " has " +
                         (n < 0 ? std::string("more than 2^63") : std::to_string(n)) +
                         " elements; a block's registers hold at most " +
                         std::to_string(tile::maxFragmentElements()));
}

/// The fragment value of `a`, which must be one.
mlir::Value fragmentOf(KernelState &k, const Arg &a, const char *what) {
  if (Access::isConstant(a))
    throw Error(a.loc(), std::string(what) + " takes a fragment, not a constant");
  mlir::Value v = detail::valueOf(a, what);
  if (!llvm::isa<mlir::RankedTensorType>(v.getType()))
    throw Error(a.loc(), std::string(what) + " takes a fragment, not " +
                             detail::describe(v.getType()));
  return v;
}

mlir::RankedTensorType fragType(mlir::Value v) {
  return llvm::cast<mlir::RankedTensorType>(v.getType());
}

llvm::SmallVector<mlir::Value> indexValues(KernelState &k, const std::vector<Arg> &idx,
                                           const char *what) {
  llvm::SmallVector<mlir::Value> r;
  for (const Arg &a : idx) {
    mlir::Value v = detail::materialize(k, a, k.b.getIndexType(), what);
    if (!v.getType().isIndex()) {
      if (!v.getType().isSignlessInteger() || v.getType().isInteger(1))
        throw Error(a.loc(), std::string(what) + " takes integer indices, not " +
                                 detail::describe(v.getType()));
      v = mlir::arith::IndexCastOp::create(k.b, k.loc(a.loc()), k.b.getIndexType(), v);
    }
    r.push_back(v);
  }
  return r;
}

void checkOrigin(const Tensor &t, const std::vector<Arg> &origin, const SourceLoc &loc,
                 const char *what) {
  if (static_cast<int>(origin.size()) != t.rank())
    throw Error(loc, std::string(what) + ": '" + t.name() + "' has rank " +
                         std::to_string(t.rank()) + " but the origin has " +
                         std::to_string(origin.size()) + " indices");
}

} // namespace

using detail::sharedValue;

mlir::Value detail::sharedValue(const Shared &s) {
  return mlir::Value::getFromOpaquePointer(Access::sharedImpl(s));
}

//===----------------------------------------------------------------------===//
// Shared tiles and copies
//===----------------------------------------------------------------------===//

Shared Kernel::shared(DType t, std::vector<int64_t> shape, SourceLoc loc) {
  KernelState &k = detail::checked(id_, loc);
  if (shape.empty())
    throw Error(loc, "a shared tile has at least one dimension");
  for (int64_t d : shape)
    if (d <= 0)
      throw Error(loc, "shared tile extents are positive; " + shapeText(shape) + " is not");
  if (t == DType::i1 || t == DType::index)
    throw Error(loc, std::string("a shared tile cannot hold ") + dtypeName(t));
  int64_t elements = product(shape), limit = k.target->sharedMemoryPerBlock;
  if (elements < 0 || elements > limit / dtypeBytes(t))
    throw Error(loc, "a shared tile of " + shapeText(shape) + " " + dtypeName(t) +
                         " is larger than a block's shared memory on " + k.target->arch +
                         " (" + std::to_string(limit) + " bytes)");
  int64_t rowBytes = shape.back() * dtypeBytes(t);
  int64_t rows = product(shape) / shape.back();
  int swizzle = (rowBytes % 128 == 0 && rows % 8 == 0) ? 128 : 0;
  auto type = tile::SharedType::get(k.ctx, shape, k.type(t), swizzle);
  auto op = tile::AllocSharedOp::create(k.b, k.loc(loc), type, 1);
  Shared s;
  Access::fillShared(s, &k, op.getResult(), t, shape, swizzle);
  return s;
}

void copy(const Tensor &src, std::vector<Arg> origin, const Shared &dst,
          std::vector<int64_t> box, SourceLoc loc) {
  KernelState &k = detail::checked(Access::kernelOfTensor(src), loc);
  detail::checked(Access::kernelOfShared(dst), loc);
  checkOrigin(src, origin, loc, "copy()");
  if (box.empty()) {
    if (static_cast<int>(dst.shape().size()) != src.rank())
      throw Error(loc, "copy() of rank-" + std::to_string(src.rank()) + " '" + src.name() +
                           "' into a rank-" + std::to_string(dst.shape().size()) +
                           " tile needs the box extents");
    box = dst.shape();
  }
  if (static_cast<int>(box.size()) != src.rank())
    throw Error(loc, "copy(): the box has " + std::to_string(box.size()) +
                         " extents but '" + src.name() + "' has rank " +
                         std::to_string(src.rank()));
  if (src.dtype() != dst.dtype())
    throw Error(loc, std::string("copy() of '") + src.name() + "' (" +
                         dtypeName(src.dtype()) + ") into a tile of " + dtypeName(dst.dtype()));
  for (int64_t extent : box)
    if (extent < 1)
      throw Error(loc, "copy(): box extents are positive; " + shapeText(box) + " is not");
  if (product(box) != product(dst.shape()) || box.back() != dst.shape().back())
    throw Error(loc, "copy(): a box of " + shapeText(box) + " does not fill a tile of " +
                         shapeText(dst.shape()) +
                         " (its outer extents flatten onto the tile's rows)");
  auto indices = indexValues(k, origin, "copy()");
  tile::CopyOp::create(k.b, k.loc(loc), Access::viewOf(src), indices, sharedValue(dst), box);
}

/// The checks of an index tensor that picks rows of `t` (gather(),
/// addRows()), where `what` is called.
static void checkRows(const Tensor &t, const Tensor &rows, const std::vector<Arg> &rowsOrigin,
                      const SourceLoc &loc, const std::string &what, const char *rowsOf) {
  detail::checked(Access::kernelOfTensor(rows), loc);
  if (t.rank() != 2)
    throw Error(loc, what + " " + rowsOf + " a rank-2 tensor; '" + t.name() + "' has rank " +
                         std::to_string(t.rank()) + " (slice it first)");
  checkOrigin(rows, rowsOrigin, loc, (what + "'s rows").c_str());
  if (rows.dtype() != DType::i32)
    throw Error(loc, what + " picks rows by an i32 tensor; '" + rows.name() + "' holds " +
                         dtypeName(rows.dtype()));
}

void gather(const Tensor &src, std::vector<Arg> origin, const Tensor &rows,
            std::vector<Arg> rowsOrigin, const Shared &dst, GatherBy by, SourceLoc loc) {
  KernelState &k = detail::checked(Access::kernelOfTensor(src), loc);
  detail::checked(Access::kernelOfShared(dst), loc);
  checkRows(src, rows, rowsOrigin, loc, "gather()", "takes rows of");
  if (dst.shape().size() != 2)
    throw Error(loc, "gather() fills a rank-2 tile (rows of columns), not one of " +
                         shapeText(dst.shape()));
  checkOrigin(src, origin, loc, "gather()");
  if (src.dtype() != dst.dtype())
    throw Error(loc, std::string("gather() of '") + src.name() + "' (" +
                         dtypeName(src.dtype()) + ") into a tile of " + dtypeName(dst.dtype()));
  auto indices = indexValues(k, origin, "gather()");
  auto rowIndices = indexValues(k, rowsOrigin, "gather()");
  auto copy = tile::CopyOp::create(k.b, k.loc(loc), Access::viewOf(src), indices,
                                   sharedValue(dst), k.b.getDenseI64ArrayAttr(dst.shape()),
                                   Access::viewOf(rows), rowIndices);
  if (by == GatherBy::cpAsync)
    copy->setAttr(tile::kCpAsyncAttr, k.b.getUnitAttr());
}

/// pipelined() carrying `init` (nothing for the plain form).
static std::vector<Value>
pipelinedLoop(KernelState &k, const Arg &lo, const Arg &hi, const std::vector<Arg> &init,
              const PipelinedOptions &options,
              const std::function<std::vector<Value>(Value, std::vector<Value>)> &body,
              bool single) {
  if (options.stages < 1 || options.stages > tile::kMaxStages)
    throw Error(lo.loc(), "pipelined(): stages is 1 to " + std::to_string(tile::kMaxStages) +
                              ", not " + std::to_string(options.stages));
  if (options.groups < 1 || (k.block && (*k.block)[0] % (128 * options.groups) != 0))
    throw Error(lo.loc(), "pipelined(): " + std::to_string(options.groups) +
                              " groups of warpgroups need a multiple of " +
                              std::to_string(128 * std::max(options.groups, 1)) +
                              " threads per block");
  if (options.cooperative && options.continuous)
    throw Error(lo.loc(), "pipelined(): cooperative and continuous do not go together (a "
                          "continuous stream alternates its iterations between the groups, a "
                          "cooperative loop gives every group every iteration); choose one");
  if (options.stages % options.groups && !options.cooperative)
    throw Error(lo.loc(), "pipelined(): " + std::to_string(options.stages) + " stages for " +
                              std::to_string(options.groups) +
                              " groups; make the stages a multiple of the groups (each "
                              "stage is then always read by the same group)");
  if (options.pingPong && options.groups != 1)
    throw Error(lo.loc(), "pipelined(): pingPong takes turns between the warpgroups of one "
                          "group, not " + std::to_string(options.groups) +
                          " groups (those already take the iterations in turn)");
  if (!init.empty() && options.groups != 1)
    throw Error(lo.loc(), "pipelined(): a loop that carries values runs on one group, not " +
                              std::to_string(options.groups) +
                              " (each iteration needs the one before it)");
  // Inside a pipelined loop of one group (a prefetching persistent loop, or
  // a pipelined() of groups = 1), every compute thread runs each iteration:
  // a pipelined loop may nest there.
  for (mlir::Operation *p = k.b.getInsertionBlock()->getParentOp(); p; p = p->getParentOp()) {
    if (llvm::isa<tile::ParallelOp>(p))
      throw Error(lo.loc(), "pipelined() inside a parallel() loop");
    if (auto outer = llvm::dyn_cast<tile::PipelinedOp>(p); outer && outer.getGroups() != 1)
      throw Error(lo.loc(), "pipelined() inside a pipelined() loop of " +
                                std::to_string(outer.getGroups()) +
                                " groups; it nests only in a loop of one group");
  }
  auto bounds = indexValues(k, {lo, hi}, "pipelined()");
  auto inits = detail::carriedInits(k, init, "pipelined()");
  mlir::Value one = mlir::arith::ConstantIndexOp::create(k.b, k.loc(lo.loc()), 1);
  auto loop = tile::PipelinedOp::create(k.b, k.loc(lo.loc()), bounds[0], bounds[1], one,
                                        options.stages, options.groups, inits);
  if (options.overlap)
    loop.setOverlap(true);
  if (options.continuous) {
    auto outer = llvm::dyn_cast<tile::PipelinedOp>(k.b.getInsertionBlock()->getParentOp());
    if (!outer)
      throw Error(lo.loc(), "pipelined(): continuous is for a loop directly inside a "
                            "prefetching persistent() loop or a pipelined() loop of one "
                            "group (its stream runs across their iterations)");
    if (!init.empty())
      throw Error(lo.loc(), "pipelined(): a continuous loop carries nothing (each group's "
                            "stream crosses the items)");
    loop.setContinuous(true);
  }
  if (options.cooperative && options.groups > 1)
    loop.setCooperative(true);
  if (options.pingPong)
    loop->setAttr(tile::kPingPongAttr, k.b.getUnitAttr());
  auto results = detail::buildCarriedBody(k, loop, loop.getBody().front(), body, lo.loc(),
                                          "pipelined()", single);
  if (loop.getCooperative()) {
    // The groups share out the body's gemms: whole ones, at its top level.
    int64_t gemms = loop.getTopLevelGemms();
    if (gemms < 0)
      throw Error(lo.loc(), "pipelined(): a cooperative loop deals its gemms out to the "
                            "groups whole, so they are at the top level of its body, not "
                            "inside an if_() or a loop");
    if (gemms == 0 || gemms % options.groups)
      throw Error(lo.loc(), "pipelined(): a cooperative loop deals its gemms out to its " +
                                std::to_string(options.groups) +
                                " groups, so their number is a nonzero multiple of the "
                                "groups, not " +
                                std::to_string(gemms));
  }
  return results;
}

void Kernel::pipelined(Arg lo, Arg hi, const std::function<void(Value)> &body,
                       PipelinedOptions options) {
  KernelState &k = detail::checked(id_, lo.loc());
  pipelinedLoop(k, lo, hi, {}, options,
                [&](Value i, std::vector<Value>) {
                  body(i);
                  return std::vector<Value>{};
                },
                /*single=*/false);
}

Value Kernel::pipelined(Arg lo, Arg hi, Arg init,
                        const std::function<Value(Value, Value)> &body,
                        PipelinedOptions options) {
  KernelState &k = detail::checked(id_, lo.loc());
  return pipelinedLoop(
      k, lo, hi, {init}, options,
      [&](Value i, std::vector<Value> c) { return std::vector<Value>{body(i, c[0])}; },
      /*single=*/true)[0];
}

std::vector<Value> Kernel::pipelined(
    Arg lo, Arg hi, std::vector<Arg> init,
    const std::function<std::vector<Value>(Value, std::vector<Value>)> &body,
    PipelinedOptions options) {
  KernelState &k = detail::checked(id_, lo.loc());
  return pipelinedLoop(k, lo, hi, init, options, body, /*single=*/false);
}

//===----------------------------------------------------------------------===//
// Elements of shared tiles
//===----------------------------------------------------------------------===//

Element::Element(const Shared &s, std::vector<Arg> idx, SourceLoc loc)
    : shared_(std::make_shared<const Shared>(s)), indices_(std::move(idx)), loc_(loc) {
  detail::checked(Access::kernelOfShared(s), loc);
  if (indices_.size() != s.shape().size())
    throw Error(loc, "a shared tile of " + shapeText(s.shape()) + " is indexed with " +
                         std::to_string(indices_.size()) +
                         (indices_.size() == 1 ? " index" : " indices"));
  for (size_t d = 0; d < indices_.size(); ++d) {
    const Arg &i = indices_[d];
    std::optional<int64_t> c;
    if (Access::isConstant(i))
      c = Access::intConstant(i);
    else if (auto op = Access::get(Access::value(i)).getDefiningOp<mlir::arith::ConstantIndexOp>())
      c = op.value();
    if (c && (*c < 0 || *c >= s.shape()[d]))
      throw Error(i.loc(), "index " + std::to_string(*c) + " is outside dimension " +
                               std::to_string(d) + " of a shared tile of " +
                               shapeText(s.shape()));
  }
}

Element Shared::operator()(Arg i0) const { return Element(*this, {i0}, i0.loc()); }
Element Shared::operator()(Arg i0, Arg i1) const { return Element(*this, {i0, i1}, i0.loc()); }
Element Shared::operator()(Arg i0, Arg i1, Arg i2) const {
  return Element(*this, {i0, i1, i2}, i0.loc());
}
Element Shared::operator()(Arg i0, Arg i1, Arg i2, Arg i3) const {
  return Element(*this, {i0, i1, i2, i3}, i0.loc());
}

std::pair<mlir::Value, mlir::Value> detail::sharedRowCol(KernelState &k, const Shared &s,
                                                         const std::vector<Arg> &idx,
                                                         const SourceLoc &loc) {
  auto indices = indexValues(k, idx, "a shared tile index");
  mlir::Location l = k.loc(loc);
  mlir::Value row = mlir::arith::ConstantIndexOp::create(k.b, l, 0);
  for (size_t d = 0; d + 1 < indices.size(); ++d) {
    mlir::Value extent = mlir::arith::ConstantIndexOp::create(k.b, l, s.shape()[d]);
    row = mlir::arith::AddIOp::create(k.b, l, mlir::arith::MulIOp::create(k.b, l, row, extent),
                                      indices[d]);
  }
  return {row, indices.back()};
}

Value detail::loadShared(const Shared &s, const std::vector<Arg> &idx, const SourceLoc &loc) {
  KernelState &k = detail::checked(Access::kernelOfShared(s), loc);
  auto [row, col] = sharedRowCol(k, s, idx, loc);
  return Access::make(&k, tile::SharedLoadOp::create(k.b, k.loc(loc), k.type(s.dtype()),
                                                     sharedValue(s), row, col));
}

void detail::storeShared(const Shared &s, const std::vector<Arg> &idx, const Arg &v,
                         const SourceLoc &loc) {
  KernelState &k = detail::checked(Access::kernelOfShared(s), loc);
  detail::kernelFor({&v}, loc);
  mlir::Type element = k.type(s.dtype());
  mlir::Value value = detail::materialize(k, v, element, "a store to a shared tile");
  if (value.getType() != element)
    throw Error(loc, "store to a shared tile of " + std::string(dtypeName(s.dtype())) +
                         ": the value is " + detail::describe(value.getType()));
  auto [row, col] = sharedRowCol(k, s, idx, loc);
  tile::SharedStoreOp::create(k.b, k.loc(loc), value, sharedValue(s), row, col);
}

//===----------------------------------------------------------------------===//
// Fragments
//===----------------------------------------------------------------------===//

namespace {
/// B's extents (K, N) as gemm() reads it; a K that is not A's is an error.
std::pair<int64_t, int64_t> gemmBExtents(llvm::ArrayRef<int64_t> aShape, const Shared &b,
                                         bool transposeB, const SourceLoc &loc) {
  int64_t K = aShape[1];
  int64_t KB = transposeB ? b.shape()[1] : b.shape()[0];
  int64_t N = transposeB ? b.shape()[0] : b.shape()[1];
  if (K != KB)
    throw Error(loc, "gemm(): A is " + shapeText(aShape) + " and B" +
                         (transposeB ? "^T" : "") + " is " + std::to_string(KB) + "x" +
                         std::to_string(N) + ": the K extents " + std::to_string(K) +
                         " and " + std::to_string(KB) + " differ");
  return {KB, N};
}

/// The f32 [M, N] result type of a gemm, and its accumulator (null when
/// none), checked against it.
std::pair<mlir::RankedTensorType, mlir::Value>
gemmResult(KernelState &k, int64_t M, int64_t N, const Value &acc, const SourceLoc &loc) {
  checkFragmentShape({M, N}, loc, "gemm()");
  auto type = mlir::RankedTensorType::get({M, N}, k.b.getF32Type());
  mlir::Value c;
  if (acc.valid()) {
    detail::checked(Access::kernelOf(acc), loc);
    c = Access::get(acc);
    if (c.getType() != type)
      throw Error(loc, "gemm(): the accumulator is " + detail::describe(c.getType()) +
                           " but A x B is " + detail::describe(type));
  }
  return {type, c};
}
} // namespace

Value gemm(const Shared &a, const Shared &b, bool transposeB, Value acc, SourceLoc loc) {
  KernelState &k = detail::checked(Access::kernelOfShared(a), loc);
  detail::checked(Access::kernelOfShared(b), loc);
  if (a.shape().size() != 2 || b.shape().size() != 2)
    throw Error(loc, "gemm() multiplies matrices; the tiles are " + shapeText(a.shape()) +
                         " and " + shapeText(b.shape()));
  int64_t M = a.shape()[0];
  int64_t N = gemmBExtents(a.shape(), b, transposeB, loc).second;
  if (a.dtype() != b.dtype())
    throw Error(loc, std::string("gemm(): A holds ") + dtypeName(a.dtype()) +
                         " but B holds " + dtypeName(b.dtype()));
  auto [type, c] = gemmResult(k, M, N, acc, loc);
  auto op = tile::GemmOp::create(k.b, k.loc(loc), type, sharedValue(a), sharedValue(b), c,
                                 transposeB, /*max_pending=*/nullptr);
  return Access::make(&k, op.getResult());
}

Value gemm(const Value &a, const Shared &b, bool transposeB, Value acc, SourceLoc loc) {
  if (!a.valid())
    throw Error(loc, "gemm(): A is an empty minitile::Value (never assigned)");
  KernelState &k = detail::checked(Access::kernelOf(a), loc);
  detail::checked(Access::kernelOfShared(b), loc);
  mlir::Value x = Access::get(a);
  auto frag = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
  if (!frag)
    throw Error(loc, "gemm(): A is " + detail::describe(x.getType()) +
                         "; a register A is a fragment [M, K] (or pass a shared tile)");
  if (frag.getRank() != 2 || b.shape().size() != 2)
    throw Error(loc, "gemm() multiplies matrices; A is a fragment of " +
                         shapeText(frag.getShape()) + " and B a tile of " +
                         shapeText(b.shape()));
  int64_t M = frag.getShape()[0];
  int64_t N = gemmBExtents(frag.getShape(), b, transposeB, loc).second;
  if (frag.getElementType() != k.type(b.dtype()))
    throw Error(loc, "gemm(): A holds " + detail::describe(frag.getElementType()) +
                         " but B holds " + dtypeName(b.dtype()) + "; cast() A to " +
                         dtypeName(b.dtype()) + " first");
  auto [type, c] = gemmResult(k, M, N, acc, loc);
  auto op = tile::GemmOp::create(k.b, k.loc(loc), type, x, sharedValue(b), c, transposeB,
                                 /*max_pending=*/nullptr);
  return Access::make(&k, op.getResult());
}

Value loadTile(const Tensor &t, std::vector<Arg> origin, std::vector<int64_t> shape,
               double padding, SourceLoc loc) {
  KernelState &k = detail::checked(Access::kernelOfTensor(t), loc);
  checkOrigin(t, origin, loc, "loadTile()");
  if (static_cast<int>(shape.size()) != t.rank())
    throw Error(loc, "loadTile(): a box of " + shapeText(shape) + " from rank-" +
                         std::to_string(t.rank()) + " '" + t.name() + "'");
  checkFragmentShape(shape, loc, "loadTile()");
  auto indices = indexValues(k, origin, "loadTile()");
  auto type = mlir::RankedTensorType::get(shape, k.type(t.dtype()));
  auto op = tile::LoadTileOp::create(k.b, k.loc(loc), type, Access::viewOf(t), indices,
                                     k.b.getF64FloatAttr(padding));
  return Access::make(&k, op.getResult());
}

Value loadTile(const Shared &s, std::vector<Arg> origin, std::vector<int64_t> shape,
               double padding, SourceLoc loc) {
  KernelState &k = detail::checked(Access::kernelOfShared(s), loc);
  int rank = static_cast<int>(s.shape().size());
  if (static_cast<int>(origin.size()) != rank)
    throw Error(loc, "loadTile(): " + std::to_string(origin.size()) +
                         " origin indices for a shared tile of " + shapeText(s.shape()));
  if (static_cast<int>(shape.size()) != rank)
    throw Error(loc, "loadTile(): a box of " + shapeText(shape) + " from a shared tile of " +
                         shapeText(s.shape()));
  checkFragmentShape(shape, loc, "loadTile()");
  auto indices = indexValues(k, origin, "loadTile()");
  auto type = mlir::RankedTensorType::get(shape, k.type(s.dtype()));
  auto op = tile::SharedLoadTileOp::create(k.b, k.loc(loc), type, sharedValue(s), indices,
                                           k.b.getF64FloatAttr(padding));
  return Access::make(&k, op.getResult());
}

namespace {

/// A store of fragment `v` into `t` (storeTile, addTile, addRows): checked
/// where `what` is called, built with `add` and the gathered `rows`.
void storeInto(const Tensor &t, const std::vector<Arg> &origin, const Arg &v, Value mask,
               bool add, const Tensor *rows, const std::vector<Arg> &rowsOrigin,
               const SourceLoc &loc, const char *what) {
  KernelState &k = detail::checked(Access::kernelOfTensor(t), loc);
  checkOrigin(t, origin, loc, what);
  mlir::Value x = fragmentOf(k, v, what);
  auto type = fragType(x);
  if (type.getRank() != t.rank())
    throw Error(loc, std::string(what) + ": a rank-" + std::to_string(type.getRank()) +
                         " fragment into rank-" + std::to_string(t.rank()) + " '" +
                         t.name() + "'");
  if (type.getElementType() != k.type(t.dtype()))
    throw Error(loc, std::string(what) + " to '" + t.name() + "': the fragment holds " +
                         detail::describe(type.getElementType()) + " but the tensor holds " +
                         dtypeName(t.dtype()));
  if (add && t.dtype() != DType::f32)
    throw Error(loc, std::string(what) + " adds into f32 tensors; '" + t.name() + "' holds " +
                         dtypeName(t.dtype()));
  mlir::Value m;
  if (mask.valid()) {
    detail::checked(Access::kernelOf(mask), loc);
    m = Access::get(mask);
    auto mt = llvm::dyn_cast<mlir::RankedTensorType>(m.getType());
    if (!mt || mt.getShape() != type.getShape() || !mt.getElementType().isInteger(1))
      throw Error(loc, std::string(what) + ": the mask is a bool fragment of " +
                           shapeText(type.getShape()) + ", not " +
                           detail::describe(m.getType()));
  }
  mlir::Value rowsView;
  llvm::SmallVector<mlir::Value> rowIndices;
  if (rows) {
    checkRows(t, *rows, rowsOrigin, loc, what, "writes rows of");
    rowsView = Access::viewOf(*rows);
    rowIndices = indexValues(k, rowsOrigin, what);
  }
  auto indices = indexValues(k, origin, what);
  tile::StoreTileOp::create(k.b, k.loc(loc), x, Access::viewOf(t), indices, m, add, rowsView,
                            rowIndices);
}

} // namespace

void storeTile(const Tensor &t, std::vector<Arg> origin, Arg v, Value mask, SourceLoc loc) {
  storeInto(t, origin, v, mask, /*add=*/false, nullptr, {}, loc, "storeTile()");
}

void addTile(const Tensor &t, std::vector<Arg> origin, Arg v, Value mask, SourceLoc loc) {
  storeInto(t, origin, v, mask, /*add=*/true, nullptr, {}, loc, "addTile()");
}

void addRows(const Tensor &t, std::vector<Arg> origin, const Tensor &rows,
             std::vector<Arg> rowsOrigin, Arg v, SourceLoc loc) {
  storeInto(t, origin, v, Value(), /*add=*/true, &rows, rowsOrigin, loc, "addRows()");
}

void storeTile(const Shared &s, std::vector<Arg> origin, Arg v, SourceLoc loc) {
  KernelState &k = detail::checked(Access::kernelOfShared(s), loc);
  int rank = static_cast<int>(s.shape().size());
  if (static_cast<int>(origin.size()) != rank)
    throw Error(loc, "storeTile(): " + std::to_string(origin.size()) +
                         " origin indices for a shared tile of " + shapeText(s.shape()));
  mlir::Value x = fragmentOf(k, v, "storeTile()");
  auto type = fragType(x);
  if (type.getRank() != rank)
    throw Error(loc, "storeTile(): a rank-" + std::to_string(type.getRank()) +
                         " fragment into a shared tile of " + shapeText(s.shape()));
  if (type.getElementType() != k.type(s.dtype()))
    throw Error(loc, "storeTile() to a shared tile of " + std::string(dtypeName(s.dtype())) +
                         ": the fragment holds " + detail::describe(type.getElementType()) +
                         "; cast() it first");
  auto indices = indexValues(k, origin, "storeTile()");
  tile::SharedStoreTileOp::create(k.b, k.loc(loc), x, sharedValue(s), indices);
}

Value reshape(Arg v, std::vector<int64_t> shape, SourceLoc loc) {
  KernelState &k = detail::kernelFor({&v}, loc);
  mlir::Value x = fragmentOf(k, v, "reshape()");
  auto type = fragType(x);
  checkFragmentShape(shape, loc, "reshape()");
  if (product(shape) != type.getNumElements())
    throw Error(loc, "reshape() of " + shapeText(type.getShape()) + " (" +
                         std::to_string(type.getNumElements()) + " elements) into " +
                         shapeText(shape) + " (" + std::to_string(product(shape)) + ")");
  auto result = mlir::RankedTensorType::get(shape, type.getElementType());
  return Access::make(&k, tile::ReshapeOp::create(k.b, k.loc(loc), result, x));
}

Value transpose(Arg v, std::vector<int64_t> perm, SourceLoc loc) {
  KernelState &k = detail::kernelFor({&v}, loc);
  mlir::Value x = fragmentOf(k, v, "transpose()");
  auto type = fragType(x);
  std::vector<bool> seen(perm.size());
  bool ok = static_cast<int64_t>(perm.size()) == type.getRank();
  for (int64_t p : perm) {
    ok = ok && p >= 0 && p < static_cast<int64_t>(perm.size()) && !seen[p];
    if (ok)
      seen[p] = true;
  }
  if (!ok)
    throw Error(loc, "transpose(): " + shapeText(perm) +
                         " is not a permutation of the dimensions of " +
                         shapeText(type.getShape()));
  llvm::SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getShape()[p]);
  auto result = mlir::RankedTensorType::get(shape, type.getElementType());
  return Access::make(&k, tile::TransposeOp::create(k.b, k.loc(loc), result, x,
                                                    k.b.getDenseI64ArrayAttr(perm)));
}

Value broadcast(Arg v, std::vector<int64_t> shape, std::vector<int64_t> dims,
                SourceLoc loc) {
  KernelState &k = detail::kernelFor({&v}, loc);
  checkFragmentShape(shape, loc, "broadcast()");
  mlir::Value x = detail::materialize(k, v, std::nullopt, "broadcast()");
  auto src = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
  if (llvm::isa<mlir::VectorType>(x.getType()))
    throw Error(loc, "broadcast() of a vector; it takes scalars and fragments");
  int64_t srcRank = src ? src.getRank() : 0;
  if (static_cast<int64_t>(dims.size()) != srcRank)
    throw Error(loc, "broadcast(): dims names " + std::to_string(dims.size()) +
                         " result dimensions for a rank-" + std::to_string(srcRank) +
                         " source");
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= static_cast<int64_t>(shape.size()) ||
        (i && dims[i - 1] >= dims[i]))
      throw Error(loc, "broadcast(): dims " + shapeText(dims) +
                           " are not increasing dimensions of " + shapeText(shape));
    if (src.getShape()[i] != shape[dims[i]])
      throw Error(loc, "broadcast() of " + shapeText(src.getShape()) + " into " +
                           shapeText(shape) + ": source dimension " + std::to_string(i) +
                           " has extent " + std::to_string(src.getShape()[i]) +
                           ", result dimension " + std::to_string(dims[i]) + " has " +
                           std::to_string(shape[dims[i]]));
  }
  mlir::Type element = mlir::getElementTypeOrSelf(x.getType());
  auto result = mlir::RankedTensorType::get(shape, element);
  return Access::make(&k, tile::BroadcastOp::create(k.b, k.loc(loc), result, x,
                                                    k.b.getDenseI64ArrayAttr(dims)));
}

static Value reduce(const Arg &v, int axis, tile::ReduceKind kind, const char *what,
                    const SourceLoc &loc) {
  KernelState &k = detail::kernelFor({&v}, loc);
  mlir::Value x = fragmentOf(k, v, what);
  auto type = fragType(x);
  if (axis < 0 || axis >= type.getRank())
    throw Error(loc, std::string(what) + ": a fragment of " + shapeText(type.getShape()) +
                         " has no axis " + std::to_string(axis));
  if (kind == tile::ReduceKind::sum && type.getElementType().isInteger(1))
    throw Error(loc, std::string(what) + " of bools");
  llvm::SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + axis);
  if (shape.empty())
    shape.push_back(1);
  auto result = mlir::RankedTensorType::get(shape, type.getElementType());
  bool contract = k.contract && kind == tile::ReduceKind::sum &&
                  llvm::isa<mlir::FloatType>(type.getElementType());
  return Access::make(&k, tile::ReduceOp::create(k.b, k.loc(loc), result, x, kind, axis,
                                                 contract));
}

Value reduceSum(Arg v, int axis, SourceLoc loc) {
  return reduce(v, axis, tile::ReduceKind::sum, "reduceSum()", loc);
}
Value reduceMax(Arg v, int axis, SourceLoc loc) {
  return reduce(v, axis, tile::ReduceKind::max, "reduceMax()", loc);
}
Value reduceMin(Arg v, int axis, SourceLoc loc) {
  return reduce(v, axis, tile::ReduceKind::min, "reduceMin()", loc);
}

Value iota(std::vector<int64_t> shape, int axis, DType t, SourceLoc loc) {
  KernelState &k = detail::kernelFor({}, loc);
  checkFragmentShape(shape, loc, "iota()");
  if (axis < 0 || axis >= static_cast<int>(shape.size()))
    throw Error(loc, "iota(): " + shapeText(shape) + " has no axis " + std::to_string(axis));
  if (isFloat(t) || t == DType::i1)
    throw Error(loc, std::string("iota() counts in an integer type, not ") + dtypeName(t));
  auto type = mlir::RankedTensorType::get(shape, k.type(t));
  return Access::make(&k, tile::IotaOp::create(k.b, k.loc(loc), type, axis));
}

} // namespace minitile
