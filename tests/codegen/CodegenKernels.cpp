//===- CodegenKernels.cpp - small kernels whose PTX the lit tests read ----===//
//
// Each kernel exercises one thing the fragment lowering promises; the lit
// tests (tests/lit/codegen/) compile them with `minitile-codegen-kernels`
// and check the PTX.
//
//===----------------------------------------------------------------------===//
#include "minitile/dsl.h"

#include <vector>

namespace {

using namespace minitile;

/// y = min(max(x, 0), c) on a 64 x 64 fragment: max.f32 / min.f32, no
/// compare and select. With bf16, x and y hold bf16 (computed in f32).
struct MinMax : Generator {
  Param<bool> bf16{"bf16", false, "x and y hold bf16"};
  void generate(Kernel &k) override {
    DType t = bf16 ? DType::bf16 : DType::f32;
    Value n = k.size("n");
    Tensor x = k.tensor("x", t, {n, 64}), y = k.tensor("y", t, {n, 64});
    Value c = k.scalar("c", DType::f32);
    k.threads(128);
    k.grid(ceildiv(n, 64));
    Value r0 = k.blockId() * 64;
    Value v = cast(loadTile(x, {r0, 0}, {64, 64}), DType::f32);
    storeTile(y, {r0, 0}, cast(min(max(v, 0.0), c), t));
  }
};

/// y = minNum(maxNum(x, 0), c) on a 64 x 64 fragment, and z =
/// maxNum(x, -inf) per thread on scalars: max.f32 / min.f32 (NaN dropped),
/// no compare and select.
struct MinMaxNum : Generator {
  void generate(Kernel &k) override {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n, 64}), y = k.tensor("y", DType::f32, {n, 64});
    Tensor z = k.tensor("z", DType::f32, {n, 64});
    Value c = k.scalar("c", DType::f32);
    k.threads(128);
    k.grid(ceildiv(n, 64));
    Value r0 = k.blockId() * 64;
    storeTile(y, {r0, 0}, minNum(maxNum(loadTile(x, {r0, 0}, {64, 64}), 0.0), c));
    k.serial(0, 32, [&](Value i) {
      Value e = k.threadId() * 32 + i, r = r0 + e / 64;
      k.if_(r < n, [&] { z(r, e % 64) = maxNum(x(r, e % 64), negInf()); });
    });
  }
};

/// d = a * b + c elementwise: fma.rn.f32 by default, separately rounded
/// mul.rn / add.rn with contract=false.
struct MulAdd : Generator {
  Param<bool> contract{"contract", true, "Kernel::contractFloats"};
  void generate(Kernel &k) override {
    k.contractFloats(contract);
    Value n = k.size("n");
    Tensor a = k.tensor("a", DType::f32, {n, 64}), b = k.tensor("b", DType::f32, {n, 64});
    Tensor c = k.tensor("c", DType::f32, {n, 64}), d = k.tensor("d", DType::f32, {n, 64});
    k.threads(128);
    k.grid(ceildiv(n, 64));
    Value r0 = k.blockId() * 64;
    Value prod = loadTile(a, {r0, 0}, {64, 64}) * loadTile(b, {r0, 0}, {64, 64});
    storeTile(d, {r0, 0}, prod + loadTile(c, {r0, 0}, {64, 64}));
  }
};

/// out[r] = sum_j max(x[r, j], 0) * w[j]: the sum accumulates in place,
/// acc = fma(max(x, 0), w, acc), with no product fragment.
struct ReluDot : Generator {
  void generate(Kernel &k) override {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::f32, {n, 64}), w = k.tensor("w", DType::f32, {64});
    Tensor out = k.tensor("out", DType::f32, {n});
    k.threads(128);
    k.grid(ceildiv(n, 64));
    Value r0 = k.blockId() * 64;
    Value wt = broadcast(loadTile(w, {0}, {64}), {64, 64}, {1});
    storeTile(out, {r0}, reduceSum(max(loadTile(x, {r0, 0}, {64, 64}), 0.0) * wt, 1));
  }
};

