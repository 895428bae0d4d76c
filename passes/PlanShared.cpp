//===- PlanShared.cpp - place shared tiles in dynamic shared memory -------===//
//
// Expects: tile.alloc_shared ops (at any depth) and tile.stage views of them.
// Leaves:  each alloc replaced by a tile.shared_view at its byte offset and
//          each tile.stage by the view of that stage (stages are 1024-byte
//          aligned when swizzled, 128 otherwise: a TMA copy's destination
//          needs that); the kernel's smem_bytes set
//          to the total plus 1024 bytes of slack for aligning the base.
//          Swizzled tiles come first, in program order, then the others:
//          no padding lies between tiles of the two alignments.
//          Tiles are never reused: every one lives for the whole kernel.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

namespace minitile::tile {
#define GEN_PASS_DEF_TILEPLANSHARED
#include "passes/Passes.h.inc"
} // namespace minitile::tile

using namespace mlir;
using namespace minitile::tile;

namespace {

struct PlanShared : minitile::tile::impl::TilePlanSharedBase<PlanShared> {
  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<KernelOp>()) {
      SmallVector<AllocSharedOp> allocs;
      kernel.walk([&](AllocSharedOp alloc) { allocs.push_back(alloc); });
      if (allocs.empty())
        continue;
      std::stable_partition(allocs.begin(), allocs.end(), [](AllocSharedOp alloc) {
        return alloc.getType().getSwizzle() != 0;
      });
      // 1024 bytes of slack for aligning the base.
      const int64_t limit = targetOf(kernel).sharedMemoryPerBlock;
      int64_t offset = 0;
      for (AllocSharedOp alloc : allocs) {
        SharedType type = alloc.getType();
        // 128 bytes at least: what a TMA copy's destination needs.
        int64_t align = type.getSwizzle() ? 1024 : 128;
        int64_t stride = llvm::alignTo(type.getBytes(), align);
        offset = llvm::alignTo(offset, align);
        OpBuilder b(alloc);
        Location loc = alloc.getLoc();
        Value base = arith::ConstantIndexOp::create(b, loc, offset);
        auto view = SharedViewOp::create(b, loc, type, base);
        for (Operation *user : llvm::make_early_inc_range(alloc->getUsers())) {
          auto stage = llvm::dyn_cast<StageOp>(user);
          if (!stage)
            continue;
          OpBuilder sb(stage);
          Value at = arith::AddIOp::create(
              sb, loc, base,
              arith::MulIOp::create(sb, loc, stage.getIndex(),
                                    arith::ConstantIndexOp::create(sb, loc, stride)));
          stage.replaceAllUsesWith(SharedViewOp::create(sb, loc, type, at).getResult());
          stage.erase();
        }
        int64_t stages = alloc.getStages();
        offset += stride * stages;
        if (offset + 1024 > limit) {
          // Named at the tile that does not fit: its line in the kernel.
          InFlightDiagnostic diag = alloc.emitError("this shared tile (");
          if (stages > 1)
            diag << stages << " stages of ";
          diag << type.getBytes() << " bytes) does not fit: with it the kernel needs "
               << offset + 1024 << " bytes of shared memory, and a block on "
               << targetOf(kernel).arch << " has " << limit;
          return signalPassFailure();
        }
        alloc.replaceAllUsesWith(view.getResult());
        alloc.erase();
      }
      kernel.setSmemBytes(offset + 1024);
    }
  }
};

} // namespace
