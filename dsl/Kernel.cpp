//===- Kernel.cpp - building a kernel: arguments, tensors, control flow ---===//
//
// A Kernel under construction is a module with a tile.host launcher and a
// tile.kernel. Arguments are added to both; device code goes into the kernel;
// values the launcher needs (grid, checks) are computed in device code by the
// user and cloned into the launcher, which is only allowed when they depend
// on arguments alone.
//
//===----------------------------------------------------------------------===//
#include "dsl/Build.h"
#include "dsl/KernelState.h"
#include "dialect/SizeExpr.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"

#include <atomic>

namespace minitile {
using detail::Access;
using detail::KernelState;

namespace detail {

KernelState *&current() {
  thread_local KernelState *state = nullptr;
  return state;
}

KernelState &checked(uint64_t kernel, const SourceLoc &loc) {
  KernelState *k = current();
  if (!k)
    throw Error(loc, "DSL call outside a kernel being built");
  if (kernel == 0)
    throw Error(loc, "an empty minitile handle (a default-constructed Value, Tensor, "
                     "Shared or Var)");
  if (k->id != kernel)
    throw Error(loc, "a value of a kernel that is no longer being built (kept "
                     "from an earlier generate()?)");
  return *k;
}

static std::atomic<uint64_t> kernelIds{0};

KernelState::KernelState(mlir::MLIRContext &context, const std::string &name,
                         const Target &target)
    : id(++kernelIds), ctx(&context), target(&target), b(&context), hostB(&context) {
  mlir::Location unknown = mlir::UnknownLoc::get(ctx);
  module = mlir::ModuleOp::create(unknown);
  module->setAttr(tile::kTargetAttrName, b.getStringAttr(target.arch));
  b.setInsertionPointToEnd(module.getBody());
  auto noArgs = b.getFunctionType({}, {});
  host = tile::HostOp::create(b, unknown, name, noArgs, mlir::ArrayAttr(),
                              mlir::ArrayAttr(), mlir::StringAttr());
  kernel = tile::KernelOp::create(b, unknown, name + "_kernel", noArgs,
                                  mlir::ArrayAttr(), mlir::ArrayAttr(),
                                  llvm::ArrayRef<int32_t>{1, 1, 1}, /*smem_bytes=*/0,
                                  /*producer_threads=*/0, /*min_blocks_per_sm=*/nullptr,
                                  /*producer_registers=*/nullptr);
  hostB.setInsertionPointToEnd(&host.getBody().emplaceBlock());
  b.setInsertionPointToEnd(&kernel.getBody().emplaceBlock());
}

mlir::Location KernelState::loc(const SourceLoc &l) const {
  return mlir::FileLineColLoc::get(ctx, l.file_name(), l.line(), l.column());
}

mlir::Type KernelState::type(DType t) const {
  mlir::Builder builder(ctx);
  switch (t) {
  case DType::i1: return builder.getI1Type();
  case DType::i8: return builder.getI8Type();
  case DType::i16: return builder.getI16Type();
  case DType::i32: return builder.getI32Type();
  case DType::i64: return builder.getI64Type();
  case DType::index: return builder.getIndexType();
  case DType::f16: return builder.getF16Type();
  case DType::bf16: return builder.getBF16Type();
  case DType::f32: return builder.getF32Type();
  case DType::f64: return builder.getF64Type();
  }
  return {};
}

mlir::Value KernelState::addArgument(const std::string &name, mlir::Type type,
                                     const SourceLoc &l, bool isSize) {
  std::string why = name == "stream" ? "is the launcher's own (its CUDA stream)"
                                      : cppNameProblem(name);
  if (!why.empty())
    throw Error(l, "argument name '" + name + "' " + why);
  for (auto &[v, existing] : argNames)
    if (existing == name)
      throw Error(l, "two arguments are named '" + name + "'");
  mlir::Location location = loc(l);
  // (Before the hidden arguments, which stay the kernel's last.)
  unsigned index = host.getBody().front().getNumArguments();
  mlir::Value deviceArg = kernel.getBody().front().insertArgument(index, type, location);
  mlir::Value hostArg = host.getBody().front().addArgument(type, location);
  toHostMap.map(deviceArg, hostArg);
  argNames[deviceArg.getAsOpaquePointer()] = name;

  llvm::SmallVector<mlir::NamedAttribute> named{
      b.getNamedAttr("tile.name", b.getStringAttr(name))};
  if (isSize)
    named.push_back(b.getNamedAttr("tile.size", b.getUnitAttr()));
  auto insert = [&](mlir::ArrayAttr old, unsigned count) {
    llvm::SmallVector<mlir::Attribute> attrs;
    if (old)
      attrs.assign(old.begin(), old.end());
    attrs.resize(count - 1, mlir::DictionaryAttr::get(ctx));
    attrs.insert(attrs.begin() + index, mlir::DictionaryAttr::get(ctx, named));
    return b.getArrayAttr(attrs);
  };
  host.setArgAttrsAttr(insert(host.getArgAttrsAttr(), host.getBody().front().getNumArguments()));
  kernel.setArgAttrsAttr(
      insert(kernel.getArgAttrsAttr(), kernel.getBody().front().getNumArguments()));
  return deviceArg;
}

mlir::Value KernelState::addHiddenArgument(const std::string &name, mlir::Value hostValue,
                                           const SourceLoc &l) {
  mlir::Block &entry = kernel.getBody().front();
  mlir::Value deviceArg = entry.addArgument(hostValue.getType(), loc(l));
  toHostMap.map(deviceArg, hostValue);
  hiddenArgs.push_back(hostValue);
  llvm::SmallVector<mlir::Attribute> attrs;
  if (mlir::ArrayAttr old = kernel.getArgAttrsAttr())
    attrs.assign(old.begin(), old.end());
  attrs.resize(entry.getNumArguments() - 1, mlir::DictionaryAttr::get(ctx));
  attrs.push_back(b.getDictionaryAttr(b.getNamedAttr("tile.name", b.getStringAttr(name))));
  kernel.setArgAttrsAttr(b.getArrayAttr(attrs));
  return deviceArg;
}

static std::string where(mlir::Location loc) {
  if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(loc))
    return (file.getFilename().str() + ":" + std::to_string(file.getLine()));
  return "an unknown place";
}

mlir::Value KernelState::toHost(mlir::Value v, const SourceLoc &use,
                                const char *what) {
  if (mlir::Value known = toHostMap.lookupOrNull(v))
    return known;
  if (llvm::isa<mlir::BlockArgument>(v))
    throw Error(use, std::string(what) +
                         " depends on a loop variable, which only the device has");
  mlir::Operation *op = v.getDefiningOp();
  bool hostable = op->getDialect() &&
                  op->getDialect()->getNamespace() == "arith" &&
                  mlir::isPure(op) &&
                  !llvm::isa<mlir::VectorType>(v.getType());
  if (!hostable)
    throw Error(use, std::string(what) + " depends on '" +
                         op->getName().getStringRef().str() + "' (at " +
                         where(op->getLoc()) +
                         "), which only the device computes; use size and "
                         "scalar arguments and arithmetic on them");
  for (mlir::Value operand : op->getOperands())
    toHost(operand, use, what);
  mlir::Operation *copy = hostB.clone(*op, toHostMap);
  return copy->getResult(llvm::cast<mlir::OpResult>(v).getResultNumber());
}

} // namespace detail

