//===- Warp.cpp - votes and shuffles among the 32 lanes of a warp ---------===//
//
// Each function records one warp-wide op (tile.vote, tile.shuffle_idx, _up,
// _down, _xor). Whether the block is whole warps is checked by the ops'
// verifiers once threads() is known, at the caller's line.
//
//===----------------------------------------------------------------------===//
#include "dsl/KernelState.h"

namespace minitile {
using detail::Access;
using detail::KernelState;

namespace {

Value vote(const Arg &pred, tile::VoteKind kind, const char *what, const SourceLoc &loc) {
  KernelState &k = detail::kernelFor({&pred}, loc);
  mlir::Value p = detail::materialize(k, pred, k.b.getI1Type(), what);
  if (!p.getType().isInteger(1))
    throw Error(loc, std::string(what) + " takes a bool, not " + detail::describe(p.getType()));
  mlir::Type result = kind == tile::VoteKind::ballot ? k.b.getI32Type() : k.b.getI1Type();
  return Access::make(&k, tile::VoteOp::create(k.b, k.loc(loc), result,
                                               tile::VoteKindAttr::get(k.ctx, kind), p));
}

/// The value a shuffle moves: an i32 or f32 scalar.
mlir::Value shuffled(KernelState &k, const Arg &v, const char *what, const SourceLoc &loc) {
  if (Access::isConstant(v))
    throw Error(loc, std::string(what) + " of a constant, which every lane already has");
  mlir::Value x = Access::get(Access::value(v));
  if (!x.getType().isInteger(32) && !x.getType().isF32())
    throw Error(loc, std::string(what) + " moves an i32 or an f32, not " +
                         detail::describe(x.getType()) + ": cast() it");
  return x;
}

/// A shuffle by a lane or a distance that may differ from lane to lane.
template <typename Op>
Value shuffle(const Arg &v, const Arg &offset, const char *what, const SourceLoc &loc) {
  KernelState &k = detail::kernelFor({&v, &offset}, loc);
  mlir::Value x = shuffled(k, v, what, loc);
  mlir::Value o = detail::materialize(k, offset, k.b.getI32Type(), what);
  if (!o.getType().isIndex() && !(o.getType().isSignlessInteger() && !o.getType().isInteger(1)))
    throw Error(loc, std::string(what) + " takes an integer lane offset, not " +
                         detail::describe(o.getType()));
  o = Access::get(cast(Arg(Access::make(&k, o), loc), DType::i32, loc));
  return Access::make(&k, Op::create(k.b, k.loc(loc), x.getType(), x, o));
}

} // namespace

Value warpBallot(Arg pred, SourceLoc loc) {
  return vote(pred, tile::VoteKind::ballot, "warpBallot()", loc);
}
Value warpAny(Arg pred, SourceLoc loc) { return vote(pred, tile::VoteKind::any, "warpAny()", loc); }
Value warpAll(Arg pred, SourceLoc loc) { return vote(pred, tile::VoteKind::all, "warpAll()", loc); }

Value warpShuffle(Arg v, Arg lane, SourceLoc loc) {
  return shuffle<tile::ShuffleIdxOp>(v, lane, "warpShuffle()", loc);
}
Value warpShuffleUp(Arg v, Arg delta, SourceLoc loc) {
  return shuffle<tile::ShuffleUpOp>(v, delta, "warpShuffleUp()", loc);
}
Value warpShuffleDown(Arg v, Arg delta, SourceLoc loc) {
  return shuffle<tile::ShuffleDownOp>(v, delta, "warpShuffleDown()", loc);
}

Value warpShuffleXor(Arg v, int mask, SourceLoc loc) {
  KernelState &k = detail::kernelFor({&v}, loc);
  mlir::Value x = shuffled(k, v, "warpShuffleXor()", loc);
  if (mask < 0 || mask > 31)
    throw Error(loc, "warpShuffleXor(): the lane mask is 0 to 31, not " + std::to_string(mask));
  return Access::make(&k, tile::ShuffleXorOp::create(k.b, k.loc(loc), x.getType(), x, mask));
}

} // namespace minitile
