//===- NVPTXBackend.cpp - MLIR LLVM dialect -> LLVM IR -> PTX, in process -===//
#include "lowering/Stages.h"

#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <cstdlib>
#include <mutex>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

#ifndef MINITILE_LIBDEVICE
#define MINITILE_LIBDEVICE ""
#endif

namespace minitile {

static constexpr const char *kTriple = "nvptx64-nvidia-cuda";

static std::unique_ptr<llvm::TargetMachine> targetMachine(const Target &target,
                                                          std::string &error) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  llvm::Triple triple(kTriple);
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!t)
    return nullptr;
  std::string features = "+ptx" + std::to_string(target.ptxVersion);
  return std::unique_ptr<llvm::TargetMachine>(t->createTargetMachine(
      triple, target.arch, features, llvm::TargetOptions(), std::nullopt,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}

std::unique_ptr<llvm::Module> translateToLLVMIR(mlir::ModuleOp module,
                                                llvm::LLVMContext &llvmContext,
                                                const Target &target,
                                                std::string &error) {
  auto tm = targetMachine(target, error);
  if (!tm)
    return nullptr;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, llvmContext, "minitile");
  if (!llvmModule) {
    error = "translation of the LLVM dialect to LLVM IR failed";
    return nullptr;
  }
  llvmModule->setTargetTriple(llvm::Triple(kTriple));
  llvmModule->setDataLayout(tm->createDataLayout());
  return llvmModule;
}

/// Links libdevice into `module` when it calls any __nv_ function.
static bool linkLibdevice(llvm::Module &module, std::string &error) {
  bool needed = llvm::any_of(module.functions(), [](const llvm::Function &f) {
    return f.isDeclaration() && f.getName().starts_with("__nv_");
  });
  if (!needed)
    return true;
  std::string path = MINITILE_LIBDEVICE;
  if (const char *env = std::getenv("MINITILE_LIBDEVICE"))
    path = env;
  if (path.empty()) {
    error = "the kernel calls libdevice math functions, but no libdevice.10.bc "
            "was found (install the CUDA toolkit or set MINITILE_LIBDEVICE)";
    return false;
  }
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> libdevice =
      llvm::parseIRFile(path, diag, module.getContext());
  if (!libdevice) {
    error = "cannot read libdevice '" + path + "': " + diag.getMessage().str();
    return false;
  }
  libdevice->setTargetTriple(module.getTargetTriple());
  libdevice->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(libdevice),
                                llvm::Linker::LinkOnlyNeeded)) {
    error = "linking libdevice failed";
    return false;
  }
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  return true;
}

bool optimizeLLVMIR(llvm::Module &module, const Target &target, std::string &error) {
  auto tm = targetMachine(target, error);
  if (!tm || !linkLibdevice(module, error))
    return false;
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
  return true;
}

bool emitPTX(llvm::Module &module, const Target &target, std::string &ptx,
             std::string &error) {
  auto tm = targetMachine(target, error);
  if (!tm)
    return false;
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager codegen;
  if (tm->addPassesToEmitFile(codegen, os, nullptr,
                              llvm::CodeGenFileType::AssemblyFile)) {
    error = "the NVPTX backend cannot emit assembly for " + target.arch;
    return false;
  }
  codegen.run(module);
  ptx = text.str().str();
  return true;
}

std::string printLLVMIR(const llvm::Module &module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

} // namespace minitile
