//===- Ptxas.cpp - PTX -> cubin through the CUDA toolkit's ptxas -----------===//
#include "lowering/Stages.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

#ifndef MINITILE_PTXAS
#define MINITILE_PTXAS ""
#endif

namespace minitile {

std::string ptxasPath() {
  if (const char *env = std::getenv("MINITILE_PTXAS"))
    return env;
  return MINITILE_PTXAS;
}

namespace {
/// A temporary file removed when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  explicit TempFile(const char *suffix) {
    if (llvm::sys::fs::createTemporaryFile("minitile", suffix, path))
      path.clear();
  }
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

std::string slurp(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}
} // namespace

PtxasResult assembleCubin(const std::string &ptx, const Target &target) {
  PtxasResult result;
  std::string ptxas = ptxasPath();
  if (ptxas.empty()) {
    result.log = "no ptxas: cubin output needs the CUDA toolkit (or MINITILE_PTXAS)";
    return result;
  }
  TempFile in(".ptx"), out(".cubin"), log(".log");
  if (in.path.empty() || out.path.empty() || log.path.empty()) {
    result.log = "cannot create temporary files for ptxas";
    return result;
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in.path, ec);
    if (ec) {
      result.log = "cannot write " + in.path.str().str() + ": " + ec.message();
      return result;
    }
    os << ptx;
  }
  std::string arch = "-arch=" + target.arch;
  llvm::SmallVector<llvm::StringRef> args{ptxas, arch, "-O3"};
  args.append({in.path.str(), "-o", out.path.str()});
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.path.str(),
                                                log.path.str()};
  std::string launchError;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0,
                                     &launchError);
  result.log = slurp(log.path);
  if (rc != 0) {
    if (!launchError.empty())
      result.log += launchError;
    if (result.log.empty())
      result.log = "ptxas exited with status " + std::to_string(rc);
    return result;
  }
  std::string cubin = slurp(out.path);
  result.cubin.assign(cubin.begin(), cubin.end());
  result.ok = !result.cubin.empty();
  if (!result.ok)
    result.log += "ptxas wrote no cubin";
  return result;
}

} // namespace minitile