Kernel::Kernel(detail::KernelState *state) : state_(state), id_(state->id) {}

const Target &Kernel::target() const { return *state_->target; }

void Kernel::contractFloats(bool on, SourceLoc loc) { detail::checked(id_, loc).contract = on; }

namespace {

using detail::checked;

mlir::Value indexValue(KernelState &k, const Arg &a, const char *what) {
  mlir::Value v = detail::materialize(k, a, k.b.getIndexType(), what);
  mlir::Type t = v.getType();
  if (t.isIndex())
    return v;
  if (t.isInteger() && !t.isInteger(1))
    return mlir::arith::IndexCastOp::create(k.b, k.loc(a.loc()),
                                            k.b.getIndexType(), v);
  throw Error(a.loc(), std::string(what) + " takes an integer, not " +
                           detail::describe(t));
}

/// Static value of `a` if it is a C++ integer constant or an arith constant.
std::optional<int64_t> staticInt(const Arg &a) {
  if (Access::isConstant(a))
    return Access::intConstant(a);
  mlir::Value v = detail::valueOf(a, "an index");
  if (auto c = v.getDefiningOp<mlir::arith::ConstantIndexOp>())
    return c.value();
  return std::nullopt;
}

void checkIndices(const Tensor &t, const std::vector<Arg> &idx,
                  const SourceLoc &loc) {
  if (static_cast<int>(idx.size()) != t.rank())
    throw Error(loc, "'" + t.name() + "' has rank " + std::to_string(t.rank()) +
                         " but is indexed with " + std::to_string(idx.size()) +
                         (idx.size() == 1 ? " index" : " indices"));
  for (int d = 0; d < t.rank(); ++d) {
    auto c = staticInt(idx[d]);
    auto size = t.staticSize(d);
    if (c && (*c < 0 || (size && *c >= *size)))
      throw Error(idx[d].loc(), "index " + std::to_string(*c) +
                                    " is outside dimension " + std::to_string(d) +
                                    " of '" + t.name() + "'" +
                                    (size ? " (size " + std::to_string(*size) + ")"
                                          : ""));
  }
}

llvm::SmallVector<mlir::Value> indexValues(KernelState &k,
                                           const std::vector<Arg> &idx) {
  llvm::SmallVector<mlir::Value> r;
  for (const Arg &a : idx)
    r.push_back(indexValue(k, a, "a tensor index"));
  return r;
}

/// Runs `body` with device code going into `block`, before its terminator.
template <class F> void buildInto(KernelState &k, mlir::Block &block, F &&body) {
  mlir::OpBuilder::InsertionGuard guard(k.b);
  if (!block.empty() && block.back().hasTrait<mlir::OpTrait::IsTerminator>())
    k.b.setInsertionPoint(&block.back());
  else
    k.b.setInsertionPointToEnd(&block);
  body();
}

} // namespace

llvm::SmallVector<mlir::Value> detail::tensorIndices(KernelState &k,
                                                     const std::vector<Arg> &idx) {
  return indexValues(k, idx);
}

//===----------------------------------------------------------------------===//
// Arguments and tensors
//===----------------------------------------------------------------------===//

Value Kernel::size(const std::string &name, SourceLoc loc) {
  KernelState &k = checked(id_, loc);
  mlir::Value v = k.addArgument(name, k.b.getIndexType(), loc, /*isSize=*/true);
  mlir::Location l = k.loc(loc);
  mlir::Value h = k.toHostMap.lookup(v);
  mlir::Value zero = mlir::arith::ConstantIndexOp::create(k.hostB, l, 0);
  mlir::Value ok = mlir::arith::CmpIOp::create(
      k.hostB, l, mlir::arith::CmpIPredicate::sge, h, zero);
  tile::HostCheckOp::create(k.hostB, l, ok, name + " must not be negative");
  return Access::make(&k, v);
}

Value Kernel::scalar(const std::string &name, DType t, SourceLoc loc) {
  KernelState &k = checked(id_, loc);
  return Access::make(&k, k.addArgument(name, k.type(t), loc, false));
}

