//===- Passes.td - passes over tile IR -------------------------------------===//
#ifndef MINITILE_PASSES
#define MINITILE_PASSES

include "mlir/Pass/PassBase.td"

def TileDistributeParallel : Pass<"tile-distribute-parallel", "::mlir::ModuleOp"> {
  let summary = "spread tile.parallel loops over the threads of the block";
  let description = [{
    Rewrites each `tile.parallel %i = lb to ub step s` in a kernel of N
    threads into a serial `tile.for` starting at `lb + tid * s` with step
    `N * s`, so every iteration runs on exactly one thread.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileAssignLayouts : Pass<"tile-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "give every fragment a #tile.frag layout";
  let description = [{
    gemm results take the wgmma accumulator layout; layouts flow forward and
    backward through elementwise and shape operations; the rest is blocked.
  }];
}

#endif // MINITILE_PASSES
