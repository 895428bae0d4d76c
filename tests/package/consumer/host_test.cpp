// Host-side checks of the consumer's generated launchers: they run before any
// CUDA call, so this needs no GPU.
#include "axpy.h"
#include "axpy_wide.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace {

int failures = 0;

template <class F> void expectError(const char *what, F &&launch, const std::string &expected) {
  std::string got = "(no error)";
  try {
    launch();
  } catch (const minitile::rt::Error &e) {
    got = e.what();
  }
  if (got != expected) {
    std::printf("FAIL %s: got \"%s\", expected \"%s\"\n", what, got.c_str(), expected.c_str());
    ++failures;
  }
}

} // namespace

int main() {
  float *device = reinterpret_cast<float *>(uintptr_t(0x10000));
  float *odd = reinterpret_cast<float *>(uintptr_t(0x10002));
  expectError("negative size", [] { consumer::gpu::axpy(-1, 2.0f, nullptr, nullptr); },
              "axpy: n must not be negative");
  expectError("null tensor", [&] { consumer::gpu::axpy(16, 2.0f, nullptr, device); },
              "axpy: x is null but holds 16 elements");
  expectError("misaligned tensor", [&] { consumer::gpu::axpy(16, 2.0f, device, odd); },
              "axpy: y is not aligned to 4 bytes");
  expectError("the kernel's requirement",
              [&] { consumer::gpu::axpy_wide(int64_t(1) << 31, 2.0f, device, device); },
              "axpy_wide: n must be below 2^31");
  // n = 0: an empty grid, nothing launched, no error with or without a GPU.
  expectError("empty problem", [] { consumer::gpu::axpy(0, 2.0f, nullptr, nullptr); },
              "(no error)");
  std::printf("consumer-host-test: %d failures\n", failures);
  return failures != 0;
}
