//===- Fragments.h - how each family of fragment ops is laid out and lowered -===//
//
// A fragment is a statically shaped tile held in the registers of the
// threads that run it; its #tile.frag layout says which thread and register
// hold each element. Every op that makes or takes fragments belongs to one
// family, and the family says, in one file, both halves of its story:
//
//   inferLayouts  tile-assign-layouts: from the layouts known so far for the
//                 op's fragments, the layouts the others must have. Called
//                 for every op until nothing changes.
//   distribute    tile-distribute-fragments: the per-thread scalar code of
//                 the op, once every fragment has a layout. Called once per
//                 op, in program order.
//
// The families (one file each, in this folder):
//   Elementwise.cpp  arith and math ops, constants, iota
//   ShapeOps.cpp     broadcast, reshape, transpose, convert_layout
//   Memory.cpp       load_tile, store_tile
//   Reductions.cpp   reduce
//   Gemm.cpp         gemm (wgmma on sm_90a)
//   Loops.cpp        tile.for / tile.pipelined / tile.if carrying fragments
//
//===----------------------------------------------------------------------===//
#pragma once

#include "dialect/HopperDialect.h"
#include "passes/Layouts.h"

#include "mlir/IR/Builders.h"

#include <functional>
#include <map>

namespace minitile::tile {

using Registers = llvm::SmallVector<mlir::Value>;
using Coord = llvm::SmallVector<int64_t>;

bool isFragment(mlir::Value v);
bool touchesFragments(mlir::Operation *op);

//===----------------------------------------------------------------------===//
// Layout assignment
//===----------------------------------------------------------------------===//

/// What tile-assign-layouts knows while it runs: the layout chosen so far for
/// each fragment value. Layouts, once set, never change.
class LayoutSolver {
public:
  explicit LayoutSolver(KernelOp kernel) : kernel_(kernel) {}
  KernelOp kernel() const { return kernel_; }

  FragLayoutAttr get(mlir::Value v) const { return layouts_.lookup(v); }
  /// Gives `v` `layout` (null: nothing known). A value that already has
  /// another layout is an error at `at`: use require() for operands, which
  /// can be converted.
  mlir::LogicalResult set(mlir::Value v, FragLayoutAttr layout, mlir::Operation *at);
  /// The operand `use` must arrive in `layout`: its value gets it if it has
  /// none yet; if it has another, a tile.convert_layout is inserted before
  /// the user and the use reads its result instead.
  void require(mlir::OpOperand &use, FragLayoutAttr layout);

  /// The layout a user asked `v` to have before `v`'s own op decided it
  /// (reductions, loop-carried values and gemm results decide themselves).
  FragLayoutAttr wish(mlir::Value v) const { return wishes_.lookup(v); }

  /// Warps holding `v`: those executing its definition and its uses, the
  /// fewest (a fragment made outside a pipelined loop and used in it lives in
  /// each group of warps). Fails unless a power of two.
  mlir::FailureOr<int64_t> executingWarps(mlir::Value v) const;

  /// Set when a layout was recorded since the last reset.
  bool changed = false;
  /// Set while propagation has stalled: families then make the decisions
  /// they put off for lack of wishes (one at a time, in program order).
  bool stalled = false;
  /// Values that tile.convert_layout ops inserted by require() made.
  llvm::SmallVector<mlir::Value> converted;

private:
  KernelOp kernel_;
  llvm::DenseMap<mlir::Value, FragLayoutAttr> layouts_;
  llvm::DenseMap<mlir::Value, FragLayoutAttr> wishes_;
};

//===----------------------------------------------------------------------===//
// Distribution
//===----------------------------------------------------------------------===//

/// What tile-distribute-fragments knows while it runs: the registers each
/// fragment became, and the thread geometry the families need.
class Distributor {
public:
  explicit Distributor(KernelOp kernel) : kernel_(kernel) {}
  KernelOp kernel() const { return kernel_; }

  FragLayoutAttr layout(mlir::Value v) const { return layoutOf(v.getType()); }

