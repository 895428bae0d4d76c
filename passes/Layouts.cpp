//===- Layouts.cpp - making and transforming fragment layouts -------------===//
#include "passes/Layouts.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace minitile::tile {

namespace {

using Basis = SmallVector<int64_t>;

/// A layout's bases, one vector per register, lane and warp bit.
struct Bases {
  unsigned rank = 0;
  SmallVector<Basis> reg, lane, warp;

  static Bases of(FragLayoutAttr layout) {
    Bases b;
    b.rank = layout.getRank();
    for (unsigned i = 0; i < layout.getNumRegBits(); ++i)
      b.reg.push_back(Basis(layout.regBasis(i)));
    for (unsigned i = 0; i < 5; ++i)
      b.lane.push_back(Basis(layout.laneBasis(i)));
    for (unsigned i = 0; i < layout.getNumWarpBits(); ++i)
      b.warp.push_back(Basis(layout.warpBasis(i)));
    return b;
  }

  FragLayoutAttr attr(MLIRContext *ctx) const {
    SmallVector<int64_t> r, l, w;
    for (const Basis &v : reg)
      r.append(v);
    for (const Basis &v : lane)
      l.append(v);
    for (const Basis &v : warp)
      w.append(v);
    return FragLayoutAttr::get(ctx, rank, r, l, w);
  }

  /// Applies `f` to every basis vector.
  template <class F> void transform(F &&f) {
    for (SmallVector<Basis> *group : {&reg, &lane, &warp})
      for (Basis &v : *group)
        v = f(v);
  }
};

Basis unit(unsigned rank, unsigned dim, int64_t value) {
  Basis v(rank, 0);
  v[dim] = value;
  return v;
}

/// Number of coordinate bits below dimension `dim` in row-major order.
int64_t bitsBelow(ArrayRef<int64_t> shape, unsigned dim) {
  int64_t bits = 0;
  for (unsigned d = dim + 1; d < shape.size(); ++d)
    bits += llvm::Log2_64(shape[d]);
  return bits;
}

} // namespace

FragLayoutAttr wgmmaAccumulatorLayout(MLIRContext *ctx, int64_t M, int64_t N,
                                      int64_t warps) {
  Bases b;
  b.rank = 2;
  // Registers: column bit 0, row bit 3, then the column's 8-wide groups.
  b.reg = {unit(2, 1, 1), unit(2, 0, 8)};
  for (int64_t c = 8; c < N; c *= 2)
    b.reg.push_back(unit(2, 1, c));
  // Lanes: columns 2 and 4 within a quad, rows 0..7 across the 8 quads.
  b.lane = {unit(2, 1, 2), unit(2, 1, 4), unit(2, 0, 1), unit(2, 0, 2), unit(2, 0, 4)};
  // Warps: 16 rows each; four make a warpgroup's 64.
  for (int64_t r = 16; r < M && int64_t(b.warp.size()) < llvm::Log2_64(warps); r *= 2)
    b.warp.push_back(unit(2, 0, r));
  return b.attr(ctx);
}

FragLayoutAttr wgmmaOperandALayout(MLIRContext *ctx, int64_t M, int64_t K, int64_t warps) {
  // PTX's figure for the m64nNk16 A fragment: thread (lane l, warp w) holds
  // rows 16 w + l / 4 (+ 8) and columns 2 (l % 4) (+ 1) (+ 8) of each
  // k-step -- the accumulator's placement of a 16-column slice.
  return wgmmaAccumulatorLayout(ctx, M, K, warps);
}

FragLayoutAttr blockedLayout(MLIRContext *ctx, ArrayRef<int64_t> shape,
                             int64_t elementBytes, int64_t warps) {
  unsigned rank = shape.size();
  // Coordinate bits in row-major order, least significant first.
  SmallVector<Basis> bits;
  for (int d = rank - 1; d >= 0; --d)
    for (int64_t v = 1; v < shape[d]; v *= 2)
      bits.push_back(unit(rank, d, v));
  Bases b;
  b.rank = rank;
  size_t next = 0;
  auto take = [&](size_t count, SmallVector<Basis> &into, bool pad) {
    for (size_t i = 0; i < count; ++i) {
      if (next < bits.size())
        into.push_back(bits[next++]);
      else if (pad)
        into.push_back(Basis(rank, 0));
    }
  };
  take(llvm::Log2_64(std::max<int64_t>(1, 16 / elementBytes)), b.reg, false);
  take(5, b.lane, true);
  take(llvm::Log2_64(warps), b.warp, true);
  take(bits.size(), b.reg, false);
  return b.attr(ctx);
}