/// y = 2 * the 64 x 64 box at row `o` of a shared tile holding x's block of
/// 64 rows: loadTile from a shared tile, rows outside it reading as -1 (and
/// rows of x past n as 0, as copy() reads them).
struct SharedBox : Generator {
  void generate(Kernel &k) override {
    Value n = k.size("n");
    Value o = k.scalar("o", DType::i32);
    Tensor x = k.tensor("x", DType::f32, {n, 64}), y = k.tensor("y", DType::f32, {n, 64});
    k.threads(128);
    k.grid(ceildiv(n, 64));
    Value r0 = k.blockId() * 64;
    Shared s = k.shared(DType::f32, {64, 64});
    copy(x, {r0, 0}, s);
    storeTile(y, {r0, 0}, loadTile(s, {cast(o, DType::index), 0}, {64, 64}, -1.0) * 2.0);
  }
};

/// y = x and z = w, `rows` rows an item of a persistent kernel, through
/// shared tiles the item's copies fill: an i32 box of 4 (16 bytes, the
/// least a TMA copy moves) and an f32 box of [rows, 64]; with `prefetch`
/// the producer fetches them an item ahead. `ints` / `floats` leave either
/// out. With rows = 2 every other item's i32 box would start 8 bytes into a
/// 16-byte granule, which the TMA cannot do: the copy goes element by
/// element (and the loops serial), or -- `round_down` -- the box starts at
/// the row rounded down to a multiple of 4 and the item reads it from the
/// remainder on (what the remark asks for).
struct SmallTiles : Generator {
  Param<bool> prefetch{"prefetch", true, "Kernel::persistent's prefetch"};
  Param<bool> ints{"ints", true, "copy x's box of 4 i32"};
  Param<bool> floats{"floats", true, "copy w's box of [rows, 64] f32"};
  Param<int> rows{"rows", 4, {1, 2, 4}, "rows an item"};
  Param<bool> roundDown{"round_down", false, "start x's box at a multiple of 4"};
  void generate(Kernel &k) override {
    const int R = rows;
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::i32, {n}), y = k.tensor("y", DType::i32, {n});
    Tensor w = k.tensor("w", DType::f32, {n, 64}), z = k.tensor("z", DType::f32, {n, 64});
    k.threads(128);
    k.persistent(ceildiv(n, R), [&](Value item) {
      Value r0 = item * R;
      Value x0 = roundDown ? r0 / 4 * 4 : r0;
      Shared xs = k.shared(DType::i32, {4});
      Shared ws = k.shared(DType::f32, {R, 64});
      if (ints)
        copy(x, {x0}, xs);
      if (floats)
        copy(w, {r0, 0}, ws);
      if (ints)
        storeTile(y, {r0}, loadTile(xs, {r0 - x0}, {R}));
      if (floats)
        storeTile(z, {r0, 0}, loadTile(ws, {0, 0}, {R, 64}));
    }, {.blocksPerSM = 1, .prefetch = prefetch});
  }
};

/// owner[i] = the block that took item i of a persistent kernel, in the
/// order `order` names (0 linear, 1 last first, 2 zigzag), handed out in
/// advance or -- `dynamic` -- at run time; y = x through a shared box of 4
/// an item, which the producer fetches `buffers` - 1 items ahead where
/// `prefetch` (so it computes each item too).
struct WorkOrders : Generator {
  Param<int> order{"order", 0, 0, 2, "0 linear, 1 lastFirst, 2 zigzag"};
  Param<bool> prefetch{"prefetch", true, "Kernel::persistent's prefetch"};
  Param<bool> dynamic{"dynamic", false, "Kernel::persistent's dynamic"};
  Param<int> buffers{"buffers", 2, 2, 3, "Kernel::persistent's itemBuffers"};
  void generate(Kernel &k) override {
    Value n = k.size("n");
    Tensor x = k.tensor("x", DType::i32, {n, 4}), y = k.tensor("y", DType::i32, {n, 4});
    Tensor owner = k.tensor("owner", DType::i32, {n});
    k.threads(128);
    const WorkOrder orders[] = {WorkOrder::linear, WorkOrder::lastFirst, WorkOrder::zigzag};
    k.persistent(n, [&](Value item) {
      Shared xs = k.shared(DType::i32, {1, 4});
      copy(x, {item, 0}, xs);
      storeTile(y, {item, 0}, loadTile(xs, {0, 0}, {1, 4}));
      Value block = cast(k.blockId(), DType::i32);
      owner(item) = block;
    }, {.blocksPerSM = 1, .order = orders[int(order)], .prefetch = prefetch,
        .itemBuffers = buffers, .dynamic = dynamic});
  }
};

