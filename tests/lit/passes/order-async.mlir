// RUN: minitile-opt %s --split-input-file --tile-order-async | FileCheck %s
// RUN: minitile-opt %s --split-input-file --tile-order-async --tile-order-async | FileCheck %s
// (The second run adds nothing: once the invariant holds, the pass is a no-op.)

// A tile the threads wrote, then a barrier, then a wgmma reading it: the
// stores are fenced for the async proxy before the barrier; the tile only
// the threads read is not.
// CHECK-LABEL: tile.kernel @staged
// CHECK: tile.shared_store
// CHECK-NEXT: tile.shared_store
// CHECK-NEXT: hopper.fence_proxy_async
// CHECK-NEXT: tile.barrier
// CHECK-NOT: hopper.fence_proxy_async
// CHECK: hopper.wgmma_fence
tile.kernel @staged(%x: bf16, %y: f32) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<8x64xbf16, swizzle = 128>
  %scratch = tile.alloc_shared : !tile.shared<128xf32>
  %r = tile.thread_id x
  tile.shared_store %x, %a[%r, %c0] : bf16, !tile.shared<64x64xbf16, swizzle = 128>
  tile.shared_store %y, %scratch[%c0, %r] : f32, !tile.shared<128xf32>
  tile.barrier
  %da = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
  %db = hopper.wgmma_desc %b[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  hopper.wgmma_fence
  %d:4 = hopper.wgmma %da, %db n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
  hopper.wgmma_commit
  hopper.wgmma_wait 0
  tile.barrier
  tile.return
}

// -----

// Only threads read a tile they wrote: no fence.
// CHECK-LABEL: tile.kernel @generic_only
// CHECK-NOT: hopper.fence_proxy_async
// CHECK: tile.return
tile.kernel @generic_only(%y: f32) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %scratch = tile.alloc_shared : !tile.shared<128xf32>
  %r = tile.thread_id x
  tile.shared_store %y, %scratch[%c0, %r] : f32, !tile.shared<128xf32>
  tile.barrier
  %v = tile.shared_load %scratch[%c0, %c0] : !tile.shared<128xf32> -> f32
  tile.return
}

// -----

