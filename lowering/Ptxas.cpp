//===- Ptxas.cpp - PTX -> cubin through the CUDA toolkit's ptxas -----------===//
#include "lowering/Stages.h"

#include <csignal>
#include <pthread.h>

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
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
void (*childHook)(int pid, bool started) = nullptr;

/// A temporary file, removed when it goes out of scope or a signal (SIGINT,
/// SIGTERM, SIGHUP) ends the program.
struct TempFile {
  llvm::SmallString<128> path;
  int fd = -1;
  std::error_code ec;
  explicit TempFile(const char *suffix) {
    // Signals wait until the file is registered: one arriving between its
    // creation and its registration would leave it behind.
    sigset_t ending, before;
    sigemptyset(&ending);
    for (int sig : {SIGINT, SIGTERM, SIGHUP})
      sigaddset(&ending, sig);
    pthread_sigmask(SIG_BLOCK, &ending, &before);
    ec = llvm::sys::fs::createTemporaryFile("minitile", suffix, fd, path);
    if (!ec)
      llvm::sys::RemoveFileOnSignal(path);
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
  }
  ~TempFile() {
    if (!ec) {
      llvm::sys::fs::remove(path);
      llvm::sys::DontRemoveFileOnSignal(path);
    }
  }
};

std::string slurp(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}
/// The number just before `unit` in `line` ("... 8 bytes spill stores"),
/// or -1.
int64_t numberBefore(llvm::StringRef line, llvm::StringRef unit) {
  size_t at = line.find(unit);
  if (at == llvm::StringRef::npos)
    return -1;
  llvm::StringRef head = line.take_front(at).rtrim();
  size_t start = head.find_last_not_of("0123456789");
  int64_t n = -1;
  if (head.drop_front(start == llvm::StringRef::npos ? 0 : start + 1).getAsInteger(10, n))
    return -1;
  return n;
}

/// Takes the registers, spills and stack of ptxas -v's report (`text`) into
/// `result`, the most over its functions; returns the other lines (the
/// errors and warnings); a wgmma serialised goes to `result.serialised`.
std::string readReport(const std::string &text, PtxasResult &result) {
  std::string rest;
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(text).split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines) {
    // "ptxas info : (C7512) Potential Performance Loss: wgmma.mma_async
    // instructions are serialized due to ...": an info line in ptxas 13.
    if (line.contains("Potential Performance Loss")) {
      llvm::StringRef why = line.drop_until([](char c) { return c == '('; });
      result.serialised += (result.serialised.empty() ? "" : "; ") + why.trim().str();
      continue;
    }
    bool report = line.starts_with("ptxas info") || line.contains("bytes stack frame") ||
                  line.contains("bytes spill");
    if (!report) {
      rest += line.str() + "\n";
      continue;
    }
    auto most = [&](int64_t &field, llvm::StringRef unit) {
      int64_t n = numberBefore(line, unit);
      field = std::max(field, n);
    };
    int64_t registers = result.registers;
    most(registers, " registers");
    result.registers = int(registers);
    most(result.spillStoreBytes, " bytes spill stores");
    most(result.spillLoadBytes, " bytes spill loads");
    most(result.stackBytes, " bytes stack frame");
  }
  return rest;
}
} // namespace

void setPtxasChildHook(void (*hook)(int pid, bool started)) { childHook = hook; }

PtxasResult assembleCubin(const std::string &ptx, const Target &target) {
  PtxasResult result;
  std::string ptxas = ptxasPath();
  if (ptxas.empty()) {
    result.log = "not found; cubin output needs the CUDA toolkit (or MINITILE_PTXAS)";
    return result;
  }
  TempFile in(".ptx"), out(".cubin"), log(".log");
  for (TempFile *file : {&in, &out, &log})
    if (file->ec) {
      result.log = "cannot create a temporary file for ptxas: " + file->ec.message();
      return result;
    }
  llvm::sys::Process::SafelyCloseFileDescriptor(out.fd);
  llvm::sys::Process::SafelyCloseFileDescriptor(log.fd);
  {
    llvm::raw_fd_ostream os(in.fd, /*shouldClose=*/true);
    os << ptx;
    os.close();
    if (os.has_error()) {
      result.log = "cannot write the PTX for ptxas to " + in.path.str().str() + ": " +
                   os.error().message();
      os.clear_error();
      return result;
    }
  }
  std::string arch = "-arch=" + target.arch;
  llvm::SmallVector<llvm::StringRef> args{ptxas, arch, "-O3", "-v"};
  args.append({in.path.str(), "-o", out.path.str()});
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.path.str(),
                                                log.path.str()};
  std::string launchError;
  int rc = -1;
  {
    bool failed = false;
    // Signals wait until the hook has the child: one arriving between the
    // start and the registration would remove the files while an unended
    // ptxas goes on to write its log beside them. (ptxas inherits the
    // held signals; the hook's handler ends it with SIGKILL.)
    sigset_t ending, before;
    sigemptyset(&ending);
    for (int sig : {SIGINT, SIGTERM, SIGHUP})
      sigaddset(&ending, sig);
    pthread_sigmask(SIG_BLOCK, &ending, &before);
    llvm::sys::ProcessInfo child =
        llvm::sys::ExecuteNoWait(ptxas, args, std::nullopt, redirects, 0, &launchError,
                                 &failed);
    if (!failed && child.Pid && childHook)
      childHook(child.Pid, true);
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    if (!failed && child.Pid) {
      llvm::sys::ProcessInfo done =
          llvm::sys::Wait(child, /*SecondsToWait=*/std::nullopt, &launchError);
      if (childHook)
        childHook(child.Pid, false);
      rc = done.ReturnCode;
    }
  }
  if (rc == -1) { // never started
    result.log = "cannot run '" + ptxas + "': " + launchError;
    return result;
  }
  result.log = readReport(slurp(log.path), result);
  if (rc != 0) {
    if (result.log.empty())
      result.log = "'" + ptxas + "' " +
                   (rc > 0 ? "exited with status " + std::to_string(rc)
                           : "died: " + launchError);
    return result;
  }
  // A warning is an error: ptxas warns where the code it was given is wrong.
  // (Its wgmmas serialised, the code is slow, not wrong: `serialised`.)
  if (llvm::StringRef(result.log).contains("warning")) {
    result.warnings = result.log;
    return result;
  }
  std::string cubin = slurp(out.path);
  result.cubin.assign(cubin.begin(), cubin.end());
  result.ok = !result.cubin.empty();
  if (!result.ok)
    result.log = "'" + ptxas + "' succeeded but wrote no cubin";
  return result;
}

} // namespace minitile