/// fillAsync(out[r], lo[r], hi[r]) on every row r (its range clamped to the
/// row), issued where `issuer` puts it: 0 a plain kernel (thread 0); 1 a
/// persistent kernel whose producer prefetches the bounds (its elected
/// thread); 2 after a pipelined loop (the producer's first thread); 3 from
/// bounds the block stored in shared memory itself, which the producer does
/// not compute (the first compute thread); 4 under a test of y, which the
/// kernel writes (the first compute thread too); 5 a persistent kernel
/// around a pipelined loop of two groups, which copies x's halves (the
/// producer warp that issues neither group's copies, after waiting for the
/// prefetched bounds). y = x beside it, through a pipelined loop's tile where
/// the kernel has one.
struct FillAsyncRows : Generator {
  Param<int> issuer{"issuer", 0, 0, 5, "who issues the fill (see above)"};
  Param<int> bytes{"bytes", 4, {1, 2, 4}, "elements: i8 (filled with 7), bf16 or f32 (-inf)"};
  void generate(Kernel &k) override {
    DType t = bytes == 1 ? DType::i8 : bytes == 2 ? DType::bf16 : DType::f32;
    Value value = bytes == 1 ? constant(7, DType::i8) : negInf(t);
    Value rows = k.size("rows"), n = k.size("n");
    Tensor out = k.tensor("out", t, {rows, n});
    Tensor lo = k.tensor("lo", DType::i32, {rows}), hi = k.tensor("hi", DType::i32, {rows});
    Tensor x = k.tensor("x", DType::f32, {rows, 64}), y = k.tensor("y", DType::f32, {rows, 64});
    k.threads(issuer == 5 ? 256 : 128);
    auto fillRow = [&](Value r, Value a, Value e) {
      Value first = clamp(a, 0, n);
      fillAsync(out[r], first, clamp(e, first, n), value);
    };
    auto copyRow = [&](Value r) {
      Shared s = k.shared(DType::f32, {1, 64});
      copy(x, {r, 0}, s);
      storeTile(y, {r, 0}, loadTile(s, {0, 0}, {1, 64}));
    };
    if (issuer == 1) {
      k.persistent(rows, [&](Value r) {
        Value r0 = r / 4 * 4;
        Shared ls = k.shared(DType::i32, {4}), hs = k.shared(DType::i32, {4});
        Shared xs = k.shared(DType::f32, {1, 64});
        copy(lo, {r0}, ls);
        copy(hi, {r0}, hs);
        copy(x, {r, 0}, xs);
        fillRow(r, ls(r - r0), hs(r - r0));
        storeTile(y, {r, 0}, loadTile(xs, {0, 0}, {1, 64}));
      }, {.blocksPerSM = 1, .prefetch = true});
      return;
    }
    if (issuer == 5) {
      k.persistent(rows, [&](Value r) {
        Value r0 = r / 4 * 4;
        Shared ls = k.shared(DType::i32, {4}), hs = k.shared(DType::i32, {4});
        copy(lo, {r0}, ls);
        copy(hi, {r0}, hs);
        fillRow(r, ls(r - r0), hs(r - r0));
        k.pipelined(0, 2, [&](Value i) {
          Shared half = k.shared(DType::f32, {1, 32});
          copy(x, {r, i * 32}, half);
          storeTile(y, {r, i * 32}, loadTile(half, {0, 0}, {1, 32}));
        }, {.stages = 2, .groups = 2});
      }, {.blocksPerSM = 1, .prefetch = true});
      return;
    }
    k.grid(rows);
    Value r = k.blockId();
    if (issuer == 0) {
      storeTile(y, {r, 0}, loadTile(x, {r, 0}, {1, 64}));
      fillRow(r, lo(r), hi(r));
      return;
    }
    k.pipelined(0, 1, [&](Value) { copyRow(r); }, {.stages = 2, .groups = 1});
    if (issuer == 2) {
      fillRow(r, lo(r), hi(r));
      return;
    }
    if (issuer == 4) {
      // Under a test of what the kernel wrote: not the producer's to read.
      k.if_(y(r, 0) > -1e30, [&] { fillRow(r, lo(r), hi(r)); });
      return;
    }
    Shared bounds = k.shared(DType::i32, {2});
    bounds(0) = lo(r);
    bounds(1) = hi(r);
    k.barrier();
    fillRow(r, bounds(0), bounds(1));
  }
};