Tensor Kernel::tensor(const std::string &name, DType t, std::vector<Arg> shape,
                      SourceLoc loc) {
  KernelState &k = checked(id_, loc);
  if (shape.empty())
    throw Error(loc, "tensor '" + name + "' needs at least one dimension");
  if (t == DType::i1 || t == DType::index)
    throw Error(loc, "tensor '" + name + "' cannot hold " + dtypeName(t) +
                         "; use an integer or float type");
  // Each size: an integer expression of size() arguments and constants,
  // which the launcher computes (and checks) from its arguments.
  std::vector<std::optional<tile::SizeExpr>> exprs(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (Access::isConstant(shape[d]))
      continue;
    std::string why;
    exprs[d] = tile::sizeExprOf(detail::valueOf(shape[d], "tensor()"), k.kernel, &why);
    if (!exprs[d])
      throw Error(shape[d].loc(),
                  "the sizes of tensor '" + name +
                      "' are expressions of size() arguments and constants (+, -, *, /, "
                      "%, ceildiv, min, max), but dimension " + std::to_string(d) +
                      " depends on " + why + "; view() it for other shapes");
  }
  mlir::Value ptr = k.addArgument(name, tile::PtrType::get(k.ctx, k.type(t)),
                                  loc, false);
  Tensor base;
  Access::fill(base, &k, name, t, Access::make(&k, ptr), Value(), {}, {}, {});
  Tensor result = k.atEntry([&] {
    // The sizes computed again at the kernel's entry, where the view is
    // (the user's may sit in a branch or loop that the view must not).
    mlir::IRMapping entry;
    std::function<mlir::Value(mlir::Value)> rebuild = [&](mlir::Value v) -> mlir::Value {
      if (llvm::isa<mlir::BlockArgument>(v))
        return v;
      if (mlir::Value known = entry.lookupOrNull(v))
        return known;
      mlir::Operation *op = v.getDefiningOp();
      for (mlir::Value operand : op->getOperands())
        rebuild(operand);
      return k.b.clone(*op, entry)->getResult(llvm::cast<mlir::OpResult>(v).getResultNumber());
    };
    std::vector<Arg> sizes = shape;
    for (size_t d = 0; d < shape.size(); ++d)
      if (exprs[d])
        sizes[d] = Arg(Access::make(&k, rebuild(detail::valueOf(shape[d], "tensor()"))),
                       shape[d].loc());
    // Row-major: stride[d] = prod(shape[d+1:]).
    std::vector<Arg> strides(sizes.size(), Arg(1, loc));
    for (int d = static_cast<int>(sizes.size()) - 2; d >= 0; --d)
      strides[d] = Arg(strides[d + 1] * sizes[d + 1], loc);
    return view(base, Arg(0, loc), sizes, strides, loc);
  });

  mlir::Location l = k.loc(loc);
  // A computed size must not be negative (the launcher's arithmetic has
  // already refused an overflow or a division by zero).
  for (int d = 0; d < result.rank(); ++d) {
    if (!exprs[d] || exprs[d]->isLeaf())
      continue;
    mlir::Location dl = k.loc(shape[d].loc());
    mlir::Value h = k.toHost(Access::get(result.size(d)), shape[d].loc(), "a tensor size");
    mlir::Value zero = mlir::arith::ConstantIndexOp::create(k.hostB, dl, 0);
    mlir::Value ok = mlir::arith::CmpIOp::create(
        k.hostB, dl, mlir::arith::CmpIPredicate::sge, h, zero);
    tile::HostCheckOp::create(k.hostB, dl, ok,
                              "dimension " + std::to_string(d) + " of tensor '" + name +
                                  "', " + exprs[d]->text() + " (at " +
                                  shape[d].loc().file_name() + ":" +
                                  std::to_string(shape[d].loc().line()) + "), is negative");
  }

  // The launcher checks the pointer of a non-empty tensor.
  mlir::Value numel = mlir::arith::ConstantIndexOp::create(k.hostB, l, 1);
  for (int d = 0; d < result.rank(); ++d)
    numel = mlir::arith::MulIOp::create(
        k.hostB, l, numel,
        k.toHost(Access::get(result.size(d)), loc, "a tensor size"));
  tile::CheckPtrOp::create(k.hostB, l, k.toHostMap.lookup(ptr), numel,
                           dtypeBytes(t));
  return result;
}

Tensor Kernel::view(const Tensor &base, Arg offset, std::vector<Arg> shape,
                    std::vector<Arg> strides, SourceLoc loc) {
  KernelState &k = checked(id_, loc);
  checked(base.kernel_, loc);
  if (shape.size() != strides.size())
    throw Error(loc, "view of '" + base.name() + "' has " +
                         std::to_string(shape.size()) + " sizes but " +
                         std::to_string(strides.size()) + " strides");
  if (shape.empty())
    throw Error(loc, "view of '" + base.name() + "' needs at least one dimension");
  auto inner = staticInt(strides.back());
  if (!inner || *inner != 1)
    throw Error(strides.back().loc(),
                "view of '" + base.name() +
                    "': the innermost stride must be the constant 1");
  mlir::Value off = indexValue(k, offset, "a view offset");
  if (base.offset_.valid())
    off = mlir::arith::AddIOp::create(k.b, k.loc(loc),
                                      Access::get(base.offset_), off);
  std::vector<Value> sizes, strideValues;
  std::vector<std::optional<int64_t>> statics;
  llvm::SmallVector<int64_t> typeShape;
  llvm::SmallVector<mlir::Value> dynSizes, dynStrides;
  for (size_t d = 0; d < shape.size(); ++d) {
    auto c = staticInt(shape[d]);
    if (c && *c < 0)
      throw Error(shape[d].loc(), "dimension " + std::to_string(d) + " of '" +
                                      base.name() + "' is negative (" +
                                      std::to_string(*c) + ")");
    mlir::Value s = indexValue(k, shape[d], "a tensor size");
    sizes.push_back(Access::make(&k, s));
    statics.push_back(c);
    typeShape.push_back(c ? *c : mlir::ShapedType::kDynamic);
    if (!c)
      dynSizes.push_back(s);
    mlir::Value st = indexValue(k, strides[d], "a tensor stride");
    strideValues.push_back(Access::make(&k, st));
    if (d + 1 < shape.size())
      dynStrides.push_back(st);
  }
  auto type = tile::GlobalTensorType::get(k.ctx, typeShape, k.type(base.dtype()));
  auto op = tile::ViewOp::create(k.b, k.loc(loc), type, Access::get(base.base_),
                                 off, dynSizes, dynStrides);
  Tensor t;
  Access::fill(t, &k, base.name(), base.dtype(), base.base_,
               Access::make(&k, off), sizes, strideValues, statics);
  Access::setView(t, op.getResult());
  return t;
}

Value Tensor::size(int d, SourceLoc loc) const {
  if (d < 0 || d >= rank())
    throw Error(loc, "'" + name_ + "' has no dimension " + std::to_string(d) +
                         " (rank " + std::to_string(rank()) + ")");
  return sizes_[d];
}

std::optional<int64_t> Tensor::staticSize(int d) const {
  return d >= 0 && d < rank() ? static_[d] : std::nullopt;
}

Tensor Tensor::slice(int dim, Arg i, SourceLoc loc) const {
  if (rank() < 2)
    throw Error(loc, "slice() of '" + name_ + "', which has rank " +
                         std::to_string(rank()) + "; it needs rank 2 or more");
  if (dim < 0 || dim >= rank())
    throw Error(loc, "'" + name_ + "' has no dimension " + std::to_string(dim));
  if (dim == rank() - 1)
    throw Error(loc, "slice() cannot fix the innermost dimension of '" + name_ +
                         "': the view's innermost stride would not be 1");
  KernelState &k = checked(kernel_, loc);
  checkIndices(*this, [&] {
    std::vector<Arg> idx(rank(), Arg(0, loc));
    idx[dim] = i;
    return idx;
  }(), loc);
  mlir::Value index = indexValue(k, i, "slice()");
  auto type = llvm::cast<tile::GlobalTensorType>(Access::viewOf(*this).getType());
  llvm::SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + dim);
  auto resultType = tile::GlobalTensorType::get(k.ctx, shape, type.getElementType());
  auto op = tile::SliceOp::create(k.b, k.loc(loc), resultType, Access::viewOf(*this),
                                   dim, index);
  std::vector<Value> sizes = sizes_, strides = strides_;
  std::vector<std::optional<int64_t>> statics = static_;
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  statics.erase(statics.begin() + dim);
  Value offset = Access::make(&k, mlir::arith::AddIOp::create(
                                      k.b, k.loc(loc), Access::get(offset_),
                                      mlir::arith::MulIOp::create(
                                          k.b, k.loc(loc), index,
                                          Access::get(strides_[dim]))));
  Tensor t;
  Access::fill(t, &k, name_, dtype_, base_, offset, sizes, strides, statics);
  Access::setView(t, op.getResult());
  return t;
}

