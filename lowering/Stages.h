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
// Each reports failure with a message; none aborts the process.
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
};

mlir::LogicalResult runTilePasses(mlir::ModuleOp module, const StageOptions &opts);
mlir::LogicalResult lowerToLLVMDialect(mlir::ModuleOp module,
                                       const StageOptions &opts);

/// MLIR (LLVM + NVVM dialects) to LLVM IR; null and `error` set on failure.
std::unique_ptr<llvm::Module> translateToLLVMIR(mlir::ModuleOp module,
                                                llvm::LLVMContext &llvmContext,
                                                const Target &target,
                                                std::string &error);

/// Links libdevice when the module calls it and optimises at O3. Returns
/// false and sets `error` on failure.
bool optimizeLLVMIR(llvm::Module &module, const Target &target, std::string &error);

/// Runs the NVPTX backend. Returns false and sets `error` on failure.
bool emitPTX(llvm::Module &module, const Target &target, std::string &ptx,
             std::string &error);

/// The LLVM IR text of `module`.
std::string printLLVMIR(const llvm::Module &module);

struct PtxasResult {
  bool ok = false;
  std::vector<char> cubin;
  std::string log; // ptxas's messages (with -v: registers, spills)
};

/// The ptxas this build found ("" without the CUDA toolkit); MINITILE_PTXAS
/// in the environment overrides it.
std::string ptxasPath();
/// Runs ptxas on `ptx`.
PtxasResult assembleCubin(const std::string &ptx, const Target &target);

} // namespace minitile
