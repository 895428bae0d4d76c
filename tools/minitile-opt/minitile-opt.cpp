//===- minitile-opt.cpp - run tile passes on an IR file (mlir-opt style) ---===//
#include "lowering/Stages.h"
#include "passes/Passes.h"
#include "tools/minitile-opt/ParserGuard.h"

#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  minitile::registerDialects(registry);
  minitile::registerPasses();
  auto [input, output] =
      mlir::registerAndParseCLIOptions(argc, argv, "minitile pass driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, input, output, registry));

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = mlir::openInputFile(input, &error);
  if (!file) {
    llvm::errs() << error << "\n";
    return 1;
  }
  // Text MLIR 22's parser would crash on is an error here instead.
  if (auto hazard = minitile::findParserHazard(file->getBuffer())) {
    llvm::SourceMgr sources;
    const char *at = file->getBufferStart() + hazard->offset;
    sources.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    sources.PrintMessage(llvm::errs(), llvm::SMLoc::getFromPointer(at),
                         llvm::SourceMgr::DK_Error, hazard->message);
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> out = mlir::openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(out->os(), std::move(file), registry, config)))
    return 1;
  out->keep();
  return 0;
}
