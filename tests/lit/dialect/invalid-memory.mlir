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

// -----

tile.kernel @k(%p: !tile.ptr<bf16>, %i: !tile.ptr<i32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n, %n) : !tile.ptr<bf16> -> !tile.tensor<?x2x64xbf16>
  %r = tile.view %i sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16>
  // expected-error@+1 {{'tile.copy' op gathers rows of a rank-2 tensor, not of a rank-3 one (slice it first)}}
  tile.copy %v[%n, %n, %n] to %a box [64, 1, 64] rows %r[%n] : !tile.tensor<?x2x64xbf16>, !tile.shared<64x64xbf16>, !tile.tensor<?xi32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<bf16>, %i: !tile.ptr<i64>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %r = tile.view %i sizes(%n) strides() : !tile.ptr<i64> -> !tile.tensor<?xi64>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16>
  // expected-error@+1 {{'tile.copy' op gathers rows by an i32 index tensor, not 'i64'}}
  tile.copy %v[%n, %n] to %a box [64, 64] rows %r[%n] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16>, !tile.tensor<?xi64>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<bf16>, %i: !tile.ptr<i32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %r = tile.view %i sizes(%n, %n) strides(%n) : !tile.ptr<i32> -> !tile.tensor<?x?xi32>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16>
  // expected-error@+1 {{'tile.copy' op indexes its rank-2 rows tensor with 1 indices}}
  tile.copy %v[%n, %n] to %a box [64, 64] rows %r[%n] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16>, !tile.tensor<?x?xi32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16>
  // expected-error@+1 {{'tile.copy' op has row indices but no rows tensor}}
  "tile.copy"(%v, %n, %n, %a, %n) <{box = array<i64: 64, 64>, operandSegmentSizes = array<i32: 1, 2, 1, 0, 1>}> : (!tile.tensor<?x64xbf16>, index, index, !tile.shared<64x64xbf16>, index) -> ()
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  %x = arith.constant dense<1.0> : vector<1xf32>
  // expected-error@+1 {{'tile.store' op adds f32, or vectors of 2 or 4 of them, not 'vector<1xf32>'}}
  tile.store add %x, %v[%n] : vector<1xf32>, !tile.tensor<?xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<i32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  %x = arith.constant 1 : i32
  // expected-error@+1 {{'tile.store' op adds f32, or vectors of 2 or 4 of them, not 'i32'}}
  tile.store add %x, %v[%n] : i32, !tile.tensor<?xi32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<i32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<i32> -> !tile.tensor<?x64xi32>
  %x = arith.constant dense<1> : tensor<16x64xi32>
  // expected-error@+1 {{'tile.store_tile' op adds an f32 fragment, not one of 'i32'}}
  tile.store_tile add %x, %v[%n, %n] : tensor<16x64xi32>, !tile.tensor<?x64xi32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  %x = arith.constant dense<1.0> : tensor<16x64xf32>
  // expected-error@+1 {{'tile.store_tile' op has row indices but no rows tensor}}
  "tile.store_tile"(%x, %v, %n, %n, %n) <{operandSegmentSizes = array<i32: 1, 1, 2, 0, 0, 1>}> : (tensor<16x64xf32>, !tile.tensor<?x64xf32>, index, index, index) -> ()
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %i: !tile.ptr<i32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n, %n) : !tile.ptr<f32> -> !tile.tensor<?x2x64xf32>
  %r = tile.view %i sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  %x = arith.constant dense<1.0> : tensor<16x1x64xf32>
  // expected-error@+1 {{'tile.store_tile' op writes gathered rows of a rank-2 tensor, not of a rank-3 one (slice it first)}}
  tile.store_tile add %x, %v[%n, %n, %n] rows %r : !tile.tensor<?xi32> [%n] : tensor<16x1x64xf32>, !tile.tensor<?x2x64xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %i: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  %r = tile.view %i sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  %x = arith.constant dense<1.0> : tensor<16x64xf32>
  // expected-error@+1 {{'tile.store_tile' op picks rows by an i32 index tensor, not 'f32'}}
  tile.store_tile add %x, %v[%n, %n] rows %r : !tile.tensor<?xf32> [%n] : tensor<16x64xf32>, !tile.tensor<?x64xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %i: !tile.ptr<i32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  %r = tile.view %i sizes(%n, %n) strides(%n) : !tile.ptr<i32> -> !tile.tensor<?x?xi32>
  %x = arith.constant dense<1.0> : tensor<16x64xf32>
  // expected-error@+1 {{'tile.store_tile' op indexes its rank-2 rows tensor with 1 indices}}
  tile.store_tile add %x, %v[%n, %n] rows %r : !tile.tensor<?x?xi32> [%n] : tensor<16x64xf32>, !tile.tensor<?x64xf32>
  tile.return
}
