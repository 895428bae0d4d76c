//===- NVPTXBackend.cpp - MLIR LLVM dialect -> LLVM IR -> PTX, in process -===//
#include "lowering/Stages.h"

#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <mutex>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace minitile {

static constexpr const char *kTriple = "nvptx64-nvidia-cuda";

static std::unique_ptr<llvm::TargetMachine> targetMachine(const Target &target) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  llvm::Triple triple(kTriple);
  std::string error;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(triple, error);
  // Linking the initialisers above links the target: the lookup cannot fail.
  assert(t && "the NVPTX target is not registered");
  std::string features = "+ptx" + std::to_string(target.ptxVersion);
  return std::unique_ptr<llvm::TargetMachine>(t->createTargetMachine(
      triple, target.arch, features, llvm::TargetOptions(), std::nullopt,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}

std::unique_ptr<llvm::Module> translateToLLVMIR(mlir::ModuleOp module,
                                                llvm::LLVMContext &llvmContext,
                                                const Target &target) {
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, llvmContext, "minitile");
  if (!llvmModule)
    return nullptr;
  llvmModule->setTargetTriple(llvm::Triple(kTriple));
  llvmModule->setDataLayout(targetMachine(target)->createDataLayout());
  return llvmModule;
}

void optimizeLLVMIR(llvm::Module &module, const Target &target) {
  std::unique_ptr<llvm::TargetMachine> tm = targetMachine(target);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm.get());
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm =
      pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(module, mam);
}

std::string emitPTX(llvm::Module &module, const Target &target) {
  std::unique_ptr<llvm::TargetMachine> tm = targetMachine(target);
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager codegen;
  bool unsupported = tm->addPassesToEmitFile(codegen, os, nullptr,
                                             llvm::CodeGenFileType::AssemblyFile);
  // NVPTX's only output is assembly (PTX).
  assert(!unsupported && "the NVPTX backend cannot emit assembly");
  (void)unsupported;
  codegen.run(module);
  return text.str().str();
}

std::string printLLVMIR(const llvm::Module &module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

} // namespace minitile
