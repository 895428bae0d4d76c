// RUN: minitile-opt %s -split-input-file -verify-diagnostics
// Each error of the verifiers of tile.host, tile.kernel and the host's ops
// (dialect/TileOps.cpp) that tests/lit/dialect/invalid.mlir does not hold.

// expected-error@+1 {{'tile.kernel' op returns nothing; results go through tensors}}
tile.kernel @k() -> i32 attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}

// -----

// expected-error@+1 {{'tile.host' op launches exactly one kernel}}
tile.host @h(%n: index {tile.name = "n"}) {
  tile.return
}

// -----

// expected-error@+1 {{'tile.kernel' op block has 3 extents (x, y, z), not 2}}
tile.kernel @k() attributes {block = array<i32: 32, 1>} {
  tile.return
}

// -----

// expected-error@+1 {{'tile.kernel' op min_blocks_per_sm is positive, not 0}}
tile.kernel @k() attributes {block = array<i32: 32, 1, 1>, min_blocks_per_sm = 0 : i32} {
  tile.return
}

// -----

tile.host @h(%n: index {tile.name = "n"}) {
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.launch' op passes 2 arguments to 'k', which takes 1}}
  tile.launch @k grid(%c1, %c1, %c1) args(%n, %n) : (index, index) -> ()
  tile.return
}
tile.kernel @k(%n: index) attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}

// -----

tile.host @h(%p: !tile.ptr<f32> {tile.name = "p"}, %n: index {tile.name = "n"}) {
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.check_ptr' op align is a positive power of two, not 12}}
  tile.check_ptr %p, %n align 12 : <f32>
  tile.launch @k grid(%c1, %c1, %c1) args() : () -> ()
  tile.return
}
tile.kernel @k() attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}
