// The attention example: flash attention forward with the kernels of
// attention_kernel.cpp, made by this project's own generator. It checks a
// ragged, grouped-query case on a few rows against the host, then times
// the kernels at SDPA's benchmark shapes (B.H, S) = (64, 4096), (32, 8192),
// (16, 16384), head dim 128 (as ../shared/bench/attention_peers.py runs
// torch's backends): CUDA events, median of 20 launches after 3 warm-ups,
// useful TFLOP/s = 4 B H S^2 D (halved for causal).
// tests/gpu/UserKernelsTest.cpp checks every output at ragged sizes.
// Without a GPU it says so and exits 0.
#include "attention_d128.h"
#include "attention_d128_causal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using minitile::rt::bf16;
using minitile::rt::DeviceBuffer;

int main(int argc, char **argv) {
  std::string why;
  if (!minitile::rt::available(&why)) {
    std::printf("attention-example: no GPU here (%s)\n", why.c_str());
    return 0;
  }
  const bool timing = !(argc > 1 && std::string(argv[1]) == "--check");
  try {
    // B = 2, H = 4 query heads on H_kv = 2, S = 300 (not a multiple of 128).
    const int64_t B = 2, H = 4, Hkv = 2, S = 300, D = 128;
    const float scale = 1 / std::sqrt(float(D));
    std::mt19937 rng(1);
    std::normal_distribution<float> normal;
    auto random = [&](int64_t n) {
      std::vector<bf16> v(n);
      for (bf16 &x : v) x = bf16::fromFloat(normal(rng));
      return v;
    };
    auto q = random(B * H * S * D), k = random(B * Hkv * S * D), v = random(B * Hkv * S * D);
    DeviceBuffer<bf16> dq(q), dk(k), dv(v), dout(B * H * S * D);
    DeviceBuffer<float> dlse(B * H * S);
    int wrong = 0;
    for (bool causal : {false, true}) {
      (causal ? example::gpu::attention_d128_causal : example::gpu::attention_d128)(
          B, H, Hkv, S, scale, dq.get(), dk.get(), dv.get(), dout.get(), dlse.get(), nullptr);
      std::vector<bf16> out = dout.download();
      std::vector<float> lse = dlse.download();
      for (int64_t bh = 0; bh < B * H; bh += 3)
        for (int64_t i = 0; i < S; i += 37) {
          const int64_t b = bh / H, g = bh % H / (H / Hkv);
          const bf16 *qi = &q[(bh * S + i) * D];
          const int64_t n = causal ? i + 1 : S;
          std::vector<double> p(n);
          double mx = -INFINITY, sum = 0;
          for (int64_t j = 0; j < n; ++j) {
            const bf16 *kj = &k[((b * Hkv + g) * S + j) * D];
            double dot = 0;
            for (int64_t d = 0; d < D; ++d) dot += double(qi[d].toFloat()) * kj[d].toFloat();
            p[j] = dot * scale, mx = std::max(mx, p[j]);
          }
          for (double &x : p) sum += (x = std::exp(x - mx));
          for (int64_t d = 0; d < D; ++d) {
            double ref = 0;
            for (int64_t j = 0; j < n; ++j)
              ref += p[j] / sum * v[((b * Hkv + g) * S + j) * D + d].toFloat();
            wrong += !(std::abs(out[(bh * S + i) * D + d].toFloat() - ref) <= 0.02 * std::abs(ref) + 0.01);
          }
          wrong += !(std::abs(lse[bh * S + i] - (mx + std::log(sum))) <= 1e-3 * (1 + std::abs(mx)));
        }
    }
    std::printf("attention-example: %d of the entries checked differ from the host\n", wrong);
    if (wrong || !timing)
      return wrong != 0;

    for (auto [BH, SS] : {std::pair<int64_t, int64_t>{64, 4096}, {32, 8192}, {16, 16384}}) {
      const int64_t n = BH * SS * 128;
      DeviceBuffer<bf16> tq(n), tk(n), tv(n), to(n);
      DeviceBuffer<float> tl(BH * SS);
      for (auto *buf : {&tq, &tk, &tv}) buf->upload(random(n));
      for (bool causal : {false, true}) {
        auto run = [&] {
          (causal ? example::gpu::attention_d128_causal : example::gpu::attention_d128)(
              1, BH, BH, SS, 1 / std::sqrt(128.f), tq.get(), tk.get(), tv.get(), to.get(),
              tl.get(), nullptr);
        };
        for (int i = 0; i < 3; ++i) run();
        std::vector<float> ms;
        minitile::rt::Timer timer;
        for (int i = 0; i < 20; ++i) {
          timer.start();
          run();
          ms.push_back(timer.stop());
        }
        std::nth_element(ms.begin(), ms.begin() + 10, ms.end());
        const double flop = 4.0 * BH * SS * SS * 128 / (causal ? 2 : 1);
        std::printf("attention BH=%lld S=%lld D=128 causal=%d: %.3f ms, %.0f TFLOP/s\n",
                    (long long)BH, (long long)SS, int(causal), ms[10], flop / ms[10] / 1e9);
      }
    }
    return 0;
  } catch (const minitile::rt::Error &e) {
    std::fprintf(stderr, "attention-example: %s\n", e.what());
    return 1;
  }
}
