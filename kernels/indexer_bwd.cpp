//===- indexer_bwd.cpp - the DeepSeek-V4 lightning indexer, backward ------===//
//
// Given each query's K selected kv rows idx[s, :] (-1: none) and the
// gradient g[s, :] of their gathered scores:
//
//   r[h, j]      = relu(q[s, h, :] . kv[idx[s, j], :])
//   dweights[s, h] = sum_j g[s, j] * r[h, j]
//   p[h, j]      = (r[h, j] > 0) * g[s, j] * weights[s, h]
//   dq[s, h, :]  = sum_j p[h, j] * kv[idx[s, j], :]                 (bf16)
//   dkv[idx[s, j], :] += sum_h p[h, j] * q[s, h, :]       (f32, added into)
//
// A block takes one query: its H x D query tile stays in shared memory
// while the producer warp gathers the selected kv rows, 64 a tile (gather()
// by its lanes' 16-byte cp.async; slots past K and indices -1 read as zero
// rows). Each tile is three gemms: the scores q . kv^T (H x 64), dq += p .
// kv with p from registers, and p^T . q (64 x D), p^T stored into shared
// memory (four 8 x 8 blocks a warp instruction), whose rows are added into
// dkv at the tile's indices (addRows(): each warp's 16 rows through a
// scratch tile, then 16-byte reductions, 16 lanes side by side on a row's
// 256 bytes of a panel; indices repeat within and across queries). D is
// taken in panels of 64 columns, so that no more than one 64 x 64 piece of
// dkv's tile is live at a time. Two blocks share a multiprocessor, each
// hiding the other's waits on its gathers and reductions.
//
// dkv is added into, not written: zero it for the gradient alone. Its
// additions land in no fixed order, so its sums differ between runs by
// rounding; dq and dweights are the same bits each run. 32 heads (GLM-5)
// leave the gemms' rows past H zero: the query tile's copy reads them as
// zeros. batched_indexer_bwd adds a batch index to every tensor, as
// batched_indexer_fwd does.
//
//===----------------------------------------------------------------------===//
#include "minitile/dsl.h"

