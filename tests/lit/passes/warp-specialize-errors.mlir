// RUN: minitile-opt %s -split-input-file --tile-warp-specialize -verify-diagnostics
// Pipelined loops tile-warp-specialize cannot take are errors; those it can
// take but cannot feed from a producer warpgroup run serially, with a remark
// saying why.

tile.kernel @k(%kv: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    // expected-error@+1 {{'tile.copy' op in a pipelined loop copies into a shared tile the loop body does not allocate; allocate it in the body, which gets one per stage}}
    tile.copy %v[%i, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  }
  tile.return
}

// -----

tile.kernel @k(%kv: !tile.ptr<bf16>, %n: index, %first: i1) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    tile.if %first {
      // expected-error@+1 {{'tile.copy' op in a pipelined loop is inside 'tile.if'; the copies of a pipelined loop are at the top level of its body}}
      tile.copy %v[%i, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    }
  }
  tile.return
}

// -----

// The kernel's block cannot take a producer warpgroup.
tile.kernel @k(%kv: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 64, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  // expected-remark@+1 {{runs as a serial loop without a producer warpgroup: its block is not a row of whole warpgroups}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    tile.copy %v[%i, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  }
  tile.return
}

// -----

tile.kernel @k(%kv: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 1024, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  // expected-remark@+1 {{runs as a serial loop without a producer warpgroup: a producer warpgroup would make the block larger than 1024 threads}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    tile.copy %v[%i, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  }
  tile.return
}

// -----

tile.kernel @k(%kv: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 256, 1, 1>, producer_threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  // expected-remark@+1 {{runs as a serial loop without a producer warpgroup: the kernel is already warp-specialised}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    tile.copy %v[%i, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  }
  tile.return
}

// -----

// The target has no TMA: every pipelined loop of the kernel says so.
module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%kv: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %v = tile.view %kv sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
    // expected-remark@+1 {{runs as a serial loop without a producer warpgroup: sm_80 has no tensor-memory accelerator}}
    tile.pipelined %i = %c0 to %n step %c1 stages 2 {
      %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      tile.copy %v[%i, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    }
    // expected-remark@+1 {{runs as a serial loop without a producer warpgroup: sm_80 has no tensor-memory accelerator}}
    tile.pipelined %i = %c0 to %n step %c1 stages 2 {
      %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      tile.copy %v[%i, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    }
    tile.return
  }
}

// -----

// A copy the TMA cannot serve. No launcher: nothing can make a tensor map.
tile.kernel @k(%kv: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  // expected-remark@+1 {{runs as a serial loop without a producer warpgroup: a copy cannot use the tensor-memory accelerator: no tile.host launches 'k' to make its tensor map}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    tile.copy %v[%i, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  }
  tile.return
}

// -----

// Its source is not a view the launcher can describe.
tile.host @k(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n"}, %odd: i1 {tile.name = "odd"}) {
  %c1 = arith.constant 1 : index
  tile.launch @k_kernel grid(%c1, %c1, %c1) args(%kv, %n, %odd) : (!tile.ptr<bf16>, index, i1) -> ()
  tile.return
}
tile.kernel @k_kernel(%kv: !tile.ptr<bf16>, %n: index, %odd: i1) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a = tile.view %kv sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %b = tile.view %kv[%c64] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %v = tile.if %odd -> (!tile.tensor<?x64xbf16>) {
    tile.yield %b : !tile.tensor<?x64xbf16>
  } else {
    tile.yield %a : !tile.tensor<?x64xbf16>
  }
  // expected-remark@+1 {{runs as a serial loop without a producer warpgroup: a copy cannot use the tensor-memory accelerator: its source is not a tile.view (or a slice of one)}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    tile.copy %v[%i, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  }
  %blk = tile.block_id x
  %w = tile.view %kv[%blk] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  // expected-remark@+1 {{runs as a serial loop without a producer warpgroup: a copy cannot use the tensor-memory accelerator: the launcher cannot compute its view's origin, sizes or strides (they depend on more than the kernel's arguments)}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    tile.copy %w[%i, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  }
  tile.return
}

// -----

