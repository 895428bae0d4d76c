//===- indexer_fwd.cpp - the DeepSeek-V4 lightning indexer, forward -------===//
//
//   logits[s, t] = sum_h relu(q[s, h, :] . kv[t, :]) * weights[s, h]
//                                         for ks[s] <= t < ke[s], else -inf
//
// A block takes BQ = 128 / H queries (N = BQ * H (query, head) columns) and
// walks the KV rows of the union of their windows in tiles of 64: each tile
// is one 64 x N x D gemm with the KV rows on M, then relu, the weights, and
// the head sum -- in registers and two quad shuffles. Tiles alternate
// between the compute warpgroups; a producer warpgroup keeps `stages` tiles
// in flight. With `split`, each query's H columns are a gemm of their own,
// all issued before the first query's epilogue, which then runs under the
// next query's gemm. batched_indexer_fwd adds a batch index to every tensor.
//
//===----------------------------------------------------------------------===//
#include "minitile/dsl.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <vector>

namespace {

using namespace minitile;

template <bool Batched> struct IndexerFwd : Generator {
  Param<int> heads{"heads", 64, {8, 16, 32, 64, 128}, "H, heads per query"};
  Param<int> dim{"dim", 128, {64, 128, 256}, "D, the head dimension"};
  Param<int> stages{"stages", 4, 2, 12,
                    "KV tiles in flight (rounded to a multiple of the warpgroups that "
                    "fits in shared memory)"};
  Param<int> groups{"warpgroups", 0, 0, 4,
                    "compute warpgroups, KV tiles alternating between them (0: 3 for H >= 32 "
                    "and at most 128 columns, else 2, the most that keep their registers)"};
  Param<int> queries{"queries", 0, {0, 1, 2, 4, 8, 16, 32},
                     "BQ, queries a block takes: BQ * H (query, head) columns of each KV "
                     "tile's gemm, at most 256 (0: 128 / H)"};
  Param<bool> clean{"clean", true, "write -inf outside the windows (else only the windows)"};
  Param<bool> lastFirst{"last_first", false,
                        "the query blocks are taken last first: with causal windows, the "
                        "longest first, so short blocks fill the tail"};
  Param<bool> persistent{"persistent", false,
                         "one block per multiprocessor walking the query blocks, last "
                         "first; the KV ring runs on from one to the next and the "
                         "producer fetches the next block's queries ahead"};

  Param<bool> zigzag{"zigzag", false,
                     "persistent: the longest query blocks first, every second round "
                     "of the grid reversed, so each block's share of causal windows is "
                     "near the mean (with last_first block 0 takes each round's longest); "
                     "wins over last_first"};

  Param<bool> overlap{"overlap", false,
                      "each warpgroup starts its next KV tile's gemm before this tile's "
                      "relu, weights and head sum, which then run under it (two 64 x N "
                      "accumulators a thread: for warpgroups=2)"};

  Param<bool> continuous{"continuous", false,
                         "persistent, with overlap: each warpgroup's KV tiles of one item "
                         "and the next form one stream, its gemms running on across the "
                         "items' ends (the weights and bounds switched where they cross) "
                         "instead of draining at each; two to four stages a warpgroup "
                         "(on an H200, 2026-12-04: 4-9 % faster with one warpgroup, "
                         "12-20 % slower with two)"};

  Param<int> blocksPerSM{"blocks_per_sm", 1, 1, 4,
                         "blocks a multiprocessor holds at once (persistent: the grid is "
                         "that many times the multiprocessors), each with its share of the "
                         "shared memory and registers, so that one block's start and end, "
                         "or its items' (persistent), run beside the others' tiles"};

  Param<int> itemBuffers{"item_buffers", 2, 2, 3,
                         "persistent: buffers of each item's query tile, weights and bounds, "
                         "which a producer warp of their own fetches (with the -inf fill) as "
                         "they free; 3 keeps it two items ahead (more shared memory: 6 KV "
                         "stages, not 9)"};

  Param<bool> split{"split", false,
                    "one gemm a query (N = H each), all issued before the first query's "
                    "relu, weights and head sum, which then run while the tensor cores do "
                    "the next query's: each warpgroup overlaps its own tile's gemm without "
                    "a second accumulator; with overlap, each query's gemm of the next tile "
                    "also starts before this tile's code of the query after it, so one "
                    "query's gemm is in flight with one accumulator's registers (three "
                    "groups)"};

  Param<int> splitQueries{"split_queries", 1, {1, 2, 4, 8, 16},
                          "split: queries a part (a gemm of split_queries * H columns each); "
                          "with queries=4 and 2, an item of four queries as two gemms of "
                          "today's width, so half the items (and their starts and ends) for "
                          "the same tiles"};

  Param<bool> cooperative{"cooperative", false,
                          "split: every warpgroup takes every KV tile, each its share of the "
                          "parts (queries=4 split_queries=2 warpgroups=2: a part a group), "
                          "rather than the groups taking the tiles in turn: one KV stage feeds "
                          "every group, and each holds only its parts' weights"};

  Param<bool> dynamic{"dynamic", false,
                      "persistent: each block takes its next query block when its producer "
                      "has a buffer for it, from a counter all blocks share (longest first "
                      "with last_first), rather than by a fixed order: no block waits at the "
                      "end for one that drew longer items or ran slower"};

  Param<bool> reloadWeights{"reload_weights", false,
                            "persistent: each tile reads its queries' head weights from the "
                            "item's shared tile again rather than holding them in registers "
                            "across the item (16 a thread a query: what lets queries=4 with "
                            "split and overlap fit two groups' registers; more instructions)"};

  Param<bool> batchMajor{"batch_major", false,
                         "batched and persistent: the items batch by batch (each batch's "
                         "query blocks in the kernel's order, as B launches of the single "
                         "kernel take them, without the launches' gaps), rather than each "
                         "query block's B batches one after another"};

  Param<int> producerRegisters{"producer_registers", 0, {0, 24, 32, 40, 48, 56, 64},
                               "registers each producer warp keeps (setmaxnreg; 0: the "
                               "compiler's, 40); the compute warpgroups get what that leaves: "
                               "24 gives two groups 240 instead of 232, for kernels whose "
                               "compute threads spill at 232"};

  void generate(Kernel &k) override {
    const int H = heads, D = dim, BQ = queries ? int(queries) : std::max(1, 128 / H),
              N = BQ * H, BK = 64;
    if (bool(reloadWeights) && !bool(persistent))
      throw Error(SourceLoc::current(),
                  "reload_weights=true reads the weights from the shared tile a persistent "
                  "kernel keeps each item's in: give persistent=true too");
    if (bool(reloadWeights) && bool(continuous))
      throw Error(SourceLoc::current(),
                  "reload_weights=true and continuous=true do not go together: a continuous "
                  "stream crosses items mid-round and switches the weights it holds in "
                  "registers there; choose one");
    if (bool(continuous) && !bool(persistent))
      throw Error(SourceLoc::current(),
                  "continuous=true runs a persistent kernel's KV tiles as one stream across "
                  "its items: give persistent=true too");
    if (bool(dynamic) && !bool(persistent))
      throw Error(SourceLoc::current(),
                  "dynamic=true hands a persistent kernel's query blocks out at run time: "
                  "give persistent=true too");
    if (bool(batchMajor) && !(Batched && bool(persistent)))
      throw Error(SourceLoc::current(),
                  "batch_major=true orders a persistent batched kernel's items: it takes "
                  "batched_indexer_fwd with persistent=true");
    if (bool(dynamic) && bool(zigzag))
      throw Error(SourceLoc::current(),
                  "dynamic=true and zigzag=true do not go together: zigzag deals the query "
                  "blocks out in advance; take dynamic with last_first");
    if (int(splitQueries) > 1 && !bool(split))
      throw Error(SourceLoc::current(),
                  "split_queries=" + std::to_string(int(splitQueries)) +
                      " sizes the parts of a split tile: give split=true too");
    if (bool(split) && BQ % int(splitQueries) != 0)
      throw Error(SourceLoc::current(),
                  "split_queries=" + std::to_string(int(splitQueries)) + " does not divide the " +
                      std::to_string(BQ) + " queries of a block (queries=" +
                      std::to_string(BQ) + ")");
    // The queries in P parts of QP (split: split_queries a part, else one
    // part), each its own shared tile of QP * H rows and its own gemm.
    const int P = split ? BQ / int(splitQueries) : 1, QP = BQ / P, NP = QP * H;
    if (bool(cooperative) && !bool(split))
      throw Error(SourceLoc::current(),
                  "cooperative=true deals a split tile's parts out to the warpgroups: give "
                  "split=true too");
    if (N > 256)
      throw Error(SourceLoc::current(), "queries=" + std::to_string(BQ) + " with heads=" +
                                            std::to_string(H) + " makes " + std::to_string(N) +
                                            " columns; a gemm takes at most 256");
    // Stages: a multiple of G (each stage then feeds one warpgroup), as many
    // as asked for and the target's shared memory holds beside the query tile
    // (keeping 8 KiB for barriers and the passes' scratch). The -inf outside
    // the windows goes out asynchronously (the producer's bulk copies) where
    // its tile of -inf fits beside them too, else the compute threads store it.
    // (A persistent kernel holds item_buffers of each item's tiles, this
    // item's and the next ones': queries, weights and bounds, the small ones
    // 128-byte aligned.)
    auto align = [](int64_t bytes) { return (bytes + 127) / 128 * 128; };
    const int64_t tileBytes = int64_t(BK) * D * 2,
                  itemBytes = int64_t(N) * D * 2 + align(int64_t(N) * 4) +
                              2 * align(int64_t(std::max(BQ, 4)) * 4),
                  queryBytes = persistent ? itemBuffers * itemBytes : int64_t(N) * D * 2;
    // (With blocks_per_sm blocks on a multiprocessor, each takes its share
    // of its shared memory.)
    const int nBlocks = blocksPerSM;
    const int64_t perBlock = k.target().sharedMemoryPerBlockAt(nBlocks);
    const int64_t budget = perBlock - 8 * 1024;
    auto fits = [&](int st) { return queryBytes + st * tileBytes <= budget; };
    const int G = groups ? int(groups) : (H >= 32 && N <= 128 ? 3 : 2);
    // (A cooperative loop's stages feed every group: any number.)
    const int unit = cooperative ? 1 : G;
    int st = (int(stages) + unit - 1) / unit * unit;
    while (st > unit && !fits(st))
      st -= unit;
    if (bool(cooperative) && P % G)
      throw Error(SourceLoc::current(),
                  "cooperative=true deals the " + std::to_string(P) +
                      " parts of a split tile out to " + std::to_string(G) +
                      " warpgroups: make the parts (queries / split_queries) a multiple of "
                      "the warpgroups");
    const bool asyncFill = queryBytes + st * tileBytes + kFillAsyncSharedBytes <= budget;
    Value S = k.size("S"), T = k.size("S_kv");
    Value B = Batched ? k.size("B") : Value();
    Tensor q = Batched ? k.tensor("q", DType::bf16, {S, B, H, D})
                       : k.tensor("q", DType::bf16, {S, H, D});
    Tensor kv = Batched ? k.tensor("kv", DType::bf16, {T, B, D})
                        : k.tensor("kv", DType::bf16, {T, D});
    Tensor w = Batched ? k.tensor("weights", DType::f32, {S, B, H})
                       : k.tensor("weights", DType::f32, {S, H});
    Tensor ks = k.tensor("ks", DType::i32, {S}), ke = k.tensor("ke", DType::i32, {S});
    Tensor logits = Batched ? k.tensor("logits", DType::f32, {B, S, T})
                            : k.tensor("logits", DType::f32, {S, T});
    k.threads(k.target().warpgroupThreads * G);
    if (int(producerRegisters))
      k.producerRegisters(producerRegisters);
    if (nBlocks > 1)
      k.minBlocksPerSM(nBlocks);

    // The work of query block qb of batch b.
    auto work = [&](Value qb, Value b) {
      Tensor qbat = Batched ? q.slice(1, b) : q, kvb = Batched ? kv.slice(1, b) : kv;
      Tensor wb = Batched ? w.slice(1, b) : w, out = Batched ? logits[b] : logits;
      Value q0 = qb * BQ;

      // Each query's window bounds and head weights: from global memory,
      // or -- persistent -- from shared tiles the producer fills with the
      // query tile, an item ahead. A copy of bounds moves 16 bytes at least
      // and starts on a 16-byte boundary of the tensor (TMA), so it takes
      // the NB-aligned box holding the block's queries; queries past S read
      // as empty windows, [0, 0).
      // Part p's first query (as q0 or `at` plus p * QP).
      auto partAt = [&](Value first, int p) { return p ? first + p * QP : first; };
      std::vector<Shared> qs;
      for (int p = 0; p < P; ++p)
        qs.push_back(k.shared(DType::bf16, {NP, D}));
      std::function<Value(int)> first, last;
      std::vector<Value> weights(P), wks(P), wke(P);
      std::optional<Shared> weightTile; // persistent: the item's weights
      if (persistent) {
        const int NB = std::max(BQ, 4);
        // NB is a power of two and q0 never negative: q0 / NB * NB as a mask.
        Value b0 = q0 & constant(~int64_t(NB - 1), DType::index), at = q0 - b0;
        Shared kss = k.shared(DType::i32, {NB}), kes = k.shared(DType::i32, {NB});
        Shared ws = k.shared(DType::f32, {BQ, H});
        weightTile = ws;
        // The bounds and weights first: they land on a barrier of their own
        // (tile-warp-specialize), so the KV tiles go out once the bounds
        // are in, while the query tile still comes.
        copy(ks, {b0}, kss);
        copy(ke, {b0}, kes);
        copy(wb, {q0, 0}, ws);
        for (int p = 0; p < P; ++p)
          copy(qbat, {partAt(q0, p), 0, 0}, qs[p], {QP, H, D});
        first = [=](int r) { return Value(kss(at + r)); };
        last = [=](int r) { return Value(kes(at + r)); };
        for (int p = 0; p < P; ++p) {
          if (!bool(reloadWeights))
            weights[p] = loadTile(ws, {p * QP, 0}, {QP, H});
          wks[p] = loadTile(kss, {partAt(at, p)}, {QP});
          wke[p] = loadTile(kes, {partAt(at, p)}, {QP});
        }
      } else {
        // A query past S reads the last one's bounds, already in the union.
        first = [&](int r) { return Value(ks(min(q0 + r, S - 1))); };
        last = [&](int r) { return Value(ke(min(q0 + r, S - 1))); };
      }

      // The union of the queries' windows, clamped to [0, S_kv]; every
      // query's bounds read at once (one memory latency, not BQ in turn).
      // In 32 bits, as the bounds are (S_kv < 2^31: i32 windows index it).
      Value T32 = cast(T, DType::i32);
      Value lo = T32, hi = constant(0, DType::i32);
      for (int r = 0; r < BQ; ++r) {
        Value a = clamp(first(r), 0, T32), e = clamp(last(r), a, T32);
        lo = select(a < e, min(lo, a), lo);
        hi = select(a < e, max(hi, e), hi);
      }
      Value start = cast(min(lo, hi), DType::index),
            tiles = cast(ceildiv(max(hi - lo, 0), BK), DType::index);

      if (!bool(persistent)) {
        // The bounds' loads are in flight while the query tile comes.
        for (int p = 0; p < P; ++p) {
          copy(qbat, {partAt(q0, p), 0, 0}, qs[p], {QP, H, D});
          weights[p] = loadTile(wb, {partAt(q0, p), 0}, {QP, H});
          wks[p] = loadTile(ks, {partAt(q0, p)}, {QP});
          wke[p] = loadTile(ke, {partAt(q0, p)}, {QP});
        }
      }
      // A part's weights [QP, H] as the factor of its gemm's [BK, NP].
      auto partWeights = [&](Value w) { return broadcast(reshape(w, {NP}), {BK, NP}, {1}); };
      for (int p = 0; p < P; ++p) {
        if (!bool(reloadWeights))
          weights[p] = partWeights(weights[p]);
        wks[p] = broadcast(wks[p], {BK, QP}, {1});
        wke[p] = broadcast(wke[p], {BK, QP}, {1});
      }

      k.pipelined(0, tiles, [&](Value i) {
        Value t0 = start + i * BK;
        Shared kt = k.shared(DType::bf16, {BK, D});
        copy(kvb, {t0, 0}, kt);
        std::vector<Value> s;
        for (int p = 0; p < P; ++p)
          s.push_back(gemm(kt, qs[p], /*transposeB=*/true));                     // [BK, NP]
        Value t; // the tile's rows, made once (after the first part's head sum)
        for (int p = 0; p < P; ++p) {
          Value w = bool(reloadWeights)
                        ? partWeights(loadTile(*weightTile, {p * QP, 0}, {QP, H}))
                        : weights[p];
          Value logit = reduceSum(reshape(max(s[p], 0.0) * w, {BK, QP, H}), 2); // [BK, QP]
          if (!t.valid())
            t = cast(t0, DType::i32) + iota({BK, QP}, 0);
          Value inWindow = t >= wks[p] && t < wke[p];
          if (clean)
            storeTile(out, {partAt(q0, p), t0}, transpose(select(inWindow, logit, negInf()), {1, 0}));
          else
            storeTile(out, {partAt(q0, p), t0}, transpose(logit, {1, 0}),
                      transpose(inWindow, {1, 0}));
        }
      }, {.stages = st, .groups = G, .overlap = overlap,
          .continuous = bool(persistent) && bool(continuous), .cooperative = cooperative});

      // Everything outside the tiles the loop wrote.
      if (clean) {
        Value end = min(start + tiles * BK, T);
        k.serial(0, BQ, [&](Value r) {
          k.if_(q0 + r < S, [&] {
            auto negInfs = [&](Value lo, Value hi) {
              if (asyncFill)
                fillAsync(out[q0 + r], lo, hi, negInf());
              else
                fill(out[q0 + r], lo, hi, negInf());
            };
            negInfs(constant(0, DType::index), start);
            negInfs(end, T);
          });
        });
      }
    };

    Value blocks = ceildiv(S, BQ);
    if (persistent) {
      // Item i: query block i / B of batch i % B (batch-major: block i %
      // blocks of batch i / blocks). The producer fetches the next item's
      // query tile while this one's KV tiles are computed.
      k.persistent(Batched ? blocks * B : blocks, [&](Value item) {
        if (!Batched)
          work(item, Value());
        else if (batchMajor)
          work(item % blocks, item / blocks);
        else
          work(item / B, item % B);
      }, {.blocksPerSM = nBlocks,
          .order = zigzag      ? WorkOrder::zigzag
                   : lastFirst ? WorkOrder::lastFirst
                               : WorkOrder::linear,
          .prefetch = true,
          .itemBuffers = itemBuffers,
          .dynamic = dynamic});
    } else {
      k.grid(blocks, Batched ? Arg(B) : Arg(1));
      work(lastFirst ? k.gridDim() - 1 - k.blockId() : k.blockId(),
           Batched ? k.blockId(1) : Value());
    }
  }
};

using SingleIndexerFwd = IndexerFwd<false>;
using BatchedIndexerFwd = IndexerFwd<true>;

} // namespace

MINITILE_KERNEL(SingleIndexerFwd, "indexer_fwd",
                "logits[s, t] = sum_h relu(q[s,h] . kv[t]) * weights[s, h] in [ks[s], ke[s]), else -inf");
MINITILE_KERNEL(BatchedIndexerFwd, "batched_indexer_fwd",
                "indexer_fwd over B batches: q [S, B, H, D], kv [S_kv, B, D], weights [S, B, H] -> logits [B, S, S_kv]");
