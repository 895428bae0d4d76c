//===- topk.cpp - the k largest entries of each row, by radix select -----===//
//
//   indices[s, :] = the columns t of the k largest logits[s, t] > -inf,
//                   equal values going to the lower t; -1 past the row's
//                   count of entries > -inf
//   scores[s, :]  = logits[s, indices[s, :]] (-inf where the index is -1)
//
// Unsorted (the default), a row's indices come in no particular order, then
// its -1s; sorted, by descending score, equal scores by ascending index. With
// windows, only ks[s] <= t < ke[s] counts (clamped to [0, S_kv]); the rest
// is never read. NaN counts as -inf. torch.topk(logits, k) followed by
// masked_fill(score == -inf, -1) selects the same set where its ties go to
// the lower index.
//
// One block per row. Every entry gets a 64-bit key, distinct and ordered as
// the answer wants: the float's bits made order-preserving, then
// S_kv - 1 - t (the lower index the larger). The answer is then "the k
// largest keys", found digit by digit from the top (radix select):
//   1. count the top 11 bits of every key into a shared histogram;
//   2. scan the bins from the top for the bin where the count reaches k:
//      the bins above it are all in, it is partly in;
//   3. read the row again: write out the entries above the bin, keep the
//      keys in the bin in a shared buffer and count their next digit;
//   4. repeat 2-3 with the next digit on the kept keys (on the row again,
//      filtered by the digits found so far, if they did not fit) until the
//      bin found holds exactly the entries still missing.
// Digits: 11 + 11 + 10 bits of the value, then 11 at a time of the index
// (only where values tie). A row whose window holds at most k entries takes
// all of them at once.
//
// A row of at most threads x regs entries (256 x 16 = 4096 by default)
// skips the second read and the kept keys: each thread loads its regs
// entries at once and keeps 32-bit keys (the value's bits, in signed order;
// the index enters only where values tie); steps 1, 2 and 4 run on the
// registers (each later digit counted over the entries matching the digits
// found so far), and the bins found give the k-th largest key; one sweep of
// the registers writes out every key at or above it. Per entry that is 9-10
// instructions for the load, the key and the top digit's count, 4 for the
// second digit and ~5 for the output (read from its SASS): counts go to
// a spare bin instead of being predicated, warp 0 alone searches the bins
// (over per-thread sums), and each thread writes its outputs from a bit
// mask at places one atomic add per warp gives (where more than a quarter
// of the row is out, a register at a time, a warp's writes adjacent; ~15
// instructions an entry, v3.1). Rows that fit in half the registers take a
// copy of the path that sweeps only those. Longer rows load 8 entries a
// thread at a time where 40 registers allow it.
//
//===----------------------------------------------------------------------===//
#include "minitile/dsl.h"

#include <algorithm>
#include <climits>

