//===- minitile-opt.cpp - run tile passes on an IR file (mlir-opt style) ---===//
#include "lowering/Stages.h"
#include "passes/Passes.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  minitile::registerDialects(registry);
  minitile::registerPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "minitile pass driver\n", registry));
}
