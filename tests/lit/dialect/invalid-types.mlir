// RUN: minitile-opt %s -split-input-file -verify-diagnostics
// Each error of the tile types' and attributes' verifiers and parsers
// (dialect/TileDialect.cpp): global tensors, shared tiles, fragment layouts,
// the dialect's attributes on operations, and what a fragment may be.

// expected-error@+1 {{tile tensor elements are integers or floats, not 'vector<4xf32>'}}
tile.kernel @k(%t: !tile.tensor<4xvector<4xf32>>) attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}

// -----

// expected-error@+1 {{a shared tile has rank 1 or more}}
tile.kernel @k(%t: !tile.shared<f32>) attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}

// -----

// expected-error@+1 {{shared tile dimensions are positive, not 0}}
tile.kernel @k(%t: !tile.shared<0x64xf32>) attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}

// -----

// expected-error@+1 {{shared tiles hold integers or floats, not 'index'}}
tile.kernel @k(%t: !tile.shared<64xindex>) attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}

// -----

// expected-error@+1 {{swizzle is 0, 32, 64 or 128 bytes, not 16}}
tile.kernel @k(%t: !tile.shared<8x64xbf16, swizzle = 16>) attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}

// -----

// expected-error@+1 {{a 128-byte swizzle needs rows of a multiple of 128 bytes; these have 64}}
tile.kernel @k(%t: !tile.shared<8x32xbf16, swizzle = 128>) attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}

// -----

// expected-error@+1 {{a swizzled tile has a multiple of 8 rows, not 4}}
tile.kernel @k(%t: !tile.shared<4x64xbf16, swizzle = 128>) attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}

// -----

// expected-error@+1 {{every basis vector has the same rank}}
tile.kernel @k(%t: tensor<2x2xf32, #tile.frag<reg = [[1, 0], [1]], lane = [], warp = []>>) attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}

// -----

// expected-error@+1 {{a fragment layout has rank 1 or more}}
tile.kernel @k(%t: tensor<2x2xf32, #tile.frag<reg = [], lane = [], warp = []>>) attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}

// -----

// expected-error@+1 {{a fragment layout has 5 lane vectors (32 lanes), not 4}}
tile.kernel @k(%t: tensor<2x2xf32, #tile.frag<reg = [], lane = [[0, 1], [1, 0], [0, 0], [0, 0]], warp = []>>) attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}

// -----

// expected-error@+1 {{basis entries are 0 or powers of two, not 3}}
tile.kernel @k(%t: tensor<2x2xf32, #tile.frag<reg = [[3, 0]], lane = [[0, 1], [0, 0], [0, 0], [0, 0], [0, 0]], warp = []>>) attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}

// -----

// expected-error@+1 {{a basis vector moves along one dimension at most}}
tile.kernel @k(%t: tensor<2x2xf32, #tile.frag<reg = [[1, 1]], lane = [[0, 1], [0, 0], [0, 0], [0, 0], [0, 0]], warp = []>>) attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}

// -----

tile.kernel @k() attributes {block = array<i32: 32, 1, 1>} {
  // expected-error@+1 {{unknown tile attribute 'tile.unknown' on an operation}}
  tile.barrier {tile.unknown}
  tile.return
}

// -----

// Rows by cp.async belong to a gathered copy.
tile.kernel @k(%p: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %v = tile.view %p sizes(%n) strides(%n) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  // expected-error@+1 {{'tile.cp_async' is a unit attribute of a gathered tile.copy}}
  tile.copy %v[%c0, %c0] to %t box [64, 64] {tile.cp_async} : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  tile.return
}

// -----

// Ping-pong is for loops: a pipelined loop of one group, or the tile.for it becomes.
tile.kernel @k(%n: index) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.ping_pong' is a unit attribute of a tile.pipelined of one group or a tile.for}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 groups 2 {
  } {tile.ping_pong}
  tile.return
}

// -----

// A fragment is a ranked tensor, of at least one dimension, of integers or
// floats: every tensor value in a kernel's body is held to it.
tile.kernel @k(%u: tensor<*xf32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.for' op has a value of 'tensor<*xf32>': a fragment is a ranked tensor}}
  %r = tile.for %i = %c0 to %n step %c1 iter_args(%a = %u) -> (tensor<*xf32>) {
    tile.yield %a : tensor<*xf32>
  }
  tile.return
}

// -----

tile.kernel @k(%z: tensor<f32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.for' op has a value of 'tensor<f32>': a fragment has at least one dimension}}
  %r = tile.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (tensor<f32>) {
    tile.yield %a : tensor<f32>
  }
  tile.return
}

// -----

tile.kernel @k(%c: tensor<4xcomplex<f32>>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.for' op has a value of 'tensor<4xcomplex<f32>>': fragments hold integers or floats}}
  %r = tile.for %i = %c0 to %n step %c1 iter_args(%a = %c) -> (tensor<4xcomplex<f32>>) {
    tile.yield %a : tensor<4xcomplex<f32>>
  }
  tile.return
}
