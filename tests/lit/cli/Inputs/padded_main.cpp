// Calls the `tune_padded` launcher of minitile-tune-kernels with bh =
// argv[1], n = argv[2] and buffers of argv[3] floats each (y, d and x)
// (tests/lit/cli/tensor-shapes.test, over the fake driver, which logs the
// launches that happen).
#include "padded.h"

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  if (argc < 4)
    return 2;
  const int64_t bh = std::atoll(argv[1]), n = std::atoll(argv[2]),
                floats = std::atoll(argv[3]);
  minitile::rt::DeviceBuffer<float> x(floats), y(floats), d(floats);
  try {
    minitile::kernels::tune_padded(bh, n, y.get(), d.get(), x.get());
  } catch (const minitile::rt::Error &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "tune_padded returned\n");
  return 0;
}