/// c[:, 64 p .. 64 p + 64) = a . b_p^T for each of `parts` 64-row blocks
/// b_p of b: one block walks a's 64-row tiles through a pipelined loop of
/// `groups` warpgroups and `stages` stages, a gemm per part a tile (m64n64,
/// K = 64), each stored as it is done. `cooperative`: every group takes
/// every tile, the parts dealt out (parts / groups a group), rather than the
/// groups taking the tiles in turn; `overlap`: each group's next gemm before
/// the code of this one.
struct CoopGemm : Generator {
  Param<int> groups{"groups", 2, 1, 3, "compute warpgroups"};
  Param<int> parts{"parts", 2, 1, 6, "gemms a tile, each 64 columns of c"};
  Param<int> stages{"stages", 3, 1, 8, "a's tiles in flight"};
  Param<bool> overlap{"overlap", false, "PipelinedOptions::overlap"};
  Param<bool> cooperative{"cooperative", true, "PipelinedOptions::cooperative"};
  void generate(Kernel &k) override {
    const int P = parts;
    Value m = k.size("m");
    Tensor a = k.tensor("a", DType::bf16, {m, 64});
    Tensor b = k.tensor("b", DType::bf16, {64 * P, 64});
    Tensor c = k.tensor("c", DType::f32, {m, 64 * P});
    k.threads(128 * int(groups));
    k.grid(1);
    std::vector<Shared> bs;
    for (int p = 0; p < P; ++p) {
      bs.push_back(k.shared(DType::bf16, {64, 64}));
      copy(b, {64 * p, 0}, bs.back());
    }
    k.pipelined(0, ceildiv(m, 64), [&](Value i) {
      Shared t = k.shared(DType::bf16, {64, 64});
      copy(a, {i * 64, 0}, t);
      for (int p = 0; p < P; ++p)
        storeTile(c, {i * 64, 64 * p}, gemm(t, bs[p], /*transposeB=*/true));
    }, {.stages = stages, .groups = groups, .overlap = overlap, .cooperative = cooperative});
  }
};

/// c = the K loop's accumulator over a's and b's 64-wide tiles of K, a
/// 64 x n tile of c a block, where each tile's gemm takes the accumulator in
/// the form `form` names -- the forms a kernel writes, each of which the
/// compiler must keep from overwriting or releasing a tile the tensor cores
/// still read (docs/ASYNC.md):
///   0 carried   acc' = a.b^T + acc
///   1 scaled    acc' = a.b^T + alpha * acc        (online softmax's rescale)
///   2 summed    acc' = a.b^T + (acc + alpha)
///   3 fresh     acc' = acc + a.b^T                 (the gemm starts from zero)
///   4 selected  acc' = a.b^T + (kt odd ? alpha * acc : acc)
/// `loop`: 0 pipelined (b's tiles through the producer's ring), 1 serial
/// (b copied in the loop, by the TMA where it can). `staged`: the threads
/// write a's tile themselves, element by element, into one shared tile
/// allocated before the loop, and meet at a barrier (else a is copied like
/// b). Ragged m; K a multiple of 64.
struct AsyncOperands : Generator {
  Param<int> form{"form", 1, 0, 4, "the accumulator's form (see above)"};
  Param<int> loop{"loop", 0, 0, 1, "0 pipelined, 1 serial"};
  Param<bool> staged{"staged", false, "the threads write a's tiles"};
  Param<int> stages{"stages", 2, 1, 4, "the pipelined loop's stages"};
  Param<int> n{"n", 256, {64, 128, 256}, "columns of c (and rows of b)"};
  void generate(Kernel &k) override {
    const int N = n;
    Value m = k.size("m"), kk = k.size("k");
    Value alpha = k.scalar("alpha", DType::f32);
    Tensor a = k.tensor("a", DType::bf16, {m, kk}), b = k.tensor("b", DType::bf16, {N, kk});
    Tensor c = k.tensor("c", DType::f32, {m, N});
    k.threads(128);
    k.grid(ceildiv(m, 64));
    Value m0 = k.blockId() * 64;
    Shared mine;
    if (staged)
      mine = k.shared(DType::bf16, {64, 64});
    auto body = [&](Value kt, Value acc) {
      Shared as = mine;
      if (staged) {
        k.parallel(0, 64 * 64, [&](Value e) {
          Value row = m0 + e / 64, col = kt * 64 + e % 64;
          as(e / 64, e % 64) = select(row < m, a(min(row, m - 1), col), constant(0, DType::bf16));
        });
        k.barrier();
      } else {
        as = k.shared(DType::bf16, {64, 64});
        copy(a, {m0, kt * 64}, as);
      }
      Shared bs = k.shared(DType::bf16, {N, 64});
      copy(b, {0, kt * 64}, bs);
      switch (int(form)) {
      case 0: return gemm(as, bs, /*transposeB=*/true, acc);
      case 1: return gemm(as, bs, /*transposeB=*/true, acc * alpha);
      case 2: return gemm(as, bs, /*transposeB=*/true, acc + alpha);
      case 3: return acc + gemm(as, bs, /*transposeB=*/true);
      default:
        return gemm(as, bs, /*transposeB=*/true, select(kt % 2 == 1, acc * alpha, acc));
      }
    };
    Value zero = broadcast(0.0, {64, N});
    Value acc = loop == 0 ? k.pipelined(0, kk / 64, zero, body, {.stages = stages})
                          : k.serial(0, kk / 64, zero, body);
    storeTile(c, {m0, 0}, acc);
  }
};

