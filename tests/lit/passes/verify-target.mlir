// RUN: minitile-opt %s --split-input-file --tile-verify-target --verify-diagnostics

// Hopper ops the module's target lacks are refused at their own location.
module attributes {tile.target = "sm_80"} {
  tile.kernel @k() attributes {block = array<i32: 128, 1, 1>, producer_threads = 0 : i64, smem_bytes = 0 : i64} {
    // expected-error @+1 {{'hopper.wgmma_fence' needs wgmma, which sm_80 does not have}}
    hopper.wgmma_fence
    // expected-error @+1 {{'hopper.setmaxnreg' needs setmaxnreg, which sm_80 does not have}}
    hopper.setmaxnreg 40 {increase = false}
    // expected-error @+1 {{'hopper.elect_one' needs elect.sync, which sm_80 does not have}}
    %e = hopper.elect_one
    // sm_80 has named barriers.
    hopper.named_barrier 1 threads 64
    tile.return
  }
}

// -----

// sm_90 has the TMA's fences but not wgmma.
module attributes {tile.target = "sm_90"} {
  tile.kernel @k() attributes {block = array<i32: 128, 1, 1>, producer_threads = 0 : i64, smem_bytes = 0 : i64} {
    hopper.fence_proxy_async
    // expected-error @+1 {{'hopper.wgmma_commit' needs wgmma, which sm_90 does not have}}
    hopper.wgmma_commit
    tile.return
  }
}

// -----

// Without tile.target the module is for sm_90a, which has everything.
module {
  tile.kernel @k() attributes {block = array<i32: 128, 1, 1>, producer_threads = 0 : i64, smem_bytes = 0 : i64} {
    hopper.wgmma_fence
    hopper.setmaxnreg 40 {increase = false}
    tile.return
  }
}

// -----

// expected-error @+1 {{'tile.target' names an architecture (sm_75, sm_80, sm_86, sm_89, sm_90, sm_90a), not "sm_70"}}
module attributes {tile.target = "sm_70"} {
}

// -----

// expected-error @+1 {{'tile.target' belongs on a module}}
tile.kernel @k() attributes {block = array<i32: 128, 1, 1>, producer_threads = 0 : i64, smem_bytes = 0 : i64, tile.target = "sm_80"} {
  tile.return
}

// -----

// A wgmma needs its accumulator's registers and ~26 more at the function's
// cap, which min_blocks_per_sm sets: 32 blocks of 128 threads leave 16
// (ptxas would stop with C7602); 16 blocks leave 32, enough for m64n8's 4.
module {
  tile.kernel @k(%x: f32) attributes {block = array<i32: 128, 1, 1>, min_blocks_per_sm = 32 : i32, producer_threads = 0 : i64, smem_bytes = 0 : i64} {
    %c0 = arith.constant 0 : index
    %tile = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %d = hopper.wgmma_desc %tile[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
    // expected-error @+1 {{this gemm needs about 30 registers a thread (its accumulator's 4 and addresses), but 32 blocks of 128 threads on a multiprocessor (min_blocks_per_sm) leave 16 on sm_90a}}
    %r:4 = hopper.wgmma %d, %d n 8 acc(%x, %x, %x, %x) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    tile.return
  }
  tile.kernel @fits(%x: f32) attributes {block = array<i32: 128, 1, 1>, min_blocks_per_sm = 16 : i32, producer_threads = 0 : i64, smem_bytes = 0 : i64} {
    %c0 = arith.constant 0 : index
    %tile = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %d = hopper.wgmma_desc %tile[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
    %r:4 = hopper.wgmma %d, %d n 8 acc(%x, %x, %x, %x) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    tile.return
  }
}
