// RUN: minitile-opt %s -split-input-file -verify-diagnostics
// The Hopper ops' verifiers read their integer attributes as signed: a
// negative value is reported as itself, not as a huge unsigned one.

tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{leaves 0 to 7 groups pending, not -1}}
  hopper.wgmma_wait -1
  tile.return
}

// -----

tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{sets a multiple of 8 registers from 24 to 256, not -8}}
  hopper.setmaxnreg -8 {increase = true}
  tile.return
}

// -----

tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{uses barrier 1 to 15 (0 is tile.barrier), not -2}}
  hopper.named_barrier -2 threads 128
  tile.return
}

// -----

tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{waits for a multiple of 32 threads up to 1024, not -128}}
  hopper.named_barrier 1 threads -128
  tile.return
}
