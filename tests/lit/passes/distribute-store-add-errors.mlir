// RUN: minitile-opt %s -split-input-file --tile-assign-layouts --tile-distribute-fragments -verify-diagnostics
// A store into gathered rows reads the index tensor's size: one chosen at
// run time (by tile.if) has none here, and is an error rather than a crash.

tile.kernel @k(%o: !tile.ptr<f32>, %i: !tile.ptr<i32>, %n: index, %odd: i1) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %ov = tile.view %o sizes(%n) strides(%c64) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  %a = tile.view %i sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  %b = tile.view %i[%c64] sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  %r = tile.if %odd -> (!tile.tensor<?xi32>) {
    tile.yield %b : !tile.tensor<?xi32>
  } else {
    tile.yield %a : !tile.tensor<?xi32>
  }
  %x = arith.constant dense<1.0> : tensor<16x64xf32>
  // expected-error@+1 {{writes rows picked by an index tensor that is not a tile.view (or a slice of one), whose sizes are unknown here}}
  tile.store_tile add %x, %ov[%c0, %c0] rows %r : !tile.tensor<?xi32> [%c0] : tensor<16x64xf32>, !tile.tensor<?x64xf32>
  tile.return
}