/// c = a . b with b given as it is stored, [k, n] row-major (the gemm's B
/// MN-major: transposeB = false, the layout of attention's V in P . V): a
/// block a tile of `warpgroups` x 64 rows of c and all n = `n` columns, the
/// loop over K's 64-wide tiles pipelined (`loop` 0: the producer's TMA ring
/// of `stages`) or serial (1: each tile copied in the loop). b's tile is
/// [64, n], n / 64 panels of 128-byte rows. Ragged m and k: the copies read
/// zeros past the tensors.
struct GemmKN : Generator {
  Param<int> n{"n", 128, {64, 128, 256}, "columns of b and c"};
  Param<int> warpgroups{"warpgroups", 1, 1, 2, "64 rows of c each"};
  Param<int> loop{"loop", 0, 0, 1, "0 pipelined, 1 serial"};
  Param<int> stages{"stages", 3, 1, 4, "the pipelined loop's stages"};
  void generate(Kernel &k) override {
    const int N = n, BM = 64 * warpgroups;
    Value m = k.size("m"), kk = k.size("k");
    Tensor a = k.tensor("a", DType::bf16, {m, kk});
    Tensor b = k.tensor("b", DType::bf16, {kk, N});
    Tensor c = k.tensor("c", DType::f32, {m, N});
    k.threads(128 * warpgroups);
    k.grid(ceildiv(m, BM));
    Value m0 = k.blockId() * BM;
    auto body = [&](Value kt, Value acc) {
      Shared as = k.shared(DType::bf16, {BM, 64}), bs = k.shared(DType::bf16, {64, N});
      copy(a, {m0, kt * 64}, as);
      copy(b, {kt * 64, 0}, bs);
      return gemm(as, bs, /*transposeB=*/false, acc);
    };
    Value zero = broadcast(0.0, {BM, N});
    Value acc = loop == 0 ? k.pipelined(0, ceildiv(kk, 64), zero, body, {.stages = stages})
                          : k.serial(0, ceildiv(kk, 64), zero, body);
    storeTile(c, {m0, 0}, acc);
  }
};

