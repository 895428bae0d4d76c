// The GEMM example: C = A . B^T with the kernels of gemm_kernel.cpp, made
// by this project's own generator, checked on a few entries against the
// host. tests/gpu/UserKernelsTest.cpp checks every entry at ragged sizes.
// Without a GPU it says so and exits 0.
#include "gemm_bf16.h"
#include "gemm_f32.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using minitile::rt::bf16;

int main() {
  std::string why;
  if (!minitile::rt::available(&why)) {
    std::printf("gemm-example: no GPU here (%s)\n", why.c_str());
    return 0;
  }
  try {
    const int64_t M = 1000, N = 700, K = 520;
    std::mt19937 rng(1);
    std::normal_distribution<float> normal;
    std::vector<bf16> a(M * K), b(N * K);
    for (bf16 &x : a) x = bf16::fromFloat(normal(rng));
    for (bf16 &x : b) x = bf16::fromFloat(normal(rng));
    minitile::rt::DeviceBuffer<bf16> da(a), db(b);
    minitile::rt::DeviceBuffer<float> dc(M * N);
    minitile::rt::DeviceBuffer<bf16> dh(M * N);
    example::gpu::gemm_f32(M, N, K, da.get(), db.get(), dc.get());
    example::gpu::gemm_bf16(M, N, K, da.get(), db.get(), dh.get());
    std::vector<float> c = dc.download();
    std::vector<bf16> h = dh.download();
    int wrong = 0;
    for (int64_t m = 0; m < M; m += 37)
      for (int64_t n = 0; n < N; n += 41) {
        double ref = 0, mag = 0;
        for (int64_t k = 0; k < K; ++k) {
          double p = double(a[m * K + k].toFloat()) * b[n * K + k].toFloat();
          ref += p, mag += std::abs(p);
        }
        wrong += !(std::abs(c[m * N + n] - ref) <= 1e-5 * mag + 1e-6);
        wrong += !(std::abs(h[m * N + n].toFloat() - ref) <= 1e-5 * mag + std::abs(ref) / 128);
      }
    std::printf("gemm-example: %d of the entries checked differ from the host\n", wrong);
    return wrong != 0;
  } catch (const minitile::rt::Error &e) {
    std::fprintf(stderr, "gemm-example: %s\n", e.what());
    return 1;
  }
}