  /// The registers of fragment `v`, ready to read at `b`'s insertion point:
  /// if some come from wgmma groups that may still be in flight, and no wait
  /// for them dominates this point, a wait is inserted first.
  const Registers &read(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
  /// The registers of `v` without waiting for wgmma (for ops that only hand
  /// them on: a wgmma accumulating into them, a loop yield, a renaming).
  const Registers &registers(mlir::Value v);
  void define(mlir::Value v, Registers regs) { regs_[v.getAsOpaquePointer()] = std::move(regs); }

  /// A new wgmma group number (groups are numbered in program order).
  int newGroup() { return ++groups_; }
  int lastGroup() const { return groups_; }
  /// `regs` are written by wgmma group `group`, which may be in flight.
  void markInFlight(llvm::ArrayRef<mlir::Value> regs, int group);
  /// `commit` (a wgmma commit, already in the IR) starts group `group`. A
  /// read of an earlier group's registers where n such commits of later
  /// groups come before it on every path waits for all but n groups, so the
  /// later ones run on under it.
  void noteCommit(mlir::Operation *commit, int group) { commits_.push_back({commit, group}); }
  /// `wait` (a wgmma wait for all groups, already in the IR) completes the
  /// groups started before it.
  void noteWait(mlir::Operation *wait) { waits_.push_back({wait, groups_}); }
  /// The group writing `reg`, 0 if none.
  int groupOf(mlir::Value reg) const { return inFlight_.lookup(reg); }

  /// The thread's lane, and its warp among the `warps` warps executing here
  /// (computed once per block, at the start of the compute threads' code).
  std::pair<mlir::Value, mlir::Value> laneAndWarp(mlir::OpBuilder &b, mlir::Location loc,
                                                   int64_t warps);
  /// Per dimension, the coordinate offset of this thread's lane and warp.
  llvm::SmallVector<mlir::Value> threadOffset(mlir::OpBuilder &b, mlir::Location loc,
                                              FragLayoutAttr layout);
  /// The same of its warp alone (what the warp's lanes share).
  llvm::SmallVector<mlir::Value> warpOffset(mlir::OpBuilder &b, mlir::Location loc,
                                            FragLayoutAttr layout);
  /// Makes `to`'s registers those of `from` holding the elements `mapCoord`
  /// maps `to`'s coordinates to; fails if the layouts place them on other
  /// lanes or warps.
  mlir::LogicalResult rename(mlir::Operation *op, mlir::Value from, mlir::Value to,
                             llvm::function_ref<Coord(llvm::ArrayRef<int64_t>)> mapCoord);

  /// An index constant.
  static mlir::Value index(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
  /// The two-element vector {lo, hi} (two registers packed into one 32-bit
  /// register's halves, or two f32 converted at once).
  static mlir::Value pair(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lo,
                          mlir::Value hi);
  /// The vector of `elements` (one type, at least one).
  static mlir::Value vector(mlir::OpBuilder &b, mlir::Location loc,
                            llvm::ArrayRef<mlir::Value> elements);

  /// Where to build a pure op of `operands` that `b` would build inside
  /// loops (tile.for, tile.pipelined, tile.while; tile.ifs between them are
  /// crossed too: the op is pure) none of the operands is defined in: before
  /// the outermost such loop, so it is made once, not every iteration (LLVM
  /// hoists ordinary arithmetic itself, but not the asm some hopper ops
  /// lower to). `b`'s own point if no loop is crossed.
  static mlir::OpBuilder::InsertPoint invariantPoint(mlir::OpBuilder &b,
                                                     mlir::ValueRange operands);

private:
  KernelOp kernel_;
  llvm::DenseMap<void *, Registers> regs_;
  llvm::DenseMap<mlir::Value, int> inFlight_;
  int groups_ = 0;
  /// Every wgmma wait inserted, with the last group it completes.
  llvm::SmallVector<std::pair<mlir::Operation *, int>> waits_;
  /// Every wgmma commit, with the group it starts.
  llvm::SmallVector<std::pair<mlir::Operation *, int>> commits_;
  /// (block, warps) -> (lane, warp) computed at that block's start.
  std::map<std::pair<mlir::Block *, int64_t>, std::pair<mlir::Value, mlir::Value>> geometry_;
};

//===----------------------------------------------------------------------===//
// Families
//===----------------------------------------------------------------------===//

class FragmentFamily {
public:
  virtual ~FragmentFamily() = default;
  virtual bool handles(mlir::Operation *op) const = 0;
  virtual mlir::LogicalResult inferLayouts(mlir::Operation *op, LayoutSolver &s) const = 0;
  virtual mlir::LogicalResult distribute(mlir::Operation *op, Distributor &d,
                                         mlir::OpBuilder &b) const = 0;
};

/// The family of `op`, or null if it has none (then it may not touch
/// fragments).
const FragmentFamily *familyOf(mlir::Operation *op);

const FragmentFamily &elementwiseFamily();
const FragmentFamily &shapeFamily();
const FragmentFamily &memoryFamily();
const FragmentFamily &reductionFamily();
const FragmentFamily &gemmFamily();
const FragmentFamily &loopFamily();

} // namespace minitile::tile
