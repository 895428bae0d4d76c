//===- Fill.cpp - fill(): a block-wide, vectorised store of one value -----===//
#include "dsl/KernelState.h"

namespace minitile {
using detail::Access;

void fill(const Tensor &t, Arg lo, Arg hi, Arg value, Across across, SourceLoc loc) {
  if (t.rank() != 1)
    throw Error(loc, "fill() takes a rank-1 tensor; '" + t.name() + "' has rank " +
                         std::to_string(t.rank()) + " (slice() a row of it)");
  detail::KernelState &state = detail::checked(Access::kernelOfTensor(t), loc);
  detail::kernelFor({&lo, &hi, &value}, loc);
  Kernel k(&state);
  mlir::Value v = detail::materialize(state, value, state.type(t.dtype()), "fill()");
  if (v.getType() != state.type(t.dtype()))
    throw Error(loc, "fill() of '" + t.name() + "' (" + dtypeName(t.dtype()) +
                         ") with a " + detail::describe(v.getType()) + " value");
  Value x = Access::make(&state, v);
  Value begin = cast(lo, DType::index, loc), end = cast(hi, DType::index, loc);
  Value n = max(Arg(end - begin, loc), Arg(0, loc));
  int lanes = 16 / dtypeBytes(t.dtype());
  // [begin, bodyBegin): single elements up to the first 16-byte boundary;
  // [bodyBegin, bodyEnd): 16-byte vectors; [bodyEnd, begin + n): the rest.
  Value head = min(Arg(t.elementsToAligned({begin}, 16, loc), loc), Arg(n, loc));
  Value bodyBegin = Arg(begin, loc) + head;
  Value bodyEnd = Arg(bodyBegin, loc) + (Arg(n - head, loc) / lanes) * lanes;
  Value stop = Arg(begin, loc) + n;
  auto scalar = [&](Value i) { t.store({Arg(i, loc)}, Arg(x, loc), loc); };
  // Each part only where it is not empty (the tests are the same on every
  // thread): a distributed loop costs its threads some 30 instructions of
  // set-up even when it runs no iteration, and a kernel filling the few
  // ends of short windows (a persistent indexer's items) pays them often.
  k.if_(Arg(n, loc) > 0, [&] {
    k.if_(Arg(head, loc) > 0, [&] {
      k.parallel(Arg(begin, loc), Arg(bodyBegin, loc), scalar, Arg(1, loc), across);
    });
    k.if_(Arg(bodyEnd, loc) > Arg(bodyBegin, loc), [&] {
      Value vec = splat(Arg(x, loc), lanes, loc);
      k.parallel(
          Arg(bodyBegin, loc), Arg(bodyEnd, loc),
          [&](Value i) { t.store({Arg(i, loc)}, Arg(vec, loc), loc); }, Arg(lanes, loc),
          across);
    });
    k.if_(Arg(stop, loc) > Arg(bodyEnd, loc), [&] {
      k.parallel(Arg(bodyEnd, loc), Arg(stop, loc), scalar, Arg(1, loc), across);
    });
  });
}

static_assert(kFillAsyncSharedBytes == tile::kFillSourceBytes,
              "dsl.h states the shared memory tile-lower-fills takes");

void fillAsync(const Tensor &t, Arg lo, Arg hi, Arg value, SourceLoc loc) {
  if (t.rank() != 1)
    throw Error(loc, "fillAsync() takes a rank-1 tensor; '" + t.name() + "' has rank " +
                         std::to_string(t.rank()) + " (slice() a row of it)");
  detail::KernelState &state = detail::checked(Access::kernelOfTensor(t), loc);
  detail::kernelFor({&lo, &hi, &value}, loc);
  // Without bulk copies the block's threads store the range themselves.
  if (!state.target->has(Feature::tma))
    return fill(t, lo, hi, value, Across::block, loc);
  detail::requireEveryThread(state, "fillAsync()",
                             "the block issues it once, so every thread must reach it", loc);
  mlir::Value v = detail::materialize(state, value, state.type(t.dtype()), "fillAsync()");
  if (v.getType() != state.type(t.dtype()))
    throw Error(loc, "fillAsync() of '" + t.name() + "' (" + dtypeName(t.dtype()) +
                         ") with a " + detail::describe(v.getType()) + " value");
  auto constant = v.getDefiningOp<mlir::arith::ConstantOp>();
  if (!constant)
    throw Error(loc, "fillAsync() of '" + t.name() +
                         "' takes a constant value (the block copies a tile of it, "
                         "written when the kernel starts); fill() takes any value");
  Value begin = cast(lo, DType::index, loc), end = cast(hi, DType::index, loc);
  tile::FillAsyncOp::create(state.b, state.loc(loc), Access::viewOf(t),
                            Access::get(begin), Access::get(end),
                            llvm::cast<mlir::TypedAttr>(constant.getValue()), false);
}

} // namespace minitile