//===----------------------------------------------------------------------===//
// Loads and stores
//===----------------------------------------------------------------------===//

Element::Element(const Tensor &t, std::vector<Arg> idx, SourceLoc loc)
    : tensor_(std::make_shared<const Tensor>(t)), indices_(std::move(idx)),
      loc_(loc) {
  checkIndices(t, indices_, loc_);
}

Element::operator Value() const {
  if (shared_)
    return detail::loadShared(*shared_, indices_, loc_);
  return tensor_->load(indices_, 1, loc_);
}

const Element &Element::operator=(Arg v) const {
  if (shared_)
    detail::storeShared(*shared_, indices_, v, v.loc());
  else
    tensor_->store(indices_, v, v.loc());
  return *this;
}

Element Tensor::operator()(Arg i0) const { return Element(*this, {i0}, i0.loc()); }
Element Tensor::operator()(Arg i0, Arg i1) const {
  return Element(*this, {i0, i1}, i0.loc());
}
Element Tensor::operator()(Arg i0, Arg i1, Arg i2) const {
  return Element(*this, {i0, i1, i2}, i0.loc());
}
Element Tensor::operator()(Arg i0, Arg i1, Arg i2, Arg i3) const {
  return Element(*this, {i0, i1, i2, i3}, i0.loc());
}

static void checkLanes(const Tensor &t, int lanes, const SourceLoc &loc) {
  int bytes = lanes * dtypeBytes(t.dtype());
  if (lanes < 1 || bytes > 16 || (bytes & (bytes - 1)))
    throw Error(loc, "a vector access to '" + t.name() + "' moves 2, 4, 8 or 16 "
                     "bytes, not " + std::to_string(lanes) + " x " +
                     dtypeName(t.dtype()));
  auto inner = t.staticSize(t.rank() - 1);
  if (lanes > 1 && inner && *inner % lanes)
    throw Error(loc, "vectors of " + std::to_string(lanes) +
                         " elements cannot tile the innermost dimension of '" +
                         t.name() + "' (size " + std::to_string(*inner) + ")");
}

Value Tensor::load(std::vector<Arg> idx, int lanes, SourceLoc loc) const {
  KernelState &k = checked(kernel_, loc);
  checkIndices(*this, idx, loc);
  checkLanes(*this, lanes, loc);
  mlir::Type t = k.type(dtype_);
  if (lanes > 1)
    t = mlir::VectorType::get({lanes}, t);
  auto indices = indexValues(k, idx);
  return Access::make(&k, tile::LoadOp::create(k.b, k.loc(loc), t,
                                               Access::viewOf(*this), indices));
}

void Tensor::store(std::vector<Arg> idx, Arg v, SourceLoc loc) const {
  KernelState &k = checked(kernel_, loc);
  checkIndices(*this, idx, loc);
  mlir::Type element = k.type(dtype_);
  mlir::Value value;
  if (Access::isConstant(v)) {
    value = detail::materialize(k, v, element, ("a store to '" + name_ + "'").c_str());
  } else {
    value = detail::valueOf(v, ("a store to '" + name_ + "'").c_str());
    mlir::Type vt = value.getType();
    if (mlir::getElementTypeOrSelf(vt) != element)
      throw Error(loc, "store to '" + name_ + "': the value is " +
                           detail::describe(vt) + " but the tensor holds " +
                           dtypeName(dtype_));
    if (auto vec = llvm::dyn_cast<mlir::VectorType>(vt))
      checkLanes(*this, vec.getNumElements(), loc);
  }
  auto indices = indexValues(k, idx);
  tile::StoreOp::create(k.b, k.loc(loc), value, Access::viewOf(*this), indices);
}

Value Tensor::elementsToAligned(std::vector<Arg> idx, int bytes,
                                SourceLoc loc) const {
  KernelState &k = checked(kernel_, loc);
  checkIndices(*this, idx, loc);
  if (bytes <= 0 || (bytes & (bytes - 1)))
    throw Error(loc, "alignment must be a positive power of two, not " +
                         std::to_string(bytes));
  auto indices = indexValues(k, idx);
  return Access::make(&k, tile::ElemsToAlignedOp::create(
                              k.b, k.loc(loc), k.b.getIndexType(),
                              Access::viewOf(*this), indices, bytes));
}

//===----------------------------------------------------------------------===//
// Launch geometry
//===----------------------------------------------------------------------===//

void Kernel::threads(int x, int y, int z, SourceLoc loc) {
  KernelState &k = checked(id_, loc);
  if (x <= 0 || y <= 0 || z <= 0)
    throw Error(loc, "threads(" + std::to_string(x) + ", " + std::to_string(y) +
                         ", " + std::to_string(z) +
                         "): block extents must be positive");
  if (int64_t(x) * y * z > 1024)
    throw Error(loc, "threads(" + std::to_string(x) + ", " + std::to_string(y) +
                         ", " + std::to_string(z) + ") asks for " +
                         std::to_string(int64_t(x) * y * z) +
                         " threads; a block holds at most 1024");
  if (k.block)
    throw Error(loc, "threads() is set twice");
  k.block = {x, y, z};
  k.kernel.setBlock({x, y, z});
}

void Kernel::minBlocksPerSM(int blocks, SourceLoc loc) {
  KernelState &k = checked(id_, loc);
  if (!k.block)
    throw Error(loc, "minBlocksPerSM() before threads() is set");
  int64_t threads = int64_t((*k.block)[0]) * (*k.block)[1] * (*k.block)[2];
  int64_t perThread = blocks > 0 ? k.target->registersPerSM / (blocks * threads) : 0;
  if (perThread < 16)
    throw Error(loc, "minBlocksPerSM(" + std::to_string(blocks) + ") of " +
                         std::to_string(threads) + " threads would leave " +
                         std::to_string(perThread) + " registers a thread (of " +
                         std::to_string(k.target->registersPerSM) + " on " + k.target->arch +
                         "); at least 16 are needed");
  k.kernel.setMinBlocksPerSm(blocks);
}