// Boxes beyond the TMA's limits, or a tensor of more dimensions than a
// tensor map has.
tile.host @k(%p: !tile.ptr<bf16> {tile.name = "p"}, %f: !tile.ptr<f32> {tile.name = "f"}, %n: index {tile.name = "n"}) {
  %c1 = arith.constant 1 : index
  tile.launch @k_kernel grid(%c1, %c1, %c1) args(%p, %f, %n) : (!tile.ptr<bf16>, !tile.ptr<f32>, index) -> ()
  tile.return
}
tile.kernel @k_kernel(%p: !tile.ptr<bf16>, %f: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %wide = tile.view %p sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  // expected-remark@+1 {{runs as a serial loop without a producer warpgroup: a copy cannot use the tensor-memory accelerator: its box extent 512 exceeds the TMA's 256}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %t = tile.alloc_shared : !tile.shared<512x64xbf16, swizzle = 128>
    tile.copy %wide[%i, %c0] to %t box [512, 64] : !tile.tensor<?x64xbf16>, !tile.shared<512x64xbf16, swizzle = 128>
  }
  %narrow = tile.view %f sizes(%n) strides(%c2) : !tile.ptr<f32> -> !tile.tensor<?x2xf32>
  // expected-remark@+1 {{runs as a serial loop without a producer warpgroup: a copy cannot use the tensor-memory accelerator: a row of its box is 8 bytes, not a multiple of 16}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %t = tile.alloc_shared : !tile.shared<64x2xf32>
    tile.copy %narrow[%i, %c0] to %t box [64, 2] : !tile.tensor<?x2xf32>, !tile.shared<64x2xf32>
  }
  %long = tile.view %f sizes(%n) strides(%c128) : !tile.ptr<f32> -> !tile.tensor<?x128xf32>
  // expected-remark@+1 {{runs as a serial loop without a producer warpgroup: a copy cannot use the tensor-memory accelerator: an unswizzled row of its box is 512 bytes, more than 256}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %t = tile.alloc_shared : !tile.shared<8x128xf32>
    tile.copy %long[%i, %c0] to %t box [8, 128] : !tile.tensor<?x128xf32>, !tile.shared<8x128xf32>
  }
  // Its own copies could use the TMA, but the kernel gets no producer.
  // expected-remark@+1 {{runs as a serial loop without a producer warpgroup: another pipelined loop of the kernel has a copy the tensor-memory accelerator cannot serve}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    tile.copy %wide[%i, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  }
  %deep = tile.view %p sizes(%n) strides(%c64, %c64, %c64, %c64, %c64) : !tile.ptr<bf16> -> !tile.tensor<?x2x2x2x4x64xbf16>
  // expected-remark@+1 {{runs as a serial loop without a producer warpgroup: a copy cannot use the tensor-memory accelerator: its tensor has 6 dimensions; a tensor map has at most 5}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    tile.copy %deep[%i, %c0, %c0, %c0, %c0, %c0] to %t box [2, 2, 2, 2, 4, 64] : !tile.tensor<?x2x2x2x4x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  }
  tile.return
}

// -----

