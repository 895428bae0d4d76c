//===- VerifyTarget.cpp - refuse ops the target lacks ---------------------===//
//
// Expects: any module; its target is its `tile.target` attribute.
// Leaves:  the module unchanged, or fails with one error per op that needs a
//          feature the target does not have, at the op's own location (the
//          DSL line it came from), naming the op, the feature and the target.
//          Runs before lowering to LLVM, so no unsupported instruction ever
//          reaches the NVPTX backend.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

namespace minitile::tile {
#define GEN_PASS_DEF_TILEVERIFYTARGET
#include "passes/Passes.h.inc"
} // namespace minitile::tile

using namespace mlir;

namespace {

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
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
