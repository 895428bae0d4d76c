// Calls the `fill` launcher of minitile-robust-kernels (x[i, :] = 1 for
// i < n, on `blocks` blocks) with n = argv[1], blocks = argv[2] and x a
// device buffer of argv[3] rows of 4 floats (argv[4] = "offset": x starts at
// its second row) (tests/lit/cli/launcher-checks.test, over the fake driver,
// which logs the launches that happen).
#include "fill.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char **argv) {
  if (argc < 4)
    return 2;
  const int64_t n = std::atoll(argv[1]), blocks = std::atoll(argv[2]),
                rows = std::atoll(argv[3]);
  const bool offset = argc > 4 && !std::strcmp(argv[4], "offset");
  minitile::rt::DeviceBuffer<float> x(4 * rows);
  try {
    minitile::kernels::fill(n, blocks, x.get() + (offset ? 4 : 0));
  } catch (const minitile::rt::Error &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "fill returned\n");
  return 0;
}
