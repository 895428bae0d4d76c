//===- OddKernels.cpp - a kernel registered under a name that is no C name -===//
//
// A kernel's name names its launcher and its PTX entry; "odd name!" can name
// neither (LLVM's NVPTX backend aborted on it: "Symbol name with unsupported
// characters"). `minitile-odd-kernels` must refuse to start, naming the
// MINITILE_KERNEL line (tests/lit/cli/odd-kernel.test).
//
//===----------------------------------------------------------------------===//
#include "minitile/dsl.h"

namespace {

struct Odd : minitile::Generator {
  void generate(minitile::Kernel &k) override {
    k.threads(32);
    k.grid(1);
  }
};

} // namespace

MINITILE_KERNEL(Odd, "odd name!", "a kernel whose name is not a C identifier"); // ODD-NAME
