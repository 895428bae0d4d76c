// Calls the dispatching tune_axpy launcher once with n = argv[1]
// (tests/lit/cli/tune-dispatch.test).
#include "axpy.h"

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  const int64_t n = std::atoll(argv[1]);
  minitile::rt::DeviceBuffer<minitile::rt::bf16> x(n);
  minitile::rt::DeviceBuffer<float> y(2 * n);
  minitile::rt::DeviceBuffer<int32_t> idx(n);
  try {
    minitile::kernels::tune_axpy(n, 2.0f, x.get(), y.get(), idx.get());
  } catch (const minitile::rt::Error &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
