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
// The math is apart from its schedule: itemLogits() is the formula for one work
// item (a block of queries); Schedule checks the parameters and derives from
// them and the target how the math runs (the parts, the warpgroups, the
// stages that fit, the loops' options); the rest brings each item's query
// tiles, bounds and weights to the math, and the items to the blocks.
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

  // The schedule, the kernel's arguments, and one work item as the math
  // reads it (below).
  struct Schedule;
  struct Args;
  struct Item;

  void generate(Kernel &k) override {
    const Schedule sched(*this, k.target());
    const Args args = declareArgs(k, sched);
    launchShape(k, sched);
    forEachItem(k, sched, args, [&](Value qb, Value b) {
      const Item it = item(k, sched, args, qb, b);
      itemLogits(k, sched, args, it);
    });
  }

  // The math: the formula at the top for one item's BQ queries. Each KV
  // tile (BK rows of the union of their windows) times each part's query
  // tile, one gemm a part ([BK, NP]); relu, the head weights and the sum
  // over the heads ([BK, QP]); each logit stored where its KV row is in its
  // query's window, -inf elsewhere (without clean, nothing there). Then
  // -inf in the rows outside the tiles.
  void itemLogits(Kernel &k, const Schedule &sched, const Args &args, const Item &it) const {
    const int H = sched.H, D = sched.D, BQ = sched.BQ, BK = sched.BK, P = sched.P,
              QP = sched.QP;
    k.pipelined(0, it.tiles, [&](Value i) {
      Value t0 = it.start + i * BK;
      Shared kt = k.shared(DType::bf16, {BK, D});
      copy(it.kv, {t0, 0}, kt);
      std::vector<Value> s;
      for (int p = 0; p < P; ++p)
        s.push_back(gemm(kt, it.qs[p], /*transposeB=*/true));                     // [BK, NP]
      Value t; // the tile's rows, made once (after the first part's head sum)
      for (int p = 0; p < P; ++p) {
        Value w = headWeights(sched, it, p);
        Value logit = reduceSum(reshape(max(s[p], 0.0) * w, {BK, QP, H}), 2); // [BK, QP]
        if (!t.valid())
          t = cast(t0, DType::i32) + iota({BK, QP}, 0);
        Value inWindow = t >= it.wks[p] && t < it.wke[p];
        if (clean)
          storeTile(it.out, {sched.partAt(it.q0, p), t0},
                    transpose(select(inWindow, logit, negInf()), {1, 0}));
        else
          storeTile(it.out, {sched.partAt(it.q0, p), t0}, transpose(logit, {1, 0}),
                    transpose(inWindow, {1, 0}));
      }
    }, sched.kvLoop);

    // Everything outside the tiles the loop wrote.
    if (clean) {
      Value end = min(it.start + it.tiles * BK, args.T);
      k.serial(0, BQ, [&](Value r) {
        k.if_(it.q0 + r < args.S, [&] {
          auto negInfs = [&](Value lo, Value hi) {
            if (sched.asyncFill)
              fillAsync(it.out[it.q0 + r], lo, hi, negInf());
            else
              fill(it.out[it.q0 + r], lo, hi, negInf());
          };
          negInfs(constant(0, DType::index), it.start);
          negInfs(end, args.T);
        });
      });
    }
  }

  // Part p's head weights as the factor of its gemm's [BK, NP]: held in
  // registers across the item, or (reload_weights) read from the item's
  // shared tile again.
  Value headWeights(const Schedule &sched, const Item &it, int p) const {
    return bool(reloadWeights)
               ? partWeights(sched, loadTile(*it.weightTile, {p * sched.QP, 0},
                                             {sched.QP, sched.H}))
               : it.weights[p];
  }

  // A part's weights [QP, H] as the factor of its gemm's [BK, NP].
  static Value partWeights(const Schedule &sched, Value w) {
    return broadcast(reshape(w, {sched.NP}), {sched.BK, sched.NP}, {1});
  }

  // The schedule: the parameters, checked for combinations that do not go
  // together, and what they and the target make of the math's shape -- the
  // queries a block takes and their parts, the compute warpgroups, the KV
  // stages that fit in shared memory, how the -inf fill goes out, and the
  // options of the KV loop and of the persistent walk over the items.
  struct Schedule {
    // H heads of D; BQ queries a block, N = BQ * H (query, head) columns;
    // KV tiles of BK rows.
    int H, D, BQ, N, BK = 64;
    // The queries in P parts of QP (split: split_queries a part, else one
    // part), each its own shared tile of QP * H rows and its own gemm.
    int P = 1, QP = 1, NP = 1;
    int G = 1;              // compute warpgroups
    int blocksPerSM = 1;    // blocks a multiprocessor holds
    int stages = 1;         // KV tiles in flight
    bool asyncFill = false; // the -inf fill by the producer's bulk copies
    PipelinedOptions kvLoop;
    PersistentOptions items;

    Schedule(const IndexerFwd &g, const Target &target)
        : H(g.heads), D(g.dim), BQ(g.queries ? int(g.queries) : std::max(1, 128 / H)),
          N(BQ * H) {
      checkParameters(g); // (first: split_queries then divides BQ)
      P = g.split ? BQ / int(g.splitQueries) : 1;
      QP = BQ / P;
      NP = QP * H;
      G = g.groups ? int(g.groups) : (H >= 32 && N <= 128 ? 3 : 2);
      checkShape(g);
      blocksPerSM = g.blocksPerSM;
      fitSharedMemory(g, target);
      kvLoop = {.stages = stages, .groups = G, .overlap = g.overlap,
                .continuous = bool(g.persistent) && bool(g.continuous),
                .cooperative = g.cooperative};
      items = {.blocksPerSM = blocksPerSM,
               .order = g.zigzag      ? WorkOrder::zigzag
                        : g.lastFirst ? WorkOrder::lastFirst
                                      : WorkOrder::linear,
               .prefetch = true,
               .itemBuffers = g.itemBuffers,
               .dynamic = g.dynamic};
    }

    // Part p's first query (as q0 or `at` plus p * QP).
    Value partAt(Value first, int p) const { return p ? first + p * QP : first; }

    // The parameters that do not go together.
    void checkParameters(const IndexerFwd &g) const {
      if (bool(g.reloadWeights) && !bool(g.persistent))
        throw Error(SourceLoc::current(),
                    "reload_weights=true reads the weights from the shared tile a persistent "
                    "kernel keeps each item's in: give persistent=true too");
      if (bool(g.reloadWeights) && bool(g.continuous))
        throw Error(SourceLoc::current(),
                    "reload_weights=true and continuous=true do not go together: a continuous "
                    "stream crosses items mid-round and switches the weights it holds in "
                    "registers there; choose one");
      if (bool(g.continuous) && !bool(g.persistent))
        throw Error(SourceLoc::current(),
                    "continuous=true runs a persistent kernel's KV tiles as one stream across "
                    "its items: give persistent=true too");
      if (bool(g.dynamic) && !bool(g.persistent))
        throw Error(SourceLoc::current(),
                    "dynamic=true hands a persistent kernel's query blocks out at run time: "
                    "give persistent=true too");
      if (bool(g.batchMajor) && !(Batched && bool(g.persistent)))
        throw Error(SourceLoc::current(),
                    "batch_major=true orders a persistent batched kernel's items: it takes "
                    "batched_indexer_fwd with persistent=true");
      if (bool(g.dynamic) && bool(g.zigzag))
        throw Error(SourceLoc::current(),
                    "dynamic=true and zigzag=true do not go together: zigzag deals the query "
                    "blocks out in advance; take dynamic with last_first");
      if (int(g.splitQueries) > 1 && !bool(g.split))
        throw Error(SourceLoc::current(),
                    "split_queries=" + std::to_string(int(g.splitQueries)) +
                        " sizes the parts of a split tile: give split=true too");
      if (bool(g.split) && BQ % int(g.splitQueries) != 0)
        throw Error(SourceLoc::current(),
                    "split_queries=" + std::to_string(int(g.splitQueries)) +
                        " does not divide the " + std::to_string(BQ) +
                        " queries of a block (queries=" + std::to_string(BQ) + ")");
      if (bool(g.cooperative) && !bool(g.split))
        throw Error(SourceLoc::current(),
                    "cooperative=true deals a split tile's parts out to the warpgroups: give "
                    "split=true too");
    }

    // The gemm's columns, and a cooperative loop's parts a group.
    void checkShape(const IndexerFwd &g) const {
      if (N > 256)
        throw Error(SourceLoc::current(), "queries=" + std::to_string(BQ) + " with heads=" +
                                              std::to_string(H) + " makes " +
                                              std::to_string(N) +
                                              " columns; a gemm takes at most 256");
      if (bool(g.cooperative) && P % G)
        throw Error(SourceLoc::current(),
                    "cooperative=true deals the " + std::to_string(P) +
                        " parts of a split tile out to " + std::to_string(G) +
                        " warpgroups: make the parts (queries / split_queries) a multiple of "
                        "the warpgroups");
    }

    // Stages: a multiple of G (each stage then feeds one warpgroup), as many
    // as asked for and the target's shared memory holds beside the query tile
    // (keeping 8 KiB for barriers and the passes' scratch). The -inf outside
    // the windows goes out asynchronously (the producer's bulk copies) where
    // its tile of -inf fits beside them too, else the compute threads store it.
    // (A persistent kernel holds item_buffers of each item's tiles, this
    // item's and the next ones': queries, weights and bounds, the small ones
    // 128-byte aligned.)
    void fitSharedMemory(const IndexerFwd &g, const Target &target) {
      auto align = [](int64_t bytes) { return (bytes + 127) / 128 * 128; };
      const int64_t tileBytes = int64_t(BK) * D * 2,
                    itemBytes = int64_t(N) * D * 2 + align(int64_t(N) * 4) +
                                2 * align(int64_t(std::max(BQ, 4)) * 4),
                    queryBytes =
                        g.persistent ? g.itemBuffers * itemBytes : int64_t(N) * D * 2;
      // (With blocks_per_sm blocks on a multiprocessor, each takes its share
      // of its shared memory.)
      const int64_t perBlock = target.sharedMemoryPerBlockAt(blocksPerSM);
      const int64_t budget = perBlock - 8 * 1024;
      auto fits = [&](int st) { return queryBytes + st * tileBytes <= budget; };
      // (A cooperative loop's stages feed every group: any number.)
      const int unit = g.cooperative ? 1 : G;
      int st = (int(g.stages) + unit - 1) / unit * unit;
      while (st > unit && !fits(st))
        st -= unit;
      stages = st;
      asyncFill = queryBytes + st * tileBytes + kFillAsyncSharedBytes <= budget;
    }
  };

  // The kernel's sizes and tensors (batched: a batch index in each tensor
  // but the bounds).
  struct Args {
    Value S, T, B;
    Tensor q, kv, w, ks, ke, logits;
  };

  Args declareArgs(Kernel &k, const Schedule &sched) const {
    const int H = sched.H, D = sched.D;
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
    return {S, T, B, q, kv, w, ks, ke, logits};
  }

  // The block: G compute warpgroups (the producer's warps come on top),
  // and the blocks a multiprocessor holds.
  void launchShape(Kernel &k, const Schedule &sched) const {
    k.threads(k.target().warpgroupThreads * sched.G);
    if (int(producerRegisters))
      k.producerRegisters(producerRegisters);
    if (sched.blocksPerSM > 1)
      k.minBlocksPerSM(sched.blocksPerSM);
  }

  // The work items, query block qb of batch b, each to work(qb, b): a block
  // an item, or (persistent) the items shared out to the blocks there are.
  void forEachItem(Kernel &k, const Schedule &sched, const Args &args,
                   const std::function<void(Value, Value)> &work) const {
    const Value S = args.S, B = args.B;
    Value blocks = ceildiv(S, sched.BQ);
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
      }, sched.items);
    } else {
      k.grid(blocks, Batched ? Arg(B) : Arg(1));
      work(lastFirst ? k.gridDim() - 1 - k.blockId() : k.blockId(),
           Batched ? k.blockId(1) : Value());
    }
  }

  // One work item, query block qb of batch b, as the math reads it.
  struct Item {
    Tensor q, kv, w, out;   // batch b's
    Value q0;               // the block's first query
    std::vector<Shared> qs; // part p's queries, [NP, D]
    // Part p's head weights ([BK, NP]; not with reload_weights) and its
    // queries' window bounds ([BK, QP]), broadcast over a KV tile's rows.
    std::vector<Value> weights, wks, wke;
    std::optional<Shared> weightTile; // persistent: the item's weights
    // The KV rows of the union of the queries' windows: `tiles` tiles of
    // BK from `start`.
    Value start, tiles;
  };

  // Where query r's window starts and ends (r < BQ).
  struct Bounds {
    std::function<Value(int)> first, last;
  };

  // The work of query block qb of batch b up to the math: its query tiles,
  // its queries' bounds and weights, the union of their windows.
  Item item(Kernel &k, const Schedule &sched, const Args &args, Value qb, Value b) const {
    const int H = sched.H, D = sched.D, BK = sched.BK, P = sched.P, QP = sched.QP;
    Item it;
    it.q = Batched ? args.q.slice(1, b) : args.q;
    it.kv = Batched ? args.kv.slice(1, b) : args.kv;
    it.w = Batched ? args.w.slice(1, b) : args.w;
    it.out = Batched ? args.logits[b] : args.logits;
    it.q0 = qb * sched.BQ;
    for (int p = 0; p < P; ++p)
      it.qs.push_back(k.shared(DType::bf16, {sched.NP, D}));
    it.weights.resize(P);
    it.wks.resize(P);
    it.wke.resize(P);

    // Each query's window bounds and head weights: from global memory,
    // or -- persistent -- from shared tiles the producer fills with the
    // query tile, an item ahead.
    Bounds bounds;
    if (persistent) {
      bounds = sharedBounds(k, sched, args, it);
    } else {
      // A query past S reads the last one's bounds, already in the union.
      bounds.first = [&](int r) { return Value(args.ks(min(it.q0 + r, args.S - 1))); };
      bounds.last = [&](int r) { return Value(args.ke(min(it.q0 + r, args.S - 1))); };
    }
    windowUnion(sched, args, bounds, it);

    if (!bool(persistent)) {
      // The bounds' loads are in flight while the query tile comes.
      for (int p = 0; p < P; ++p) {
        copy(it.q, {sched.partAt(it.q0, p), 0, 0}, it.qs[p], {QP, H, D});
        it.weights[p] = loadTile(it.w, {sched.partAt(it.q0, p), 0}, {QP, H});
        it.wks[p] = loadTile(args.ks, {sched.partAt(it.q0, p)}, {QP});
        it.wke[p] = loadTile(args.ke, {sched.partAt(it.q0, p)}, {QP});
      }
    }
    // Each part's weights and bounds over a KV tile's rows.
    for (int p = 0; p < P; ++p) {
      if (!bool(reloadWeights))
        it.weights[p] = partWeights(sched, it.weights[p]);
      it.wks[p] = broadcast(it.wks[p], {BK, QP}, {1});
      it.wke[p] = broadcast(it.wke[p], {BK, QP}, {1});
    }
    return it;
  }

  // Persistent: the item's bounds, weights and queries in shared tiles. A
  // copy of bounds moves 16 bytes at least and starts on a 16-byte boundary
  // of the tensor (TMA), so it takes the NB-aligned box holding the block's
  // queries; queries past S read as empty windows, [0, 0).
  Bounds sharedBounds(Kernel &k, const Schedule &sched, const Args &args, Item &it) const {
    const int H = sched.H, D = sched.D, BQ = sched.BQ, P = sched.P, QP = sched.QP;
    const int NB = std::max(BQ, 4);
    // NB is a power of two and q0 never negative: q0 / NB * NB as a mask.
    Value b0 = it.q0 & constant(~int64_t(NB - 1), DType::index), at = it.q0 - b0;
    Shared kss = k.shared(DType::i32, {NB}), kes = k.shared(DType::i32, {NB});
    Shared ws = k.shared(DType::f32, {BQ, H});
    it.weightTile = ws;
    // The bounds and weights first: they land on a barrier of their own
    // (tile-warp-specialize), so the KV tiles go out once the bounds
    // are in, while the query tile still comes.
    copy(args.ks, {b0}, kss);
    copy(args.ke, {b0}, kes);
    copy(it.w, {it.q0, 0}, ws);
    for (int p = 0; p < P; ++p)
      copy(it.q, {sched.partAt(it.q0, p), 0, 0}, it.qs[p], {QP, H, D});
    for (int p = 0; p < P; ++p) {
      if (!bool(reloadWeights))
        it.weights[p] = loadTile(ws, {p * QP, 0}, {QP, H});
      it.wks[p] = loadTile(kss, {sched.partAt(at, p)}, {QP});
      it.wke[p] = loadTile(kes, {sched.partAt(at, p)}, {QP});
    }
    return {[=](int r) { return Value(kss(at + r)); }, [=](int r) { return Value(kes(at + r)); }};
  }

  // The union of the queries' windows, clamped to [0, S_kv]; every
  // query's bounds read at once (one memory latency, not BQ in turn).
  // In 32 bits, as the bounds are (S_kv < 2^31: i32 windows index it).
  static void windowUnion(const Schedule &sched, const Args &args, const Bounds &bounds,
                          Item &it) {
    Value T32 = cast(args.T, DType::i32);
    Value lo = T32, hi = constant(0, DType::i32);
    for (int r = 0; r < sched.BQ; ++r) {
      Value a = clamp(bounds.first(r), 0, T32), e = clamp(bounds.last(r), a, T32);
      lo = select(a < e, min(lo, a), lo);
      hi = select(a < e, max(hi, e), hi);
    }
    it.start = cast(min(lo, hi), DType::index);
    it.tiles = cast(ceildiv(max(hi - lo, 0), sched.BK), DType::index);
  }
};

using SingleIndexerFwd = IndexerFwd<false>;
using BatchedIndexerFwd = IndexerFwd<true>;

} // namespace

MINITILE_KERNEL(SingleIndexerFwd, "indexer_fwd",
                "logits[s, t] = sum_h relu(q[s,h] . kv[t]) * weights[s, h] in [ks[s], ke[s]), else -inf");
MINITILE_KERNEL(BatchedIndexerFwd, "batched_indexer_fwd",
                "indexer_fwd over B batches: q [S, B, H, D], kv [S_kv, B, D], weights [S, B, H] -> logits [B, S, S_kv]");
