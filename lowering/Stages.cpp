//===- Stages.cpp - the pass pipelines and dialect registration -----------===//
#include "lowering/Stages.h"
#include "lowering/LoweringPasses.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"


namespace minitile {

void registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<tile::TileDialect, hopper::HopperDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect, mlir::cf::ControlFlowDialect,
                  mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect>();
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
}

void registerPasses() {
  tile::registerTilePasses();
  registerLoweringPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::arith::registerArithExpandOpsPass();
  mlir::registerPass([] { return mlir::createReconcileUnrealizedCastsPass(); });
}

static mlir::LogicalResult run(mlir::ModuleOp module, const StageOptions &opts,
                               const char *name,
                               llvm::function_ref<void(mlir::OpPassManager &)> build) {
  mlir::PassManager pm(module->getContext());
  if (opts.printIRAfterAll) {
    module->getContext()->disableMultithreading();
    pm.enableIRPrinting(/*shouldPrintBeforePass=*/nullptr,
                        /*shouldPrintAfterPass=*/
                        [](mlir::Pass *, mlir::Operation *) { return true; },
                        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
  }
  std::optional<mlir::TimingScope> scope;
  if (opts.timing) {
    scope = opts.timing->nest(name);
    pm.enableTiming(*scope);
  }
  build(pm);
  return pm.run(module);
}

mlir::LogicalResult runTilePasses(mlir::ModuleOp module, const StageOptions &opts) {
  return run(module, opts, "tile passes", [](mlir::OpPassManager &pm) {
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(tile::createTileDistributeParallel());
    pm.addPass(tile::createTileAssignLayouts());
    pm.addPass(tile::createTileWarpSpecialize());
    pm.addPass(tile::createTileLowerCopies());
    pm.addPass(tile::createTileLowerFills());
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
    pm.addPass(tile::createTileDistributeFragments());
    pm.addPass(tile::createTileOrderAsync());
    pm.addPass(tile::createTilePingPong());
    pm.addPass(tile::createTilePlanShared());
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
  });
}

mlir::LogicalResult lowerToLLVMDialect(mlir::ModuleOp module,
                                       const StageOptions &opts) {
  return run(module, opts, "lowering to LLVM", [&](mlir::OpPassManager &pm) {
    pm.addPass(tile::createTileVerifyTarget());
    pm.addPass(createConvertTileToLLVM({opts.wgmmaDescriptorsAtUse}));
    pm.addPass(mlir::createReconcileUnrealizedCastsPass());
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
  });
}

} // namespace minitile