// The producer would read the tile before its copy lands (the compute
// threads would read the new one): read it after the copy.
tile.host @h(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %lim: !tile.ptr<i32> {tile.name = "lim"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @k grid(%c1, %c1, %c1) args(%kv, %lim, %n) : (!tile.ptr<bf16>, !tile.ptr<i32>, index) -> ()
  tile.return
}
tile.kernel @k(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %lim: !tile.ptr<i32> {tile.name = "lim"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %l = tile.view %lim[%c0] sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  tile.pipelined %item = %c0 to %n step %c1 stages 2 {
    %m4 = tile.alloc_shared : !tile.shared<4xi32>
    // expected-error@+1 {{'tile.shared_load' op reads a shared tile of a pipelined loop before the loop body's copy into it; copy first, then read}}
    %m32 = tile.shared_load %m4[%c0, %c0] : !tile.shared<4xi32> -> i32
    %l0 = arith.muli %item, %c4 : index
    tile.copy %l[%l0] to %m4 box [4] : !tile.tensor<?xi32>, !tile.shared<4xi32>
    %m = arith.index_cast %m32 : i32 to index
    tile.pipelined %i = %c0 to %m step %c1 stages 3 {
      %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      tile.copy %v[%i, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    }
  }
  tile.return
}

// -----

// Three outer stages, but the outer copy's row comes from memory (a table
// of offsets): its place cannot be computed an iteration ahead, so the
// producer issues each iteration's copies when it starts it.
tile.host @table(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %off: !tile.ptr<i32> {tile.name = "off"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @table_kernel grid(%c1, %c1, %c1) args(%kv, %off, %n) : (!tile.ptr<bf16>, !tile.ptr<i32>, index) -> ()
  tile.return
}
tile.kernel @table_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %off: !tile.ptr<i32> {tile.name = "off"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %o = tile.view %off[%c0] sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  // expected-remark@+1 {{the producer fetches each iteration's tiles when it starts it, not 1 ahead: a copy's place is computed by 'tile.load', which cannot run ahead}}
  tile.pipelined %item = %c0 to %n step %c1 stages 3 {
    %q = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %r32 = tile.load %o[%item] : !tile.tensor<?xi32> -> i32
    %r = arith.index_cast %r32 : i32 to index
    tile.copy %v[%r, %c0] to %q box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    tile.pipelined %i = %c0 to %n step %c1 stages 3 {
      %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      %k = arith.muli %i, %c64 : index
      tile.copy %v[%k, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
      %s = tile.gemm %t, %q {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    }
  }
  tile.return
}

// -----

// Two gemms in the body with a store between them: the second gemm could
// not start before the first one's store (overlap moves only pure arithmetic
// after a gemm), so no overlap; the loop runs unrolled as without it.
tile.host @two_gemms(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @two_gemms_kernel grid(%c1, %c1, %c1) args(%kv, %out, %n) : (!tile.ptr<bf16>, !tile.ptr<f32>, index) -> ()
  tile.return
}
tile.kernel @two_gemms_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %o = tile.view %out[%c0] sizes(%n) strides(%c64) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.copy %v[%c0, %c0] to %b box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  // expected-remark@+1 {{runs without overlapping its gemms: overlap needs its gemms at the top level of the body, each reading only its stage's tiles and pure arithmetic, and only pure arithmetic before the last}}
  tile.pipelined %i = %c0 to %n step %c1 stages 4 groups 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %r = arith.muli %i, %c64 : index
    tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %s = tile.gemm %t, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    tile.store_tile %s, %o[%r, %c0] : tensor<64x64xf32>, !tile.tensor<?x64xf32>
    %u = tile.gemm %b, %t {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    tile.store_tile %u, %o[%r, %c0] : tensor<64x64xf32>, !tile.tensor<?x64xf32>
  } {overlap}
  tile.return
}

// -----

// One stage a group: nothing to overlap with.
tile.host @one_stage(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @one_stage_kernel grid(%c1, %c1, %c1) args(%kv, %out, %n) : (!tile.ptr<bf16>, !tile.ptr<f32>, index) -> ()
  tile.return
}
tile.kernel @one_stage_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %o = tile.view %out[%c0] sizes(%n) strides(%c64) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.copy %v[%c0, %c0] to %b box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  // expected-remark@+1 {{runs without overlapping its gemms: overlap needs each group to take two or more stages in turn and the loop to carry nothing}}
  tile.pipelined %i = %c0 to %n step %c1 stages 2 groups 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %r = arith.muli %i, %c64 : index
    tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %s = tile.gemm %t, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    tile.store_tile %s, %o[%r, %c0] : tensor<64x64xf32>, !tile.tensor<?x64xf32>
  } {overlap}
  tile.return
}

// -----

// A continuous loop whose groups each take five stages runs as a loop per
// outer iteration, with a remark saying why.
tile.host @continuous_five_host(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @continuous_five grid(%c1, %c1, %c1) args(%kv, %n) : (!tile.ptr<bf16>, index) -> ()
  tile.return
}
tile.kernel @continuous_five(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  tile.pipelined %item = %c0 to %n step %c1 stages 2 {
    %q = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %q0 = arith.muli %item, %c64 : index
    tile.copy %v[%q0, %c0] to %q box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    // expected-remark@+1 {{runs as a loop per iteration of the loop around it, not as one stream: it is not an overlapped loop whose groups each take two to four stages in turn}}
    tile.pipelined %i = %c0 to %n step %c1 stages 10 groups 2 {
      %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      %r = arith.muli %i, %c64 : index
      tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
      %s = tile.gemm %t, %q {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    } {continuous, overlap}
  }
  tile.return
}

// -----

// The code after the gemm reads the outer loop's tile, which a group may
// have released by then: not continuous.
tile.host @continuous_reads_item_host(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @continuous_reads_item grid(%c1, %c1, %c1) args(%kv, %out, %n) : (!tile.ptr<bf16>, !tile.ptr<f32>, index) -> ()
  tile.return
}
tile.kernel @continuous_reads_item(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  tile.pipelined %item = %c0 to %n step %c1 stages 2 {
    %q = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %q0 = arith.muli %item, %c64 : index
    tile.copy %v[%q0, %c0] to %q box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    // expected-remark@+1 {{not as one stream: the code after its gemm reads the tiles of the loop around it}}
    tile.pipelined %i = %c0 to %n step %c1 stages 4 groups 2 {
      %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      %r = arith.muli %i, %c64 : index
      tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
      %s = tile.gemm %t, %q {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
      %e = tile.shared_load %q[%c0, %c0] : !tile.shared<64x64xbf16, swizzle = 128> -> bf16
      %f = arith.extf %e : bf16 to f32
      %o = tile.view %out[%c0] sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
      tile.store %f, %o[%r] : f32, !tile.tensor<?xf32>
    } {continuous, overlap}
  }
  tile.return
}

// -----

// A cooperative loop deals its gemms out to its groups, each group running
// the code that reads its own: code reading two groups' gemms is an error.
tile.host @coop_mixed(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @coop_mixed_kernel grid(%c1, %c1, %c1) args(%kv, %out, %n) : (!tile.ptr<bf16>, !tile.ptr<f32>, index) -> ()
  tile.return
}
tile.kernel @coop_mixed_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %o = tile.view %out[%c0] sizes(%n) strides(%c64) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.copy %v[%c0, %c0] to %b box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  tile.pipelined %i = %c0 to %n step %c1 stages 2 groups 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %r = arith.muli %i, %c64 : index
    tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %s = tile.gemm %t, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    %u = tile.gemm %b, %t {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    // expected-error@+1 {{'arith.addf' op in a cooperative pipelined loop reads the results of gemms that different groups compute (each group runs the code reading its own gemms); combine them after the loop, or give the loop one group}}
    %w = arith.addf %s, %u : tensor<64x64xf32>
    tile.store_tile %w, %o[%r, %c0] : tensor<64x64xf32>, !tile.tensor<?x64xf32>
  } {cooperative}
  tile.return
}

// -----

// ... and code that writes memory but reads no gemm's result (every group
// would run it).
tile.host @coop_shared_store(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @coop_shared_store_kernel grid(%c1, %c1, %c1) args(%kv, %out, %n) : (!tile.ptr<bf16>, !tile.ptr<f32>, index) -> ()
  tile.return
}
tile.kernel @coop_shared_store_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %o = tile.view %out[%c0] sizes(%n) strides(%c64) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.copy %v[%c0, %c0] to %b box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  tile.pipelined %i = %c0 to %n step %c1 stages 2 groups 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %r = arith.muli %i, %c64 : index
    tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %s = tile.gemm %t, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    %u = tile.gemm %b, %t {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    tile.store_tile %s, %o[%r, %c0] : tensor<64x64xf32>, !tile.tensor<?x64xf32>
    tile.store_tile %u, %o[%r, %c0] : tensor<64x64xf32>, !tile.tensor<?x64xf32>
    // expected-error@+1 {{'tile.store' op in a cooperative pipelined loop writes memory but reads no gemm's result, so no one group's share holds it and every group would run it; make it depend on a gemm, or move it out of the loop}}
    tile.store %zero, %o[%r, %c0] : f32, !tile.tensor<?x64xf32>
  } {cooperative}
  tile.return
}

// -----

// A read of a tile after its own copy but before another copy of the body:
// the body waits for all its copies at once, so the error names the read and
// the later copy, not a copy into the tile it reads.
tile.host @h(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @k grid(%c1, %c1, %c1) args(%kv, %n) : (!tile.ptr<bf16>, index) -> ()
  tile.return
}
tile.kernel @k(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %q = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.copy %v[%c0, %c0] to %q box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    tile.copy %v[%i, %c0] to %a box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    // expected-error@+1 {{'tile.gemm' op reads a shared tile of a pipelined loop before a later copy of the loop body: the body waits for all its copies at once, so every copy comes before the first read; move that copy up}}
    %s = tile.gemm %q, %a {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    // expected-note@+1 {{the later copy}}
    tile.copy %v[%i, %c0] to %b box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %t = tile.gemm %q, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  }
  tile.return
}

// -----

// Rows by cp.async take a producer warp running the loop on every lane: not
// yet a loop inside another pipelined loop.
tile.kernel @k(%kv: !tile.ptr<bf16>, %idx: !tile.ptr<i32>, %n: index, %k: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %v = tile.view %kv sizes(%n) strides(%c128) : !tile.ptr<bf16> -> !tile.tensor<?x128xbf16>
  %i = tile.view %idx sizes(%n, %k) strides(%k) : !tile.ptr<i32> -> !tile.tensor<?x?xi32>
  tile.pipelined %s = %c0 to %n step %c1 stages 2 {
    %q = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    tile.copy %v[%s, %c0] to %q box [64, 64] : !tile.tensor<?x128xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    tile.pipelined %j = %c0 to %k step %c64 stages 2 {
      %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      // expected-error@+1 {{'tile.copy' op gathers its rows by cp.async in a pipelined loop that is inside a pipelined loop; the TMA's one box a row serves there (GatherBy::tma)}}
      tile.copy %v[%c0, %c0] to %t box [64, 64] rows %i[%s, %j] {tile.cp_async} : !tile.tensor<?x128xbf16>, !tile.shared<64x64xbf16, swizzle = 128>, !tile.tensor<?x?xi32>
      %a = tile.gemm %q, %t {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    }
  }
  tile.return
}
