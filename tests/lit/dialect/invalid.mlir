// RUN: minitile-opt %s -split-input-file -verify-diagnostics
// The verifiers reject malformed tile IR with a message naming the problem.

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 0, 1, 1>} {
  // expected-error@-1 {{'tile.kernel' op block extents are positive, got [0, 1, 1]}}
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 64, 32, 1>} {
  // expected-error@-1 {{'tile.kernel' op a block holds at most 1024 threads, not 2048}}
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 256, 1, 1>, producer_registers = 20 : i32} {
  // expected-error@-1 {{'tile.kernel' op producer_registers is 24 to 64, a multiple of 8 (setmaxnreg's steps), not 20}}
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  // expected-error@+1 {{'tile.view' op views '!tile.ptr<f32>' as '!tile.tensor<?xi32>': the element types differ}}
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xi32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  // expected-error@+1 {{'tile.view' op gives 0 strides; a rank-2 view takes 1 (the innermost stride is 1)}}
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?x8xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  // expected-error@+1 {{'tile.view' op gives 1 sizes but '!tile.tensor<4xf32>' has 0 dynamic dimensions}}
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<4xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %v = tile.view %p sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  // expected-error@+1 {{'tile.load' op indexes a rank-2 tensor with 1 indices}}
  %x = tile.load %v[%n] : !tile.tensor<?x?xf32> -> f32
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  %c = arith.constant 1 : i32
  // expected-error@+1 {{'tile.store' op accesses 'i32' in '!tile.tensor<?xf32>': the element types differ}}
  tile.store %c, %v[%n] : i32, !tile.tensor<?xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %v = tile.view %p sizes() strides(%n) : !tile.ptr<f32> -> !tile.tensor<6x6xf32>
  %c = arith.constant dense<1.0> : vector<4xf32>
  // expected-error@+1 {{'tile.store' op a 'vector<4xf32>' access cannot tile the inner dimension of '!tile.tensor<6x6xf32>'}}
  tile.store %c, %v[%n, %n] : vector<4xf32>, !tile.tensor<6x6xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  %c = arith.constant dense<1.0> : vector<8xf32>
  // expected-error@+1 {{'tile.store' op vector accesses are 2, 4, 8 or 16 bytes, not 32}}
  tile.store %c, %v[%n] : vector<8xf32>, !tile.tensor<?xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.parallel %i = %c0 to %n step %c1 {
    // expected-error@+1 {{'tile.parallel' op cannot nest in another tile.parallel: each iteration runs on one thread, a parallel loop needs all of them}}
    tile.parallel %j = %c0 to %n step %c1 {
    }
  }
  tile.return
}

// -----

tile.host @h(%n: index) {
  // expected-error@-1 {{'tile.host' op argument 0 has no tile.name}}
  tile.return
}

// -----

tile.host @h(%n: index {tile.name = "n"}) {
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.launch' op launches 'nope', which is not a tile.kernel}}
  tile.launch @nope grid(%c1, %c1, %c1) args(%n) : (index) -> ()
  tile.return
}

// -----

tile.host @h(%n: index {tile.name = "n"}) {
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.launch' op argument 0 is 'index' but 'k' takes 'i32'}}
  tile.launch @k grid(%c1, %c1, %c1) args(%n) : (index) -> ()
  tile.return
}
tile.kernel @k(%n: i32) attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}

// -----

tile.host @h(%n: index {tile.name = "n"}) {
  // expected-error@+1 {{'tile.thread_id' op is device code: it must be inside a tile.kernel}}
  %t = tile.thread_id x
  tile.launch @k grid(%t, %t, %t) args(%n) : (index) -> ()
  tile.return
}
tile.kernel @k(%n: index) attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}

// -----

// expected-error@+1 {{a tile tensor has rank 1 or more}}
tile.kernel @k(%t: !tile.tensor<f32>) attributes {block = array<i32: 32, 1, 1>} {
  tile.return
}

// -----

tile.kernel @k(%n: index) attributes {block = array<i32: 384, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.pipelined' op has 4 stages for 3 groups; the stages must be a multiple of the groups}}
  tile.pipelined %i = %c0 to %n step %c1 stages 4 groups 3 {
  }
  tile.return
}

// -----

// A cooperative loop deals its top-level gemms out to its groups: a nonzero
// multiple of them (its stages need not be).
tile.kernel @k(%a: !tile.shared<64x64xbf16, swizzle = 128>, %n: index) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.pipelined' op is cooperative: its 1 top-level gemms are dealt out to 2 groups, so they are a nonzero multiple of the groups}}
  tile.pipelined %i = %c0 to %n step %c1 stages 3 groups 2 {
    %s = tile.gemm %a, %a {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  } {cooperative}
  tile.return
}

// -----

tile.kernel @k(%a: !tile.shared<64x64xbf16, swizzle = 128>, %n: index, %c: i1) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tile.pipelined' op is cooperative, so its gemms are at the top level of its body (each group takes whole gemms); one is nested in a region}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 groups 2 {
    %s = tile.gemm %a, %a {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    tile.if %c {
      %u = tile.gemm %a, %a {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    }
  } {cooperative}
  tile.return
}

// -----

