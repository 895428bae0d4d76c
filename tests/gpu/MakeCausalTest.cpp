//===- MakeCausalTest.cpp - make_causal_cu_seqlens against the formula ---===//
#include "GpuTest.h"
#include "make_causal_cu_seqlens.h"

#include <algorithm>
#include <vector>

using namespace gputest;
using minitile::rt::DeviceBuffer;

TEST(MakeCausalCuSeqlens, MatchesTheFormula) {
  for (int64_t S : {1, 3, 17, 1000, 4099, 65537})
    for (int64_t T : {0, 5, 255, 257, 16385})
      for (int64_t ratio : {1, 3, 4}) {
        SCOPED_TRACE("S=" + std::to_string(S) + " S_kv=" + std::to_string(T) +
                     " ratio=" + std::to_string(ratio));
        DeviceBuffer<int32_t> ks(S), ke(S);
        ks.fillWords(kPoison);
        ke.fillWords(kPoison);
        minitile::kernels::make_causal_cu_seqlens(S, T, ratio, ks.get(), ke.get());
        minitile::rt::synchronize();
        std::vector<int32_t> hks = ks.download(), hke = ke.download();
        int64_t wrong = 0;
        for (int64_t p = 0; p < S; ++p) {
          int64_t want = std::min<int64_t>((p + 1) / ratio, T);
          if ((hks[p] != 0 || hke[p] != want) && wrong++ < 5)
            ADD_FAILURE() << "p=" << p << ": ks=" << hks[p] << " ke=" << hke[p]
                          << ", want 0 and " << want;
        }
        EXPECT_EQ(wrong, 0);
      }
}
