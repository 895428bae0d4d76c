//===- Compile.cpp - the compile driver behind the CLI -------------------===//
#include "tools/minitile/Compile.h"
#include "tools/minitile/PtxOverride.h"

#include "dsl/Build.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/Timing.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <regex>

namespace minitile {

namespace {

std::string print(mlir::Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

/// Collects the first MLIR error as one line ("file:line: error: message");
/// prints remarks to stderr when asked to.
struct DiagnosticCollector {
  DiagnosticCollector(mlir::MLIRContext &ctx, bool printRemarks)
      : handler(&ctx, [this, printRemarks](mlir::Diagnostic &d) {
          std::string where;
          if (auto l = llvm::dyn_cast<mlir::FileLineColLoc>(d.getLocation()))
            where = l.getFilename().str() + ":" + std::to_string(l.getLine()) + ": ";
          if (d.getSeverity() == mlir::DiagnosticSeverity::Remark && printRemarks)
            llvm::errs() << where << "remark: " << d.str() << "\n";
          if (d.getSeverity() != mlir::DiagnosticSeverity::Error || !first.empty())
            return mlir::success();
          first = where + "error: " + d.str();
          return mlir::success();
        }) {}
  std::string take(const std::string &fallback) {
    return first.empty() ? fallback : first;
  }
  std::string first;
  mlir::ScopedDiagnosticHandler handler;
};

std::unique_ptr<Generator> instantiate(const CompileRequest &request,
                                       std::string &error) {
  const GeneratorInfo *info = Registry::global().find(request.kernel);
  if (!info) {
    error = "unknown kernel '" + request.kernel + "' ('minitile list' shows them)";
    return nullptr;
  }
  // A generator whose Params are declared wrong throws at its line.
  std::unique_ptr<Generator> gen;
  try {
    gen = info->create();
  } catch (const Error &e) {
    error = e.what();
    return nullptr;
  }
  for (const auto &[name, value] : request.params) {
    ParamBase *p = gen->param(name);
    if (!p) {
      std::string known;
      for (ParamBase *q : gen->params())
        known += (known.empty() ? "" : ", ") + q->name();
      error = "kernel '" + request.kernel + "' has no parameter '" + name + "'" +
              (known.empty() ? " (it has none)" : " (it has " + known + ")");
      return nullptr;
    }
    std::string message = p->set(value);
    if (!message.empty()) {
      error = message;
      return nullptr;
    }
  }
  return gen;
}

} // namespace

std::string provenance(const CompileRequest &request, const std::string &how) {
  std::string name = request.instanceName.empty() ? request.kernel : request.instanceName;
  const GeneratorInfo *info = Registry::global().find(request.kernel);
  return name + ": kernel " + request.kernel + " of " +
         (info ? provenanceFile(info->file) : std::string("?")) + " " + how + ", for " +
         request.arch;
}

std::string provenanceFile(const std::string &file) {
  // Generators built by minitile_add_generator() record their sources
  // relative to the project (-ffile-prefix-map); a path that still depends
  // on where the tree or the build is keeps only its file name.
  llvm::StringRef path(file);
  bool relocatable = !llvm::sys::path::is_absolute(path);
  for (auto it = llvm::sys::path::begin(path), e = llvm::sys::path::end(path); it != e; ++it)
    if (*it == "..")
      relocatable = false;
  return relocatable ? file : llvm::sys::path::filename(path).str();
}

bool effectiveParams(const std::string &kernel,
                     const std::vector<std::pair<std::string, std::string>> &params,
                     std::vector<std::pair<std::string, std::string>> &out,
                     std::string &error) {
  CompileRequest request;
  request.kernel = kernel;
  request.params = params;
  std::unique_ptr<Generator> gen = instantiate(request, error);
  if (!gen)
    return false;
  out.clear();
  for (ParamBase *p : gen->params())
    out.emplace_back(p->name(), p->value());
  return true;
}

bool kernelArguments(const CompileRequest &request, std::vector<LauncherArgument> &out,
                     std::string &error) {
  const Target *target = Target::get(request.arch);
  if (!target) {
    error = "error: minitile does not compile for '" + request.arch + "'";
    return false;
  }
  std::unique_ptr<Generator> gen = instantiate(request, error);
  if (!gen)
    return false;
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  const GeneratorInfo *info = Registry::global().find(request.kernel);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  try {
    module = buildKernel(ctx, *gen, request.kernel, info->summary, *target);
  } catch (const std::exception &e) {
    error = e.what();
    return false;
  }
  if (!describeLauncherArguments(*module, analyzeTensorAccess(*module), out, error)) {
    error = "error: " + error;
    return false;
  }
  return true;
}

std::string describeParams(const CompileRequest &request) {
  std::string error, text;
  std::unique_ptr<Generator> gen = instantiate(request, error);
  if (!gen)
    return "";
  for (ParamBase *p : gen->params())
    text += (text.empty() ? "" : " ") + p->name() + "=" + p->value();
  return text;
}

std::string parseWgmmaDescriptors(const std::string &text, WgmmaDescriptors &out) {
  if (text == "auto")
    out = WgmmaDescriptors::automatic;
  else if (text == "hoisted")
    out = WgmmaDescriptors::hoisted;
  else if (text == "at-use")
    out = WgmmaDescriptors::atUse;
  else
    return "unknown --wgmma-descriptors '" + text + "' (auto, hoisted, at-use)";
  return "";
}

std::string describeSlowCode(const CompileResult &result) {
  std::string text;
  if (int64_t total = result.spillStoreBytes + result.spillLoadBytes)
    text = "spills " + std::to_string(total) + " bytes a thread to local memory (" +
           std::to_string(result.spillStoreBytes) + " stored, " +
           std::to_string(result.spillLoadBytes) + " loaded; ptxas -v, " +
           std::to_string(result.registers) + " registers)";
  if (!result.serialised.empty())
    text += (text.empty() ? "" : " and ") + std::string("has its wgmmas serialised by ptxas (") +
            result.serialised + ")";
  return text;
}

CompileResult compile(const CompileRequest &request) {
  CompileResult result;
  const Target *target = Target::get(request.arch);
  if (!target) {
    result.error = "error: minitile does not compile for '" + request.arch + "' (it takes " +
                   Target::supportedList() + ")";
    return result;
  }
  std::unique_ptr<Generator> gen = instantiate(request, result.error);
  if (!gen)
    return result;

  mlir::DefaultTimingManager timingManager;
  timingManager.setEnabled(request.timePasses);
  mlir::TimingScope timing = timingManager.getRootScope();

  mlir::DialectRegistry registry;
  registerDialects(registry);
  // One thread: a kernel is one function, which MLIR's pool would not split,
  // and a pool thread could take a SIGINT/SIGTERM while this thread, its
  // signals held, has made a temporary file (ptxas's) and not yet asked for
  // its removal on a signal -- the handler would then leave it behind.
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  DiagnosticCollector diagnostics(ctx, request.remarks);

  std::string name = request.instanceName.empty() ? request.kernel : request.instanceName;
  const GeneratorInfo *info = Registry::global().find(request.kernel);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  {
    mlir::TimingScope t = timing.nest("DSL build");
    try {
      module = buildKernel(ctx, *gen, name, info->summary, *target);
    } catch (const Error &e) {
      result.error = e.what();
      return result;
    } catch (const std::exception &e) {
      // Not a DSL diagnostic (e.g. std::bad_alloc): no line to name.
      result.error = "error: building kernel '" + request.kernel + "': " + e.what();
      return result;
    }
  }
  if (request.printIRAfterAll)
    llvm::errs() << "// -----// IR after DSL build //----- //\n" << print(*module) << "\n";
  if (request.emit == Emit::tile) {
    result.text = print(*module);
    result.ok = true;
    return result;
  }

  // What each kernel does with its tensors, for the launcher's const and
  // comments: from the IR as written, before copies become TMA descriptors.
  TensorAccessMap access;
  if (request.emit == Emit::cpp) {
    access = analyzeTensorAccess(*module);
    if (!describeLauncherArguments(*module, access, result.arguments, result.error)) {
      result.error = "error: " + result.error;
      return result;
    }
  }

  StageOptions opts{request.printIRAfterAll, &timing};
  opts.wgmmaDescriptorsAtUse = request.wgmmaDescriptors == WgmmaDescriptors::atUse;
  if (mlir::failed(runTilePasses(*module, opts))) {
    result.error = diagnostics.take("error: the tile passes failed");
    return result;
  }
  mlir::OwningOpRef<mlir::ModuleOp> hostSide;
  if (request.emit == Emit::cpp)
    hostSide = module->clone();
  // Where ptxas will run on our own PTX, the tile IR is kept: if the first
  // assembly spills, it is lowered again with every wgmma's descriptors made
  // at the wgmma (see below).
  const bool assembles = !ptxasPath().empty() && request.ptxFile.empty() &&
                         (request.emit == Emit::ptx || request.emit == Emit::cubin ||
                          request.emit == Emit::cpp);
  const bool mayRetry = assembles && request.wgmmaDescriptors == WgmmaDescriptors::automatic;
  mlir::OwningOpRef<mlir::ModuleOp> tiled;
  if (mayRetry)
    tiled = module->clone();
  if (mlir::failed(lowerToLLVMDialect(*module, opts))) {
    result.error = diagnostics.take("error: lowering to the LLVM dialect failed");
    return result;
  }
  if (request.emit == Emit::mlir) {
    result.text = print(*module);
    result.ok = true;
    return result;
  }

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule;
  {
    mlir::TimingScope t = timing.nest("translate to LLVM IR");
    llvmModule = translateToLLVMIR(*module, llvmContext, *target);
  }
  if (!llvmModule) {
    result.error = diagnostics.take("error: translation to LLVM IR failed");
    return result;
  }
  {
    mlir::TimingScope t = timing.nest("LLVM O3");
    optimizeLLVMIR(*llvmModule, *target);
  }
  if (request.printIRAfterAll)
    llvm::errs() << "// -----// LLVM IR after O3 //----- //\n"
                 << printLLVMIR(*llvmModule) << "\n";
  if (request.emit == Emit::llvm) {
    result.text = printLLVMIR(*llvmModule);
    result.ok = true;
    return result;
  }
  std::string ptx;
  {
    mlir::TimingScope t = timing.nest("NVPTX backend");
    ptx = emitPTX(*llvmModule, *target);
  }
  // A kernel whose registers spill with the descriptors of its wgmmas
  // hoisted out of its loops (LLVM's LICM keeps each live across the loop)
  // may not spill with them made at each wgmma from their tile's base (ptxas
  // then adds each one's offset in uniform registers): lowered again that
  // way, the PTX that spills less is kept (on a tie, the first: it has
  // fewer instructions). Decided by ptxas, so --emit ptx runs it too.
  std::optional<PtxasResult> assembled;
  if (assembles) {
    mlir::TimingScope t = timing.nest("ptxas");
    assembled = assembleCubin(ptx, *target);
    auto spills = [](const PtxasResult &r) { return r.spillStoreBytes + r.spillLoadBytes; };
    // Serialised wgmmas -- for want of registers, often -- are worse than
    // any spill: (serialised, bytes spilled), compared in that order.
    auto cost = [&](const PtxasResult &r) {
      return std::pair(!r.serialised.empty(), spills(r));
    };
    if (mayRetry && assembled->ok && cost(*assembled) > std::pair(false, int64_t(0))) {
      std::string again;
      StageOptions atUse = opts;
      atUse.printIRAfterAll = false;
      atUse.wgmmaDescriptorsAtUse = true;
      llvm::LLVMContext context;
      if (mlir::succeeded(lowerToLLVMDialect(*tiled, atUse)))
        if (std::unique_ptr<llvm::Module> m = translateToLLVMIR(*tiled, context, *target)) {
          optimizeLLVMIR(*m, *target);
          again = emitPTX(*m, *target);
        }
      if (!again.empty()) {
        PtxasResult second = assembleCubin(again, *target);
        const bool better = second.ok && cost(second) < cost(*assembled);
        if (request.remarks)
          llvm::errs() << name << ": remark: spills " << spills(*assembled)
                       << " bytes with its wgmma descriptors hoisted, "
                       << (second.ok ? std::to_string(spills(second)) : std::string("?"))
                       << " with them made at each wgmma: keeps the "
                       << (better ? "second" : "first") << "\n";
        if (better) {
          ptx = std::move(again);
          assembled = std::move(second);
        }
      }
    }
  }
  if (request.emit == Emit::ptx && assembled && !assembled->warnings.empty()) {
    std::string log = assembled->warnings;
    while (!log.empty() && log.back() == '\n')
      log.pop_back();
    for (char &c : log)
      if (c == '\n')
        c = ' ';
    result.error = "error: ptxas: " + log;
    return result;
  }
  if (request.emit == Emit::ptx) {
    result.text = std::move(ptx);
    result.ok = true;
    return result;
  }
  if (!request.ptxFile.empty()) {
    if (std::string why = checkPtxOverride(ptx, request.ptx); !why.empty()) {
      result.error = "error: --ptx " + request.ptxFile + ": " + why;
      return result;
    }
    ptx = request.ptx;
  }

  // cubin, and the image of the C++ launcher when ptxas is available.
  std::vector<char> image(ptx.begin(), ptx.end());
  bool isCubin = false;
  if (request.emit == Emit::cubin || !ptxasPath().empty()) {
    if (!assembled) {
      mlir::TimingScope t = timing.nest("ptxas");
      assembled = assembleCubin(ptx, *target);
    }
    if (!assembled->ok) {
      std::string log = assembled->log;
      while (!log.empty() && log.back() == '\n')
        log.pop_back();
      for (char &c : log)
        if (c == '\n')
          c = ' ';
      // The lines ptxas names are the edited file's: say so by its name.
      if (!request.ptxFile.empty()) {
        std::string name; // '$' is special in a replacement
        for (char c : request.ptxFile)
          name += c == '$' ? std::string("$$") : std::string(1, c);
        log = std::regex_replace(log, std::regex("[^ ]*minitile-[^ ,]*\\.ptx"), name);
      }
      result.error = (request.ptxFile.empty() ? "error: ptxas: "
                                              : "error: ptxas on --ptx " + request.ptxFile + ": ") +
                     log;
      return result;
    }
    image = std::move(assembled->cubin);
    isCubin = true;
    result.registers = assembled->registers;
    result.spillStoreBytes = assembled->spillStoreBytes;
    result.spillLoadBytes = assembled->spillLoadBytes;
    result.serialised = assembled->serialised;
  }
  if (request.emit == Emit::cubin) {
    result.binary = std::move(image);
    result.ok = true;
    return result;
  }

  mlir::TimingScope t = timing.nest("C++ launcher");
  LauncherOptions launcher;
  launcher.cppNamespace = request.cppNamespace;
  launcher.headerName = request.headerName;
  launcher.access = std::move(access);
  launcher.variant = request.variant;
  launcher.provenance =
      provenance(request, "with " + describeParams(request) +
                              (request.tunedBy.empty() ? ""
                                                       : " (tuned by " + request.tunedBy + ")") +
                              (request.ptxFile.empty()
                                   ? ""
                                   : ", its PTX edited (" +
                                         llvm::sys::path::filename(request.ptxFile).str() + ")"));
  if (!emitLauncher(*hostSide, image, isCubin, launcher, result.launcher,
                    result.error)) {
    result.error = diagnostics.take("error: " + result.error);
    return result;
  }
  result.binary = std::move(image);
  result.ok = true;
  return result;
}

} // namespace minitile
