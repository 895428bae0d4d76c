//===- Main.cpp - the GPU suites: skip with a reason where there is no GPU ===//
#include "GpuTest.h"

#include <cstdio>

int main(int argc, char **argv) {
  std::string why;
  if (!minitile::rt::available(&why)) {
    std::printf("no GPU: %s; skipping the GPU tests\n", why.c_str());
    return 77; // ctest: SKIP_RETURN_CODE
  }
  minitile::rt::ensureContext();
  std::printf("GPU: %s, %d SMs; MINITILE_TEST_SEED=%llu\n",
              minitile::rt::deviceName().c_str(), minitile::rt::multiprocessorCount(),
              static_cast<unsigned long long>(gputest::seed()));
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
