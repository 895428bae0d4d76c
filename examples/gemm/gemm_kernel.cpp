//===- gemm_kernel.cpp - C = A . B^T in bf16 with f32 accumulation --------===//
//
//   C[m, n] = sum_k A[m, k] * B[n, k]      A [M, K], B [N, K] bf16; C f32 or bf16
//
// Each block computes a BM x BN tile of C (BM = 128: two warpgroups of 64
// rows). The K loop is pipelined: a producer warpgroup keeps `stages` pairs
// of A and B tiles in flight by TMA while the compute warpgroups run wgmma,
// accumulating into a fragment the loop carries in registers; the epilogue
// stores it once. Blocks walk the tiles of C in groups of `group_m` rows of
// tiles, so that the tiles running at once share their A and B panels in L2.
//
//===----------------------------------------------------------------------===//
#include <minitile/dsl.h>

using namespace minitile;

struct Gemm : Generator {
  Param<int> blockN{"block_n", 128, {128, 256}, "columns of C per block"};
  Param<int> stages{"stages", 4, 2, 8, "K tiles in flight"};
  Param<int> groupM{"group_m", 8, 1, 64, "rows of C tiles walked together (L2 reuse)"};
  Param<bool> bf16Out{"bf16_out", false, "store C as bf16 (else f32)"};

  void generate(Kernel &k) override {
    const int BM = 128, BN = blockN, BK = 64, G = groupM;
    Value M = k.size("M"), N = k.size("N"), K = k.size("K");
    Tensor A = k.tensor("A", DType::bf16, {M, K});
    Tensor B = k.tensor("B", DType::bf16, {N, K});
    Tensor C = k.tensor("C", bf16Out ? DType::bf16 : DType::f32, {M, N});
    k.require(K % 8 == 0, "K must be a multiple of 8 (rows of A and B 16-byte aligned)");
    k.threads(2 * 128);
    Value tilesM = ceildiv(M, BM), tilesN = ceildiv(N, BN);
    k.grid(tilesM * tilesN);

    // Tile (tm, tn) of C: groups of G rows of tiles, column by column.
    Value id = k.blockId(), perGroup = G * tilesN;
    Value first = id / perGroup * G, rows = min(tilesM - first, G);
    Value tm = first + id % perGroup % rows, tn = id % perGroup / rows;
    Value m0 = tm * BM, n0 = tn * BN;

    Value acc = k.pipelined(0, ceildiv(K, BK), broadcast(0.0, {BM, BN}),
        [&](Value kt, Value acc) {
          Shared a = k.shared(DType::bf16, {BM, BK}), b = k.shared(DType::bf16, {BN, BK});
          copy(A, {m0, kt * BK}, a);   // TMA; past M, N or K it reads zeros
          copy(B, {n0, kt * BK}, b);
          return gemm(a, b, /*transposeB=*/true, acc);
        },
        {.stages = stages});
    storeTile(C, {m0, n0}, bf16Out ? cast(acc, DType::bf16) : acc);
  }
};
MINITILE_KERNEL(Gemm, "gemm", "C = A . B^T: bf16 A [M, K] and B [N, K], f32 accumulation");
