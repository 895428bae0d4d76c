// RUN: minitile-opt %s --split-input-file --tile-ping-pong --verify-diagnostics | FileCheck %s

// Attention's shape: S = Q K^T at the top of the body, read after a wait;
// O += P V at the bottom, accumulating; the previous stage released at the
// end. Two compute warpgroups (256 threads past a producer warpgroup) take
// turns: a turn is this iteration's P V and the next iteration's Q K^T
// (with the wait for its stage between them). The release moves before the
// turn, after the wait that covers every group committed before it; the
// last warpgroup gives warpgroup 0 the first turn, warpgroup 0 takes the
// last hand-over after the loop.
// CHECK-LABEL: tile.kernel @across
// CHECK: %[[TID:.*]] = tile.thread_id x
// CHECK: %[[REL:.*]] = arith.subi %[[TID]], %{{.*}} : index
// CHECK: %[[WG:.*]] = arith.divui %[[REL]], %{{.*}} : index
// CHECK: %[[G:.*]] = tile.shuffle_idx
// CHECK: %[[MINE:.*]] = arith.addi %[[G]], %[[BASE:.*]] : i32
// CHECK: %[[AFTER:.*]] = arith.addi %[[G]], %{{.*}} : i32
// CHECK: %[[WRAP:.*]] = arith.remui %[[AFTER]], %{{.*}} : i32
// CHECK: %[[NEXT:.*]] = arith.addi %[[WRAP]], %[[BASE]] : i32
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %c0, %[[N:.*]] : index
// CHECK: tile.if
// CHECK-NEXT: hopper.bar_arrive %[[FIRST:.*]] threads 256
// CHECK: tile.if %[[RUNS]] {
// CHECK-NEXT: hopper.bar_sync %[[MINE]] threads 256
// CHECK: tile.for
// CHECK: hopper.mbarrier_wait
// CHECK: hopper.wgmma_fence
// CHECK: hopper.wgmma_commit
// CHECK-NEXT: hopper.bar_arrive %[[NEXT]] threads 256
// CHECK-NEXT: hopper.wgmma_wait 0
// CHECK: hopper.mbarrier_arrive {{.*}} releases(
// CHECK-NEXT: hopper.bar_sync %[[MINE]] threads 256
// CHECK-NEXT: hopper.wgmma_fence
// CHECK: hopper.wgmma_commit
// CHECK-NEXT: hopper.wgmma_wait 1
// CHECK-NEXT: tile.yield
// CHECK: tile.if %[[RUNS]] {
// CHECK-NEXT: hopper.bar_arrive %[[NEXT]] threads 256
// CHECK: tile.if
// CHECK-NEXT: hopper.bar_sync %[[FIRST]] threads 256
// CHECK-NOT: tile.ping_pong
tile.kernel @across(%n: index) attributes {block = array<i32: 384, 1, 1>, producer_threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c2_i32 = arith.constant 2 : i32
  %full = tile.alloc_shared : !tile.shared<2xi64>
  %empty = tile.alloc_shared : !tile.shared<3xi64>
  %q = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %kr = tile.alloc_shared {stages = 2 : i64} : !tile.shared<8x64xbf16, swizzle = 128>
  %vr = tile.alloc_shared {stages = 2 : i64} : !tile.shared<8x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  %r:6 = tile.for %i = %c0 to %n step %c1 iter_args(%a0 = %z, %a1 = %z, %a2 = %z, %a3 = %z, %s32 = %c2_i32, %prev = %c2_i32) -> (f32, f32, f32, f32, i32, i32) {
    %s = arith.index_castui %s32 : i32 to index
    %f = hopper.mbarrier_of %full[%s] : !tile.shared<2xi64>
    hopper.mbarrier_wait %f parity %c0
    %ks = tile.stage %kr[%s] : !tile.shared<8x64xbf16, swizzle = 128>
    %vs = tile.stage %vr[%s] : !tile.shared<8x64xbf16, swizzle = 128>
    %dq = hopper.wgmma_desc %q[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
    %dk = hopper.wgmma_desc %ks[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
    hopper.wgmma_fence
    %sc:4 = hopper.wgmma %dq, %dk n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    hopper.wgmma_wait 0
    %p = arith.addf %sc#0, %sc#1 : f32
    %dv = hopper.wgmma_desc %vs[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
    hopper.wgmma_fence
    %o:4 = hopper.wgmma %dq, %dv n 8 acc(%a0, %a1, %a2, %p) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    hopper.wgmma_wait 1
    %ps = arith.index_castui %prev : i32 to index
    %e = hopper.mbarrier_of %empty[%ps] : !tile.shared<3xi64>
    %kp = tile.stage %kr[%ps] : !tile.shared<8x64xbf16, swizzle = 128>
    %vp = tile.stage %vr[%ps] : !tile.shared<8x64xbf16, swizzle = 128>
    hopper.mbarrier_arrive %e releases(%kp, %vp : !tile.shared<8x64xbf16, swizzle = 128>, !tile.shared<8x64xbf16, swizzle = 128>)
    tile.yield %o#0, %o#1, %o#2, %o#3, %s32, %s32 : f32, f32, f32, f32, i32, i32
  } {tile.ping_pong}
  hopper.wgmma_wait 0
  tile.return
}

// -----

// One gemm a body: each is a turn of its own; before the loop warpgroup 0
// is given the first, and it takes the last hand-over after.
// CHECK-LABEL: tile.kernel @single
// CHECK: hopper.bar_arrive
// CHECK-NOT: hopper.bar_sync
// CHECK: tile.for
// CHECK: hopper.bar_sync %[[MINE:.*]] threads 256
// CHECK-NEXT: hopper.wgmma_fence
// CHECK: hopper.wgmma_commit
// CHECK-NEXT: hopper.bar_arrive %{{.*}} threads 256
// CHECK: tile.yield
// CHECK-NEXT: }
// CHECK-NOT: hopper.bar_arrive
// CHECK: arith.cmpi eq
// CHECK: tile.if
// CHECK-NEXT: hopper.bar_sync
// CHECK: tile.return
tile.kernel @single(%n: index) attributes {block = array<i32: 512, 1, 1>, producer_threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<8x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  %r:4 = tile.for %i = %c0 to %n step %c1 iter_args(%a0 = %z, %a1 = %z, %a2 = %z, %a3 = %z) -> (f32, f32, f32, f32) {
    %da = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
    %db = hopper.wgmma_desc %b[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
    hopper.wgmma_fence
    %d:4 = hopper.wgmma %da, %db n 8 acc(%a0, %a1, %a2, %a3) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    hopper.wgmma_wait 0
    tile.yield %d#0, %d#1, %d#2, %d#3 : f32, f32, f32, f32
  } {tile.ping_pong}
  tile.return
}

// -----

// One compute warpgroup: nothing to take turns with.
// CHECK-LABEL: tile.kernel @one_group
// CHECK-NOT: hopper.bar_
// CHECK: tile.return
tile.kernel @one_group(%n: index) attributes {block = array<i32: 256, 1, 1>, producer_threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<8x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  // expected-remark@+1 {{runs without ping-pong: it needs two or more compute warpgroups, and the kernel has 128 compute threads}}
  tile.for %i = %c0 to %n step %c1 {
    %da = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
    %db = hopper.wgmma_desc %b[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
    hopper.wgmma_fence
    %d:4 = hopper.wgmma %da, %db n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    hopper.wgmma_wait 0
  } {tile.ping_pong}
  tile.return
}

// -----

// A barrier in the body would wait for a warpgroup waiting for its turn.
// CHECK-LABEL: tile.kernel @barrier
// CHECK-NOT: hopper.bar_
// CHECK: tile.return
tile.kernel @barrier(%n: index) attributes {block = array<i32: 384, 1, 1>, producer_threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<8x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  // expected-remark@+1 {{runs without ping-pong: its body holds a barrier, which would wait for a warpgroup waiting for its turn}}
  tile.for %i = %c0 to %n step %c1 {
    %da = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
    %db = hopper.wgmma_desc %b[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
    hopper.wgmma_fence
    %d:4 = hopper.wgmma %da, %db n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    hopper.wgmma_wait 0
    hopper.named_barrier 1 threads 256
  } {tile.ping_pong}
  tile.return
}

// -----

// A gemm inside an if: its turn would not be taken on every path.
// CHECK-LABEL: tile.kernel @nested
// CHECK-NOT: hopper.bar_
// CHECK: tile.return
tile.kernel @nested(%n: index, %c: i1) attributes {block = array<i32: 384, 1, 1>, producer_threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<8x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  // expected-remark@+1 {{runs without ping-pong: its gemms are not all at the top level of its body}}
  tile.for %i = %c0 to %n step %c1 {
    tile.if %c {
      %da = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
      %db = hopper.wgmma_desc %b[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
      hopper.wgmma_fence
      %d:4 = hopper.wgmma %da, %db n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
      hopper.wgmma_commit
      hopper.wgmma_wait 0
    }
  } {tile.ping_pong}
  tile.return
}

// -----

// A release of the stage the turn's gemm reads cannot move before it (not
// what tile-order-async leaves, which waits for the gemm first; then the
// wait ends the turn).
// CHECK-LABEL: tile.kernel @reads_released
// CHECK-NOT: hopper.bar_
// CHECK: tile.return
tile.kernel @reads_released(%n: index) attributes {block = array<i32: 384, 1, 1>, producer_threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %empty = tile.alloc_shared : !tile.shared<2xi64>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %ring = tile.alloc_shared {stages = 2 : i64} : !tile.shared<8x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  // expected-remark@+1 {{runs without ping-pong: a ring's release at the end of its body follows a gemm that may read the tiles it releases}}
  tile.for %i = %c0 to %n step %c1 {
    %da = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
    hopper.wgmma_fence
    %d:4 = hopper.wgmma %da, %da n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    hopper.wgmma_wait 0
    %bs = tile.stage %ring[%i] : !tile.shared<8x64xbf16, swizzle = 128>
    %db = hopper.wgmma_desc %bs[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
    hopper.wgmma_fence
    %e:4 = hopper.wgmma %da, %db n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    hopper.wgmma_wait 1
    %m = hopper.mbarrier_of %empty[%i] : !tile.shared<2xi64>
    hopper.mbarrier_arrive %m releases(%bs : !tile.shared<8x64xbf16, swizzle = 128>)
  } {tile.ping_pong}
  tile.return
}

// -----

// FlashAttention-3's order within a warpgroup: this tile's Q K^T, then the
// previous tile's P V under it, then the softmax once Q K^T is done. The
// wait between the gemms leaves Q K^T running, so both are one turn; the
// wait after them is for Q K^T, so the turn ends there and does not reach
// across the back edge: no turn before or after the loop.
// CHECK-LABEL: tile.kernel @one_turn
// CHECK: tile.if
// CHECK-NEXT: hopper.bar_arrive
// CHECK-NOT: hopper.bar_
// CHECK: tile.for
// CHECK: hopper.bar_sync %[[MINE:.*]] threads 256
// CHECK-NEXT: hopper.wgmma_fence
// CHECK-NOT: hopper.bar_
// CHECK: hopper.wgmma_wait 1
// CHECK-NOT: hopper.bar_
// CHECK: hopper.wgmma_commit
// CHECK-NEXT: hopper.bar_arrive %{{.*}} threads 256
// CHECK-NEXT: hopper.wgmma_wait 1
// CHECK-NOT: hopper.bar_
// CHECK: tile.yield
// CHECK-NOT: hopper.bar_arrive
// CHECK: tile.if
// CHECK-NEXT: hopper.bar_sync
tile.kernel @one_turn(%n: index) attributes {block = array<i32: 384, 1, 1>, producer_threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<8x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  %r:4 = tile.for %i = %c0 to %n step %c1 iter_args(%a0 = %z, %a1 = %z, %a2 = %z, %a3 = %z) -> (f32, f32, f32, f32) {
    %da = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
    %db = hopper.wgmma_desc %b[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
    hopper.wgmma_fence
    %s:4 = hopper.wgmma %da, %db n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    hopper.wgmma_wait 1
    %o0 = arith.mulf %a0, %a1 : f32
    hopper.wgmma_fence
    %o:4 = hopper.wgmma %da, %db n 8 acc(%o0, %a1, %a2, %a3) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    hopper.wgmma_wait 1
    %p = arith.addf %s#0, %s#1 : f32
    tile.yield %o#0, %o#1, %o#2, %p : f32, f32, f32, f32
  } {tile.ping_pong}
  tile.return
}
