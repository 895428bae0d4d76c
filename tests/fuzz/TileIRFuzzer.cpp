//===- TileIRFuzzer.cpp - libFuzzer target: textual tile IR --------------===//
//
// Each input is checked as minitile-opt checks it (ParserGuard.h), parsed as
// a module of tile IR, verified, printed and parsed
// back, then run through the tile passes and the lowering to the LLVM
// dialect (the pipeline `minitile compile` runs). Any outcome but a clean
// diagnostic or a valid result is a defect: a crash, a sanitizer report, a
// hang, an output that does not verify, or a printed form that does not
// parse back.
//
//===----------------------------------------------------------------------===//
#include "lowering/Stages.h"
#include "tools/minitile-opt/ParserGuard.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>

namespace {

const mlir::DialectRegistry &registry() {
  static mlir::DialectRegistry *r = [] {
    auto *reg = new mlir::DialectRegistry;
    minitile::registerDialects(*reg);
    return reg;
  }();
  return *r;
}

/// A context with every dialect loaded, made anew every 500 inputs: loading
/// the LLVM and NVVM dialects for each input would be most of the work, and
/// a context kept for ever grows with the names and types inputs make up.
mlir::MLIRContext &context() {
  static std::unique_ptr<mlir::MLIRContext> ctx;
  static unsigned uses = 0;
  if (!ctx || ++uses % 500 == 0) {
    ctx = std::make_unique<mlir::MLIRContext>(registry(),
                                              mlir::MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    // Printing the failing op into every diagnostic is most of the cost of a
    // rejected input.
    ctx->printOpOnDiagnostic(false);
  }
  return *ctx;
}

/// A defect: print what was wrong and abort, so libFuzzer keeps the input.
[[noreturn]] void defect(const char *what, mlir::Operation *op) {
  std::fprintf(stderr, "tile-ir-fuzzer: %s\n", what);
  if (op)
    op->print(llvm::errs(), mlir::OpPrintingFlags().printGenericOpForm());
  llvm::errs().flush();
  std::abort();
}

std::string print(mlir::Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

/// Parses `text`; null when it does not parse (or verify).
mlir::OwningOpRef<mlir::ModuleOp> parse(mlir::MLIRContext &ctx, llvm::StringRef text) {
  return mlir::parseSourceString<mlir::ModuleOp>(text, mlir::ParserConfig(&ctx));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Large inputs only slow the search down.
  if (size > 16384)
    return -1;
  mlir::MLIRContext &ctx = context();
  // Diagnostics are the expected outcome of most inputs: keep them quiet.
  mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  // MLIR's lexer reads up to the NUL after the text, which files read by
  // minitile-opt have and libFuzzer's inputs lack.
  std::string text(reinterpret_cast<const char *>(data), size);
  // What minitile-opt refuses before parsing (an upstream parser crash).
  if (minitile::findParserHazard(text))
    return 0;
  mlir::OwningOpRef<mlir::ModuleOp> module = parse(ctx, text);
  if (!module)
    return 0;

  // What the printer writes, the parser reads back.
  std::string printed = print(*module);
  if (!parse(ctx, printed))
    defect("a verified module does not parse back from its printed form", *module);

  minitile::StageOptions opts;
  if (mlir::failed(minitile::runTilePasses(*module, opts)))
    return 0;
  if (mlir::failed(mlir::verify(*module)))
    defect("the tile passes succeeded but their output does not verify", *module);
  printed = print(*module);
  if (!parse(ctx, printed))
    defect("the tile passes' output does not parse back from its printed form", *module);

  if (mlir::failed(minitile::lowerToLLVMDialect(*module, opts)))
    return 0;
  if (mlir::failed(mlir::verify(*module)))
    defect("the lowering succeeded but its output does not verify", *module);
  return 0;
}
