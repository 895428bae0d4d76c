//===- Files.cpp - bounded input, and outputs removed on a signal ---------===//
#include "tools/minitile/Files.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace minitile::files {

//===----------------------------------------------------------------------===//
// Input
//===----------------------------------------------------------------------===//

std::string readInput(const std::string &path, std::string &text, size_t limit) {
  text.clear();
  const bool standardInput = path == "-";
  int fd = 0;
  if (!standardInput) {
    // A FIFO blocks here until it has a writer: it is read as a stream.
    do
      fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
      return std::strerror(errno);
  }
  auto finish = [&](std::string why) {
    if (!standardInput)
      ::close(fd);
    if (!why.empty())
      text.clear();
    return why;
  };
  const std::string tooLarge = "it is larger than " + std::to_string(limit >> 20) +
                               " MiB, the most minitile reads";
  struct stat st;
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return finish("it is a directory");
    if (S_ISREG(st.st_mode)) {
      if (static_cast<unsigned long long>(st.st_size) > limit)
        return finish(tooLarge);
      text.reserve(static_cast<size_t>(st.st_size));
    }
  }
  // Whatever stat said: a file may grow, and a device or pipe has no size.
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return finish(std::strerror(errno));
    }
    if (n == 0)
      return finish("");
    if (text.size() + static_cast<size_t>(n) > limit)
      return finish(tooLarge);
    text.append(buffer, static_cast<size_t>(n));
  }
}

//===----------------------------------------------------------------------===//
// Removal on a signal
//===----------------------------------------------------------------------===//

namespace {

// The registered paths and children, as plain atomics the handler can read
// without a lock or an allocation.
std::atomic<char *> paths[64];
std::atomic<pid_t> children[512];

const int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

/// Removes the entries of directory `dir` (a level deep: tune's directory
/// has no folders of its own but, at worst, empty ones), then `dir`.
/// Async-signal-safe: system calls only.
void removeTree(const char *dir) {
#ifdef __linux__
  int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    struct Entry { // linux_dirent64
      unsigned long long ino;
      long long off;
      unsigned short reclen;
      unsigned char type;
      char name[1];
    };
    alignas(8) char buffer[8192];
    // Entries removed while reading may hide others: read again until a
    // pass removes nothing.
    for (int pass = 0; pass < 16; ++pass) {
      bool removed = false;
      ::lseek(fd, 0, SEEK_SET);
      long n;
      while ((n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer)) > 0)
        for (long at = 0; at < n;) {
          auto *e = reinterpret_cast<Entry *>(buffer + at);
          at += e->reclen;
          if (!std::strcmp(e->name, ".") || !std::strcmp(e->name, ".."))
            continue;
          if (::unlinkat(fd, e->name, 0) == 0 || ::unlinkat(fd, e->name, AT_REMOVEDIR) == 0)
            removed = true;
        }
      if (!removed)
        break;
    }
    ::close(fd);
  }
#endif
  ::rmdir(dir);
}

/// Ends the registered children and removes the registered paths, and what
/// LLVM was asked to remove (llvm::sys::RemoveFileOnSignal).
void removeOutputs() {
  // The compilers first, so that nothing is written after the removal.
  for (std::atomic<pid_t> &slot : children)
    if (pid_t child = slot.exchange(0)) {
      ::kill(child, SIGKILL);
      ::waitpid(child, nullptr, 0);
    }
  for (std::atomic<char *> &slot : paths)
    if (char *path = slot.exchange(nullptr)) {
      struct stat st;
      if (::lstat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
          removeTree(path);
        else
          ::unlink(path);
      }
    }
  llvm::sys::RunInterruptHandlers();
}

const char *toolName = "minitile";

void say(const char *text) {
  for (size_t n = std::strlen(text); n;) {
    ssize_t w = ::write(2, text, n);
    if (w <= 0)
      return;
    text += w;
    n -= size_t(w);
  }
}