namespace {

using namespace minitile;

template <bool Batched> struct TopK : Generator {
  Param<int> threads{"threads", 256, {128, 256, 512, 1024}, "threads per block (one row each)"};
  Param<int> candidates{"candidates", 2048, 256, 16384,
                        "keys of the first digit's bin kept in shared memory "
                        "(more go back to the row)"};
  Param<int> unroll{"unroll", 0, 0, 16,
                    "row entries each thread loads at once (rows longer than regs x threads; "
                    "0: 8 where a thread gets at least 40 registers, else 4)"};
  Param<int> regs{"regs", 16, 0, 64,
                  "row entries each thread holds in registers: a row of at most regs x "
                  "threads entries is read once, all loads at once, and selected from "
                  "registers (0: every row takes the two reads)"};
  Param<bool> halfRows{"half_rows", true,
                       "rows of at most regs / 2 x threads entries take a copy of the "
                       "register path with regs / 2 entries a thread"};
  Param<int> blocksPerSM{"blocks_per_sm", 0, 0, 32,
                         "blocks one multiprocessor must hold at once, registers capped for "
                         "them (0: as many as 64K registers hold at max(32, regs + 24) a "
                         "thread, 2 x regs + 8 past 16 -- 1536 threads' worth with regs = 0 -- "
                         "or as many as shared memory holds)"};
  Param<bool> windows{"windows", false,
                      "take ks, ke: only ks[s] <= t < ke[s] counts, the rest is not read"};
  Param<bool> withScores{"scores", false, "also write the scores"};
  Param<bool> sorted{"sorted", false, "descending scores, ties by ascending index"};
  Param<int> maxK{"max_k", 2048, 1, 8192, "the largest k with sorted output"};
  Param<bool> warpOrder{"warp_order", true,
                        "where more than a quarter of a row in registers is out, a warp's "
                        "writes of one register go to adjacent places (false: each thread's "
                        "outputs adjacent, v3's order; 8 words between lanes at 256 x 16)"};

  static constexpr int kBins = 2048, kDigit = 11;
  static constexpr int32_t kLeast = INT32_MIN + 0x800000;

  void generate(Kernel &k) override {
    RowSelect r(*this, k);
    r.declareTensors();
    r.launchShape();
    r.thisRow();
    r.sharedTiles();
    r.indexBits();
    k.if_(r.K > 0, [&] {
      Value count = r.selectRow();
      if (sorted) {
        r.sortKeys(count);
        r.writeSorted(count);
      } else {
        r.padUnsorted(count);
      }
    });
  }

  // One block's row and what every step of its selection shares: the
  // kernel, the tensors, the launch shape, the row's bounds, the shared
  // histograms and counters.
  struct RowSelect {
    const TopK &g;
    Kernel &k;
    const int NT, C, per;
    int U = 0, sortSize = 0;
    Value S, T, K, B;
    Tensor logits, ks, ke, indices, scores;
    Value s, b, lo, hi;
    Tensor row, outIndex, outScore;
    Value tid, tid32, lane32, L;
    Shared hist, kept, counts, found, partial, sortBuf;

    RowSelect(const TopK &g, Kernel &k)
        : g(g), k(k), NT(g.threads), C(g.candidates), per(kBins / NT) {}

    void declareTensors() {
      S = k.size("S");
      T = k.size("S_kv");
      K = k.size("k");
      B = Batched ? k.size("B") : Value();
      auto rows = [&](Value inner) {
        return Batched ? std::vector<Arg>{B, S, inner} : std::vector<Arg>{S, inner};
      };
      logits = k.tensor("logits", DType::f32, rows(T));
      if (g.windows) {
        ks = k.tensor("ks", DType::i32, {S});
        ke = k.tensor("ke", DType::i32, {S});
      }
      indices = k.tensor("indices", DType::i32, rows(K));
      scores = g.withScores ? k.tensor("scores", DType::f32, rows(K)) : Tensor();
      k.require(T < (int64_t(1) << 31) && K < (int64_t(1) << 31), "S_kv and k must fit in int32");
      if (g.sorted)
        k.require(K <= g.maxK.get(), "sorted output takes k up to max_k = " +
                                         std::to_string(g.maxK.get()));
    }

    // The threads, the blocks a multiprocessor must hold, the loads in
    // flight on the two-read path (U) and the grid: a block a row.
    void launchShape() {
      k.threads(NT);
      // The shared tiles below; 3 KiB covers the small ones and the alignment
      // tile-plan-shared adds, beside what the system keeps a block.
      sortSize = nextPowerOfTwo(g.maxK);
      const int64_t sharedBytes = 2 * (kBins + 4) * 4 + NT * 4 + C * 8 +
                                  (g.sorted ? sortSize * 8 : 0) + 3 * 1024 +
                                  k.target().sharedMemoryReservedPerBlock;
      const int64_t fit = k.target().sharedMemoryPerBlock / sharedBytes;
      // Registers: the row's keys (regs) and ~24 more, at least 32 (2 regs +
      // 8 past 16): 256 threads x 16 entries get 40 registers and 6 blocks a
      // multiprocessor (shared memory holds 6 too), 512 x 8 get 32 and 4
      // blocks, 128 x 32 get 72 and 7 blocks, no spills.
      const int perThread =
          g.regs <= 16 ? std::max(32, g.regs.get() + 24) : 2 * g.regs.get() + 8;
      // (Without a row in registers: three quarters of the threads a
      // multiprocessor holds.)
      const int64_t byRegisters = g.regs ? k.target().registersPerSM / (NT * perThread)
                                         : k.target().maxThreadsPerSM * 3 / 4 / NT;
      // Loads in flight on the two-read path: 8 a thread fit in 40 registers
      // (256 x 16: 783 -> 701 us at S_kv = 65536, 798 -> 670 at 262144), not
      // in 32 (512 x 8 spilled), nor at blocks_per_sm = 5 (48 registers, 24
      // bytes spilled): 4 there.
      U = g.unroll ? g.unroll.get()
                   : (g.regs && !g.blocksPerSM.get() && perThread >= 40 ? 8 : 4);
      k.minBlocksPerSM(g.blocksPerSM
                           ? int(g.blocksPerSM)
                           : int(std::clamp<int64_t>(std::min(byRegisters, fit), 1, 32)));
      k.grid(S, Batched ? Arg(B) : Arg(1));
    }

    // This block's row, its outputs and its window [lo, hi); the thread.
    void thisRow() {
      s = k.blockId();
      b = k.blockId(1);
      row = Batched ? logits[b][s] : logits[s];
      outIndex = Batched ? indices[b][s] : indices[s];
      outScore = g.withScores ? (Batched ? scores[b][s] : scores[s]) : Tensor();
      lo = g.windows ? clamp(ks(s), 0, T) : constant(0, DType::index);
      hi = g.windows ? clamp(ke(s), lo, T) : T;

      tid = k.threadId();
      tid32 = cast(tid, DType::i32);
      lane32 = tid32 & 31;
    }

    void sharedTiles() {
      // Two histograms (one counts while the other is scanned), each with a
      // spare word past its bins for the keys a pass does not count.
      hist = k.shared(DType::i32, {2, kBins + 4});
      kept = k.shared(DType::i64, {C});         // keys in the first digit's bin
      counts = k.shared(DType::i32, {3});       // entries written out, keys kept
                                                // (in registers: S_kv - 1 - lo,
                                                // -inf's bits)
      found = k.shared(DType::i32, {4});        // a scan's bin, above it, in it,
                                                // the histogram's total
      partial = k.shared(DType::i32, {NT});     // each thread's sum of its bins
      sortBuf = g.sorted ? k.shared(DType::i64, {sortSize}) : Shared();
    }

    // Keys: ascending value order is ascending order of these bits (sign bit
    // flipped for positives, every bit for negatives; -0 made +0 first, so
    // the two tie), then S_kv - 1 - t.
    Value orderedBits(Value v) {
      Value u = bitcast(v + 0.0, DType::i32);
      return u ^ ((u >> 31) | INT32_MIN);
    }
    Value keyOf(Value v, Value t) {
      return (cast(orderedBits(v), DType::i64) << 32) | cast(T - 1 - t, DType::i64);
    }
    Value valueOf(Value key) {
      Value o = cast(key >> 32, DType::i32);
      return bitcast(o ^ (~(o >> 31) | INT32_MIN), DType::f32);
    }
    Value indexOf(Value key) { return T - 1 - cast(key & 0xFFFFFFFFll, DType::index); }

    // Pass p resolves bits [shift, shift + width) of the key: 11, 11 and 10
    // bits of the value, then 11 at a time of the L significant index bits.
    void indexBits() { L = 64 - countLeadingZeros(cast(max(T - 1, 0), DType::i64)); }
    std::pair<Value, Value> digitAt(Value p) {
      Value inValue = p < 3;
      Value top = select(inValue, 64 - kDigit * cast(p, DType::i64),
                         L - kDigit * (cast(p, DType::i64) - 3));
      Value shift = max(top - kDigit, select(inValue, constant(32, DType::i64),
                                             constant(0, DType::i64)));
      return std::pair{shift, top - shift};
    }
    Value digit(Value key, std::pair<Value, Value> at) {
      return (key >> at.first) & ((1ll << at.second) - 1);
    }

    // The row's answer, in registers where it fits, else by two reads: the
    // entries written out (their keys in the sort buffer if sorted).
    Value selectRow() {
      Var counted = k.var(DType::index, 0);
      if (g.regs > 0)
        k.if_(hi - lo <= NT * g.regs.get(), [&] {
          // Rows that fit in half the registers (short causal windows) take a
          // copy of the path that sweeps only those.
          if (g.halfRows && g.regs % 2 == 0)
            k.if_(hi - lo <= NT * (g.regs / 2), [&] { inRegisters(g.regs / 2); },
                  [&] { inRegisters(g.regs); });
          else
            inRegisters(g.regs);
          k.barrier();
          counted = cast(counts(0), DType::index);
        }, [&] { twoReads(counted); });
      else
        twoReads(counted);
      return counted;
    }

    // Puts an entry of the answer in the next place (its key in the sort
    // buffer if sorted). ptxas makes a warp's increments of one counter one
    // atomic add.
    void emit(Value out, Value t, Value v, const std::function<Value()> &key) {
      k.if_(out, [&] {
        Value slot = atomicAdd(counts(0), 1);
        if (g.sorted) {
          sortBuf(slot) = key();
        } else {
          outIndex(slot) = cast(t, DType::i32);
          if (g.withScores)
            outScore(slot) = v;
        }
      });
    }

    // The row, U entries per thread at a time (loads first, all lanes
    // of a warp through the same iterations): body(valid, t, v), v = -inf
    // past the end.
    void forEachInRow(const std::function<void(Value, Value, Value)> &body) {
      k.serial(lo, hi, [&](Value base) {
        std::vector<Value> ts, vs;
        for (int u = 0; u < U; ++u) {
          ts.push_back(base + u * NT + tid);
          Var v = k.var(negInf());
          k.if_(ts.back() < hi, [&] { v = row(ts.back()); });
          vs.push_back(v);
        }
        for (int u = 0; u < U; ++u)
          body(vs[u] > negInf(), ts[u], vs[u]);
      }, NT * U);
    }
    // The kept keys: body(valid, key).
    void forEachKept(const std::function<void(Value, Value)> &body) {
      Value n = cast(min(counts(1), C), DType::index);
      k.serial(0, n, [&](Value c0) {
        Value c = c0 + tid;
        body(c < n, kept(min(c, n - 1)));
      }, NT);
    }

    // The inclusive sum of x over the lanes up to this one.
    Value scanWarp(Value x) {
      Value incl = x;
      for (int d = 1; d < 32; d *= 2)
        incl = select(lane32 >= d, incl + warpShuffleUp(incl, d), incl);
      return incl;
    }
    // The bin of histogram h where the count from the top reaches `need`
    // (>= 1; bins below `skip` count as empty): found = (bin, entries above
    // it, entries in it, the histogram's total). Each thread sums its `per`
    // bins; then warp 0 alone searches: lane l takes the 64 bins
    // [kBins - 64 (l + 1), kBins - 64 l) (lane 0 the top ones) through the
    // sums of their threads, a scan of the lanes' totals and a ballot find the
    // lane holding the bin, a scan of that lane's 32 pairs of bins the pair.
    // With `clear`, each thread zeroes its bins at the end. Two barriers;
    // returns the total (found is meaningful where it is at least `need`).
    Value findBin(Value h, Value need, int skip, bool clear) {
      constexpr int PL = kBins / 32;
      const int q = NT / 32; // threads' sums per lane
      Value mine = constant(0, DType::i32);
      for (int r = 0; r < per; ++r) {
        Value n = hist(h, tid32 * per + r);
        if (r < skip)
          n = select(tid32 * per + r < skip, constant(0, DType::i32), n);
        mine = mine + n;
      }
      partial(tid32) = mine;
      k.barrier();
      k.if_(tid32 < 32, [&] {
        Value sum = constant(0, DType::i32);
        for (int i = 0; i < q; ++i)
          sum = sum + partial(NT - q * (lane32 + 1) + i);
        Value incl = scanWarp(sum);
        Value total = warpShuffle(incl, 31);
        Value L = min(countTrailingZeros(warpBallot(incl >= need)), 31);
        Value aboveL = warpShuffle(incl - sum, L);
        Value hiBin = kBins - 1 - PL * L - 2 * lane32, loBin = hiBin - 1;
        auto binAt = [&](Value bin) {
          Value n = hist(h, bin);
          return skip ? select(bin < skip, constant(0, DType::i32), n) : n;
        };
        Value c1 = binAt(hiBin), c0 = binAt(loBin), pair = c1 + c0;
        Value incl2 = aboveL + scanWarp(pair);
        Value J = min(countTrailingZeros(warpBallot(incl2 >= need)), 31);
        k.if_(lane32 == J, [&] {
          Value acc = incl2 - pair, inHi = acc + c1 >= need;
          found(0) = select(inHi, hiBin, loBin);
          found(1) = select(inHi, acc, acc + c1);
          found(2) = select(inHi, c1, c0);
        });
        k.if_(lane32 == 0, [&] { found(3) = total; });
      });
      k.barrier();
      if (clear)
        for (int r = 0; r < per; ++r)
          hist(h, tid32 * per + r) = 0;
      return Value(found(3));
    }

    // Rows longer than regs x threads: two reads of the row (the first
    // digit's histogram, then the entries above its bin written out and the
    // bin's keys kept), then the later digits on the kept keys.
    void twoReads(const Var &count) {
      k.parallel(0, 2 * kBins, [&](Value i) { hist(i / kBins, i % kBins) = 0; });
      k.if_(tid == 0, [&] {
        counts(0) = 0;
        counts(1) = 0;
      });
      k.barrier();
      // 1. The top digit of every entry, straight from the value's bits.
      Value takeAll = hi - lo <= K;
      k.if_(!takeAll, [&] {
        forEachInRow([&](Value valid, Value, Value v) {
          k.if_(valid, [&] { atomicAdd(hist(0, (orderedBits(v) >> 21) & (kBins - 1)), 1); });
        });
      });
      k.barrier();

      Var pass = k.var(DType::index, 0), need = k.var(cast(K, DType::i32));
      Var mask = k.var(DType::i64, 0), prefix = k.var(DType::i64, 0);
      Var finished = k.var(DType::i1, false), overflow = k.var(DType::i1, false);
      k.while_([&] { return !finished; }, [&] {
        Value h = pass % 2;
        auto at = digitAt(pass), next = digitAt(pass + 1);
        // 2. The bin (of this digit, among keys with the digits found so
        //    far) where the count reaches `need`; bin -1 takes every entry.
        Var bin = k.var(DType::i64, -1), last = k.var(DType::i1, true);
        k.if_(pass > 0 || !takeAll, [&] {
          Value total = findBin(h, need, 0, true);
          k.if_(pass > 0 || total > need, [&] {
            Value rest = need - found(1);
            bin = cast(found(0), DType::i64);
            last = found(2) == rest;
            need = rest;
          });
        });
        // 3. Entries above the bin are in; the bin's are in if it is the
        //    last, else counted by their next digit (and, in the first
        //    pass, kept). The first pass needs only the value's bits.
        k.if_(pass == 0, [&] { firstPassRead(bin, last); }, [&] {
          auto consider = [&](Value valid, Value key, Value t, Value v) {
            Value mine = valid && (key & mask) == prefix;
            Value d = digit(key, at);
            emit(mine && (d > bin || (last && d == bin)), t, v, [&] { return key; });
            Value inBin = mine && !last && d == bin;
            k.if_(inBin, [&] { atomicAdd(hist(1 - h, digit(key, next)), 1); });
          };
          k.if_(overflow, [&] {
            forEachInRow([&](Value valid, Value t, Value v) {
              consider(valid, keyOf(v, t), t, v);
            });
          }, [&] {
            forEachKept([&](Value valid, Value key) {
              consider(valid, key, indexOf(key), valueOf(key));
            });
          });
        });
        k.barrier();
        // 4. The digit found joins the prefix; the next pass looks inside it.
        k.if_(pass == 0, [&] { overflow = counts(1) > C; });
        mask = mask | (((1ll << at.second) - 1) << at.first);
        prefix = prefix | (bin << at.first);
        pass = pass + 1;
        finished = last;
      });

      count = cast(counts(0), DType::index);
    }
    // Step 3 of the first pass: the row read again, its top digit compared
    // with the bin's; the bin's keys kept and counted by their second digit.
    void firstPassRead(const Var &bin, const Var &last) {
      Value bin0 = cast(bin, DType::i32);
      forEachInRow([&](Value valid, Value t, Value v) {
        Value bits = orderedBits(v), d = (bits >> 21) & (kBins - 1);
        emit(valid && (d > bin0 || (last && d == bin0)), t, v, [&] { return keyOf(v, t); });
        k.if_(valid && !last && d == bin0, [&] {
          Value slot = atomicAdd(counts(1), 1);
          k.if_(slot < C, [&] { kept(slot) = keyOf(v, t); });
          atomicAdd(hist(1, (bits >> 10) & (kBins - 1)), 1);
        });
      });
    }

    // Rows of at most regs x threads entries: one read, every load of a
    // thread issued at once (entry lo + u * NT + tid in register u), then
    // each digit's histogram from the registers. Keys are 32-bit words: the
    // value's bits made order-preserving as signed integers (the magnitude
    // bits of negatives flipped). Entries that do not count (-inf, NaN, past
    // the window) all get -inf's key, 0x807FFFFF; every other key is at
    // least kLeast = 0x80800000 (-FLT_MAX's). The index
    // only enters where values tie: as S_kv - 1 - t, computed where needed.
    // The digits find the k-th largest key (theta; its index part thetaLo
    // where values tie, else 0); one sweep of the registers writes out every
    // key at or above it (exactly k), each thread at places found by a warp
    // scan of its count and one atomic add per warp.
    void inRegisters(const int R) {
      std::vector<Value> keys = loadKeys(R);
      // theta: every counting key when at most k count.
      Var thetaHi = k.var(DType::i32, kLeast), thetaLo = k.var(DType::i32, 0);
      Value K32 = cast(K, DType::i32);
      k.if_(hi - lo > K, [&] { searchTheta(keys, K32, thetaHi, thetaLo); });
      writeAtOrAbove(keys, thetaHi, thetaLo);
    }
    // The thread's R entries of the row as keys.
    std::vector<Value> loadKeys(const int R) {
      Value left = cast(hi - lo, DType::i32) - tid32; // entry u is there iff left > u * NT
      std::vector<Value> loaded;
      for (int u = 0; u < R; ++u) {
        Var v = k.var(negInf());
        k.if_(left > u * NT, [&] { v = row(lo + u * NT + tid); });
        loaded.push_back(v);
      }
      // While the loads are in flight: clear the histograms and the counter.
      for (int h = 0; h < 2; ++h)
        for (int r = 0; r < per; ++r)
          hist(h, tid32 * per + r) = 0;
      k.if_(tid32 == 0, [&] {
        counts(0) = 0;
        counts(1) = cast(T - 1 - lo, DType::i32);
        counts(2) = bitcast(negInf(), DType::i32);
      });
      k.barrier();
      // NaN made -inf (maxNum drops it), then -0 made +0 (the two tie). The
      // -inf comes from shared memory, read after the barrier: with a
      // constant the compiler would fold the keys into the loads' branches
      // or move them before the barrier, and ptxas would then wait for loads
      // before issuing the rest.
      Value ninf = bitcast(counts(2), DType::f32);
      std::vector<Value> keys;
      for (int u = 0; u < R; ++u) {
        Value b = bitcast(maxNum(loaded[u], ninf) + 0.0, DType::i32);
        keys.push_back(b ^ ((b >> 31) & INT32_MAX));
      }
      return keys;
    }

    // Steps 1-3 on the registers (a row of more than k entries): theta's
    // digits, each from a histogram of the keys matching those found before.
    void searchTheta(const std::vector<Value> &keys, Value K32, const Var &thetaHi,
                     const Var &thetaLo) {
      const int R = int(keys.size());
      const int32_t kHalf = kBins / 2;
      // 1. The top digit of every key (11 bits; entries that do not count
      //    land in bin 3, which the search skips with the empty 0-2): no
      //    predicate.
      for (int u = 0; u < R; ++u)
        atomicAdd(hist(0, (keys[u] >> 21) + kHalf), 1);
      k.barrier();
      Value total = findBin(constant(0, DType::i32), K32, 4, false);
      k.if_(total > K32, [&] {
        // The digits found so far: the key's top bits (maskHi) are
        // prefixHi; then, where values tie, the top bits of S_kv - 1 - t
        // (maskLo) are prefixLo. The bin found holds exactly the entries
        // still missing when `last`.
        Var need = k.var(K32 - found(1));
        Var maskHi = k.var(DType::i32, int32_t(0xFFE00000u));
        Var prefixHi = k.var((found(0) - kHalf) << 21);
        Var maskLo = k.var(DType::i32, 0), prefixLo = k.var(DType::i32, 0);
        Var last = k.var(found(2) == need);
        secondDigit(keys, need, maskHi, prefixHi, last);
        laterDigits(keys, need, maskHi, prefixHi, maskLo, prefixLo, last);
        thetaHi = prefixHi;
        thetaLo = prefixLo;
      });
    }
    // 2. The next 11 bits of the keys in the bin: d = key >> 10 minus
    //    the bin's is in [0, kBins) in the bin, else (unsigned) above:
    //    counted in the spare word kBins, again without a predicate.
    void secondDigit(const std::vector<Value> &keys, const Var &need, const Var &maskHi,
                     const Var &prefixHi, const Var &last) {
      const int R = int(keys.size());
      k.if_(!last, [&] {
        Value base = Value(prefixHi) >> 10;
        for (int u = 0; u < R; ++u) {
          Value d = (keys[u] >> 10) - base;
          Value bin = select((d ^ INT32_MIN) < (kBins ^ INT32_MIN), d, kBins);
          atomicAdd(hist(1, bin), 1);
        }
        k.barrier();
        findBin(constant(1, DType::i32), need, 0, false);
        Value rest = need - found(1);
        maskHi = int32_t(0xFFFFFC00u);
        prefixHi = prefixHi | (found(0) << 10);
        last = found(2) == rest;
        need = rest;
      });
    }
    // 3. Rarely (many keys alike): the value's last 10 bits, then 11 at
    //    a time of S_kv - 1 - t where values tie, over the keys matching
    //    the digits found so far.
    void laterDigits(const std::vector<Value> &keys, const Var &need, const Var &maskHi,
                     const Var &prefixHi, const Var &maskLo, const Var &prefixLo,
                     const Var &last) {
      const int R = int(keys.size());
      auto place = [&](std::pair<Value, Value> at) {
        Value high = at.first >= 32;
        Value shift = cast(select(high, at.first - 32, at.first), DType::i32);
        Value field = cast((Arg(int64_t(1)) << at.second) - 1, DType::i32);
        return std::tuple{high, shift, field};
      };
      Var pass = k.var(DType::index, 2);
      k.while_([&] { return !last; }, [&] {
        Value h = cast(pass % 2, DType::i32);
        for (int r = 0; r < per; ++r)
          hist(h, tid32 * per + r) = 0;
        k.barrier();
        auto [high, shift, field] = place(digitAt(pass));
        k.if_(high, [&] {
          for (int u = 0; u < R; ++u)
            k.if_((keys[u] & maskHi) == prefixHi,
                  [&] { atomicAdd(hist(h, (keys[u] >> shift) & field), 1); });
        }, [&] {
          // S_kv - 1 - t from a shared word read here: the compiler
          // would otherwise hoist the R low words out of the loop and
          // keep them in registers (spilling).
          Value lowBase = counts(1) - tid32;
          for (int u = 0; u < R; ++u) {
            Value low = lowBase - u * NT;
            k.if_(keys[u] == prefixHi && (low & maskLo) == prefixLo,
                  [&] { atomicAdd(hist(h, (low >> shift) & field), 1); });
          }
        });
        k.barrier();
        findBin(h, need, 0, false);
        Value rest = need - found(1), bin = found(0);
        k.if_(high, [&] {
          maskHi = maskHi | (field << shift);
          prefixHi = prefixHi | (bin << shift);
        }, [&] {
          maskLo = maskLo | (field << shift);
          prefixLo = prefixLo | (bin << shift);
        });
        last = found(2) == rest;
        need = rest;
        pass = pass + 1;
      });
    }

    // 4. Every key at or above theta: a key above thetaHi, or equal to it
    //    with S_kv - 1 - t at or above thetaLo (where thetaLo is 0, every
    //    key equal to thetaHi). A thread marks its keys out in a bit mask
    //    and takes places for them by an atomic add of its count (one a
    //    warp, after ptxas). Then a loop over the mask's bits (as many
    //    turns as the warp's most out keys in one thread), or, where more
    //    is out, a predicated write per register at places in warp order
    //    (a ballot a register; scores read again).
    void writeAtOrAbove(const std::vector<Value> &keys, const Var &thetaHi,
                        const Var &thetaLo) {
      // Indices alone: the loop where at most a quarter of the row is out
      // (its turns, the most out keys of a thread in the warp, are then
      // fewer than the registers' predicated writes cost), else the writes.
      const bool indicesAlone = !g.sorted.get() && !g.withScores.get();
      k.if_(thetaLo == 0, [&] {
        auto atOrAbove = [&](int u) { return keys[u] >= thetaHi; };
        if (indicesAlone)
          k.if_(4 * K < hi - lo, [&] { sweep(keys, atOrAbove, true); },
                [&] { sweep(keys, atOrAbove, false); });
        else
          sweep(keys, atOrAbove, false);
      }, [&] {
        Value lowBase = counts(1) - tid32;
        sweep(keys, [&](int u) {
          return keys[u] > thetaHi || (keys[u] == thetaHi && lowBase - u * NT >= thetaLo);
        }, indicesAlone);
      });
    }
    // Writes out the keys isOut marks: by the loop over the mask's bits, or
    // by a write per register.
    void sweep(const std::vector<Value> &keys, const std::function<Value(int)> &isOut,
               bool byLoop) {
      const int R = int(keys.size());
      const DType maskType = R <= 32 ? DType::i32 : DType::i64;
      Value t0 = cast(lo + tid, DType::i32);
      // The thread's out keys, bit u for register u.
      Value m = constant(0, maskType);
      for (int u = 0; u < R; ++u)
        m = select(isOut(u), m | (int64_t(1) << u), m);
      if (byLoop)
        writeByLoop(m, t0);
      else if (!g.warpOrder.get())
        writeInThreadOrder(keys, m, t0);
      else
        writeInWarpOrder(keys, m, t0);
    }
    // Register u's entry (or its sort key) and score at place `slot`.
    void placeRegister(const std::vector<Value> &keys, Value t0, Value slot, int u) {
      Value t = t0 + u * NT;
      if (g.sorted) {
        sortBuf(slot) = (cast(keys[u] ^ INT32_MIN, DType::i64) << 32) |
                        cast(cast(T - 1, DType::i32) - t, DType::i64);
      } else {
        outIndex(slot) = t;
        // Read again (from L2): the compiler would otherwise keep the
        // loaded values beside the keys, in twice the registers.
        if (g.withScores)
          outScore(slot) = row(lo + u * NT + tid);
      }
    }
    void writeByLoop(Value m, Value t0) {
      // ptxas turns the warp's adds to one word into one atomic add and
      // a scan (by predicated shuffles) of the lanes' counts.
      Value first = atomicAdd(counts(0), cast(popcount(m), DType::i32));
      Var bitsLeft = k.var(m), j = k.var(DType::i32, 0);
      k.while_([&] { return bitsLeft != 0; }, [&] {
        Value u = cast(countTrailingZeros(bitsLeft), DType::i32);
        outIndex(first + j) = t0 + u * NT;
        bitsLeft = bitsLeft & (bitsLeft - 1);
        j = j + 1;
      });
    }
    // v3: each thread's places adjacent, from one atomic add a warp.
    void writeInThreadOrder(const std::vector<Value> &keys, Value m, Value t0) {
      const int R = int(keys.size());
      Var slot = k.var(atomicAdd(counts(0), cast(popcount(m), DType::i32)));
      for (int u = 0; u < R; ++u) {
        Value out = (m & (int64_t(1) << u)) != 0;
        k.if_(out, [&] { placeRegister(keys, t0, slot, u); });
        slot = slot + select(out, constant(1, DType::i32), 0);
      }
    }
    // By register, the warp's places in lane order: register u's out
    // keys of the warp (a ballot) take the next popcount(ballot) places,
    // lane l the one after those of the lanes below it, so a warp's
    // writes of one register are adjacent words. (A thread's own places
    // in a row, as the loop takes them, are ~8 words apart from the next
    // lane's at k = n / 2 on 256 x 16: each write touched as many
    // sectors as lanes, and k = 2048 took 283 us against 125 at 512.)
    void writeInWarpOrder(const std::vector<Value> &keys, Value m, Value t0) {
      const int R = int(keys.size());
      // The warp's places: the sum of its lanes' counts, added once by
      // lane 0. (Each lane's out keys go to a bit mask first, so the keys
      // die before the writes: the ballots and their counts kept beside
      // them spilled with scores.)
      Value total = cast(popcount(m), DType::i32);
      for (int d = 16; d >= 1; d /= 2)
        total = total + warpShuffleXor(total, d);
      Value below = (constant(1, DType::i32) << lane32) - 1;
      Var warpFirst = k.var(DType::i32, 0);
      k.if_(lane32 == 0, [&] { warpFirst = atomicAdd(counts(0), total); });
      Var base = k.var(warpShuffle(warpFirst, 0));
      for (int u = 0; u < R; ++u) {
        Value out = (m & (int64_t(1) << u)) != 0;
        Value ballot = warpBallot(out);
        Value slot = base + cast(popcount(ballot & below), DType::i32);
        k.if_(out, [&] { placeRegister(keys, t0, slot, u); });
        base = base + cast(popcount(ballot), DType::i32);
      }
    }

    // Bitonic sort of the keys, padded with 0 (below every key) to a
    // power of two, descending.
    void sortKeys(Value count) {
      Value n = select(count <= 1, constant(1, DType::index),
                       Arg(1) << (64 - cast(countLeadingZeros(cast(count - 1, DType::i64)),
                                            DType::index)));
      Value logN = 63 - cast(countLeadingZeros(cast(n, DType::i64)), DType::index);
      k.parallel(count, n, [&](Value i) { sortBuf(i) = 0; });
      k.barrier();
      k.serial(1, logN + 1, [&](Value e) {
        k.serial(0, e, [&](Value f) {
          Value stride = Arg(1) << (e - 1 - f);
          k.parallel(0, n / 2, [&](Value q) {
            Value i = 2 * q - (q & (stride - 1)), j = i + stride;
            Value x = sortBuf(i), y = sortBuf(j);
            // Keys compare as unsigned: flip the sign bits.
            Value xBelowY = (x ^ INT64_MIN) < (y ^ INT64_MIN);
            Value descending = (i & (Arg(1) << e)) == 0;
            k.if_(xBelowY == descending, [&] {
              sortBuf(i) = y;
              sortBuf(j) = x;
            });
          });
          k.barrier();
        });
      });
    }
    // The sorted keys' indices (and scores), then -1 (and -inf) to k.
    void writeSorted(Value count) {
      k.parallel(0, K, [&](Value j) {
        k.if_(j < count, [&] {
          Value key = sortBuf(j);
          outIndex(j) = cast(indexOf(key), DType::i32);
          if (g.withScores)
            outScore(j) = valueOf(key);
        }, [&] {
          outIndex(j) = -1;
          if (g.withScores)
            outScore(j) = negInf();
        });
      });
    }
    // Unsorted, the entries are in place: -1 (and -inf) after them to k.
    void padUnsorted(Value count) {
      k.parallel(count, K, [&](Value j) {
        outIndex(j) = -1;
        if (g.withScores)
          outScore(j) = negInf();
      });
    }
  };

  static int nextPowerOfTwo(int v) {
    int p = 1;
    while (p < v)
      p *= 2;
    return p;
  }
};

using SingleTopK = TopK<false>;
using BatchedTopK = TopK<true>;

} // namespace

MINITILE_KERNEL(SingleTopK, "topk",
                "indices [S, k] of the k largest logits [S, S_kv] of each row (ties to the "
                "lower index; -1 past the entries > -inf)");
MINITILE_KERNEL(BatchedTopK, "batched_topk",
                "topk over B batches: logits [B, S, S_kv] -> indices [B, S, k]");