tile.kernel @k(%n: index) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.pipelined %j = %c0 to %n step %c1 stages 2 {
    // expected-error@+1 {{'tile.pipelined' op is cooperative and continuous; a continuous stream alternates its iterations between the groups, so choose one}}
    tile.pipelined %i = %c0 to %n step %c1 stages 4 groups 2 {
    } {continuous, cooperative}
  }
  tile.return
}

// -----

tile.kernel @k(%t: !tile.shared<64xf32>, %i: index, %x: f32) attributes {block = array<i32: 32, 1, 1>} {
  // expected-error@+1 {{'tile.shared_atomic' op 'max' takes integers; floats take add and exchange}}
  %o = tile.shared_atomic max %x, %t[%i, %i] : f32, !tile.shared<64xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<i64>, %n: index, %x: i32) attributes {block = array<i32: 32, 1, 1>} {
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<i64> -> !tile.tensor<?xi64>
  // expected-error@+1 {{'tile.atomic' op a 'i32' atomic on elements of 'i64'}}
  %o = tile.atomic add %x, %v[%n] : i32, !tile.tensor<?xi64>
  tile.return
}

// -----

tile.kernel @k(%t: !tile.shared<64xf32>, %i: index) attributes {block = array<i32: 32, 1, 1>} {
  // expected-error@+1 {{'tile.shared_load' op accesses 'i32' in '!tile.shared<64xf32>': the element types differ}}
  %o = tile.shared_load %t[%i, %i] : !tile.shared<64xf32> -> i32
  tile.return
}

// -----

tile.kernel @k(%c: i1) attributes {block = array<i32: 32, 1, 1>} {
  // expected-error@+1 {{'tile.vote' op 'ballot' gives an i32 mask}}
  %o = tile.vote ballot %c : i1
  tile.return
}

// -----

tile.kernel @k(%c: i1) attributes {block = array<i32: 32, 1, 1>} {
  // expected-error@+1 {{'tile.vote' op 'any' gives an i1}}
  %o = tile.vote any %c : i32
  tile.return
}

// -----

tile.kernel @k(%x: i32) attributes {block = array<i32: 48, 1, 1>} {
  // expected-error@+1 {{'tile.shuffle_down' op is warp-wide, but the block's 48 threads are not whole warps of 32}}
  %o = tile.shuffle_down %x, %x : i32
  tile.return
}

// -----

tile.kernel @k(%c: i1) attributes {block = array<i32: 32, 1, 1>} {
  // expected-error@+1 {{'tile.while' op the condition region ends with tile.condition}}
  tile.while {
    tile.yield
  } do {
    tile.yield
  }
  tile.return
}

// -----

tile.kernel @nested_in_groups(%n: index) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.pipelined %i = %c0 to %n step %c1 stages 2 groups 2 {
    // expected-error@+1 {{'tile.pipelined' op nests in a tile.pipelined of 2 groups; it nests only in loops of one group}}
    tile.pipelined %j = %c0 to %n step %c1 stages 2 {
    }
  }
  tile.return
}

// -----

tile.kernel @queue_groups(%n: index, %counter: !tile.ptr<i32>) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %queue = tile.view %counter[%c0] sizes() strides() : !tile.ptr<i32> -> !tile.tensor<1xi32>
  // expected-error@+1 {{'tile.pipelined' op hands its iterations out from a queue, so it runs on one group, carries nothing and nests in no pipelined loop}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 groups 2 queue %queue : !tile.tensor<1xi32> {
  }
  tile.return
}

// -----

tile.kernel @queue_nested(%n: index, %counter: !tile.ptr<i32>) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %queue = tile.view %counter[%c0] sizes() strides() : !tile.ptr<i32> -> !tile.tensor<1xi32>
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    // expected-error@+1 {{'tile.pipelined' op hands its iterations out from a queue, so it runs on one group, carries nothing and nests in no pipelined loop}}
    tile.pipelined %j = %c0 to %n step %c1 stages 2 queue %queue : !tile.tensor<1xi32> {
    }
  }
  tile.return
}

// -----

tile.kernel @queue_type(%n: index, %counter: !tile.ptr<i64>) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %queue = tile.view %counter[%c0] sizes() strides() : !tile.ptr<i64> -> !tile.tensor<1xi64>
  // expected-error@+1 {{'tile.pipelined' op takes its queue as a one-dimensional i32 tensor, not}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 queue %queue : !tile.tensor<1xi64> {
  }
  tile.return
}

// -----

tile.kernel @shared_box_rank(%i: index) attributes {block = array<i32: 128, 1, 1>} {
  %s = tile.alloc_shared : !tile.shared<4x64xf32>
  // expected-error@+1 {{'tile.shared_load_tile' op indexes a rank-2 shared tile with 1 indices}}
  %v = tile.shared_load_tile %s[%i] : !tile.shared<4x64xf32> -> tensor<2x64xf32>
  tile.return
}

// -----

tile.kernel @shared_box_type(%i: index) attributes {block = array<i32: 128, 1, 1>} {
  %s = tile.alloc_shared : !tile.shared<4x64xf32>
  // expected-error@+1 {{'tile.shared_load_tile' op the fragment holds 'i32' but the shared tile holds 'f32'}}
  %v = tile.shared_load_tile %s[%i, %i] : !tile.shared<4x64xf32> -> tensor<2x64xi32>
  tile.return
}
