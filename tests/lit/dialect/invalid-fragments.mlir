// RUN: minitile-opt %s -split-input-file -verify-diagnostics
// Each error of the verifiers of the fragment ops -- gemm, tile loads and
// stores, broadcast, reshape, transpose, reduce, iota (dialect/TileOps.cpp)
// -- that tests/lit/dialect/invalid.mlir does not hold.

tile.kernel @k(%a: !tile.shared<64xbf16>, %b: !tile.shared<64x64xbf16>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.gemm' op multiplies matrices (rank-2 tiles)}}
  %c = tile.gemm %a, %b : !tile.shared<64xbf16>, !tile.shared<64x64xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @k(%a: !tile.shared<64x64xbf16>, %b: !tile.shared<64x32xbf16>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.gemm' op A is 64x64 but B^T is 32x64: the K extents differ}}
  %c = tile.gemm %a, %b {transpose_b} : !tile.shared<64x64xbf16>, !tile.shared<64x32xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @k(%a: !tile.shared<64x64xbf16>, %b: !tile.shared<32x64xbf16>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.gemm' op A is 64x64 but B is 32x64: the K extents differ}}
  %c = tile.gemm %a, %b : !tile.shared<64x64xbf16>, !tile.shared<32x64xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @k(%a: !tile.shared<64x64xbf16>, %b: !tile.shared<32x64xbf16>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.gemm' op the result is [64, 64], not [64, 32]}}
  %c = tile.gemm %a, %b {transpose_b} : !tile.shared<64x64xbf16>, !tile.shared<32x64xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @k(%a: !tile.shared<64x64xbf16>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.gemm' op accumulates in f32, not 'f16'}}
  %c = tile.gemm %a, %a {transpose_b} : !tile.shared<64x64xbf16>, !tile.shared<64x64xbf16> -> tensor<64x64xf16>
  tile.return
}

// -----

tile.kernel @k(%a: !tile.shared<64x64xbf16>, %acc: tensor<64x32xf32>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.gemm' op the accumulator's type differs from the result's}}
  %c = tile.gemm %a, %a, %acc {transpose_b} : !tile.shared<64x64xbf16>, !tile.shared<64x64xbf16>, tensor<64x32xf32> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @k(%a: !tile.shared<64x64xbf16>, %b: !tile.shared<64x64xf16>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.gemm' op A holds 'bf16' but B holds 'f16'}}
  %c = tile.gemm %a, %b {transpose_b} : !tile.shared<64x64xbf16>, !tile.shared<64x64xf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  // expected-error@+1 {{'tile.load_tile' op indexes a rank-2 tensor with 1 indices}}
  %f = tile.load_tile %v[%n] : !tile.tensor<?x64xf32> -> tensor<4x64xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  // expected-error@+1 {{'tile.load_tile' op a rank-1 fragment and a rank-2 tensor}}
  %f = tile.load_tile %v[%n, %n] : !tile.tensor<?x64xf32> -> tensor<64xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index, %f: tensor<4x64xi32>) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  // expected-error@+1 {{'tile.store_tile' op the fragment holds 'i32' but the tensor holds 'f32'}}
  tile.store_tile %f, %v[%n, %n] : tensor<4x64xi32>, !tile.tensor<?x64xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index, %f: tensor<4x64xf32>, %m: tensor<4x64xi8>) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  // expected-error@+1 {{'tile.store_tile' op the mask is an i1 fragment of the value's shape}}
  tile.store_tile %f, %v[%n, %n] mask %m : tensor<4x64xf32>, !tile.tensor<?x64xf32>, tensor<4x64xi8>
  tile.return
}

// -----

tile.kernel @shared_box_rank(%i: index) attributes {block = array<i32: 128, 1, 1>} {
  %s = tile.alloc_shared : !tile.shared<4x64xf32>
  // expected-error@+1 {{'tile.shared_load_tile' op a rank-1 fragment and a rank-2 shared tile}}
  %v = tile.shared_load_tile %s[%i, %i] : !tile.shared<4x64xf32> -> tensor<64xf32>
  tile.return
}

// -----

tile.kernel @k(%x: i32) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.broadcast' op broadcasts 'i32' to a fragment of 'f32'}}
  %b = tile.broadcast %x dims [] : i32 -> tensor<4x4xf32>
  tile.return
}

// -----

tile.kernel @k(%x: f32) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.broadcast' op dims has 1 entries for a rank-0 source}}
  %b = tile.broadcast %x dims [0] : f32 -> tensor<4x4xf32>
  tile.return
}

// -----

tile.kernel @k(%x: tensor<4x4xf32>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.broadcast' op dims are increasing result dimensions}}
  %b = tile.broadcast %x dims [1, 0] : tensor<4x4xf32> -> tensor<4x4x4xf32>
  tile.return
}

// -----

tile.kernel @k(%x: tensor<4xf32>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.broadcast' op source dimension 0 has extent 4 but result dimension 0 has 8}}
  %b = tile.broadcast %x dims [0] : tensor<4xf32> -> tensor<8x4xf32>
  tile.return
}

// -----

tile.kernel @k(%x: tensor<4x4xf32>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.reshape' op [4, 4] has 16 elements, [8, 4] has 32}}
  %r = tile.reshape %x : tensor<4x4xf32> -> tensor<8x4xf32>
  tile.return
}

// -----

tile.kernel @k(%x: tensor<4x4xf32>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.reshape' op changes the element type}}
  %r = tile.reshape %x : tensor<4x4xf32> -> tensor<16xi32>
  tile.return
}

// -----

tile.kernel @k(%x: tensor<4x8xf32>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.transpose' op perm has one entry per dimension}}
  %t = tile.transpose %x perm [0] : tensor<4x8xf32> -> tensor<8x4xf32>
  tile.return
}

// -----

tile.kernel @k(%x: tensor<4x8xf32>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.transpose' op perm is a permutation of the dimensions}}
  %t = tile.transpose %x perm [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  tile.return
}

// -----

tile.kernel @k(%x: tensor<4x8xf32>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.transpose' op result dimension 0 is source dimension 1 but their extents differ}}
  %t = tile.transpose %x perm [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  tile.return
}

// -----

tile.kernel @k(%x: tensor<4x8xf32>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.transpose' op changes the element type}}
  %t = tile.transpose %x perm [1, 0] : tensor<4x8xf32> -> tensor<8x4xi32>
  tile.return
}

// -----

tile.kernel @k(%x: tensor<4x8xf32>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.reduce' op axis 2 of a rank-2 fragment}}
  %r = tile.reduce sum %x axis 2 : tensor<4x8xf32> -> tensor<4xf32>
  tile.return
}

// -----

tile.kernel @k(%x: tensor<4x8xf32>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.reduce' op reducing [4, 8] along 0 gives [8], not [4]}}
  %r = tile.reduce sum %x axis 0 : tensor<4x8xf32> -> tensor<4xf32>
  tile.return
}

// -----

tile.kernel @k(%x: tensor<4x8xf32>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.reduce' op changes the element type}}
  %r = tile.reduce max %x axis 1 : tensor<4x8xf32> -> tensor<4xi32>
  tile.return
}

// -----

tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.iota' op axis 1 of a rank-1 fragment}}
  %i = tile.iota axis 1 : tensor<64xi32>
  tile.return
}

// -----

tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.iota' op counts in an integer type, not 'f32'}}
  %i = tile.iota axis 0 : tensor<64xf32>
  tile.return
}

// -----

// A from registers: the fragment's element type is B's.
tile.kernel @k(%p: tensor<64x64xf32>, %b: !tile.shared<64x64xbf16, swizzle = 128>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.gemm' op A holds 'f32' but B holds 'bf16'}}
  %c = tile.gemm %p, %b : tensor<64x64xf32>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @k(%p: tensor<64x32xbf16>, %b: !tile.shared<64x64xbf16, swizzle = 128>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.gemm' op A is 64x32 but B is 64x64: the K extents differ}}
  %c = tile.gemm %p, %b : tensor<64x32xbf16>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @k(%p: tensor<64xbf16>, %b: !tile.shared<64x64xbf16, swizzle = 128>) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.gemm' op multiplies matrices (rank-2 tiles)}}
  %c = tile.gemm %p, %b : tensor<64xbf16>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @k(%i: index, %x: tensor<64x64xbf16>) attributes {block = array<i32: 128, 1, 1>} {
  %s = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  // expected-error@+1 {{'tile.shared_store_tile' op indexes a rank-2 shared tile with 1 indices}}
  tile.shared_store_tile %x, %s[%i] : tensor<64x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  tile.return
}

// -----

tile.kernel @k(%i: index, %x: tensor<4096xbf16>) attributes {block = array<i32: 128, 1, 1>} {
  %s = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  // expected-error@+1 {{'tile.shared_store_tile' op a rank-1 fragment and a rank-2 shared tile}}
  tile.shared_store_tile %x, %s[%i, %i] : tensor<4096xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  tile.return
}

// -----

tile.kernel @k(%i: index, %x: tensor<64x64xf32>) attributes {block = array<i32: 128, 1, 1>} {
  %s = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  // expected-error@+1 {{'tile.shared_store_tile' op the fragment holds 'f32' but the shared tile holds 'bf16'}}
  tile.shared_store_tile %x, %s[%i, %i] : tensor<64x64xf32>, !tile.shared<64x64xbf16, swizzle = 128>
  tile.return
}
