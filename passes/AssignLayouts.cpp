//===- AssignLayouts.cpp - choose which thread holds each fragment element ===//
//
// Expects: fragments (static tensors) without layouts in tile.kernel bodies,
//          possibly carried through tile.for / tile.pipelined / tile.if.
// Leaves:  every fragment type carrying a #tile.frag layout. Each op's family
//          (passes/fragments/) infers the layouts its fragments need from
//          those known: gemm results take the wgmma accumulator layout of
//          the warps that run them; layouts flow forward and backward
//          through elementwise and shape ops; loops give an iter_arg, its
//          initial value, its yield and its result one layout. Where an
//          operand's value already has another layout, a tile.convert_layout
//          is inserted for that use (splat constants are made again
//          instead). Decisions that depend on what users want (a reduction's
//          result, a loop's carried values) wait until propagation stalls;
//          fragments still without a layout then get a blocked one, and
//          propagation resumes.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/fragments/Fragments.h"

#include "llvm/Support/MathExtras.h"

namespace minitile::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "passes/Passes.h.inc"
} // namespace minitile::tile

using namespace mlir;
using namespace minitile::tile;

namespace {

class LayoutAssignment {
public:
  explicit LayoutAssignment(KernelOp kernel) : kernel_(kernel), solver_(kernel) {}

  LogicalResult run() {
    while (true) {
      if (failed(propagate(/*stalled=*/false)))
        return failure();
      FailureOr<bool> decided = propagate(/*stalled=*/true);
      if (failed(decided))
        return failure();
      if (*decided)
        continue;
      Value open = firstUnassigned();
      if (!open)
        break;
      auto type = llvm::cast<RankedTensorType>(open.getType());
      FailureOr<int64_t> warps = solver_.executingWarps(open);
      if (failed(warps))
        return failure();
      if (failed(solver_.set(open, blockedLayout(kernel_.getContext(), type.getShape(),
                                                 elementBytes(type.getElementType()), *warps),
                             nullptr)))
        return failure();
    }
    return rewriteTypes();
  }

private:
  /// Every fragment value, in program order.
  SmallVector<Value> fragments() {
    SmallVector<Value> values;
    kernel_.walk<WalkOrder::PreOrder>([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (isFragment(arg))
              values.push_back(arg);
      for (Value v : op->getResults())
        if (isFragment(v))
          values.push_back(v);
    });
    return values;
  }

  Value firstUnassigned() {
    for (Value v : fragments())
      if (!solver_.get(v))
        return v;
    return nullptr;
  }

  /// Runs every family until nothing changes. With `stalled`, families may
  /// make the decisions they put off; then the walk stops at the first op
  /// that decided something (in program order), and the result says whether
  /// one did.
  FailureOr<bool> propagate(bool stalled) {
    solver_.stalled = stalled;
    do {
      solver_.changed = false;
      SmallVector<Operation *> ops;
      kernel_.walk<WalkOrder::PreOrder>([&](Operation *op) { ops.push_back(op); });
      for (Operation *op : ops) {
        const FragmentFamily *family = familyOf(op);
        if (!family) {
          if (touchesFragments(op))
            return op->emitOpError("does not take fragments");
          continue;
        }
        if (failed(family->inferLayouts(op, solver_)))
          return failure();
        if (stalled && solver_.changed)
          return true;
      }
    } while (!stalled && solver_.changed);
    return false;
  }

  LogicalResult rewriteTypes() {
    for (Value v : fragments()) {
      auto type = llvm::cast<RankedTensorType>(v.getType());
      auto typed = withLayout(type, solver_.get(v));
      v.setType(typed);
      if (auto constant = v.getDefiningOp<arith::ConstantOp>()) {
        auto dense = llvm::dyn_cast<DenseElementsAttr>(constant.getValue());
        if (!dense || !dense.isSplat())
          return constant.emitOpError("fragment constants are splats");
        constant.setValueAttr(DenseElementsAttr::get(typed, dense.getSplatValue<Attribute>()));
      }
    }
    return success();
  }

