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

def TileLowerCopies : Pass<"tile-lower-copies", "::mlir::ModuleOp"> {
  let summary = "lower tile.copy to TMA box copies on an mbarrier, or a plain copy";
  let dependentDialects = ["::minitile::hopper::HopperDialect"];
  let options = [Option<"forceFallback", "fallback", "bool", "false",
                        "never use the TMA (to test the plain copy)">];
}

def TileWarpSpecialize : Pass<"tile-warp-specialize", "::mlir::ModuleOp"> {
  let summary = "feed pipelined loops from a producer warpgroup through mbarrier rings";
  let description = [{
    Warp-specialises kernels whose pipelined loops copy by TMA: a producer
    warpgroup issues the copies of iteration i + stages - 1 while the compute
    warpgroups work on iteration i. Other pipelined loops become serial, with
    a remark saying why.
  }];
  let dependentDialects = ["::minitile::hopper::HopperDialect"];
}

def TileLowerFills : Pass<"tile-lower-fills", "::mlir::ModuleOp"> {
  let summary = "lower tile.fill_async to bulk copies of a shared tile of the value";
  let description = [{
    One thread per fill (the block's first, or the one a `single` fill
    stands on) stores the unaligned ends and bulk-copies a shared tile of
    the value over the aligned run; the tile is written at the kernel's
    start and every thread waits for its copies' reads before returning.
  }];
  let dependentDialects = ["::minitile::hopper::HopperDialect"];
}

def TileDistributeFragments : Pass<"tile-distribute-fragments", "::mlir::ModuleOp"> {
  let summary = "turn fragments into the registers of each thread";
  let description = [{
    Elementwise ops per register; shape ops by renaming registers; loads
    per element with bounds, stores per element or, where a thread holds
    consecutive elements of a row, per vector of up to 16 bytes (built with
    llvm.insertelement); reductions in registers, shuffles and
    shared memory; gemm to wgmma.
  }];
  let dependentDialects = ["::minitile::hopper::HopperDialect", "::mlir::LLVM::LLVMDialect"];
}

def TileOrderAsync : Pass<"tile-order-async", "::mlir::ModuleOp"> {
  let summary = "wait for async reads before a shared tile is rewritten; fence thread writes";
  let description = [{
    Puts the hopper.wgmma_wait, hopper.bulk_wait_read and
    hopper.fence_proxy_async ops that keep every shared tile from being
    written, or released to a producer, while a wgmma or bulk copy of this
    thread's may still read it, and that pass threads' writes to the async
    proxy before a barrier or an async read. The invariant and how it is
    checked are in docs/ASYNC.md.
  }];
  let dependentDialects = ["::minitile::hopper::HopperDialect"];
}

def TilePingPong : Pass<"tile-ping-pong", "::mlir::ModuleOp"> {
  let summary = "compute warpgroups take turns at issuing a loop's gemms";
  let description = [{
    In each tile.for marked `tile.ping_pong`, warpgroup w of the compute
    threads waits at its own named barrier before a turn's first gemm and
    hands the turn to warpgroup w + 1 after its last, so that one
    warpgroup's code between its gemms runs while the tensor cores work on
    another's. A turn is a run of gemms with no wait between them for one
    of the turn's gemms; the body's last turn joins the next iteration's
    first where the body has two; a ring's release at the body's end moves
    before such a turn. Loops it cannot serve stay as they
    are, with a remark.
  }];
  let dependentDialects = ["::minitile::hopper::HopperDialect"];
}

def TilePlanShared : Pass<"tile-plan-shared", "::mlir::ModuleOp"> {
  let summary = "place every shared tile in the kernel's dynamic shared memory";
  let description = [{
    Gives each tile.alloc_shared (times its stages) an offset, aligned to
    1024 bytes for swizzled tiles and 128 otherwise (a TMA destination's), swizzled
    tiles first; sets smem_bytes.
  }];
}

def TileVerifyTarget : Pass<"tile-verify-target", "::mlir::ModuleOp"> {
  let summary = "refuse every op the module's target lacks, before LLVM sees it";
  let description = [{
    Reads the target from the module's `tile.target` attribute (sm_90a
    without one) and reports each hopper op that needs a feature the target
    does not have, at the op's location (the kernel's source line).
  }];
}

#endif // MINITILE_PASSES
