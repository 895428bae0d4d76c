//===- attention_kernel.cpp - flash attention forward ---------------------===//
//
//   o[b, h, i] = sum_j softmax_j(scale * q[b, h, i] . k[b, g, j]) v[b, g, j]
//   lse[b, h, i] = log of the softmax's denominator (natural log, scaled scores)
//
// q, o [B, H, S, D] and k, v [B, H_kv, S, D] bf16 (grouped-query attention:
// head h reads kv head g = h / (H / H_kv)); with `causal`, key j <= query i.
//
// Each block computes BM = 128 query rows of one (b, h): two warpgroups of
// 64 rows. The key loop is pipelined: a producer warpgroup copies K and V
// tiles of BN rows ahead by TMA (past S it reads zeros) while the compute
// warpgroups run S = Q K^T (wgmma, K stored [BN, D] as B^T), the online
// softmax in registers (the running row max m and sum l), and O += P V with
// P, rounded to bf16, as wgmma's A from registers and V stored [BN, D] as
// B [K, N]. The two warpgroups take turns at their gemms (ping_pong): one
// issues P V of this tile and Q K^T of the next, then hands the turn over,
// and its softmax runs under the other's gemms. The epilogue divides O by l
// and stores O and the log-sum-exp.
//
//===----------------------------------------------------------------------===//
#include <minitile/dsl.h>

#include <cmath>

using namespace minitile;

struct Attention : Generator {
  Param<int> headDim{"head_dim", 128, {64, 128}, "D"};
  Param<bool> causal{"causal", false, "key j attends only to queries i >= j"};
  Param<int> blockN{"block_n", 128, {64, 128}, "keys per tile"};
  Param<int> stages{"stages", 2, 1, 4, "K/V tiles in flight"};
  Param<bool> pingPong{"ping_pong", true,
                       "the two warpgroups take turns at their gemms: one's softmax runs "
                       "under the other's gemms"};
  Param<bool> fast{"fast_math", true,
                   "exp2 by ex2.approx.ftz (docs/MATH.md), else libdevice's; log likewise"};

  void generate(Kernel &k) override {
    const int BM = 128, BN = blockN, D = headDim;
    Value B = k.size("B"), H = k.size("H"), Hkv = k.size("H_kv"), S = k.size("S");
    Value scale = k.scalar("scale", DType::f32);
    Tensor q = k.tensor("q", DType::bf16, {B, H, S, D});
    Tensor kt = k.tensor("k", DType::bf16, {B, Hkv, S, D});
    Tensor vt = k.tensor("v", DType::bf16, {B, Hkv, S, D});
    Tensor o = k.tensor("o", DType::bf16, {B, H, S, D});
    Tensor lse = k.tensor("lse", DType::f32, {B, H, S});
    k.require(H % Hkv == 0, "H_kv must divide H");
    k.fastMath(fast);
    k.threads(2 * 128);
    Value tiles = ceildiv(S, BM);
    k.grid(tiles, B * H);

    // The last query tiles first: under causal masking they have the most keys.
    Value mt = tiles - 1 - k.blockId(), bh = k.blockId(1);
    Value b = bh / H, h = bh % H, g = h / (H / Hkv);
    Tensor qh = q[b][h], kh = kt[b][g], vh = vt[b][g], oh = o[b][h], lh = lse[b][h];
    Value m0 = mt * BM;

    Shared qs = k.shared(DType::bf16, {BM, D});
    copy(qh, {m0, 0}, qs);
    // Scores in the base-2 domain: exp(x * scale) = exp2(x * scale * log2(e)).
    Value c = scale * float(M_LOG2E);
    // (In 32 bits: a thread's coordinates are then one register each.)
    Value row = iota({BM, BN}, 0), col = iota({BM, BN}, 1);
    Value keys = causal ? min(S, m0 + BM) : S;
    Value negInfRow = broadcast(negInf(), {BM}), zeroRow = broadcast(0.0, {BM});

    std::vector<Value> out = k.pipelined(0, ceildiv(keys, BN),
        {broadcast(0.0, {BM, D}), negInfRow, zeroRow},
        [&](Value j, std::vector<Value> carried) {
          Value acc = carried[0], m = carried[1], l = carried[2];
          Shared ks = k.shared(DType::bf16, {BN, D}), vs = k.shared(DType::bf16, {BN, D});
          Value n0 = j * BN;
          copy(kh, {n0, 0}, ks);
          copy(vh, {n0, 0}, vs);
          Value s = gemm(qs, ks, /*transposeB=*/true);                        // [BM, BN]
          // Key n0 + col is valid below S, or -- causal -- at most query
          // m0 + row (which is below S in the rows stored): the tile's
          // coordinates against a bound of the tile's, so that the
          // coordinates are made once, before the loop.
          auto masked = [&] {
            Value valid = causal ? col - row <= cast(m0 - n0, DType::i32)
                                 : col < cast(S - n0, DType::i32);
            return select(valid, s, negInf());
          };
          // Without causal, only the last tile is masked (the one S cuts
          // through). Causal masks every tile: the branch around the mask
          // made ptxas spill 48 bytes a thread there.
          s = causal ? masked() : k.ifElse(n0 + BN > S, masked, [&] { return s; });
          // m: the running maximum of the unscaled scores (c > 0 keeps the
          // order), so that c * s - c * m is one fma a score.
          Value mNew = max(m, reduceMax(s, 1));                                 // [BM]
          // A row with no key yet keeps m = -inf: subtract 0 there, not -inf.
          Value mc = select(mNew == negInf(), 0.0, mNew * c);
          Value p = exp2(s * c - broadcast(mc, {BM, BN}, {0}));
          Value alpha = exp2(m * c - mc);
          l = l * alpha + reduceSum(p, 1);
          acc = acc * broadcast(alpha, {BM, D}, {0});
          acc = gemm(cast(p, DType::bf16), vs, /*transposeB=*/false, acc);   // += P V
          return std::vector<Value>{acc, mNew, l};
        },
        {.stages = stages, .pingPong = pingPong});
    Value acc = out[0], m = out[1], l = out[2];
    Value inv = select(l > 0.0, 1.0 / l, 0.0);
    storeTile(oh, {m0, 0}, cast(acc * broadcast(inv, {BM, D}, {0}), DType::bf16));
    // log(l) + scale * m: the natural log of sum_j exp(scale * s_ij).
    storeTile(lh, {m0}, select(l > 0.0, log(l) + m * scale, negInf()));
  }
};
MINITILE_KERNEL(Attention, "attention",
                "o = softmax(scale * q k^T) v per head (causal optional, grouped kv heads), lse");
