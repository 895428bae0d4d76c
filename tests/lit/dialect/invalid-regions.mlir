// RUN: minitile-opt %s -split-input-file -verify-diagnostics
// Loop and if verifiers look at their bodies before the generic verifier has
// checked how the bodies end: a body ending in anything but tile.yield is a
// diagnostic, never a cast of one op to another (issue 10: ParallelOp::verify
// read a tile.return as a tile.yield).

tile.kernel @k(%n: index) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.parallel' op body ends with a tile.yield}}
  "tile.parallel"(%c0, %n, %c1) ({
  ^bb0(%i: index):
    tile.return
  }) : (index, index, index) -> ()
  tile.return
}

// -----

tile.kernel @k(%n: index) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{expects a non-empty block}}
  "tile.parallel"(%c0, %n, %c1) ({
  ^bb0(%i: index):
  }) : (index, index, index) -> ()
  tile.return
}

// -----

tile.kernel @k(%n: index) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.for' op body ends with a tile.yield}}
  "tile.for"(%c0, %n, %c1) ({
  ^bb0(%i: index):
    tile.return
  }) : (index, index, index) -> ()
  tile.return
}

// -----

tile.kernel @k(%c: i1) attributes {block = array<i32: 32, 1, 1>} {
  // expected-error@+1 {{'tile.if' op regions end with a tile.yield}}
  "tile.if"(%c) ({
    tile.return
  }, {
  }) : (i1) -> ()
  tile.return
}