  KernelOp kernel_;
  LayoutSolver solver_;
};

struct AssignLayouts : minitile::tile::impl::TileAssignLayoutsBase<AssignLayouts> {
  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<KernelOp>())
      if (failed(LayoutAssignment(kernel).run()))
        return signalPassFailure();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// LayoutSolver
//===----------------------------------------------------------------------===//

namespace minitile::tile {

bool isFragment(Value v) { return llvm::isa<RankedTensorType>(v.getType()); }

bool touchesFragments(Operation *op) {
  return llvm::any_of(op->getOperands(), isFragment) ||
         llvm::any_of(op->getResults(), isFragment);
}

LogicalResult LayoutSolver::set(Value v, FragLayoutAttr layout, Operation *at) {
  if (!layout)
    return success();
  auto it = layouts_.find(v);
  if (it == layouts_.end()) {
    layouts_[v] = layout;
    changed = true;
    return success();
  }
  if (it->second == layout)
    return success();
  Operation *where = at ? at : v.getDefiningOp();
  if (!where)
    where = v.getParentBlock()->getParentOp();
  return where->emitOpError("gives a fragment two layouts: ")
         << it->second << " and " << layout;
}

/// Whether `v`'s defining op decides its layout (a user's wish waits).
static bool decidesOwnLayout(Value v) {
  if (llvm::isa<BlockArgument>(v))
    return true;
  return llvm::isa<GemmOp, ReduceOp, ForOp, PipelinedOp, IfOp, ConvertLayoutOp>(
      v.getDefiningOp());
}

void LayoutSolver::require(OpOperand &use, FragLayoutAttr layout) {
  Value v = use.get();
  if (!layout || !isFragment(v))
    return;
  FragLayoutAttr known = get(v);
  if (!known) {
    if (decidesOwnLayout(v)) {
      wishes_.try_emplace(v, layout);
      return;
    }
    (void)set(v, layout, use.getOwner());
    return;
  }
  if (known == layout)
    return;
  OpBuilder b(use.getOwner());
  Operation *def = v.getDefiningOp();
  // A splat constant, or a broadcast scalar, is made again in the layout the
  // use wants: cheaper than moving registers.
  bool remake = false;
  if (auto c = llvm::dyn_cast_or_null<arith::ConstantOp>(def))
    remake = llvm::isa<SplatElementsAttr>(c.getValue());
  if (auto bc = llvm::dyn_cast_or_null<BroadcastOp>(def))
    remake = !isFragment(bc.getSource());
  Value replacement;
  if (remake) {
    replacement = b.clone(*def)->getResult(0);
  } else {
    for (Value c : converted)
      if (c.getDefiningOp<ConvertLayoutOp>().getSource() == v && get(c) == layout &&
          c.getParentBlock() == use.getOwner()->getBlock() &&
          c.getDefiningOp()->isBeforeInBlock(use.getOwner())) {
        replacement = c;
        break;
      }
    if (!replacement) {
      replacement = ConvertLayoutOp::create(b, use.getOwner()->getLoc(), v.getType(), v);
      converted.push_back(replacement);
    }
  }
  layouts_[replacement] = layout;
  changed = true;
  use.set(replacement);
}

FailureOr<int64_t> LayoutSolver::executingWarps(Value v) const {
  KernelOp kernel = kernel_;
  int64_t all = kernel.getNumComputeThreads() / 32;
  auto warpsAt = [&](Operation *at) -> int64_t {
    auto loop = at->getParentOfType<PipelinedOp>();
    return loop ? all / loop.getGroups() : all;
  };
  Operation *def = v.getDefiningOp();
  if (!def)
    def = v.getParentBlock()->getParentOp();
  int64_t warps = warpsAt(def);
  for (Operation *user : v.getUsers())
    warps = std::min(warps, warpsAt(user));
  if (warps < 1 || !llvm::isPowerOf2_64(warps))
    return def->emitOpError("fragments need a power-of-two number of whole warps; "
                            "this code runs on ")
           << kernel.getNumComputeThreads() << " threads";
  return warps;
}

} // namespace minitile::tile
