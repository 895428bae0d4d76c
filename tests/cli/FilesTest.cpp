//===- FilesTest.cpp - bounded input, outputs removed, LLVM's fatal errors -===//
//
// tools/minitile/Files.h: what the CLI and minitile-opt do around the
// compiler. The death tests run LLVM's fatal error paths in a child
// process: each must be one line and exit status 1, not an abort, and must
// remove the outputs being written.
//
//===----------------------------------------------------------------------===//
#include "tools/minitile/Files.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

using namespace minitile;

namespace {

/// A fresh file in a fresh directory under TMPDIR, holding `text`.
std::string scratchFile(const std::string &name, const std::string &text) {
  const char *tmp = std::getenv("TMPDIR");
  std::string model = std::string(tmp && *tmp ? tmp : "/tmp") + "/files-test-XXXXXX";
  if (!::mkdtemp(model.data()))
    return "";
  std::string path = model + "/" + name;
  std::ofstream(path) << text;
  return path;
}

bool exists(const std::string &path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

} // namespace

TEST(Files, ReadInputIsBounded) {
  std::string path = scratchFile("in.txt", std::string(1000, 'x')), text;
  EXPECT_EQ(files::readInput(path, text), "");
  EXPECT_EQ(text.size(), 1000u);
  EXPECT_EQ(files::readInput(path, text, 999), "it is larger than 0 MiB, the most minitile reads");
  EXPECT_TRUE(text.empty());
  EXPECT_EQ(files::readInput(path + ".missing", text), "No such file or directory");
  std::string dir = path.substr(0, path.rfind('/'));
  EXPECT_EQ(files::readInput(dir, text), "it is a directory");
}

TEST(Files, TemporaryNamesFitTheFileSystem) {
  EXPECT_EQ(files::temporaryModel("dir/k.ptx"), "dir/k.ptx.tmp-%%%%%%");
  std::string longName(250, 'a');
  EXPECT_EQ(files::temporaryModel("dir/" + longName), "dir/.minitile.tmp-%%%%%%");
  EXPECT_EQ(files::temporaryModel(std::string(240, 'b'), 4), std::string(240, 'b') + ".tmp-%%%%%%");
  EXPECT_EQ(files::temporaryModel(std::string(241, 'b'), 4), ".minitile.tmp-%%%%%%");
}

// report_fatal_error (an LLVM check that fails) is one line and exit 1, and
// the output being written is removed.
TEST(FilesDeathTest, AnLLVMFatalErrorIsOneLineAndRemovesOutputs) {
  std::string output = scratchFile("out.ptx.tmp-123456", "partial");
  ASSERT_TRUE(exists(output));
  EXPECT_EXIT(
      {
        files::installFatalErrorHandlers("minitile");
        files::removeOnSignal(output);
        llvm::report_fatal_error("Symbol name with unsupported characters\nsecond line");
      },
      testing::ExitedWithCode(1),
      "^minitile: error: internal error \\(LLVM\\): Symbol name with unsupported characters "
      "second line\n$");
  EXPECT_FALSE(exists(output));
}

// A stream destroyed with an unreported write error: the abort raw_fd_ostream
// made ("IO failure on output stream") is the same one line.
TEST(FilesDeathTest, AFailedStreamIsOneLine) {
  EXPECT_EXIT(
      {
        files::installFatalErrorHandlers("minitile-opt");
        int fds[2];
        if (::pipe(fds) != 0)
          std::exit(3);
        ::close(fds[0]); // writes now fail (EPIPE, SIGPIPE ignored)
        ::signal(SIGPIPE, SIG_IGN);
        llvm::raw_fd_ostream os(fds[1], /*shouldClose=*/true);
        os << "text";
        os.flush();
      },
      testing::ExitedWithCode(1),
      "^minitile-opt: error: internal error \\(LLVM\\): IO failure on output stream");
}

// An allocation LLVM or MLIR cannot make.
TEST(FilesDeathTest, OutOfMemoryIsOneLine) {
  EXPECT_EXIT(
      {
        files::installFatalErrorHandlers("minitile");
        llvm::report_bad_alloc_error("Allocation failed");
      },
      testing::ExitedWithCode(1), "^minitile: error: out of memory\n$");
}
