//===- TuneBuild.h - where minitile tune writes, and how it builds --------===//
//
// The machinery behind `minitile tune` (Tune.cpp) that knows nothing of
// kernels: the directory it writes whole or not at all, and the compiler,
// runtime and CUDA headers that build tune-runner.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace minitile::tune {

/// What builds tune-runner: the C++ compiler minitile was built with ($CXX
/// overrides it), and the runtime of an installed minitile ($MINITILE_PREFIX,
/// or the prefix this program is installed in), else of the build that made
/// this program.
struct Toolchain {
  std::vector<std::string> cxx;      // the program, then arguments ($CXX may hold some)
  std::vector<std::string> includes; // <minitile/runtime.h>'s and <cuda.h>'s folders
  std::string runtimeLibrary;        // libminitile-runtime.a
  std::vector<std::string> linkFlags; // a sanitized runtime's
};

/// False with `error` saying what is missing.
bool findToolchain(Toolchain &toolchain, std::string &error);

/// Runs the commands (each a program and its arguments), `parallel` at a
/// time, their output in logs in `dir`; false with `error` naming the first
/// that fails and its first error line.
bool runCommands(const std::vector<std::vector<std::string>> &commands,
                 const std::string &dir, unsigned parallel, std::string &error);

/// A directory written in a temporary folder beside it and renamed into
/// place by commit(); the folder is removed otherwise. It may be new or one
/// minitile tune wrote before (which is replaced as a whole); anything else
/// is refused by open(), before any work.
class OutputDir {
public:
  explicit OutputDir(std::string path);
  ~OutputDir();
  OutputDir(const OutputDir &) = delete;
  OutputDir &operator=(const OutputDir &) = delete;

  /// Checks the path and makes the temporary folder.
  bool open(std::string &error);
  /// The temporary folder, where the files go until commit().
  const std::string &temp() const { return temp_; }
  /// Writes file `name` in the folder.
  bool write(const std::string &name, const std::string &text, std::string &error);
  bool commit(std::string &error);

private:
  std::string path_, temp_;
  bool replaces_ = false;
};

} // namespace minitile::tune
