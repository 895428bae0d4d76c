//===- TmaCopies.h - copies by the tensor-memory accelerator --------------===//
//
// A tile.copy can run on the TMA when its source derives (through
// tile.slice) from a tile.view the launcher can describe -- pointer, offset,
// sizes and strides computed from the kernel's arguments -- and its box fits
// the TMA's limits. Planning such a copy adds a tensor map to the launcher
// and passes it to the kernel as a new !tile.tma_desc argument.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "dialect/HopperDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <optional>

namespace minitile::tile {

/// A gathered copy's rows (tile.copy with `rows`): each tile row is a box
/// of its own, its row coordinate read from the index tensor.
struct TmaGather {
  mlir::Value rows;                     // the i32 index tensor
  llvm::SmallVector<mlir::Value> at;    // where the tile's indices start in it
  mlir::Value base;                     // added to each index (the copy's row origin)
  int64_t count = 0;                    // tile rows
  int64_t rowBytes = 0;                 // bytes apart consecutive rows land
  unsigned coord = 0;                   // the entry of `coords` a row's index sets
};

struct TmaCopy {
  mlir::Value desc;                    // the kernel's tensor map argument
  llvm::SmallVector<mlir::Value> coords; // box origin, innermost first (i32)
  int64_t panels = 1;                  // box copies, one per swizzle panel
  int64_t panelElements = 0;           // innermost extent of each
  int64_t panelBytes = 0;              // bytes apart the panels land in the tile
  int64_t bytes = 0;                   // bytes the whole copy moves
  std::optional<TmaGather> gather;     // set for a gathered copy
  /// A gathered copy whose rows the issuing warp's lanes copy 16 bytes at a
  /// time (cp.async; its tile.copy has kCpAsyncAttr) where the caller runs
  /// the whole warp (emitTmaLoads' `leader`): the copy's own view and
  /// origin, which the lanes' addresses come from. (It keeps its tensor map:
  /// the launcher's checks of the tensor's alignment are the same.)
  bool lanes = false;
  mlir::Value source;
  llvm::SmallVector<mlir::Value, 2> origin;

  /// Every value the copy's coordinates are computed from where it stands:
  /// what a producer clones to issue it elsewhere.
  llvm::SmallVector<mlir::Value> operands() const;
  /// The same copy with `map` applied to those values.
  TmaCopy remapped(const mlir::IRMapping &map) const;
};

/// Whether `copy` asks for its rows by cp.async (kCpAsyncAttr).
bool byLanes(CopyOp copy);

/// The largest power of two (up to 2^30; 2^30 for 0) that integer `v` is
/// known to be a multiple of, from constants, arithmetic and loops'
/// bounds and steps: 1 when nothing is known.
int64_t knownMultiple(mlir::Value v, unsigned depth = 0);

/// Whether `copy` can run on the TMA; if not, why not. Besides the TMA's
/// limits on boxes and tensors, the box's origin in the innermost dimension
/// must be known to lie on a 16-byte boundary (knownMultiple()).
bool tmaEligible(CopyOp copy, std::string &why);

/// Plans `copy`, which must be tmaEligible, for the TMA: adds its tensor map
/// to the launcher and the kernel's arguments -- or uses `desc`, the kernel
/// argument of an earlier plan of the same copy (a clone of it) -- and
/// builds the coordinates before `copy`.
TmaCopy planTmaCopy(CopyOp copy, mlir::Value desc = {});

/// Entry `at[-1] + r` of the innermost dimension of the i32 index tensor
/// `rows` (at its other indices `at`), as `type` (i32 or index); -1 past the
/// end of that dimension. What gathered copies and stores into gathered rows
/// read for tile row `r` (an index value).
mlir::Value rowIndexOrNone(mlir::OpBuilder &b, mlir::Location loc, mlir::Value rows,
                           mlir::ValueRange at, mlir::Value r, mlir::Type type);

/// How many rows of a gathered copy the issuing thread reads the indices of
/// before it starts their boxes.
inline constexpr int64_t kGatherRowsAtOnce = 32;

/// Whether gathered copies `a` and `b` read the same rows: the same index
/// tensor from the same place, as many rows, the same row origin (the
/// indexer's backward gathers each 64-column panel of its kv rows by a
/// copy of its own).
bool sameGatheredRows(const TmaCopy &a, const TmaCopy &b);

/// Starts the box copies of `plans[i]` into `dests[i]`, completing on
/// `barriers[i]`, in order; consecutive gathered copies of the same rows
/// (sameGatheredRows) read each row's index once and start every copy's
/// boxes of that row together.
///
/// With `leader` (an i1, true on one lane of the warp), the whole warp runs
/// this: the TMA's copies are the leader's, and copies planned `lanes` are
/// every lane's cp.async of 16 bytes (a row's index read by one lane and
/// shuffled to those copying it); the caller has each lane arrive on the
/// stage's barrier once all of them are started (hopper.cp_async_arrive
/// covers every cp.async of the lane before it). Without it, they go by
/// the TMA like the others.
void emitTmaLoads(mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<TmaCopy> plans,
                  mlir::ValueRange dests, mlir::ValueRange barriers,
                  mlir::Value leader = {});

/// Starts the box copies of `plan` into `dest`, completing on `barrier`.
/// A gathered copy's are per row: the issuing thread reads
/// kGatherRowsAtOnce rows' indices (their latencies overlap), starts their
/// boxes, then takes the next rows;
/// a row without one (its index negative or past the index tensor's end)
/// gets a box outside the tensor, which the TMA fills with zeros and
/// counts in full on the barrier.
void emitTmaLoads(mlir::OpBuilder &b, mlir::Location loc, const TmaCopy &plan,
                  mlir::Value dest, mlir::Value barrier);

/// The kernel's mbarrier-initialising prologue (an if on thread 0 at its
/// entry, followed by a block-wide tile.barrier), or null where it has none.
IfOp barrierPrologue(KernelOp kernel);

/// A shared i64 tile holding `count` mbarriers, initialised once at the start
/// of the kernel (before any thread uses them) to expect `arrivals` each.
mlir::Value allocateBarriers(KernelOp kernel, int64_t count, int64_t arrivals,
                             mlir::Location loc);

} // namespace minitile::tile