void Kernel::producerRegisters(int registers, SourceLoc loc) {
  KernelState &k = checked(id_, loc);
  if (!tile::isProducerRegisterCount(registers))
    throw Error(loc, "producerRegisters(" + std::to_string(registers) +
                         "): a producer warp keeps 24 to 64 registers, a multiple of 8 "
                         "(setmaxnreg's steps)");
  k.kernel.setProducerRegisters(registers);
}

int Kernel::blockDim(int dim, SourceLoc loc) const {
  KernelState &k = checked(id_, loc);
  if (!k.block)
    throw Error(loc, "blockDim() before threads() is set");
  if (dim < 0 || dim > 2)
    throw Error(loc, "dimension " + std::to_string(dim) + " is not 0, 1 or 2");
  return (*k.block)[dim];
}

/// A count that is a negative constant is a mistake at its line (one
/// computed at run time is refused by the launch, which names that line).
static void refuseNegative(mlir::Value v, const std::string &what, const SourceLoc &loc) {
  llvm::APInt c;
  if (mlir::matchPattern(v, mlir::m_ConstantInt(&c)) && c.isNegative())
    throw Error(loc, what + " negative (" + std::to_string(c.getSExtValue()) + ")");
}

void Kernel::grid(Arg x, Arg y, Arg z) {
  KernelState &k = checked(id_, x.loc());
  if (k.grid)
    throw Error(x.loc(), "grid() is set twice");
  std::array<mlir::Value, 3> g;
  const Arg *args[] = {&x, &y, &z};
  for (int d = 0; d < 3; ++d) {
    mlir::Value v = indexValue(k, *args[d], "the grid");
    refuseNegative(v, "grid(): dimension " + std::to_string(d) + " is", args[d]->loc());
    g[d] = k.toHost(v, args[d]->loc(), "the grid");
  }
  k.grid = g;
  k.gridLoc = x.loc();
}

void Kernel::persistent(Arg items, const std::function<void(Value)> &body,
                        PersistentOptions options) {
  KernelState &k = checked(id_, items.loc());
  if (k.grid)
    throw Error(items.loc(), "persistent() sets the grid, which is already set");
  if (options.blocksPerSM < 1)
    throw Error(items.loc(), "persistent(): blocksPerSM must be positive, not " +
                                 std::to_string(options.blocksPerSM));
  mlir::Location loc = k.loc(items.loc());
  mlir::Value n = indexValue(k, items, "persistent()'s item count");
  refuseNegative(n, "persistent(): the item count is", items.loc());
  mlir::Value hostItems = k.toHost(n, items.loc(), "persistent()'s item count");
  mlir::Value sms = tile::MultiprocessorCountOp::create(k.hostB, loc);
  mlir::Value most = mlir::arith::MulIOp::create(
      k.hostB, loc, sms, mlir::arith::ConstantIndexOp::create(k.hostB, loc, options.blocksPerSM));
  mlir::Value one = mlir::arith::ConstantIndexOp::create(k.hostB, loc, 1);
  k.grid = std::array<mlir::Value, 3>{
      mlir::arith::MinSIOp::create(k.hostB, loc, hostItems, most), one, one};
  k.gridLoc = items.loc();
  Value count = Access::make(&k, n);
  if (options.order == WorkOrder::zigzag)
    require(count < (int64_t(1) << 31),
            "persistent(): the zigzag order takes fewer than 2^31 items");
  if (options.dynamic && options.order == WorkOrder::zigzag)
    throw Error(items.loc(), "persistent(): the zigzag order deals the items out in advance; "
                             "dynamic takes them linear or lastFirst");
  // dynamic: the launch's work counter, as a tensor of one element.
  std::optional<Tensor> queue;
  if (options.dynamic) {
    require(count < (int64_t(1) << 31),
            "persistent(): dynamic work items are counted in 32 bits: fewer than 2^31");
    mlir::Value counter = tile::WorkCounterOp::create(
        k.hostB, loc, tile::PtrType::get(k.ctx, k.b.getI32Type()));
    mlir::Value ptr = k.addHiddenArgument("work_counter", counter, items.loc());
    Tensor base;
    Access::fill(base, &k, "work_counter", DType::i32, Access::make(&k, ptr), Value(), {}, {},
                 {});
    queue = k.atEntry([&] {
      return view(base, Arg(0, items.loc()), {Arg(1, items.loc())}, {Arg(1, items.loc())},
                  items.loc());
    });
  }
  auto item = [&](Value i) {
    if (options.order == WorkOrder::linear)
      return body(i);
    Value position = i;
    if (options.order == WorkOrder::zigzag) {
      // Block b's item of round r = (i - b) / grid: position i in an even
      // round, its mirror in an odd one (among the round's m blocks, the
      // last round's possibly fewer than the grid). In 32 bits: one
      // division an item.
      Value b = cast(blockId(0, items.loc()), DType::i32);
      Value grid = cast(gridDim(0, items.loc()), DType::i32);
      Value i32 = cast(i, DType::i32);
      Value from = i32 - b;
      Value round = from / grid;
      Value start = round * grid;
      Value left = cast(count, DType::i32) - start;
      Value m = min(grid, left);
      Value mirrored = start + (m - 1 - b);
      Value odd = (round % 2) == 1;
      position = cast(select(odd, mirrored, i32), DType::index);
    }
    body(count - 1 - position);
  };
  if (options.itemBuffers < 2)
    throw Error(items.loc(), "persistent(): itemBuffers must be at least 2, not " +
                                 std::to_string(options.itemBuffers));
  if (!options.prefetch && !options.dynamic)
    return serial(blockId(0, items.loc()), count, item, gridDim(0, items.loc()));
  if (!options.prefetch) {
    // The block's first thread claims each next item (the claim that
    // counts the launch's last resets the counter) and hands it to the
    // others through shared memory, between two barriers.
    SourceLoc at = items.loc();
    Shared claimed = shared(DType::i32, {1}, at);
    Var position = var(DType::index, blockId(0, at), at);
    Value grid = gridDim(0, at);
    while_([&] { return position < count; },
           [&] {
             item(position);
             barrier(at);
             if_(threadId(0, at) == 0 && threadId(1, at) == 0 && threadId(2, at) == 0, [&] {
               Value c = atomicAdd((*queue)(0), constant(1, DType::i32), at);
               if_(c == cast(count, DType::i32) - 1,
                   [&] { atomicExchange((*queue)(0), constant(0, DType::i32), at); });
               claimed(0) = c;
             });
             barrier(at);
             position = grid + cast(claimed(0), DType::index, at);
           },
           at);
    // A pipelined loop in the body would get a producer warpgroup, which
    // runs the item loop too but meets neither barrier: it could not see
    // the claims.
    mlir::Operation *loop = &*std::prev(k.b.getInsertionPoint());
    if (loop->walk([](tile::PipelinedOp) { return mlir::WalkResult::interrupt(); })
            .wasInterrupted())
      throw Error(at, "persistent(): dynamic items without prefetch cannot hold a pipelined() "
                      "loop (its producer warps would not see the claims); give prefetch = "
                      "true");
    return;
  }
  // A pipelined loop of one group over the block's items, itemBuffers in
  // flight.
  for (mlir::Operation *p = k.b.getInsertionBlock()->getParentOp(); p; p = p->getParentOp())
    if (llvm::isa<tile::PipelinedOp, tile::ParallelOp>(p))
      throw Error(items.loc(), "persistent() inside a pipelined() or parallel() loop");
  auto lo = Access::get(blockId(0, items.loc())), step = Access::get(gridDim(0, items.loc()));
  auto loop = tile::PipelinedOp::create(
      k.b, loc, lo, n, step, /*stages=*/options.itemBuffers, /*groups=*/1, mlir::ValueRange(),
      queue ? Access::viewOf(*queue) : mlir::Value());
  detail::buildCarriedBody(k, loop, loop.getBody().front(),
                           [&](Value i, std::vector<Value>) {
                             item(i);
                             return std::vector<Value>{};
                           },
                           items.loc(), "persistent()", /*single=*/false);
}