/// o = sum over the keys' 64-wide tiles j of p_j . v_j, p_j = bf16(s_j / 8)
/// and s_j = q . key_j^T: attention's two gemms without the softmax. The
/// scores' fragment is the second gemm's A: from registers (`via` 0, the
/// wgmma's register operand, in the layout the first gemm left it in) or
/// stored into a shared tile (`via` 1, storeTile) that the gemm reads. A
/// block takes `warpgroups` x 64 rows of q and o; q and key are 64 deep, v
/// has n columns, stored [keys, n] (the gemm's B [K, N]) or, with `vt`,
/// [n, keys] (B [N, K], transposeB). `loop` 0: one tile of keys (at most
/// 64), 1: a serial loop over the tiles, 2: a pipelined one (the producer's
/// TMA ring of `stages`). Ragged m and keys: the copies read zeros past the
/// tensors, whose scores are 0 against zero rows of v.
struct AttnPV : Generator {
  Param<int> n{"n", 64, {64, 128}, "columns of v and o"};
  Param<int> via{"via", 0, 0, 1, "p reaches the second gemm: 0 registers, 1 a shared tile"};
  Param<bool> vt{"vt", false, "v stored [n, keys] (transposeB)"};
  Param<int> loop{"loop", 0, 0, 2, "0 one tile of keys, 1 serial, 2 pipelined"};
  Param<int> warpgroups{"warpgroups", 1, 1, 2, "64 rows of q and o each"};
  Param<int> stages{"stages", 2, 1, 4, "the pipelined loop's stages"};
  void generate(Kernel &k) override {
    const int N = n, BM = 64 * warpgroups;
    Value m = k.size("m"), keys = k.size("keys");
    Tensor q = k.tensor("q", DType::bf16, {m, 64}), key = k.tensor("key", DType::bf16, {keys, 64});
    Tensor v = vt ? k.tensor("v", DType::bf16, {N, keys}) : k.tensor("v", DType::bf16, {keys, N});
    Tensor o = k.tensor("o", DType::f32, {m, N});
    k.threads(128 * warpgroups);
    k.grid(ceildiv(m, BM));
    Value m0 = k.blockId() * BM;
    Shared qs = k.shared(DType::bf16, {BM, 64});
    copy(q, {m0, 0}, qs);
    Shared ps;
    if (via == 1)
      ps = k.shared(DType::bf16, {BM, 64});
    auto body = [&](Value j, Value acc) {
      Shared ks = k.shared(DType::bf16, {64, 64});
      Shared vs = vt ? k.shared(DType::bf16, {N, 64}) : k.shared(DType::bf16, {64, N});
      copy(key, {j * 64, 0}, ks);
      if (vt)
        copy(v, {0, j * 64}, vs);
      else
        copy(v, {j * 64, 0}, vs);
      Value p = cast(gemm(qs, ks, /*transposeB=*/true) * 0.125, DType::bf16);
      if (via == 0)
        return gemm(p, vs, vt, acc);
      storeTile(ps, {0, 0}, p);
      return gemm(ps, vs, vt, acc);
    };
    Value zero = broadcast(0.0, {BM, N});
    Value out;
    if (loop == 0)
      out = body(constant(0, DType::index), zero);
    else if (loop == 1)
      out = k.serial(0, ceildiv(keys, 64), zero, body);
    else
      out = k.pipelined(0, ceildiv(keys, 64), zero, body, {.stages = stages});
    storeTile(o, {m0, 0}, out);
  }
};

/// y[s, j, :] = kv[b][idx[s, j], :] for each slot j < kp (kv's rows of batch
/// b = s % batches), zeros where the index is negative, lies past k (idx's
/// width) or past kv's rows: gather() fills a tile of 64 rows, read back as
/// a fragment. `loop` 0: the first tile only, 1: a serial loop over the
/// tiles (the compute threads issue each gather), 2: a pipelined loop (the
/// producer issues them); `cols` 64 or 128 (one or two 128-byte panels a
/// row).
struct GatherRows : Generator {
  Param<int> cols{"cols", 128, {64, 128}, "columns of kv"};
  Param<int> loop{"loop", 2, 0, 2, "0 one tile, 1 serial, 2 pipelined"};
  Param<int> stages{"stages", 2, 1, 4, "the pipelined loop's stages"};
  void generate(Kernel &k) override {
    const int C = cols;
    Value n = k.size("n"), batches = k.size("batches"), s = k.size("s"), kk = k.size("k"),
          kp = k.size("kp");
    Tensor kv = k.tensor("kv", DType::bf16, {n, batches, C});
    Tensor idx = k.tensor("idx", DType::i32, {s, kk});
    Tensor y = k.tensor("y", DType::bf16, {s, kp, C});
    k.threads(128);
    k.grid(s);
    Value row = k.blockId();
    Tensor rows = kv.slice(1, row % batches);
    auto body = [&](Value j) {
      Shared t = k.shared(DType::bf16, {64, C});
      gather(rows, {0, 0}, idx, {row, j * 64}, t);
      storeTile(y, {row, j * 64, 0}, reshape(loadTile(t, {0, 0}, {64, C}), {1, 64, C}));
    };
    if (loop == 0)
      body(constant(0, DType::index));
    else if (loop == 1)
      k.serial(0, ceildiv(kp, 64), body);
    else
      k.pipelined(0, ceildiv(kp, 64), body, {.stages = stages});
  }
};

