// The softmax example: each row of x [rows, cols] with the kernel of
// softmax_kernel.cpp, made by this project's own generator, checked against
// the host. Without a GPU it says so and exits 0.
#include "softmax_4k.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  std::string why;
  if (!minitile::rt::available(&why)) {
    std::printf("softmax-example: no GPU here (%s)\n", why.c_str());
    return 0;
  }
  try {
    const int64_t rows = 333, cols = 3000;
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0, 4);
    std::vector<float> x(rows * cols);
    for (float &v : x) v = normal(rng);
    minitile::rt::DeviceBuffer<float> dx(x), dy(x.size());
    example::gpu::softmax_4k(rows, cols, dx.get(), dy.get());
    std::vector<float> y = dy.download();
    int wrong = 0;
    for (int64_t r = 0; r < rows; ++r) {
      double m = -INFINITY, s = 0;
      for (int64_t c = 0; c < cols; ++c) m = std::max<double>(m, x[r * cols + c]);
      for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
      for (int64_t c = 0; c < cols; ++c) {
        double ref = std::exp(x[r * cols + c] - m) / s;
        wrong += !(std::abs(y[r * cols + c] - ref) <= 2e-5 * ref + 1e-30);
      }
    }
    std::printf("softmax-example: %d entries differ from the host\n", wrong);
    return wrong != 0;
  } catch (const minitile::rt::Error &e) {
    std::fprintf(stderr, "softmax-example: %s\n", e.what());
    return 1;
  }
}