void Kernel::require(Arg cond, const std::string &message) {
  KernelState &k = checked(id_, cond.loc());
  mlir::Value c = detail::materialize(k, cond, k.b.getI1Type(), "require()");
  if (!c.getType().isInteger(1))
    throw Error(cond.loc(), "require() takes a bool, not " +
                                detail::describe(c.getType()));
  tile::HostCheckOp::create(k.hostB, k.loc(cond.loc()),
                            k.toHost(c, cond.loc(), "require()"), message);
}

static Value geometry(KernelState &k, int dim, const SourceLoc &loc,
                      const char *what,
                      mlir::Value (*make)(mlir::OpBuilder &, mlir::Location,
                                          tile::Dim)) {
  if (dim < 0 || dim > 2)
    throw Error(loc, std::string(what) + "(" + std::to_string(dim) +
                         "): the dimension is 0, 1 or 2");
  return Access::make(&k, make(k.b, k.loc(loc), static_cast<tile::Dim>(dim)));
}

Value Kernel::threadId(int dim, SourceLoc loc) {
  return geometry(checked(id_, loc), dim, loc, "threadId",
                  [](mlir::OpBuilder &b, mlir::Location l, tile::Dim d) -> mlir::Value {
                    return tile::ThreadIdOp::create(b, l, d);
                  });
}
Value Kernel::blockId(int dim, SourceLoc loc) {
  return geometry(checked(id_, loc), dim, loc, "blockId",
                  [](mlir::OpBuilder &b, mlir::Location l, tile::Dim d) -> mlir::Value {
                    return tile::BlockIdOp::create(b, l, d);
                  });
}
Value Kernel::gridDim(int dim, SourceLoc loc) {
  return geometry(checked(id_, loc), dim, loc, "gridDim",
                  [](mlir::OpBuilder &b, mlir::Location l, tile::Dim d) -> mlir::Value {
                    return tile::GridDimOp::create(b, l, d);
                  });
}

//===----------------------------------------------------------------------===//
// Control flow and variables
//===----------------------------------------------------------------------===//

namespace detail {
/// serial() carrying `init` (nothing for the plain form, whose body then
/// returns nothing).
static std::vector<Value>
serialLoop(KernelState &k, const Arg &lo, const Arg &hi, const std::vector<Arg> &init,
           const Arg &step,
           const std::function<std::vector<Value>(Value, std::vector<Value>)> &body,
           bool single) {
  auto s = staticInt(step);
  if (s && *s <= 0)
    throw Error(step.loc(), "serial(): the step must be positive, not " +
                                std::to_string(*s));
  mlir::Value l = indexValue(k, lo, "serial()"), h = indexValue(k, hi, "serial()"),
              st = indexValue(k, step, "serial()");
  auto inits = carriedInits(k, init, "serial()");
  auto loop = tile::ForOp::create(k.b, k.loc(lo.loc()), l, h, st, inits);
  return buildCarriedBody(k, loop, loop.getBody().front(), body, lo.loc(), "serial()",
                          single);
}
} // namespace detail

void Kernel::serial(Arg lo, Arg hi, const std::function<void(Value)> &body,
                    Arg step) {
  KernelState &k = checked(id_, lo.loc());
  detail::serialLoop(k, lo, hi, {}, step,
                     [&](Value i, std::vector<Value>) {
                       body(i);
                       return std::vector<Value>{};
                     },
                     /*single=*/false);
}

llvm::SmallVector<mlir::Value> detail::carriedInits(KernelState &k,
                                                   const std::vector<Arg> &init,
                                                   const char *what) {
  llvm::SmallVector<mlir::Value> inits;
  for (const Arg &a : init) {
    detail::kernelFor({&a}, a.loc());
    mlir::Value v = detail::materialize(k, a, std::nullopt, what);
    if (llvm::isa<mlir::VectorType>(v.getType()))
      throw Error(a.loc(), std::string(what) +
                               " carries scalars and fragments, not a vector (" +
                               detail::describe(v.getType()) + ")");
    inits.push_back(v);
  }
  return inits;
}