/// Block s's fragment v_s [64, C] -- a gemm's result (`gemm`: a's rows
/// 64s.. times b^T, the accumulator layout, two columns side by side a
/// thread) or rows 64s.. of x (a layout of whole rows) -- added into the
/// rows of out that idx[s, :] picks (addRows; -1, past k or past out's
/// rows: left alone; repeats add twice) and into total (addTile: every
/// block's into one tile).
struct AddRows : Generator {
  Param<bool> fromGemm{"gemm", true, "v is a gemm's result (else loaded from x)"};
  Param<int> cols{"cols", 128, {64, 128}, "columns of v"};
  void generate(Kernel &k) override {
    const int C = cols;
    Value n = k.size("n"), s = k.size("s"), kk = k.size("k");
    Tensor a = k.tensor("a", DType::bf16, {s * 64, 64}), b = k.tensor("b", DType::bf16, {C, 64});
    Tensor x = k.tensor("x", DType::f32, {s * 64, C});
    Tensor idx = k.tensor("idx", DType::i32, {s, kk});
    Tensor out = k.tensor("out", DType::f32, {n, C}), total = k.tensor("total", DType::f32, {64, C});
    k.threads(128);
    k.grid(s);
    Value row = k.blockId();
    Value v;
    if (fromGemm) {
      Shared as = k.shared(DType::bf16, {64, 64}), bs = k.shared(DType::bf16, {C, 64});
      copy(a, {row * 64, 0}, as);
      copy(b, {0, 0}, bs);
      v = gemm(as, bs, /*transposeB=*/true);
    } else {
      v = loadTile(x, {row * 64, 0}, {64, C});
    }
    addRows(out, {0, 0}, idx, {row, 0}, v);
    addTile(total, {0, 0}, v);
  }
};

/// c = sum over k's 64-wide tiles of a . b^T where the operand `stored`
/// names (0: a, 1: b) is computed in registers -- relu of an f32 tile,
/// cast to bf16 -- and written into its shared tile with storeTile, the
/// other copied (bf16). The gemm reads what the threads stored: the
/// compiler's barrier and proxy fence come between. A block: `warpgroups`
/// x 64 rows of c, all n = 64 columns; `loop` 0: one tile of k (at most
/// 64), 1: a serial loop over k's tiles into the same shared tile (each
/// iteration's stores wait for the previous gemm). Ragged m, k and n: the
/// loads read zeros past x, the copies past y.
struct StoreShared : Generator {
  Param<int> stored{"stored", 0, 0, 1, "the operand stored by the threads: 0 a, 1 b"};
  Param<int> warpgroups{"warpgroups", 1, 1, 2, "64 rows of c each"};
  Param<int> loop{"loop", 0, 0, 1, "0 one tile of k, 1 serial"};
  void generate(Kernel &k) override {
    const int BM = 64 * warpgroups, N = 64;
    Value m = k.size("m"), kk = k.size("k");
    // x: the stored operand (f32), y: the copied one (bf16).
    Tensor x = stored == 0 ? k.tensor("x", DType::f32, {m, kk}) : k.tensor("x", DType::f32, {N, kk});
    Tensor y = stored == 0 ? k.tensor("y", DType::bf16, {N, kk}) : k.tensor("y", DType::bf16, {m, kk});
    Tensor c = k.tensor("c", DType::f32, {m, N});
    k.threads(128 * warpgroups);
    k.grid(ceildiv(m, BM));
    Value m0 = k.blockId() * BM;
    Shared as = k.shared(DType::bf16, {BM, 64}), bs = k.shared(DType::bf16, {N, 64});
    auto body = [&](Value t, Value acc) {
      if (stored == 0) {
        storeTile(as, {0, 0}, cast(max(loadTile(x, {m0, t * 64}, {BM, 64}), 0.0), DType::bf16));
        copy(y, {0, t * 64}, bs);
      } else {
        copy(y, {m0, t * 64}, as);
        storeTile(bs, {0, 0}, cast(max(loadTile(x, {0, t * 64}, {N, 64}), 0.0), DType::bf16));
      }
      return gemm(as, bs, /*transposeB=*/true, acc);
    };
    Value zero = broadcast(0.0, {BM, N});
    Value out = loop == 0 ? body(constant(0, DType::index), zero)
                          : k.serial(0, ceildiv(kk, 64), zero, body);
    storeTile(c, {m0, 0}, out);
  }
};

