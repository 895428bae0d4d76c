//===- Refs.h - which shared tile, and which ring stage of it, a value is ===//
//
// tile-order-async and tile-ping-pong ask the same question of the IR: may
// two shared tiles seen at one point of a loop body be the same memory? A
// tile is its tile.alloc_shared and, for a ring, its stage index (casts
// stripped); two different SSA indices of one ring at one point are
// different stages (the ring builders of tile-warp-specialize keep this
// true), two constants are their values.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "dialect/HopperDialect.h"

#include <tuple>

namespace minitile::tile {

/// `v` without integer casts (index_cast, extensions, truncations): a ring's
/// stage index as the passes compare it.
mlir::Value stripCasts(mlir::Value v);

/// A shared tile, or the part of one a ring stage is.
struct Ref {
  mlir::Operation *root = nullptr; // its tile.alloc_shared; null: unknown, any tile
  bool anyStage = true;            // else the stage is `stage`, or `constant`
  mlir::Value stage;
  int64_t constant = 0;
  bool isConstant = false;

  auto key() const {
    return std::make_tuple(root, anyStage, stage.getAsOpaquePointer(), constant, isConstant);
  }
  bool operator<(const Ref &o) const { return key() < o.key(); }
  bool operator==(const Ref &o) const { return key() == o.key(); }
};

/// The tile (and stage) `tile`, a shared tile value, is.
Ref refOf(mlir::Value tile);

/// Whether `a` and `b` (seen at one point) may be the same memory; with
/// `sameIndices` false the stage indices are taken from different points,
/// where one SSA value may be two stages.
bool mayAlias(const Ref &a, const Ref &b, bool sameIndices = true);

/// The tiles a wgmma reads (an unknown tile where its descriptor is not a
/// hopper.wgmma_desc): B's, and A's unless A comes from registers.
llvm::SmallVector<Ref, 2> readsOf(hopper::WgmmaOp mma);

} // namespace minitile::tile
