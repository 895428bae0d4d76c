// RUN: minitile-opt %s -split-input-file --tile-lower-copies -verify-diagnostics
// A copy's bounds come from its view's sizes: a tensor chosen at run time by
// tile.if has none, and is an error rather than a crash (the fuzzer's find
// on a warp-specialize input run through the whole pipeline).

tile.kernel @k(%kv: !tile.ptr<bf16>, %n: index, %odd: i1) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %a = tile.view %kv sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %b = tile.view %kv[%c64] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %v = tile.if %odd -> (!tile.tensor<?x64xbf16>) {
    tile.yield %b : !tile.tensor<?x64xbf16>
  } else {
    tile.yield %a : !tile.tensor<?x64xbf16>
  }
  %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  // expected-error@+1 {{copies from a tensor that is not a tile.view (or a slice of one), whose sizes are unknown here}}
  tile.copy %v[%c0, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  tile.return
}

// -----

// So is a gather's index tensor chosen at run time.
tile.kernel @k(%kv: !tile.ptr<bf16>, %i: !tile.ptr<i32>, %n: index, %odd: i1) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %a = tile.view %i sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  %b = tile.view %i[%c64] sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  %r = tile.if %odd -> (!tile.tensor<?xi32>) {
    tile.yield %b : !tile.tensor<?xi32>
  } else {
    tile.yield %a : !tile.tensor<?xi32>
  }
  %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  // expected-error@+1 {{gathers by an index tensor that is not a tile.view (or a slice of one), whose sizes are unknown here}}
  tile.copy %v[%c0, %c0] to %t box [64, 64] rows %r[%c0] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>, !tile.tensor<?xi32>
  tile.return
}