/// o = sum over the tiles of m of p_t^T . w_t, p_t = bf16(q_t . key^T / 8):
/// p^T (keys x rows) stored into a shared tile by stmatrix's transposing
/// form, then the gemm's A from there (the indexer backward's dkv = p^T q).
/// `loop` 0: one tile of m, 1 serial, 2 pipelined (the same shared tile
/// written again each iteration while the gemm before may still read it).
struct StoreSharedTransposed : Generator {
  Param<int> loop{"loop", 0, 0, 2, "0 one tile of m, 1 serial, 2 pipelined"};
  void generate(Kernel &k) override {
    const int N = 64;
    Value m = k.size("m");
    Tensor q = k.tensor("q", DType::bf16, {m, 64}), key = k.tensor("key", DType::bf16, {64, 64});
    Tensor w = k.tensor("w", DType::bf16, {m, N});
    Tensor o = k.tensor("o", DType::f32, {64, N});
    k.threads(128);
    k.grid(1);
    Shared ks = k.shared(DType::bf16, {64, 64}), pt = k.shared(DType::bf16, {64, 64});
    copy(key, {0, 0}, ks);
    auto body = [&](Value t, Value acc) {
      Shared qs = k.shared(DType::bf16, {64, 64}), ws = k.shared(DType::bf16, {64, N});
      copy(q, {t * 64, 0}, qs);
      copy(w, {t * 64, 0}, ws);
      Value p = cast(gemm(qs, ks, /*transposeB=*/true) * 0.125, DType::bf16);
      storeTile(pt, {0, 0}, transpose(p, {1, 0}));
      return gemm(pt, ws, /*transposeB=*/false, acc);
    };
    Value zero = broadcast(0.0, {64, N});
    Value out;
    if (loop == 0)
      out = body(constant(0, DType::index), zero);
    else if (loop == 1)
      out = k.serial(0, ceildiv(m, 64), zero, body);
    else
      out = k.pipelined(0, ceildiv(m, 64), zero, body, {.stages = 2});
    storeTile(o, {0, 0}, out);
  }
};

} // namespace

MINITILE_KERNEL(AddRows, "add_rows", "out[idx[s, r]] += v_s[r], total += v_s: fragments added into global rows");
MINITILE_KERNEL(GatherRows, "gather_rows", "y[s, j] = kv[b][idx[s, j]] (zeros where the index is negative or past k), through gather()");
MINITILE_KERNEL(AttnPV, "attn_pv", "o = sum_j bf16(q . key_j^T / 8) . v_j, the scores from registers (or a shared tile)");
MINITILE_KERNEL(StoreSharedTransposed, "store_shared_t", "o = sum_t bf16(q_t . key^T / 8)^T . w_t, p^T stored into a shared tile");
MINITILE_KERNEL(StoreShared, "store_shared", "c = a . b^T, one operand relu'd in registers and stored into its shared tile");
MINITILE_KERNEL(GemmKN, "gemm_kn", "c = a . b, b stored [k, n] (the gemm's B MN-major)");
MINITILE_KERNEL(AsyncOperands, "async_operands", "c = the K loop of gemms with the accumulator in the form `form` names");
MINITILE_KERNEL(CoopGemm, "coop_gemm", "c[:, 64p..] = a . b_p^T, parts dealt out to the groups");
MINITILE_KERNEL(MinMax, "minmax", "y = min(max(x, 0), c)");
MINITILE_KERNEL(MinMaxNum, "minmax_num", "y = minNum(maxNum(x, 0), c), z = maxNum(x, -inf)");
MINITILE_KERNEL(MulAdd, "mul_add", "d = a * b + c");
MINITILE_KERNEL(ReluDot, "relu_dot", "out[r] = sum_j relu(x[r, j]) * w[j]");
MINITILE_KERNEL(SmallTiles, "small_tiles", "y = x, z = w through small shared tiles an item ahead");
MINITILE_KERNEL(SharedBox, "shared_box", "y = 2 * a box at row o of x's block in a shared tile");
MINITILE_KERNEL(WorkOrders, "work_orders", "owner[i] = the block taking item i; y = x an item at a time");
MINITILE_KERNEL(FillAsyncRows, "fill_async_rows", "out[r, lo[r]..hi[r]) = a constant, by fillAsync; y = x");
