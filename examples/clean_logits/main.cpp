// The example application: causal windows on the GPU, then clean_logits,
// checked against a host reference. Without a GPU it says so and exits 0.
#include "clean_logits.h"
#include "make_causal_cu_seqlens.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  std::string why;
  if (!minitile::rt::available(&why)) {
    std::printf("clean-logits-example: no GPU (%s); nothing to run\n", why.c_str());
    return 0;
  }
  const int64_t S = 4096, S_kv = 1024, ratio = 4;
  try {
    minitile::rt::ensureContext();
    std::mt19937 rng(std::random_device{}());
    std::normal_distribution<float> normal;
    std::vector<float> logits(S * S_kv);
    for (float &x : logits)
      x = normal(rng);

    minitile::rt::DeviceBuffer<int32_t> ks(S), ke(S);
    minitile::rt::DeviceBuffer<float> d_logits(logits);
    example::gpu::make_causal_cu_seqlens(ks.get(), ke.get(), S, S_kv, ratio);
    example::gpu::clean_logits(d_logits.get(), ks.get(), ke.get(), S, S_kv);
    minitile::rt::synchronize();

    std::vector<int32_t> hks = ks.download(), hke = ke.download();
    std::vector<float> out = d_logits.download();
    int64_t wrong = 0, masked = 0;
    for (int64_t s = 0; s < S; ++s) {
      int64_t lo = 0, hi = std::min<int64_t>((s + 1) / ratio, S_kv);
      wrong += hks[s] != lo || hke[s] != hi;
      for (int64_t t = 0; t < S_kv; ++t) {
        float want = (t < lo || t >= hi) ? -INFINITY : logits[s * S_kv + t];
        masked += t >= hi;
        wrong += out[s * S_kv + t] != want;
      }
    }
    std::printf("clean-logits-example on %s: S=%lld S_kv=%lld ratio=%lld, %lld entries "
                "masked, %lld wrong\n",
                minitile::rt::deviceName().c_str(), (long long)S, (long long)S_kv,
                (long long)ratio, (long long)masked, (long long)wrong);
    return wrong == 0 ? 0 : 1;
  } catch (const minitile::rt::Error &e) {
    std::fprintf(stderr, "clean-logits-example: %s\n", e.what());
    return 1;
  }
}
