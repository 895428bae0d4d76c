// RUN: minitile-opt %s -split-input-file -verify-diagnostics
// Stages, extents and shapes that are negative, overflow int64 or exceed what
// a block holds are rejected by the verifiers, before any pass computes with
// them (issue 10: `stages -1` once became !tile.shared<-1xi64> rings and a
// negative smem_bytes; a box of [2^57 + 1, 128, 128] "filled" a 128x128 tile).

tile.kernel @k(%n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.pipelined' op has 1 to 16 stages, not -1}}
  tile.pipelined %i = %c0 to %n step %c1 stages -1 {
  }
  tile.return
}

// -----

tile.kernel @k(%n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.pipelined' op has 1 to 16 stages, not 0}}
  tile.pipelined %i = %c0 to %n step %c1 stages 0 {
  }
  tile.return
}

// -----

// A ring of 2^40 stages would allocate (and initialise) 2^40 mbarriers.
tile.kernel @k(%n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.pipelined' op has 1 to 16 stages, not 1099511627776}}
  tile.pipelined %i = %c0 to %n step %c1 stages 1099511627776 {
  }
  tile.return
}

// -----

tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.alloc_shared' op has 1 to 16 stages, not -1}}
  %a = tile.alloc_shared {stages = -1 : i64} : !tile.shared<64x64xbf16>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %v = tile.view %p sizes(%n, %n) strides(%c128, %c128) : !tile.ptr<bf16> -> !tile.tensor<?x?x128xbf16>
  %a = tile.alloc_shared : !tile.shared<128x128xbf16>
  // expected-error@+1 {{'tile.copy' op box extents are positive; [-2, -64, 128] is not}}
  tile.copy %v[%c0, %c0, %c0] to %a box [-2, -64, 128] : !tile.tensor<?x?x128xbf16>, !tile.shared<128x128xbf16>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %v = tile.view %p sizes(%n, %n) strides(%c128, %c128) : !tile.ptr<bf16> -> !tile.tensor<?x?x128xbf16>
  %a = tile.alloc_shared : !tile.shared<128x128xbf16>
  // (2^57 + 1) * 128 * 128 wraps to 16384 in int64.
  // expected-error@+1 {{'tile.copy' op a box of [144115188075855873, 128, 128] does not fill a tile of [128, 128] (its outer extents flatten onto the tile's rows)}}
  tile.copy %v[%c0, %c0, %c0] to %a box [144115188075855873, 128, 128] : !tile.tensor<?x?x128xbf16>, !tile.shared<128x128xbf16>
  tile.return
}

// -----

tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{a shared tile holds at most 232448 bytes (a block's shared memory)}}
  %a = tile.alloc_shared : !tile.shared<4294967296x4294967296xf32>
  tile.return
}

// -----

tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{a shared tile holds at most 232448 bytes (a block's shared memory)}}
  %a = tile.alloc_shared : !tile.shared<512x256xf32>
  tile.return
}

// -----

tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.iota' op has a value of 'tensor<4096x4096xi32>': a fragment has at most 65536 elements (a block's registers)}}
  %i = tile.iota axis 0 : tensor<4096x4096xi32>
  tile.return
}

// -----

tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.iota' op has a value of 'tensor<4294967296x4294967296xi32>': a fragment has at most 65536 elements (a block's registers)}}
  %i = tile.iota axis 0 : tensor<4294967296x4294967296xi32>
  tile.return
}

// -----

tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'tile.iota' op has a value of 'tensor<48xi32>': fragment extents are static powers of two}}
  %i = tile.iota axis 0 : tensor<48xi32>
  tile.return
}

// -----

// Fragments made by upstream ops are held to the same bounds.
tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'arith.constant' op has a value of 'tensor<131072xf32>': a fragment has at most 65536 elements (a block's registers)}}
  %c = arith.constant dense<1.0> : tensor<131072xf32>
  tile.return
}

// -----

// Outside a kernel the op's own constraint says the same.
// expected-error@+1 {{result #0 must be fragment (a static shape of power-of-two extents, at most 65536 elements), but got 'tensor<4096x4096xi32>'}}
%i = tile.iota axis 0 : tensor<4096x4096xi32>
