// RUN: minitile-opt %s -split-input-file --convert-tile-to-llvm -verify-diagnostics
// Ops an earlier tile pass lowers are reported at each, naming that pass; so
// are kernel arguments no LLVM type holds.

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  // expected-error@+1 {{'tile.parallel' op must be lowered by tile-distribute-parallel before convert-tile-to-llvm}}
  tile.parallel %i = %c0 to %n step %c1 {
    tile.store %zero, %v[%i] : f32, !tile.tensor<?xf32>
  }
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %p sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  // expected-error@+1 {{'tile.pipelined' op must be lowered by tile-warp-specialize before convert-tile-to-llvm}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    // expected-error@+1 {{'tile.alloc_shared' op must be lowered by tile-plan-shared before convert-tile-to-llvm}}
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    // expected-error@+1 {{'tile.copy' op must be lowered by tile-lower-copies before convert-tile-to-llvm}}
    tile.copy %v[%i, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  }
  tile.return
}

// -----

tile.kernel @k(%n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'tile.alloc_shared' op must be lowered by tile-plan-shared before convert-tile-to-llvm}}
  %ring = tile.alloc_shared {stages = 2 : i64} : !tile.shared<64x64xbf16, swizzle = 128>
  // expected-error@+1 {{'tile.stage' op must be lowered by tile-plan-shared before convert-tile-to-llvm}}
  %s = tile.stage %ring[%c0] : !tile.shared<64x64xbf16, swizzle = 128>
  tile.return
}

// -----

// Fragments: tile ops and arith alike.
tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'arith.constant' op holds fragments, which tile-distribute-fragments must lower before convert-tile-to-llvm}}
  %x = arith.constant dense<1.0> : tensor<64x64xf32>
  // expected-error@+1 {{'tile.reduce' op holds fragments, which tile-distribute-fragments must lower before convert-tile-to-llvm}}
  %s = tile.reduce sum %x axis 1 : tensor<64x64xf32> -> tensor<64xf32>
  tile.return
}

// -----

// expected-error@+1 {{'tile.kernel' op argument 1 is 'tensor<4xf32>', which no LLVM type holds}}
tile.kernel @k(%n: index, %t: tensor<4xf32>) attributes {block = array<i32: 128, 1, 1>} {
  tile.return
}
