// RUN: minitile-opt %s -split-input-file -verify-diagnostics
// Each error of the verifiers and parsers of tile.for, tile.parallel,
// tile.if, tile.while and tile.pipelined (dialect/TileOps.cpp) that
// tests/lit/dialect/invalid.mlir, invalid-regions.mlir and invalid-sizes.mlir
// do not hold.

tile.kernel @k(%n: index, %x: f32) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{a loop has one result type per iter_arg}}
  %r:2 = tile.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32, f32) {
    tile.yield %a, %a : f32, f32
  }
  tile.return
}

// -----

tile.kernel @k(%n: index) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.for' op body takes the index and one value per iter_arg}}
  "tile.for"(%c0, %n, %c1) ({
  ^bb0(%i: i32):
    tile.yield
  }) : (index, index, index) -> ()
  tile.return
}

// -----

tile.kernel @k(%n: index, %x: f32) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.for' op body yields 1 values for 1 results of other types}}
  %r = tile.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) {
    tile.yield %i : index
  }
  tile.return
}

// -----

tile.kernel @k(%n: index, %x: f32) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.for' op iter_arg type differs from its initial value}}
  %r = "tile.for"(%c0, %n, %c1, %x) ({
  ^bb0(%i: index, %a: i32):
    tile.yield %a : i32
  }) : (index, index, index, f32) -> i32
  tile.return
}

// -----

tile.kernel @k(%n: index) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.parallel' op body takes one index argument}}
  "tile.parallel"(%c0, %n, %c1) ({
  ^bb0(%i: index, %j: index):
    tile.yield
  }) : (index, index, index) -> ()
  tile.return
}

// -----

tile.kernel @k(%n: index) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.parallel' op body yields no values}}
  "tile.parallel"(%c0, %n, %c1) ({
  ^bb0(%i: index):
    tile.yield %i : index
  }) : (index, index, index) -> ()
  tile.return
}

// -----

tile.kernel @k(%c: i1, %x: f32) attributes {block = array<i32: 32, 1, 1>} {
  // expected-error@+1 {{'tile.if' op with results needs an else region}}
  %r = tile.if %c -> (f32) {
    tile.yield %x : f32
  }
  tile.return
}

// -----

tile.kernel @k(%c: i1, %x: f32, %i: index) attributes {block = array<i32: 32, 1, 1>} {
  // expected-error@+1 {{'tile.if' op regions yield the types of its results}}
  %r = tile.if %c -> (f32) {
    tile.yield %i : index
  } else {
    tile.yield %x : f32
  }
  tile.return
}

// -----

tile.kernel @k(%c: i1, %x: f32) attributes {block = array<i32: 32, 1, 1>} {
  // expected-error@+1 {{'tile.while' op the body ends with a tile.yield of no values}}
  tile.while {
    tile.condition %c
  } do {
    tile.yield %x : f32
  }
  tile.return
}

// -----

tile.kernel @k(%n: index, %x: f32) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.pipelined' op carries values from iteration to iteration, so it runs on one group, not 2}}
  %r = tile.pipelined %i = %c0 to %n step %c1 stages 2 groups 2 iter_args(%a = %x) -> (f32) {
    tile.yield %a : f32
  }
  tile.return
}

// -----

tile.kernel @k(%n: index) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.pipelined' op runs on at least one group, not 0}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 groups 0 {
  }
  tile.return
}

// -----

tile.kernel @k(%n: index) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.pipelined' op is continuous (one stream across the runs of the loop around it), so it nests directly in a tile.pipelined}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
  } {continuous}
  tile.return
}

// -----

tile.kernel @k(%n: index, %x: f32) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.pipelined %j = %c0 to %n step %c1 stages 2 {
    // expected-error@+1 {{'tile.pipelined' op is continuous and carries values; a continuous loop carries nothing (each group's stream crosses the outer iterations)}}
    %r = tile.pipelined %i = %c0 to %n step %c1 stages 2 iter_args(%a = %x) -> (f32) {
      tile.yield %a : f32
    } {continuous}
  }
  tile.return
}

// -----

tile.kernel @k(%n: index, %x: f32) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.pipelined' op body ends with a tile.yield}}
  "tile.pipelined"(%c0, %n, %c1) ({
  ^bb0(%i: index):
    tile.return
  }) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>, stages = 2 : i64} : (index, index, index) -> ()
  tile.return
}
