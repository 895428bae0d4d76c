// RUN: minitile-opt %s -split-input-file -verify-diagnostics
// Each error of the verifiers of the ops on global tensors and shared tiles
// (dialect/TileOps.cpp) that tests/lit/dialect/invalid.mlir does not hold.

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x8xf32>
  // expected-error@+1 {{'tile.slice' op fixes dimension 1 of a rank-2 tensor; it can fix any but the innermost}}
  %s = tile.slice %v dim 1 at %n : !tile.tensor<?x8xf32> -> !tile.tensor<?xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x8xf32>
  // expected-error@+1 {{'tile.slice' op the result is '!tile.tensor<?x8xf32>' without dimension 0}}
  %s = tile.slice %v dim 0 at %n : !tile.tensor<?x8xf32> -> !tile.tensor<4xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  %c = arith.constant dense<1.0> : vector<2x2xf32>
  // expected-error@+1 {{'tile.store' op accesses a 1-D fixed vector, not 'vector<2x2xf32>'}}
  tile.store %c, %v[%n] : vector<2x2xf32>, !tile.tensor<?xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  // expected-error@+1 {{'tile.elems_to_aligned' op bytes is a positive power of two, not 12}}
  %gap = tile.elems_to_aligned %v[%n] bytes 12 : !tile.tensor<?xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x8xf32>
  // expected-error@+1 {{'tile.fill_async' op fills a rank-1 tensor, not '!tile.tensor<?x8xf32>'}}
  tile.fill_async %v[%n to %n] with 0.0 : f32 : !tile.tensor<?x8xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  // expected-error@+1 {{'tile.fill_async' op fills '!tile.tensor<?xf32>' with a 'i32' value}}
  tile.fill_async %v[%n to %n] with 0 : i32 : !tile.tensor<?xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<i24>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<i24> -> !tile.tensor<?xi24>
  // expected-error@+1 {{'tile.fill_async' op fills elements of 1, 2, 4, 8 or 16 bytes, not 3}}
  tile.fill_async %v[%n to %n] with 0 : i24 : !tile.tensor<?xi24>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  tile.parallel %i = %c0 to %n step %c1 {
    // expected-error@+1 {{'tile.fill_async' op is issued once by the block, so every thread reaches it; it is inside 'tile.parallel', whose iterations the threads share}}
    tile.fill_async %v[%i to %n] with 0.0 : f32 : !tile.tensor<?xf32>
  }
  tile.return
}

// -----

tile.kernel @k(%t: !tile.shared<64xf32>, %i: index) attributes {block = array<i32: 32, 1, 1>} {
  // expected-error@+1 {{'tile.shared_load' op vector accesses are 2, 4, 8 or 16 bytes, not 'vector<8xf32>'}}
  %o = tile.shared_load %t[%i, %i] : !tile.shared<64xf32> -> vector<8xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16>
  // expected-error@+1 {{'tile.copy' op box has 1 extents for a rank-2 tensor}}
  tile.copy %v[%n, %n] to %a box [64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16>
  // expected-error@+1 {{'tile.copy' op indexes a rank-2 tensor with 1 indices}}
  tile.copy %v[%n] to %a box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16>
  // expected-error@+1 {{'tile.copy' op copies 'f32' into a tile of 'bf16'}}
  tile.copy %v[%n, %n] to %a box [64, 64] : !tile.tensor<?x64xf32>, !tile.shared<64x64xbf16>
  tile.return
}
