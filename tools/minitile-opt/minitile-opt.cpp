//===- minitile-opt.cpp - run tile passes on an IR file (mlir-opt style) ---===//
#include "lowering/Stages.h"
#include "passes/Passes.h"
#include "tools/minitile-opt/ParserGuard.h"
#include "tools/minitile/Files.h"

#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace {

int finish(int status) { return minitile::files::finishStandardStreams(status); }

int fail(const std::string &message) {
  llvm::errs() << "minitile-opt: error: " << message << "\n";
  return finish(1);
}

} // namespace

int main(int argc, char **argv) {
  // An LLVM fatal error is one line and exit status 1 (docs/ROBUSTNESS.md).
  minitile::files::installFatalErrorHandlers("minitile-opt");
  mlir::DialectRegistry registry;
  minitile::registerDialects(registry);
  minitile::registerPasses();
  auto [input, output] =
      mlir::registerAndParseCLIOptions(argc, argv, "minitile pass driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, input, output, registry));

  // The input is read whole, up to a bound (Files.h): /dev/zero or a
  // runaway pipe is an error, not an exhausted memory.
  std::string text, error;
  if (std::string why = minitile::files::readInput(input, text); !why.empty())
    return fail("cannot read '" + input + "': " + why);
  std::unique_ptr<llvm::MemoryBuffer> file =
      llvm::MemoryBuffer::getMemBufferCopy(text, input == "-" ? "<stdin>" : input);
  text.clear();
  // Text MLIR 22's parser would crash on is an error here instead.
  if (auto hazard = minitile::findParserHazard(file->getBuffer())) {
    llvm::SourceMgr sources;
    const char *at = file->getBufferStart() + hazard->offset;
    sources.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    sources.PrintMessage(llvm::errs(), llvm::SMLoc::getFromPointer(at),
                         llvm::SourceMgr::DK_Error, hazard->message);
    return finish(1);
  }
  std::unique_ptr<llvm::ToolOutputFile> out = mlir::openOutputFile(output, &error);
  if (!out)
    return fail(error);
  bool ok = mlir::succeeded(mlir::MlirOptMain(out->os(), std::move(file), registry, config));
  // A write that failed (a full disk, -o /dev/full) is an error here, and
  // cleared: the stream would abort as it is destroyed ("LLVM ERROR: IO
  // failure on output stream"). The partial file is removed (not kept).
  out->os().flush();
  if (out->os().has_error()) {
    std::string why = out->os().error().message();
    out->os().clear_error();
    return fail("cannot write '" + output + "': " + why);
  }
  if (!ok)
    return finish(1);
  out->keep();
  return finish(0);
}
