//===- Stages.h - from tile IR to PTX and cubin ---------------------------===//
//
// The stages, in order:
//   runTilePasses       tile IR -> tile IR (layouts, warp specialisation,
//                       copies, registers, shared memory), for the target
//                       named by the module's `tile.target`
//   lowerToLLVMDialect  tile IR -> LLVM + NVVM dialects (launchers dropped),
//                       after refusing any op the target lacks
//   translateToLLVMIR   MLIR -> llvm::Module for nvptx64-nvidia-cuda
//   emitPTX             LLVM O3 and the NVPTX backend -> PTX text
//   assembleCubin       ptxas -> cubin (needs the CUDA toolkit)
// The tile stages report failure as MLIR diagnostics, assembleCubin with
// ptxas's messages; none aborts the process.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/Timing.h"

#include "minitile/target.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace minitile {

/// Every dialect and translation tile IR passes through.
void registerDialects(mlir::DialectRegistry &registry);
/// Tile passes, lowering passes and the upstream passes the pipeline uses.
void registerPasses();

struct StageOptions {
  bool printIRAfterAll = false; // to stderr
  mlir::TimingScope *timing = nullptr;
  /// lowerToLLVMDialect: each wgmma's descriptors made right before it
  /// (convert-tile-to-llvm's wgmma-descriptors-at-use).
  bool wgmmaDescriptorsAtUse = false;
};

mlir::LogicalResult runTilePasses(mlir::ModuleOp module, const StageOptions &opts);
mlir::LogicalResult lowerToLLVMDialect(mlir::ModuleOp module,
                                       const StageOptions &opts);

/// MLIR (LLVM + NVVM dialects) to LLVM IR, with the libdevice functions it
/// calls linked in; null on failure, which is reported as an MLIR
/// diagnostic at the op that does not translate (or at the module, for
/// libdevice).
std::unique_ptr<llvm::Module> translateToLLVMIR(mlir::ModuleOp module,
                                                llvm::LLVMContext &llvmContext,
                                                const Target &target);

/// Optimises at O3 for `target`.
void optimizeLLVMIR(llvm::Module &module, const Target &target);

/// Runs the NVPTX backend: the PTX text. Ops `target` lacks must not reach
/// it (tile-verify-target refuses them): LLVM aborts on them.
std::string emitPTX(llvm::Module &module, const Target &target);

/// The LLVM IR text of `module`.
std::string printLLVMIR(const llvm::Module &module);

struct PtxasResult {
  bool ok = false;
  std::vector<char> cubin;
  std::string log; // on failure, ptxas's errors or warnings (its -v report left out)
  /// ptxas's warnings: a warning fails the assembly, as an error does, and
  /// is also the log.
  std::string warnings;
  /// ptxas's reasons for running a kernel's wgmmas one at a time ("(C7512)
  /// Potential Performance Loss: ... insufficient register resources ...",
  /// "; " between two), which ptxas 13 reports on info lines: the kernel
  /// assembles and is slow, as one that spills.
  std::string serialised;
  // From ptxas -v, the most over the module's kernels:
  int registers = 0;          // registers a thread
  int64_t spillStoreBytes = 0; // bytes a thread spills to local memory
  int64_t spillLoadBytes = 0;  // ... and loads back
  int64_t stackBytes = 0;      // stack frame a thread
};

/// The ptxas this build found ("" without the CUDA toolkit); MINITILE_PTXAS
/// in the environment overrides it.
std::string ptxasPath();
/// Runs ptxas on `ptx`.
PtxasResult assembleCubin(const std::string &ptx, const Target &target);
/// Told of each ptxas process as it starts (`started`) and ends, so that a
/// tool can end it with itself on a signal (minitile does: a ptxas left
/// running would write its output after the tool removed it).
void setPtxasChildHook(void (*hook)(int pid, bool started));

} // namespace minitile
