//===- Refs.cpp - which shared tile, and which ring stage of it, a value is -===//
//
// See Refs.h.
//
//===----------------------------------------------------------------------===//
#include "passes/Refs.h"

using namespace mlir;
using namespace minitile::hopper;

namespace minitile::tile {

Value stripCasts(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!llvm::isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp, arith::ExtSIOp,
                   arith::TruncIOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

static Ref withStage(Ref r, Value index) {
  index = stripCasts(index);
  r.anyStage = false;
  if (auto c = index.getDefiningOp<arith::ConstantOp>())
    if (auto i = llvm::dyn_cast<IntegerAttr>(c.getValue())) {
      r.isConstant = true;
      r.constant = i.getValue().getSExtValue();
      return r;
    }
  r.stage = index;
  return r;
}

Ref refOf(Value tile) {
  if (auto stage = tile.getDefiningOp<StageOp>())
    return withStage(refOf(stage.getTiles()), stage.getIndex());
  Ref r;
  if (auto alloc = tile.getDefiningOp<AllocSharedOp>())
    r.root = alloc;
  return r;
}

bool mayAlias(const Ref &a, const Ref &b, bool sameIndices) {
  if (!a.root || !b.root)
    return true;
  if (a.root != b.root)
    return false;
  if (a.anyStage || b.anyStage)
    return true;
  if (a.isConstant && b.isConstant)
    return a.constant == b.constant;
  if (a.isConstant || b.isConstant || !sameIndices)
    return true;
  return a.stage == b.stage;
}

SmallVector<Ref, 2> readsOf(WgmmaOp mma) {
  auto ref = [](Value d) {
    auto desc = d.getDefiningOp<WgmmaDescOp>();
    return desc ? refOf(desc.getTile()) : Ref();
  };
  SmallVector<Ref, 2> refs;
  if (mma.getDescA())
    refs.push_back(ref(mma.getDescA()));
  refs.push_back(ref(mma.getDescB()));
  return refs;
}

} // namespace minitile::tile
