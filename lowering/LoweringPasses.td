//===- Passes.td - conversion of tile IR to LLVM + NVVM --------------------===//
#ifndef MINITILE_LOWERING_PASSES
#define MINITILE_LOWERING_PASSES

include "mlir/Pass/PassBase.td"

def ConvertTileToLLVM : Pass<"convert-tile-to-llvm", "::mlir::ModuleOp"> {
  let summary = "lower tile kernels (with arith, scf, cf) to the LLVM and NVVM dialects";
  let description = [{
    Each tile.kernel becomes an `llvm.func` marked `nvvm.kernel`; tensors
    become {pointer, outer strides} structs; loops and ifs go through scf and
    cf to LLVM branches. Launchers (tile.host), which only the C++ emitter
    reads, are dropped. Ceil and floor divisions are expanded on the way;
    float min and max become llvm.minimum and llvm.maximum.
  }];
  let options = [
    Option<"wgmmaDescriptorsAtUse", "wgmma-descriptors-at-use", "bool", "false",
           "make each wgmma's shared-memory descriptors right before it, from a "
           "base shared by the tile's descriptors, where LLVM cannot hoist them "
           "(ptxas then makes them in uniform registers rather than holding "
           "every one live across the loop: fewer registers, more instructions)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect", "::mlir::cf::ControlFlowDialect"];
}

#endif // MINITILE_LOWERING_PASSES
