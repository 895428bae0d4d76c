//===- VerifyTarget.cpp - refuse ops the target lacks ---------------------===//
//
// Expects: any module; its target is its `tile.target` attribute.
// Leaves:  the module unchanged, or fails with one error per op that needs a
//          feature the target does not have, at the op's own location (the
//          DSL line it came from), naming the op, the feature and the target.
//          Runs before lowering to LLVM, so no unsupported instruction ever
//          reaches the NVPTX backend. Likewise a wgmma in a kernel whose
//          min_blocks_per_sm leaves a thread fewer registers at launch than
//          ptxas needs to compile it (its accumulator and ~26 more: ptxas's
//          C7602 otherwise), at the wgmma's location.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

namespace minitile::tile {
#define GEN_PASS_DEF_TILEVERIFYTARGET
#include "passes/Passes.h.inc"
} // namespace minitile::tile

using namespace mlir;

namespace {

/// Registers ptxas needs beside a wgmma's accumulator to compile it (its
/// C7602 for m64n128k16 under an 80-register cap asks for 90).
constexpr int64_t kWgmmaExtraRegisters = 26;

struct VerifyTarget : minitile::tile::impl::TileVerifyTargetBase<VerifyTarget> {
  void runOnOperation() override {
    const minitile::Target &target = minitile::tile::targetOf(getOperation());
    bool ok = true;
    getOperation().walk([&](Operation *op) {
      std::optional<minitile::Feature> needs = minitile::hopper::requiredFeature(op);
      if (!needs || target.has(*needs))
        return;
      op->emitError("'") << op->getName() << "' needs " << minitile::featureName(*needs)
                         << ", which " << target.arch << " does not have";
      ok = false;
    });
    getOperation().walk([&](minitile::tile::KernelOp kernel) {
      std::optional<int32_t> blocks = kernel.getMinBlocksPerSm();
      if (!blocks)
        return;
      int64_t threads = kernel.getNumThreads();
      int64_t cap = target.registersAtLaunch(threads, *blocks);
      kernel.walk([&](minitile::hopper::WgmmaOp wgmma) {
        // (A from registers: its four of this k-step too.)
        int64_t needs =
            int64_t(wgmma.getAcc().size() + wgmma.getA().size()) + kWgmmaExtraRegisters;
        if (needs <= cap)
          return;
        wgmma.emitError("this gemm needs about ")
            << needs << " registers a thread (its accumulator's " << wgmma.getAcc().size()
            << " and addresses), but " << *blocks << " blocks of " << threads
            << " threads on a multiprocessor (min_blocks_per_sm) leave " << cap << " on "
            << target.arch;
        ok = false;
      });
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