void onFatalError(void *, const char *reason, bool) {
  say(toolName);
  say(": error: internal error (LLVM): ");
  // One line, whatever LLVM's reason holds.
  for (const char *c = reason ? reason : ""; *c; ++c) {
    char one[2] = {*c == '\n' ? ' ' : *c, 0};
    say(one);
  }
  say("\n");
  removeOutputs();
  ::_exit(1);
}

void onBadAlloc(void *, const char *, bool) {
  // Nothing that allocates.
  say(toolName);
  say(": error: out of memory\n");
  removeOutputs();
  ::_exit(1);
}

void onSignal(int signal) {
  int saved = errno;
  removeOutputs();
  // Then the signal's own end: its default action once this handler returns.
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  ::sigaction(signal, &action, nullptr);
  ::raise(signal);
  errno = saved;
}

void installHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int signal : kSignals) {
      struct sigaction old {};
      if (::sigaction(signal, nullptr, &old) != 0 || old.sa_handler == SIG_IGN)
        continue; // nohup, or a background job: the signal stays ignored
      struct sigaction action {};
      action.sa_handler = onSignal;
      sigemptyset(&action.sa_mask);
      for (int other : kSignals)
        sigaddset(&action.sa_mask, other);
      ::sigaction(signal, &action, nullptr);
    }
  });
}

} // namespace

void removeOnSignal(const std::string &path) {
  installHandlers();
  char *copy = ::strdup(path.c_str());
  if (!copy)
    return;
  for (std::atomic<char *> &slot : paths) {
    char *expected = nullptr;
    if (slot.compare_exchange_strong(expected, copy))
      return;
  }
  std::free(copy); // more outputs than slots: this one is not removed
}

void keep(const std::string &path) {
  for (std::atomic<char *> &slot : paths) {
    char *p = slot.load();
    if (p && path == p && slot.compare_exchange_strong(p, nullptr)) {
      std::free(p);
      return;
    }
  }
}

void endOnSignal(pid_t child) {
  if (child <= 0)
    return;
  installHandlers();
  for (std::atomic<pid_t> &slot : children) {
    pid_t expected = 0;
    if (slot.compare_exchange_strong(expected, child))
      return;
  }
}

void forgetChild(pid_t child) {
  for (std::atomic<pid_t> &slot : children) {
    pid_t expected = child;
    if (child > 0 && slot.compare_exchange_strong(expected, 0))
      return;
  }
}

void installFatalErrorHandlers(const char *tool) {
  static std::once_flag once;
  std::call_once(once, [tool] {
    toolName = tool;
    llvm::install_fatal_error_handler(onFatalError);
    llvm::install_bad_alloc_error_handler(onBadAlloc);
  });
}

SignalsHeld::SignalsHeld() {
  sigset_t held;
  sigemptyset(&held);
  for (int signal : kSignals)
    sigaddset(&held, signal);
  ::pthread_sigmask(SIG_BLOCK, &held, &old_);
}

SignalsHeld::~SignalsHeld() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

//===----------------------------------------------------------------------===//
// Temporary names
//===----------------------------------------------------------------------===//

std::string temporaryModel(const std::string &path, size_t extra) {
  const std::string suffix = ".tmp-%%%%%%";
  llvm::StringRef file = llvm::sys::path::filename(path);
  std::string dir = llvm::sys::path::parent_path(path).str();
  long most = ::pathconf(dir.empty() ? "." : dir.c_str(), _PC_NAME_MAX);
  if (most <= 0)
    most = NAME_MAX;
  if (file.size() + suffix.size() + extra <= static_cast<size_t>(most))
    return path + suffix;
  return (dir.empty() ? std::string() : dir + "/") + ".minitile.tmp-%%%%%%";
}

int finishStandardStreams(int status) {
  for (llvm::raw_fd_ostream *os : {&llvm::outs(), &llvm::errs()}) {
    os->flush();
    if (os->has_error()) {
      os->clear_error();
      if (os == &llvm::outs() && status == 0)
        status = 1;
    }
  }
  return status;
}

} // namespace minitile::files