// A stage released right after its gemm's commit (an accumulator the loop
// carries in another form than itself): the release waits for the group.
// CHECK-LABEL: tile.kernel @release
// CHECK: tile.for
// CHECK: hopper.wgmma_commit
// CHECK-NEXT: %[[E:.*]] = hopper.mbarrier_of
// CHECK-NEXT: hopper.wgmma_wait 0
// CHECK-NEXT: hopper.mbarrier_arrive %[[E]] releases(
// CHECK: tile.yield
tile.kernel @release(%n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %empty = tile.alloc_shared : !tile.shared<2xi64>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %ring = tile.alloc_shared {stages = 2 : i64} : !tile.shared<8x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  %r:4 = tile.for %i = %c0 to %n step %c1 iter_args(%a0 = %z, %a1 = %z, %a2 = %z, %a3 = %z) -> (f32, f32, f32, f32) {
    %s = arith.remui %i, %c2 : index
    %bs = tile.stage %ring[%s] : !tile.shared<8x64xbf16, swizzle = 128>
    %da = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
    %db = hopper.wgmma_desc %bs[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
    hopper.wgmma_fence
    %d:4 = hopper.wgmma %da, %db n 8 acc(%a0, %a1, %a2, %a3) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    %e = hopper.mbarrier_of %empty[%s] : !tile.shared<2xi64>
    hopper.mbarrier_arrive %e releases(%bs : !tile.shared<8x64xbf16, swizzle = 128>)
    tile.yield %d#0, %d#1, %d#2, %d#3 : f32, f32, f32, f32
  }
  hopper.wgmma_wait 0
  tile.return
}

// -----

// The lagged release: the previous iteration's stage (carried), after a
// wait that leaves only this iteration's group running. Nothing to add; the
// last stage goes back after the loop's final wait.
// CHECK-LABEL: tile.kernel @lagged
// CHECK: hopper.wgmma_commit
// CHECK-NEXT: hopper.wgmma_wait 1
// CHECK-NOT: hopper.wgmma_wait
// CHECK: tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: hopper.wgmma_wait 0
// CHECK-NOT: hopper.wgmma_wait
// CHECK: tile.return
tile.kernel @lagged(%n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %empty = tile.alloc_shared : !tile.shared<3xi64>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %ring = tile.alloc_shared {stages = 2 : i64} : !tile.shared<8x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  %r:5 = tile.for %i = %c0 to %n step %c1 iter_args(%a0 = %z, %a1 = %z, %a2 = %z, %a3 = %z, %prev = %c2) -> (f32, f32, f32, f32, index) {
    %s = arith.remui %i, %c2 : index
    %bs = tile.stage %ring[%s] : !tile.shared<8x64xbf16, swizzle = 128>
    %da = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
    %db = hopper.wgmma_desc %bs[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
    hopper.wgmma_fence
    %d:4 = hopper.wgmma %da, %db n 8 acc(%a0, %a1, %a2, %a3) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    hopper.wgmma_wait 1
    %e = hopper.mbarrier_of %empty[%prev] : !tile.shared<3xi64>
    %bp = tile.stage %ring[%prev] : !tile.shared<8x64xbf16, swizzle = 128>
    hopper.mbarrier_arrive %e releases(%bp : !tile.shared<8x64xbf16, swizzle = 128>)
    tile.yield %d#0, %d#1, %d#2, %d#3, %s : f32, f32, f32, f32, index
  }
  hopper.wgmma_wait 0
  %e = hopper.mbarrier_of %empty[%r#4] : !tile.shared<3xi64>
  %bl = tile.stage %ring[%r#4] : !tile.shared<8x64xbf16, swizzle = 128>
  hopper.mbarrier_arrive %e releases(%bl : !tile.shared<8x64xbf16, swizzle = 128>)
  tile.return
}

// -----

// The same lag with one stage: the previous stage is this one, which this
// iteration's gemm still reads (two SSA values naming one stage are told
// apart only as constants) -- the stage 0 of both: wait for all.
// CHECK-LABEL: tile.kernel @lagged_one_stage
// CHECK: hopper.wgmma_wait 1
// CHECK-NEXT: hopper.mbarrier_of
// CHECK-NEXT: tile.stage
// CHECK-NEXT: hopper.wgmma_wait 0
// CHECK-NEXT: hopper.mbarrier_arrive
tile.kernel @lagged_one_stage(%n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %empty = tile.alloc_shared : !tile.shared<2xi64>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %ring = tile.alloc_shared {stages = 1 : i64} : !tile.shared<8x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  %r:4 = tile.for %i = %c0 to %n step %c1 iter_args(%a0 = %z, %a1 = %z, %a2 = %z, %a3 = %z) -> (f32, f32, f32, f32) {
    %bs = tile.stage %ring[%c0] : !tile.shared<8x64xbf16, swizzle = 128>
    %da = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
    %db = hopper.wgmma_desc %bs[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
    hopper.wgmma_fence
    %d:4 = hopper.wgmma %da, %db n 8 acc(%a0, %a1, %a2, %a3) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    hopper.wgmma_wait 1
    %e = hopper.mbarrier_of %empty[%c0] : !tile.shared<2xi64>
    %bp = tile.stage %ring[%c0] : !tile.shared<8x64xbf16, swizzle = 128>
    hopper.mbarrier_arrive %e releases(%bp : !tile.shared<8x64xbf16, swizzle = 128>)
    tile.yield %d#0, %d#1, %d#2, %d#3 : f32, f32, f32, f32
  }
  hopper.wgmma_wait 0
  tile.return
}

// -----

// A serial loop: the next iteration's TMA copy into the tile the last gemm
// read is behind a barrier, which waits for that gemm first (so that no
// thread's group still reads the tile when the copy starts).
// CHECK-LABEL: tile.kernel @serial
// CHECK: tile.for
// CHECK-NEXT: hopper.wgmma_wait 0
// CHECK-NEXT: tile.barrier
// CHECK-NOT: hopper.wgmma_wait
// CHECK: hopper.tma_load
// CHECK-NOT: hopper.wgmma_wait
// CHECK: tile.yield
tile.kernel @serial(%desc: !hopper.tma_desc, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0_i32 = arith.constant 0 : i32
  %bars = tile.alloc_shared : !tile.shared<1xi64>
  %full = hopper.mbarrier_of %bars[%c0] : !tile.shared<1xi64>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<8x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  %t = tile.thread_id x
  %first = arith.cmpi eq, %t, %c0 : index
  %r:4 = tile.for %i = %c0 to %n step %c1 iter_args(%a0 = %z, %a1 = %z, %a2 = %z, %a3 = %z) -> (f32, f32, f32, f32) {
    tile.barrier
    tile.if %first {
      hopper.mbarrier_arrive_expect_tx %full bytes 1024
      hopper.tma_load %desc[%c0_i32, %c0_i32] to %b offset 0, %full : !tile.shared<8x64xbf16, swizzle = 128>
    }
    %p = arith.andi %i, %c1 : index
    hopper.mbarrier_wait %full parity %p
    %da = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
    %db = hopper.wgmma_desc %b[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
    hopper.wgmma_fence
    %d:4 = hopper.wgmma %da, %db n 8 acc(%a0, %a1, %a2, %a3) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    tile.yield %d#0, %d#1, %d#2, %d#3 : f32, f32, f32, f32
  }
  hopper.wgmma_wait 0
  tile.return
}

// -----

// A thread writes, under an if, a tile its group's gemm still reads: the
// wait goes before the if (a warp-aligned wait under a divergent branch
// would hang), counting the later group that need not finish.
// CHECK-LABEL: tile.kernel @write_after
// CHECK: hopper.wgmma_commit
// CHECK: hopper.wgmma_commit
// CHECK: hopper.wgmma_wait 1
// CHECK-NEXT: tile.if
// CHECK-NEXT: tile.shared_store
tile.kernel @write_after(%x: bf16) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<8x64xbf16, swizzle = 128>
  %c = tile.alloc_shared : !tile.shared<8x64xbf16, swizzle = 128>
  %da = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
  %db = hopper.wgmma_desc %b[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
  %dc = hopper.wgmma_desc %c[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  hopper.wgmma_fence
  %d:4 = hopper.wgmma %da, %db n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
  hopper.wgmma_commit
  hopper.wgmma_fence
  %e:4 = hopper.wgmma %da, %dc n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
  hopper.wgmma_commit
  %t = tile.thread_id x
  %first = arith.cmpi eq, %t, %c0 : index
  tile.if %first {
    tile.shared_store %x, %b[%c0, %c0] : bf16, !tile.shared<8x64xbf16, swizzle = 128>
  }
  hopper.wgmma_wait 0
  tile.return
}

// -----

// Groups still running when the kernel returns are waited for.
// CHECK-LABEL: tile.kernel @unread
// CHECK: hopper.wgmma_commit
// CHECK-NEXT: hopper.wgmma_wait 0
// CHECK-NEXT: tile.return
tile.kernel @unread() attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<8x64xbf16, swizzle = 128>
  %da = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
  %db = hopper.wgmma_desc %b[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  hopper.wgmma_fence
  %d:4 = hopper.wgmma %da, %db n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
  hopper.wgmma_commit
  tile.return
}

// -----

// A bulk copy's source: fenced after the threads' stores, and not written
// again before the copy has read it.
// CHECK-LABEL: tile.kernel @bulk
// CHECK: tile.shared_store
// CHECK-NEXT: hopper.fence_proxy_async
// CHECK-NEXT: hopper.bulk_store
// CHECK-NEXT: hopper.bulk_commit
// CHECK-NEXT: hopper.bulk_wait_read
// CHECK-NEXT: tile.shared_store
// CHECK-NEXT: hopper.fence_proxy_async
// CHECK-NEXT: hopper.bulk_store
// CHECK-NEXT: hopper.bulk_commit
// CHECK-NEXT: hopper.bulk_wait_read
// CHECK-NEXT: tile.return
tile.kernel @bulk(%p: !tile.ptr<f32>, %x: f32) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : i32
  %row = tile.view %p sizes() strides() : !tile.ptr<f32> -> !tile.tensor<1024xf32>
  %src = tile.alloc_shared : !tile.shared<512xf32>
  tile.shared_store %x, %src[%c0, %c0] : f32, !tile.shared<512xf32>
  hopper.bulk_store %src to %row[%c0] bytes %c256 : !tile.shared<512xf32>, !tile.tensor<1024xf32>
  hopper.bulk_commit
  tile.shared_store %x, %src[%c0, %c0] : f32, !tile.shared<512xf32>
  hopper.bulk_store %src to %row[%c0] bytes %c256 : !tile.shared<512xf32>, !tile.tensor<1024xf32>
  hopper.bulk_commit
  tile.return
}

// -----

// Warp-specialised: the compute threads' named barrier does not wait for
// their gemms on account of the producer's copies (those wait for the
// stage's release), and the release of a stage the gemm still reads does.
// CHECK-LABEL: tile.kernel @roles
// CHECK: } else {
// CHECK: hopper.wgmma_commit
// CHECK-NEXT: hopper.named_barrier 1 threads 128
// CHECK-NEXT: hopper.mbarrier_of
// CHECK-NEXT: hopper.wgmma_wait 0
// CHECK-NEXT: hopper.mbarrier_arrive
tile.kernel @roles(%desc: !hopper.tma_desc, %n: index) attributes {block = array<i32: 256, 1, 1>, producer_threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c0_i32 = arith.constant 0 : i32
  %fulls = tile.alloc_shared : !tile.shared<2xi64>
  %empties = tile.alloc_shared : !tile.shared<2xi64>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %ring = tile.alloc_shared {stages = 2 : i64} : !tile.shared<8x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  %t = tile.thread_id x
  %producer = arith.cmpi ult, %t, %c128 : index
  tile.if %producer {
    tile.for %i = %c0 to %n step %c1 {
      %s = arith.remui %i, %c2 : index
      %e = hopper.mbarrier_of %empties[%s] : !tile.shared<2xi64>
      hopper.mbarrier_wait %e parity %c0
      %f = hopper.mbarrier_of %fulls[%s] : !tile.shared<2xi64>
      %bs = tile.stage %ring[%s] : !tile.shared<8x64xbf16, swizzle = 128>
      hopper.mbarrier_arrive_expect_tx %f bytes 1024
      hopper.tma_load %desc[%c0_i32, %c0_i32] to %bs offset 0, %f : !tile.shared<8x64xbf16, swizzle = 128>
    }
  } else {
    %r:4 = tile.for %i = %c0 to %n step %c1 iter_args(%a0 = %z, %a1 = %z, %a2 = %z, %a3 = %z) -> (f32, f32, f32, f32) {
      %s = arith.remui %i, %c2 : index
      %f = hopper.mbarrier_of %fulls[%s] : !tile.shared<2xi64>
      hopper.mbarrier_wait %f parity %c0
      %bs = tile.stage %ring[%s] : !tile.shared<8x64xbf16, swizzle = 128>
      %da = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
      %db = hopper.wgmma_desc %bs[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
      hopper.wgmma_fence
      %d:4 = hopper.wgmma %da, %db n 8 acc(%a0, %a1, %a2, %a3) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
      hopper.wgmma_commit
      hopper.named_barrier 1 threads 128
      %e = hopper.mbarrier_of %empties[%s] : !tile.shared<2xi64>
      hopper.mbarrier_arrive %e releases(%bs : !tile.shared<8x64xbf16, swizzle = 128>)
      tile.yield %d#0, %d#1, %d#2, %d#3 : f32, f32, f32, f32
    }
    hopper.wgmma_wait 0
  }
  tile.return
}

// -----

// A from registers: a wgmma reads its A registers until a wait covers its
// group, so they are not written again before one. The loop packs them
// anew each iteration (insertelement, insertelement, bitcast: what LLVM
// folds into the one cvt or mov that writes the register): the wait for
// the previous iteration's group comes before the first op of the packing,
// not before the bf16 values it packs, which run on under the tensor
// cores. Nothing else in the loop waits, and the accumulators only chain
// into the next wgmma; the group left in flight is waited for at the end.
// CHECK-LABEL: tile.kernel @register_a
// CHECK: tile.for
// CHECK: %[[V:.*]] = tile.shared_load
// CHECK-NEXT: hopper.wgmma_wait 0
// CHECK-NEXT: llvm.insertelement %[[V]]
// CHECK-NEXT: llvm.insertelement
// CHECK-NEXT: llvm.bitcast
// CHECK-NEXT: hopper.wgmma_fence
// CHECK-NEXT: hopper.wgmma regs(
// CHECK-NEXT: hopper.wgmma_commit
// CHECK-NEXT: tile.yield
// CHECK: hopper.wgmma_wait 0
// CHECK-NEXT: tile.return
tile.kernel @register_a(%n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0_i32 = arith.constant 0 : i32
  %c1_i32 = arith.constant 1 : i32
  %b = tile.alloc_shared : !tile.shared<16x64xbf16, swizzle = 128>
  %p = tile.alloc_shared : !tile.shared<128xbf16>
  %poison = llvm.mlir.poison : vector<2xbf16>
  %db = hopper.wgmma_desc %b[%c0] sbo 1024 : !tile.shared<16x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  %r:4 = tile.for %i = %c0 to %n step %c1 iter_args(%a0 = %z, %a1 = %z, %a2 = %z, %a3 = %z) -> (f32, f32, f32, f32) {
    %v = tile.shared_load %p[%c0, %i] : !tile.shared<128xbf16> -> bf16
    %lo = llvm.insertelement %v, %poison[%c0_i32 : i32] : vector<2xbf16>
    %hi = llvm.insertelement %v, %lo[%c1_i32 : i32] : vector<2xbf16>
    %a = llvm.bitcast %hi : vector<2xbf16> to i32
    hopper.wgmma_fence
    %d:4 = hopper.wgmma regs(%a, %a, %a, %a), %db n 8 acc(%a0, %a1, %a2, %a3) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    tile.yield %d#0, %d#1, %d#2, %d#3 : f32, f32, f32, f32
  }
  tile.return
}

// -----

// A later group committed between the register A's group and the next
// packing (the next iteration's scores, in attention): the wait leaves it
// running (wait_group 1). A read of the A registers by another op (the
// packed value used after the gemm) waits for the group too.
// CHECK-LABEL: tile.kernel @register_a_later_group
// CHECK: tile.for
// CHECK: hopper.wgmma_commit
// CHECK: hopper.wgmma_wait 1
// CHECK-NEXT: llvm.insertelement
// CHECK: hopper.wgmma regs(
// CHECK-NEXT: hopper.wgmma_commit
// CHECK-NEXT: hopper.wgmma_wait 0
// CHECK-NEXT: arith.addi
// CHECK: tile.yield
tile.kernel @register_a_later_group(%n: index, %v: bf16) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0_i32 = arith.constant 0 : i32
  %c1_i32 = arith.constant 1 : i32
  %b = tile.alloc_shared : !tile.shared<16x64xbf16, swizzle = 128>
  %s = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %poison = llvm.mlir.poison : vector<2xbf16>
  %db = hopper.wgmma_desc %b[%c0] sbo 1024 : !tile.shared<16x64xbf16, swizzle = 128>
  %ds = hopper.wgmma_desc %s[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  %r:5 = tile.for %i = %c0 to %n step %c1 iter_args(%a0 = %z, %a1 = %z, %a2 = %z, %a3 = %z, %t = %c0_i32) -> (f32, f32, f32, f32, i32) {
    // The next scores' gemm, started before this iteration's packing.
    hopper.wgmma_fence
    %e:4 = hopper.wgmma %ds, %db n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    %lo = llvm.insertelement %v, %poison[%c0_i32 : i32] : vector<2xbf16>
    %hi = llvm.insertelement %v, %lo[%c1_i32 : i32] : vector<2xbf16>
    %a = llvm.bitcast %hi : vector<2xbf16> to i32
    hopper.wgmma_fence
    %d:4 = hopper.wgmma regs(%a, %a, %a, %a), %db n 8 acc(%a0, %a1, %a2, %a3) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    %u = arith.addi %a, %t : i32
    tile.yield %d#0, %d#1, %d#2, %d#3, %u : f32, f32, f32, f32, i32
  }
  tile.return
}

// -----

// A loop whose body starts at a barrier and then writes a tile that a
// wgmma reads after a second barrier (a fragment stored into a shared tile,
// in a loop): the write is fenced before the second barrier, so the back
// edge brings no unfenced write to the first. (The first hazard in program
// order is that barrier, reached over the back edge before the second
// barrier's fence is in; the fence it gets is taken out again at the end.)
// CHECK-LABEL: tile.kernel @fence_once
// CHECK: tile.for
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.shared_store
// CHECK-NEXT: hopper.fence_proxy_async
// CHECK-NEXT: tile.barrier
// CHECK-NOT: hopper.fence_proxy_async
// CHECK: tile.return
tile.kernel @fence_once(%n: index, %x: bf16) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<8x64xbf16, swizzle = 128>
  %da = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
  %db = hopper.wgmma_desc %b[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
  %z = arith.constant 0.0 : f32
  %r = tile.thread_id x
  tile.for %i = %c0 to %n step %c1 {
    tile.barrier
    tile.shared_store %x, %a[%r, %c0] : bf16, !tile.shared<64x64xbf16, swizzle = 128>
    tile.barrier
    hopper.wgmma_fence
    %d:4 = hopper.wgmma %da, %db n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    hopper.wgmma_wait 0
    tile.yield
  }
  tile.return
}