std::vector<Value> detail::buildCarriedBody(
    KernelState &k, mlir::Operation *loop, mlir::Block &block,
    const std::function<std::vector<Value>(Value, std::vector<Value>)> &body,
    const SourceLoc &loc, const char *what, bool single) {
  std::vector<Value> carried;
  for (mlir::BlockArgument arg : block.getArguments().drop_front())
    carried.push_back(Access::make(&k, arg));
  size_t n = carried.size();
  mlir::OpBuilder::InsertionGuard guard(k.b);
  if (!block.empty() && block.back().hasTrait<mlir::OpTrait::IsTerminator>())
    block.back().erase(); // the yield of a loop carrying nothing; made below
  k.b.setInsertionPointToEnd(&block);
  std::vector<Value> next = body(Access::make(&k, block.getArgument(0)), carried);
  if (next.size() != n)
    throw Error(loc, std::string(what) + ": the body returns " + std::to_string(next.size()) +
                         (next.size() == 1 ? " value" : " values") + " but the loop carries " +
                         std::to_string(n));
  llvm::SmallVector<mlir::Value> yielded;
  for (size_t i = 0; i < n; ++i) {
    std::string which = single ? std::string("the carried value")
                               : "carried value #" + std::to_string(i);
    if (!next[i].valid())
      throw Error(loc, std::string(what) + ": the body returns an empty minitile::Value "
                                           "for " + which);
    checked(Access::kernelOf(next[i]), loc);
    mlir::Value v = Access::get(next[i]);
    mlir::Type want = block.getArgument(i + 1).getType();
    if (v.getType() != want) {
      std::string made;
      if (mlir::Operation *def = v.getDefiningOp())
        made = " (made at " + where(def->getLoc()) + ")";
      throw Error(loc, std::string(what) + ": the body returns " +
                           detail::describe(v.getType()) + made + " for " + which +
                           ", which is " + detail::describe(want) +
                           "; it returns what the initial value is");
    }
    yielded.push_back(v);
  }
  tile::YieldOp::create(k.b, loop->getLoc(), yielded);
  std::vector<Value> results;
  for (mlir::Value r : loop->getResults())
    results.push_back(Access::make(&k, r));
  return results;
}

Value Kernel::serial(Arg lo, Arg hi, Arg init,
                     const std::function<Value(Value, Value)> &body, Arg step) {
  KernelState &k = checked(id_, lo.loc());
  std::vector<Value> r = detail::serialLoop(
      k, lo, hi, {init}, step,
      [&](Value i, std::vector<Value> c) { return std::vector<Value>{body(i, c[0])}; },
      /*single=*/true);
  return r[0];
}

std::vector<Value> Kernel::serial(
    Arg lo, Arg hi, std::vector<Arg> init,
    const std::function<std::vector<Value>(Value, std::vector<Value>)> &body, Arg step) {
  KernelState &k = checked(id_, lo.loc());
  return detail::serialLoop(k, lo, hi, init, step, body, /*single=*/false);
}

void Kernel::parallel(Arg lo, Arg hi, const std::function<void(Value)> &body,
                      Arg step, Across across) {
  KernelState &k = checked(id_, lo.loc());
  auto s = staticInt(step);
  if (s && *s <= 0)
    throw Error(step.loc(), "parallel(): the step must be positive, not " +
                                std::to_string(*s));
  for (mlir::Operation *p = k.b.getInsertionBlock()->getParentOp(); p;
       p = p->getParentOp())
    if (llvm::isa<tile::ParallelOp>(p))
      throw Error(lo.loc(), "parallel() inside another parallel(): each "
                            "iteration of the outer loop runs on one thread");
  mlir::Value l = indexValue(k, lo, "parallel()"), h = indexValue(k, hi, "parallel()"),
              st = indexValue(k, step, "parallel()");
  auto loop = tile::ParallelOp::create(k.b, k.loc(lo.loc()), l, h, st,
                                       across == Across::x);
  buildInto(k, loop.getBody().front(),
            [&] { body(Access::make(&k, loop.getInductionVar())); });
}

void Kernel::if_(Arg cond, const std::function<void()> &then,
                 const std::function<void()> &otherwise) {
  KernelState &k = checked(id_, cond.loc());
  mlir::Value c = detail::materialize(k, cond, k.b.getI1Type(), "if_()");
  if (!c.getType().isInteger(1))
    throw Error(cond.loc(), "if_() takes a bool, not " +
                                detail::describe(c.getType()));
  auto op = tile::IfOp::create(k.b, k.loc(cond.loc()), mlir::TypeRange(), c);
  auto region = [&](mlir::Region &r, const std::function<void()> &body) {
    mlir::OpBuilder end = mlir::OpBuilder::atBlockEnd(&r.emplaceBlock());
    tile::YieldOp::create(end, op.getLoc());
    buildInto(k, r.front(), body);
  };
  region(op.getThenRegion(), then);
  if (otherwise)
    region(op.getElseRegion(), otherwise);
}

Value Kernel::ifElse(Arg cond, const std::function<Value()> &then,
                     const std::function<Value()> &otherwise) {
  KernelState &k = checked(id_, cond.loc());
  mlir::Value c = detail::materialize(k, cond, k.b.getI1Type(), "ifElse()");
  if (!c.getType().isInteger(1))
    throw Error(cond.loc(), "ifElse() takes a bool, not " + detail::describe(c.getType()));
  if (!then || !otherwise)
    throw Error(cond.loc(), "ifElse() needs both branches (if_() runs one without a value)");
  // The branches are built first, into an if without results, whose regions
  // then move to the if of the type they yield.
  auto draft = tile::IfOp::create(k.b, k.loc(cond.loc()), mlir::TypeRange(), c);
  mlir::Value yielded[2];
  auto region = [&](mlir::Region &r, const std::function<Value()> &body, int which) {
    mlir::Block &block = r.emplaceBlock();
    buildInto(k, block, [&] {
      Value v = body();
      if (!v.valid())
        throw Error(cond.loc(), std::string("ifElse(): the ") + (which ? "else" : "then") +
                                    " branch gave no value");
      detail::checked(Access::kernelOf(v), cond.loc());
      yielded[which] = Access::get(v);
      tile::YieldOp::create(k.b, draft.getLoc(), yielded[which]);
    });
  };
  region(draft.getThenRegion(), then, 0);
  region(draft.getElseRegion(), otherwise, 1);
  if (yielded[0].getType() != yielded[1].getType()) {
    std::string why = "ifElse(): the branches give " + detail::describe(yielded[0].getType()) +
                      " and " + detail::describe(yielded[1].getType());
    draft.erase();
    throw Error(cond.loc(), why);
  }
  auto op = tile::IfOp::create(k.b, draft.getLoc(), mlir::TypeRange{yielded[0].getType()}, c);
  op.getThenRegion().takeBody(draft.getThenRegion());
  op.getElseRegion().takeBody(draft.getElseRegion());
  draft.erase();
  return Access::make(&k, op.getResult(0));
}