FragLayoutAttr reshapeLayout(FragLayoutAttr layout, ArrayRef<int64_t> from,
                             ArrayRef<int64_t> to) {
  Bases b = Bases::of(layout);
  b.transform([&](const Basis &v) {
    Basis out(to.size(), 0);
    for (unsigned d = 0; d < v.size(); ++d) {
      if (!v[d])
        continue;
      int64_t pos = llvm::Log2_64(v[d]) + bitsBelow(from, d);
      for (unsigned e = 0; e < to.size(); ++e) {
        int64_t low = bitsBelow(to, e);
        if (pos >= low && pos < low + int64_t(llvm::Log2_64(to[e])))
          out[e] = int64_t(1) << (pos - low);
      }
    }
    return out;
  });
  b.rank = to.size();
  return b.attr(layout.getContext());
}

FragLayoutAttr transposeLayout(FragLayoutAttr layout, ArrayRef<int64_t> perm) {
  Bases b = Bases::of(layout);
  b.transform([&](const Basis &v) {
    Basis out(v.size());
    for (unsigned i = 0; i < perm.size(); ++i)
      out[i] = v[perm[i]];
    return out;
  });
  return b.attr(layout.getContext());
}

FragLayoutAttr untransposeLayout(FragLayoutAttr layout, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inverse(perm.size());
  for (unsigned i = 0; i < perm.size(); ++i)
    inverse[perm[i]] = i;
  return transposeLayout(layout, inverse);
}

FragLayoutAttr reduceLayout(FragLayoutAttr layout, int64_t axis) {
  Bases b = Bases::of(layout);
  unsigned rank = b.rank;
  auto drop = [&](const Basis &v) {
    Basis out;
    for (unsigned d = 0; d < rank; ++d)
      if (d != axis)
        out.push_back(v[d]);
    if (out.empty())
      out.push_back(0);
    return out;
  };
  SmallVector<Basis> reg;
  for (const Basis &v : b.reg)
    if (!v[axis])
      reg.push_back(drop(v));
  b.reg = reg;
  for (SmallVector<Basis> *group : {&b.lane, &b.warp})
    for (Basis &v : *group)
      v = drop(v);
  b.rank = std::max(1u, rank - 1);
  return b.attr(layout.getContext());
}

FragLayoutAttr broadcastSourceLayout(FragLayoutAttr layout, ArrayRef<int64_t> dims) {
  if (dims.empty())
    return nullptr;
  Bases b = Bases::of(layout);
  auto repeated = [&](const Basis &v) {
    for (unsigned d = 0; d < v.size(); ++d)
      if (v[d] && !llvm::is_contained(dims, int64_t(d)))
        return true;
    return false;
  };
  // Registers along a repeated dimension go; lanes and warps along one hold
  // copies.
  llvm::erase_if(b.reg, repeated);
  b.transform([&](const Basis &v) {
    if (repeated(v))
      return Basis(dims.size(), 0);
    Basis out(dims.size(), 0);
    for (unsigned i = 0; i < dims.size(); ++i)
      out[i] = v[dims[i]];
    return out;
  });
  b.rank = dims.size();
  return b.attr(layout.getContext());
}

FragLayoutAttr compactReduceLayout(FragLayoutAttr layout, int64_t axis) {
  Bases src = Bases::of(layout);
  Bases b = Bases::of(reduceLayout(layout, axis));
  // Each lane bit along the axis, in order, takes the first register bit
  // left (the order tile-distribute-fragments' reduce-scatter keeps).
  for (unsigned bit = 0; bit < 5; ++bit) {
    if (!src.lane[bit][axis])
      continue;
    auto first = llvm::find_if(b.reg, [](const Basis &v) {
      return llvm::any_of(v, [](int64_t x) { return x != 0; });
    });
    if (first == b.reg.end())
      break;
    b.lane[bit] = *first;
    b.reg.erase(first);
  }
  return b.attr(layout.getContext());
}

RankedTensorType withLayout(RankedTensorType type, FragLayoutAttr layout) {
  return RankedTensorType::get(type.getShape(), type.getElementType(), layout);
}

FragLayoutAttr layoutOf(Type type) {
  auto t = llvm::dyn_cast<RankedTensorType>(type);
  return t ? llvm::dyn_cast_or_null<FragLayoutAttr>(t.getEncoding()) : nullptr;
}

} // namespace minitile::tile