namespace {

using namespace minitile;

template <bool Batched> struct IndexerBwd : Generator {
  Param<int> heads{"heads", 64, {32, 64},
                   "H, heads per query (the gemms' 64 rows; 32 heads leave half of them zero)"};
  Param<int> dim{"dim", 128, {64, 128}, "D, the head dimension"};
  Param<int> stages{"stages", 3, 2, 6, "gathered kv tiles in flight"};
  Param<int> blocksPerSM{"blocks_per_sm", 2, 1, 3,
                         "blocks a multiprocessor runs at once (the registers are shared "
                         "out so that they fit); two hide each other's gather and "
                         "reduction latencies"};
  Param<bool> cpAsync{"cp_async", true,
                      "gather the kv rows by 16-byte cp.async from every lane of the "
                      "producer warp (false: one TMA box a row, 128 bytes each, which the "
                      "TMA takes at a quarter of the rate)"};
  Param<int> producerRegisters{"producer_registers", 0, {0, 24, 32, 40, 48, 56, 64},
                               "the registers a producer warp keeps (0: the default); the "
                               "gather holds 32 rows' indices at once"};

  void generate(Kernel &k) override {
    // M: the gemms' rows, the heads padded to wgmma's 64.
    const int H = heads, D = dim, BK = 64, M = 64;
    Value S = k.size("S"), T = k.size("S_kv"), K = k.size("K");
    Value B = Batched ? k.size("B") : Value();
    Tensor q = Batched ? k.tensor("q", DType::bf16, {S, B, H, D})
                       : k.tensor("q", DType::bf16, {S, H, D});
    Tensor kv = Batched ? k.tensor("kv", DType::bf16, {T, B, D})
                        : k.tensor("kv", DType::bf16, {T, D});
    Tensor w = Batched ? k.tensor("weights", DType::f32, {S, B, H})
                       : k.tensor("weights", DType::f32, {S, H});
    Tensor idx = Batched ? k.tensor("indices", DType::i32, {B, S, K})
                         : k.tensor("indices", DType::i32, {S, K});
    Tensor g = Batched ? k.tensor("grad", DType::f32, {B, S, K})
                       : k.tensor("grad", DType::f32, {S, K});
    Tensor dq = Batched ? k.tensor("dq", DType::bf16, {S, B, H, D})
                        : k.tensor("dq", DType::bf16, {S, H, D});
    Tensor dw = Batched ? k.tensor("dweights", DType::f32, {S, B, H})
                        : k.tensor("dweights", DType::f32, {S, H});
    Tensor dkv = Batched ? k.tensor("dkv", DType::f32, {T, B, D})
                         : k.tensor("dkv", DType::f32, {T, D});
    k.threads(k.target().warpgroupThreads); // one warpgroup: the gemms' 64 rows
    if (int(blocksPerSM) > 1)
      k.minBlocksPerSM(blocksPerSM);
    if (int(producerRegisters))
      k.producerRegisters(producerRegisters);
    k.grid(S, Batched ? Arg(B) : Arg(1));
    Value s = k.blockId();
    Value b = Batched ? k.blockId(1) : Value();
    Tensor qs = Batched ? q.slice(1, b) : q, kvs = Batched ? kv.slice(1, b) : kv;
    Tensor ws = Batched ? w.slice(1, b) : w, is = Batched ? idx[b] : idx, gs = Batched ? g[b] : g;
    Tensor dqs = Batched ? dq.slice(1, b) : dq, dws = Batched ? dw.slice(1, b) : dw;
    Tensor dkvs = Batched ? dkv.slice(1, b) : dkv;

    // The query's heads [H, D] in panels of 64 columns (one 128-byte swizzle
    // span each: every gemm is then 64 wide, and each panel of dkv's tile
    // goes out before the next is computed), its head weights as a factor
    // of [H, BK].
    const int P = D / 64;
    std::vector<Shared> qt;
    for (int p = 0; p < P; ++p) {
      qt.push_back(k.shared(DType::bf16, {M, 64}));
      copy(qs, {s, 0, p * 64}, qt[p], {1, M, 64}); // heads past H: zeros
    }
    Value weights = broadcast(reshape(loadTile(ws, {s, 0}, {1, M}), {M}), {M, BK}, {0});
    // p^T [BK, M], the third gemm's A: the slots are its rows.
    Shared pt = k.shared(DType::bf16, {BK, M});

    std::vector<Value> init(P, broadcast(0.0, {M, 64}));
    init.push_back(broadcast(0.0, {M}));
    std::vector<Value> acc = k.pipelined(
        0, ceildiv(K, BK), std::vector<Arg>(init.begin(), init.end()),
        [&](Value j, std::vector<Value> carried) {
          Value j0 = j * BK;
          std::vector<Shared> kvt;
          for (int p = 0; p < P; ++p) {
            kvt.push_back(k.shared(DType::bf16, {BK, 64}));
            gather(kvs, {0, p * 64}, is, {s, j0}, kvt[p],
                   cpAsync ? GatherBy::cpAsync : GatherBy::tma);
          }
          Value scores; // [M, BK]
          for (int p = 0; p < P; ++p)
            scores = gemm(qt[p], kvt[p], /*transposeB=*/true, scores);
          // The gradient of each slot's score; 0 past K.
          Value grad = broadcast(reshape(loadTile(gs, {s, j0}, {1, BK}), {BK}), {M, BK}, {1});
          Value dw = carried[P] + reduceSum(max(scores, 0.0) * grad, 1);
          Value pb = cast(select(scores > 0.0, grad * weights, 0.0), DType::bf16);
          std::vector<Value> next;
          for (int p = 0; p < P; ++p)
            next.push_back(gemm(pb, kvt[p], /*transposeB=*/false, carried[p])); // dq [M, 64]
          storeTile(pt, {0, 0}, transpose(pb, {1, 0}));
          for (int p = 0; p < P; ++p)
            addRows(dkvs, {0, p * 64}, is, {s, j0}, gemm(pt, qt[p]));       // [BK, 64]
          next.push_back(dw);
          return next;
        },
        {.stages = stages});
    for (int p = 0; p < P; ++p)
      storeTile(dqs, {s, 0, p * 64}, reshape(cast(acc[p], DType::bf16), {1, M, 64}));
    storeTile(dws, {s, 0}, reshape(acc[P], {1, M}));
  }
};

using SingleIndexerBwd = IndexerBwd<false>;
using BatchedIndexerBwd = IndexerBwd<true>;

} // namespace

MINITILE_KERNEL(SingleIndexerBwd, "indexer_bwd",
                "dq, dweights and dkv (added into) of the lightning indexer's scores at the "
                "selected indices, given their gradient");
MINITILE_KERNEL(BatchedIndexerBwd, "batched_indexer_bwd",
                "indexer_bwd over a batch: q [S, B, H, D], kv [S_kv, B, D], indices [B, S, K]");
