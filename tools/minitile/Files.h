//===- Files.h - bounded input, and outputs removed on a signal -----------===//
//
// What the command-line tools (minitile, every generator, minitile-opt)
// read and write around the compiler proper:
//
//  - inputs (--tuned, --ptx, minitile-opt's IR) are read whole, up to
//    kMaxInputBytes: /dev/zero or a runaway pipe is an error after that
//    much, not an exhausted memory. A FIFO or pipe (`--tuned <(...)`) is
//    read as a stream up to its end; opening one waits for its writer, as
//    `cat` does.
//  - outputs being written (the temporary file of -o, tune's temporary
//    directory, ptxas's scratch files) are removed if SIGINT, SIGTERM or
//    SIGHUP ends the program; the compilers tune runs are ended first, so
//    they write nothing after. A signal the program was started with
//    ignored (`nohup`, a background job of a non-interactive shell) stays
//    ignored.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <csignal>
#include <cstddef>
#include <string>

#include <sys/types.h>

namespace minitile::files {

/// The most bytes an input file may hold.
constexpr size_t kMaxInputBytes = size_t(64) << 20;

/// Reads all of `path` ("-": standard input) into `text`: "" on success,
/// else why not in a few words ("No such file or directory", "it is larger
/// than 64 MiB, the most minitile reads"), for the caller to say which
/// input it was.
std::string readInput(const std::string &path, std::string &text,
                      size_t limit = kMaxInputBytes);

/// Registers `path` (a file, or a directory whose entries go with it) to be
/// removed if SIGINT, SIGTERM or SIGHUP ends the program, until keep().
void removeOnSignal(const std::string &path);
/// Undoes removeOnSignal(path).
void keep(const std::string &path);

/// The exit status `status`, with any failed write to standard output or
/// error forgotten first: llvm::outs() and llvm::errs() abort as the program
/// ends if one failed (2>/dev/full). Standard output failing fails the
/// command (status 1 where it was 0); standard error failing loses only
/// messages.
int finishStandardStreams(int status);

/// Registers a child process to be ended (SIGKILL) and waited for before
/// the paths are removed on a signal, until forgetChild().
void endOnSignal(pid_t child);
void forgetChild(pid_t child);

/// Makes LLVM's fatal errors -- report_fatal_error() and a failed
/// allocation inside LLVM or MLIR -- one line on standard error, "TOOL:
/// error: internal error (LLVM): REASON" or "TOOL: error: out of memory",
/// and exit status 1, the outputs being written removed as on a signal,
/// instead of "LLVM ERROR: ..." and an abort (status 134). The last line of
/// defence: each known way to one is refused before it (docs/ROBUSTNESS.md).
/// `tool` must live as long as the program.
void installFatalErrorHandlers(const char *tool);

/// Holds SIGINT, SIGTERM and SIGHUP back while it lives (a signal then
/// arrives after it), for steps that must not be cut in two: a rename of
/// an output into place and its keep().
class SignalsHeld {
public:
  SignalsHeld();
  ~SignalsHeld();
  SignalsHeld(const SignalsHeld &) = delete;
  SignalsHeld &operator=(const SignalsHeld &) = delete;

private:
  sigset_t old_;
};

/// The model (for createUniqueFile: '%' placeholders) of a temporary name
/// beside `path`: "PATH.tmp-%%%%%%", or where that last component, with
/// `extra` more characters, would be longer than the file system takes,
/// ".minitile.tmp-%%%%%%" in the same folder (an output's own name may be
/// as long as the system allows).
std::string temporaryModel(const std::string &path, size_t extra = 0);

} // namespace minitile::files
