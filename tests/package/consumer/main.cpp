// The consumer's application: its own axpy kernel and minitile's shipped
// clean_logits, through their generated launchers. Without a GPU it says so
// and exits 0; with one it checks both results.
#include "axpy.h"
#include "clean_logits.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

int main() {
  std::string why;
  if (!minitile::rt::available(&why)) {
    std::printf("consumer-app: no GPU (%s)\n", why.c_str());
    return 0;
  }
  try {
    minitile::rt::ensureContext();
    const int64_t n = 1000;
    std::vector<float> x(n), y(n);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = float(i);
      y[i] = 1.0f;
    }
    minitile::rt::DeviceBuffer<float> dx(x), dy(y);
    consumer::gpu::axpy(n, 2.0f, dx.get(), dy.get());

    const int64_t S = 4, T = 8;
    std::vector<int32_t> ks = {0, 2, 8, 5}, ke = {8, 4, 8, 3};
    minitile::rt::DeviceBuffer<float> logits(std::vector<float>(S * T, 1.0f));
    minitile::rt::DeviceBuffer<int32_t> dks(ks), dke(ke);
    consumer::gpu::clean_logits(S, T, logits.get(), dks.get(), dke.get());
    minitile::rt::synchronize();

    int wrong = 0;
    std::vector<float> out = dy.download();
    for (int64_t i = 0; i < n; ++i)
      wrong += out[i] != 2.0f * float(i) + 1.0f;
    std::vector<float> cleaned = logits.download();
    for (int64_t s = 0; s < S; ++s)
      for (int64_t t = 0; t < T; ++t)
        wrong += (t >= ks[s] && t < ke[s]) ? cleaned[s * T + t] != 1.0f
                                           : !std::isinf(cleaned[s * T + t]);
    std::printf("consumer-app: %d wrong\n", wrong);
    return wrong != 0;
  } catch (const minitile::rt::Error &e) {
    std::printf("consumer-app: %s\n", e.what());
    return 1;
  }
}
