//===- NVPTXBackend.cpp - MLIR LLVM dialect -> LLVM IR -> PTX, in process -===//
#include "lowering/ConvertMath.h"
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
#include "llvm/Transforms/IPO/Internalize.h"

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

/// Links the libdevice functions `module` calls (precise math, declared by
/// convert-tile-to-llvm, which checked that libdevice exists). libdevice
/// asks NVVMReflect whether to flush subnormals: no (nvvm-reflect-ftz 0).
static bool linkLibdevice(mlir::ModuleOp op, llvm::Module &module) {
  bool needed = llvm::any_of(module.functions(), [](const llvm::Function &f) {
    return f.isDeclaration() && f.getName().starts_with("__nv_");
  });
  if (!needed)
    return true;
  std::string path = libdevicePath();
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> libdevice =
      path.empty() ? nullptr : llvm::parseIRFile(path, diag, module.getContext());
  if (!libdevice) {
    mlir::emitError(op.getLoc()) << "cannot read libdevice '" << path
                                 << "': " << diag.getMessage();
    return false;
  }
  libdevice->setTargetTriple(module.getTargetTriple());
  libdevice->setDataLayout(module.getDataLayout());
  // What comes from libdevice is internal: inlined, then dropped.
  auto internalize = [](llvm::Module &m, const llvm::StringSet<> &linked) {
    llvm::internalizeModule(m, [&linked](const llvm::GlobalValue &gv) {
      return !gv.hasName() || !linked.contains(gv.getName());
    });
  };
  if (llvm::Linker::linkModules(module, std::move(libdevice),
                                llvm::Linker::LinkOnlyNeeded, internalize)) {
    mlir::emitError(op.getLoc()) << "linking libdevice '" << path << "' failed";
    return false;
  }
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  return true;
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
  if (!linkLibdevice(module, *llvmModule))
    return nullptr;
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
