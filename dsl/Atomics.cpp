//===- Atomics.cpp - atomic read-modify-writes of one element -------------===//
//
// atomicAdd() and its kin on an Element: of a tensor, a tile.atomic; of a
// shared tile, a tile.shared_atomic. The value must have the element's type
// exactly (constants take it); the element type must be i32, i64 or f32.
//
//===----------------------------------------------------------------------===//
#include "dsl/KernelState.h"

namespace minitile {
using detail::Access;
using detail::KernelState;

namespace {

Value atomic(const Element &e, const Arg &v, tile::AtomicKind kind, const char *what,
             const SourceLoc &loc) {
  const Tensor *tensor = Access::elementTensor(e);
  const Shared *shared = Access::elementShared(e);
  KernelState &k = detail::checked(
      tensor ? Access::kernelOfTensor(*tensor) : Access::kernelOfShared(*shared), loc);
  detail::kernelFor({&v}, loc);
  DType dtype = tensor ? tensor->dtype() : shared->dtype();
  std::string target = tensor ? "'" + tensor->name() + "'" : std::string("a shared tile");
  if (dtype != DType::i32 && dtype != DType::i64 && dtype != DType::f32)
    throw Error(loc, std::string(what) + " on " + target + ", which holds " +
                         dtypeName(dtype) + "; atomics take i32, i64 or f32 elements");
  if (dtype == DType::f32 && kind != tile::AtomicKind::add &&
      kind != tile::AtomicKind::exchange)
    throw Error(loc, std::string(what) + " on " + target +
                         ", which holds f32; it takes integers (floats take "
                         "atomicAdd() and atomicExchange())");
  mlir::Type element = k.type(dtype);
  mlir::Value x = detail::materialize(k, v, element, what);
  if (x.getType() != element)
    throw Error(loc, std::string(what) + " on " + target + " (" + dtypeName(dtype) +
                         ") with a " + detail::describe(x.getType()) +
                         " value: cast() it first");
  mlir::Location l = k.loc(loc);
  auto kindAttr = tile::AtomicKindAttr::get(k.ctx, kind);
  if (tensor) {
    auto indices = detail::tensorIndices(k, Access::elementIndices(e));
    return Access::make(&k, tile::AtomicOp::create(k.b, l, element, kindAttr, x,
                                                   Access::viewOf(*tensor), indices));
  }
  auto [row, col] = detail::sharedRowCol(k, *shared, Access::elementIndices(e), loc);
  return Access::make(&k, tile::SharedAtomicOp::create(k.b, l, element, kindAttr, x,
                                                       detail::sharedValue(*shared), row,
                                                       col));
}

} // namespace

Value atomicAdd(const Element &e, Arg v, SourceLoc loc) {
  return atomic(e, v, tile::AtomicKind::add, "atomicAdd()", loc);
}
Value atomicMax(const Element &e, Arg v, SourceLoc loc) {
  return atomic(e, v, tile::AtomicKind::max, "atomicMax()", loc);
}
Value atomicMin(const Element &e, Arg v, SourceLoc loc) {
  return atomic(e, v, tile::AtomicKind::min, "atomicMin()", loc);
}
Value atomicAnd(const Element &e, Arg v, SourceLoc loc) {
  return atomic(e, v, tile::AtomicKind::and_, "atomicAnd()", loc);
}
Value atomicOr(const Element &e, Arg v, SourceLoc loc) {
  return atomic(e, v, tile::AtomicKind::or_, "atomicOr()", loc);
}
Value atomicXor(const Element &e, Arg v, SourceLoc loc) {
  return atomic(e, v, tile::AtomicKind::xor_, "atomicXor()", loc);
}
Value atomicExchange(const Element &e, Arg v, SourceLoc loc) {
  return atomic(e, v, tile::AtomicKind::exchange, "atomicExchange()", loc);
}

} // namespace minitile