void Kernel::while_(const std::function<Value()> &cond,
                    const std::function<void()> &body, SourceLoc loc) {
  KernelState &k = checked(id_, loc);
  auto op = tile::WhileOp::create(k.b, k.loc(loc));
  {
    mlir::OpBuilder::InsertionGuard guard(k.b);
    k.b.setInsertionPointToEnd(&op.getCondition().emplaceBlock());
    Value c = cond();
    if (!c.valid())
      throw Error(loc, "the condition of while_() returned an empty minitile::Value");
    checked(Access::kernelOf(c), loc);
    mlir::Value v = Access::get(c);
    if (!v.getType().isInteger(1))
      throw Error(loc, "the condition of while_() is a bool, not " +
                           detail::describe(v.getType()));
    tile::ConditionOp::create(k.b, k.loc(loc), v);
  }
  mlir::Block &block = op.getBody().emplaceBlock();
  mlir::OpBuilder end = mlir::OpBuilder::atBlockEnd(&block);
  tile::YieldOp::create(end, k.loc(loc));
  buildInto(k, block, body);
}

void Kernel::barrier(SourceLoc loc) {
  KernelState &k = checked(id_, loc);
  requireEveryThread(k, "barrier()", "its threads do not all run the same iterations", loc);
  tile::BarrierOp::create(k.b, k.loc(loc));
}

Var Kernel::var(Arg init, SourceLoc loc) {
  KernelState &k = checked(id_, loc);
  mlir::Value v = detail::materialize(k, init, std::nullopt, "var()");
  return var(detail::dtypeOf(v.getType()), Arg(Access::make(&k, v), loc), loc);
}

Var Kernel::var(DType t, Arg init, SourceLoc loc) {
  KernelState &k = checked(id_, loc);
  auto type = tile::LocalType::get(k.ctx, k.type(t));
  // Variables live at the kernel entry; the initial value is stored here.
  auto local = k.atEntry(
      [&] { return tile::AllocLocalOp::create(k.b, k.loc(loc), type); });
  Var v;
  v.kernel_ = k.id;
  v.local_ = local.getResult().getAsOpaquePointer();
  v.dtype_ = t;
  v.set(init);
  return v;
}

Value Var::get(SourceLoc loc) const {
  KernelState &k = checked(kernel_, loc);
  mlir::Value local = mlir::Value::getFromOpaquePointer(local_);
  return Access::make(&k, tile::LocalLoadOp::create(k.b, k.loc(loc), k.type(dtype_),
                                                    local));
}

void Var::set(Arg v) const {
  KernelState &k = checked(kernel_, v.loc());
  mlir::Value local = mlir::Value::getFromOpaquePointer(local_);
  mlir::Type t = k.type(dtype_);
  mlir::Value x = detail::materialize(k, v, t, "a variable assignment");
  if (x.getType() != t) {
    bool widening = x.getType().isInteger() && !x.getType().isInteger(1) &&
                    (t.isIndex() || (t.isInteger() &&
                                     t.getIntOrFloatBitWidth() > x.getType().getIntOrFloatBitWidth()));
    if (!widening)
      throw Error(v.loc(), "a " + std::string(dtypeName(dtype_)) +
                               " variable cannot hold " +
                               detail::describe(x.getType()));
    x = Access::get(cast(Arg(Access::make(&k, x), v.loc()), dtype_, v.loc()));
  }
  tile::LocalStoreOp::create(k.b, k.loc(v.loc()), x, local);
}

//===----------------------------------------------------------------------===//
// Building a module from a generator
//===----------------------------------------------------------------------===//

namespace {

/// Finishes the launcher and kernel bodies and the function types.
/// `file` and `line` name the kernel's MINITILE_KERNEL.
void finish(KernelState &k, const std::string &file, unsigned line) {
  if (!k.block)
    throw Error(file, line, "the kernel never calls threads()");
  if (!k.grid)
    throw Error(file, line, "the kernel never calls grid()");
  mlir::Location loc = k.loc(k.gridLoc);
  mlir::Block &hostBody = k.host.getBody().front();
  mlir::Block &kernelBody = k.kernel.getBody().front();
  llvm::SmallVector<mlir::Value> args(hostBody.getArguments());
  args.append(k.hiddenArgs.begin(), k.hiddenArgs.end());
  tile::LaunchOp::create(k.hostB, loc, k.kernel.getSymName(), (*k.grid)[0],
                         (*k.grid)[1], (*k.grid)[2], args);
  tile::ReturnOp::create(k.hostB, loc);
  mlir::OpBuilder kernelEnd = mlir::OpBuilder::atBlockEnd(&kernelBody);
  tile::ReturnOp::create(kernelEnd, loc);
  k.host.setFunctionType(k.b.getFunctionType(hostBody.getArgumentTypes(), {}));
  k.kernel.setFunctionType(k.b.getFunctionType(kernelBody.getArgumentTypes(), {}));
}

/// Verifies the module; the first diagnostic becomes an Error at its line.
void verify(KernelState &k, const std::string &file) {
  std::optional<Error> first;
  mlir::ScopedDiagnosticHandler handler(k.ctx, [&](mlir::Diagnostic &d) {
    if (first || d.getSeverity() != mlir::DiagnosticSeverity::Error)
      return mlir::success();
    std::string message = d.str();
    if (auto l = llvm::dyn_cast<mlir::FileLineColLoc>(d.getLocation()))
      first.emplace(l.getFilename().str(), l.getLine(), message);
    else
      first.emplace(file, 0, message);
    return mlir::success();
  });
  if (mlir::failed(mlir::verify(k.module)) || first) {
    if (first)
      throw *first;
    throw Error(file, 0, "the kernel's IR does not verify");
  }
}

struct CurrentKernel {
  explicit CurrentKernel(KernelState *k) { detail::current() = k; }
  ~CurrentKernel() { detail::current() = nullptr; }
};

} // namespace

mlir::OwningOpRef<mlir::ModuleOp> buildKernel(mlir::MLIRContext &ctx,
                                              Generator &gen,
                                              const std::string &name,
                                              const std::string &doc,
                                              const Target &target) {
  ctx.loadDialect<tile::TileDialect, mlir::arith::ArithDialect, mlir::math::MathDialect>();
  if (detail::current())
    throw std::logic_error("buildKernel() while another kernel is being built");
  KernelState k(ctx, name, target);
  mlir::OwningOpRef<mlir::ModuleOp> owner(k.module);
  if (!doc.empty())
    k.host.setDocAttr(k.b.getStringAttr(doc));
  std::string file = "<generator " + name + ">";
  unsigned line = 0;
  if (auto *info = Registry::global().find(name)) {
    file = info->file;
    line = info->line;
  }
  {
    CurrentKernel scope(&k);
    Kernel kernel(&k);
    gen.generate(kernel);
    finish(k, file, line);
  }
  verify(k, file);
  return owner;
}

} // namespace minitile
