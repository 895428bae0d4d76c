// RUN: minitile-opt %s --tile-assign-layouts --tile-warp-specialize -split-input-file | FileCheck %s
// A pipelined loop whose copies the TMA can serve: a producer warpgroup is
// added in front, fills a ring of stages through full/empty mbarriers, and
// the compute threads wait, compute and release.

// The launcher gets the tensor map; the kernel gets it as an argument.
// CHECK-LABEL: tile.host @k
// CHECK: %[[MAP:.*]] = hopper.make_tma_desc %kv[%{{.*}}] dims(%{{.*}}, %n) strides(%{{.*}}) box [64, 64] swizzle 128 of "kv"
// CHECK: tile.launch @k_kernel {{.*}} args(%kv, %n, %[[MAP]])
// CHECK-LABEL: tile.kernel @k_kernel
// CHECK-SAME: %kv_tma: !hopper.tma_desc
// CHECK-SAME: block = array<i32: 256, 1, 1>, producer_threads = 128
// Thread 0 initialises 2 full barriers (1 arrival) and 2 empty ones (the
// 128 compute threads); the block meets once.
// CHECK: %[[EMPTY:.*]] = tile.alloc_shared : <2xi64>
// CHECK: %[[FULL:.*]] = tile.alloc_shared : <2xi64>
// CHECK: tile.if
// CHECK-COUNT-2: hopper.mbarrier_init {{.*}} count 1
// CHECK-COUNT-2: hopper.mbarrier_init {{.*}} count 128
// CHECK: hopper.fence_mbarrier_init
// CHECK: } {tile.barrier_init}
// CHECK-NEXT: tile.barrier
// The body's tile, one per stage.
// CHECK: %[[RING:.*]] = tile.alloc_shared {stages = 2 : i64} : <64x64xbf16, swizzle = 128>
// The producer: fewer registers; one elected thread of warp 0 runs the loop.
// CHECK: tile.if %{{.*}} {
// CHECK-NEXT: hopper.setmaxnreg 64 {increase = false}
// CHECK: hopper.elect_one
// CHECK: tile.for
// CHECK: hopper.mbarrier_wait %{{.*}} parity
// CHECK: %[[F:.*]] = hopper.mbarrier_of %[[FULL]]
// CHECK: hopper.mbarrier_arrive_expect_tx %[[F]] bytes 8192
// CHECK: %[[STAGE:.*]] = tile.stage %[[RING]]
// CHECK: hopper.tma_load %kv_tma[{{.*}}] to %[[STAGE]] offset 0, %[[F]]
// No gemm on the producer's side.
// CHECK-NOT: tile.gemm
// The compute threads: more registers, thread ids past the producer's.
// CHECK: } else {
// CHECK-NEXT: hopper.setmaxnreg 248 {increase = true}
// CHECK: %[[HW:.*]] = tile.thread_id{{ +}}x
// CHECK: arith.subi %[[HW]], %c128
// CHECK: tile.for
// CHECK: hopper.mbarrier_of %[[FULL]]
// CHECK: hopper.mbarrier_wait
// CHECK: tile.stage %[[RING]]
// CHECK-NOT: tile.copy
// CHECK: tile.gemm
// CHECK: %[[E:.*]] = hopper.mbarrier_of %[[EMPTY]]
// CHECK: hopper.mbarrier_arrive %[[E]]
// The program's barrier after the loop gathers the 128 compute threads.
// CHECK: hopper.named_barrier 1 threads 128
// CHECK-NOT: tile.barrier
// CHECK: tile.return
tile.host @k(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @k_kernel grid(%c1, %c1, %c1) args(%kv, %n) : (!tile.ptr<bf16>, index) -> ()
  tile.return
}
tile.kernel @k_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.copy %v[%c0, %c0] to %b box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %r = arith.muli %i, %c64 : index
    tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %s = tile.gemm %t, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  }
  tile.barrier
  tile.return
}

// -----

// With min_blocks_per_sm, setmaxnreg moves each block's share of the
// register file: 2 blocks of 256 threads have 128 registers a thread at
// launch; the producer keeps 40, the compute threads take 216 (not 248).
// CHECK-LABEL: tile.kernel @two_kernel
// CHECK: hopper.setmaxnreg 40 {increase = false}
// CHECK: hopper.setmaxnreg 216 {increase = true}
// With 8 blocks (32 registers a thread at launch) there is nothing to move.
// CHECK-LABEL: tile.kernel @eight_kernel
// CHECK-NOT: hopper.setmaxnreg
// CHECK: tile.return
tile.host @two(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @two_kernel grid(%c1, %c1, %c1) args(%kv, %n) : (!tile.ptr<bf16>, index) -> ()
  tile.return
}
tile.kernel @two_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 128, 1, 1>, min_blocks_per_sm = 2 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.copy %v[%c0, %c0] to %b box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %r = arith.muli %i, %c64 : index
    tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %s = tile.gemm %t, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  }
  tile.barrier
  tile.return
}
tile.host @eight(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @eight_kernel grid(%c1, %c1, %c1) args(%kv, %n) : (!tile.ptr<bf16>, index) -> ()
  tile.return
}
tile.kernel @eight_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 128, 1, 1>, min_blocks_per_sm = 8 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.copy %v[%c0, %c0] to %b box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %r = arith.muli %i, %c64 : index
    tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %s = tile.gemm %t, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  }
  tile.barrier
  tile.return
}

// -----

// A copy the launcher cannot describe (its offset comes from the device):
// the loop runs serially and tile-lower-copies copies synchronously.
// CHECK-LABEL: tile.kernel @serial_kernel
// CHECK-SAME: block = array<i32: 128, 1, 1>
// CHECK-NOT: tile.pipelined
// CHECK: tile.for
// CHECK: tile.copy
tile.host @serial(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n"}) {
  %c1 = arith.constant 1 : index
  tile.launch @serial_kernel grid(%c1, %c1, %c1) args(%kv, %n) : (!tile.ptr<bf16>, index) -> ()
  tile.return
}
tile.kernel @serial_kernel(%kv: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tile.block_id x
  %v = tile.view %kv[%b] sizes(%n) strides(%n) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    tile.copy %v[%i, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  }
  tile.return
}

// -----

// A gemm accumulating into a value the loop carries: it waits only for the
// previous iteration's group (max_pending 1), so each stage is released one
// iteration late. The stage to release travels with the loop (no test of
// the first iteration, which would make LLVM peel it): before the first
// iteration it is the spare third empty barrier, which no one waits for.
// After the loop, every group is waited for, then the last stage released.
// CHECK-LABEL: tile.kernel @acc_kernel
// CHECK: %[[EMPTY:.*]] = tile.alloc_shared : <3xi64>
// CHECK: %[[FULL:.*]] = tile.alloc_shared : <2xi64>
// CHECK: } else {
// CHECK: %[[R:.*]]:4 = tile.for %{{.*}} = %{{.*}} to %n step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[S:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %[[PREV:.*]] = %c2_i32{{.*}}) -> (tensor<64x64xf32, {{.*}}>, i32, i32, i32)
// CHECK: %[[G:.*]] = tile.gemm %{{.*}}, %{{.*}}, %[[ACC]] {max_pending = 1 : i64, transpose_b}
// CHECK: %[[P:.*]] = arith.index_castui %[[PREV]] : i32 to index
// CHECK: %[[E:.*]] = hopper.mbarrier_of %[[EMPTY]][%[[P]]]
// CHECK: hopper.mbarrier_arrive %[[E]]
// CHECK: tile.yield %[[G]], %{{.*}}, %{{.*}}, %[[S]]
// CHECK: hopper.wgmma_wait 0
// CHECK: %[[L:.*]] = arith.index_castui %[[R]]#3 : i32 to index
// CHECK: %[[EL:.*]] = hopper.mbarrier_of %[[EMPTY]][%[[L]]]
// CHECK: hopper.mbarrier_arrive %[[EL]]
// CHECK: tile.store_tile %[[R]]#0
tile.host @acc(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @acc_kernel grid(%c1, %c1, %c1) args(%kv, %out, %n) : (!tile.ptr<bf16>, !tile.ptr<f32>, index) -> ()
  tile.return
}
tile.kernel @acc_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %o = tile.view %out[%c0] sizes(%c64, %c64) strides(%c64) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %init = tile.broadcast %zero dims [] : f32 -> tensor<64x64xf32>
  %c = tile.pipelined %i = %c0 to %n step %c1 stages 2 iter_args(%acc = %init) -> (tensor<64x64xf32>) {
    %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %r = arith.muli %i, %c64 : index
    tile.copy %v[%r, %c0] to %a box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    tile.copy %v[%r, %c0] to %b box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %s = tile.gemm %a, %b, %acc {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128>, tensor<64x64xf32> -> tensor<64x64xf32>
    tile.yield %s : tensor<64x64xf32>
  }
  tile.store_tile %c, %o[%c0, %c0] : tensor<64x64xf32>, !tile.tensor<?x?xf32>
  tile.return
}

// -----

// Each of the 2 compute warpgroups uses 2 of the 4 stages in turn: its loop
// is unrolled by 2. Copy c of the body always takes stage (group + 2c) % 4
// (made before the loop); only the parities, one per copy, travel with it
// and flip every iteration. The second copy runs where its iteration exists.
// CHECK-LABEL: tile.kernel @unrolled_kernel
// CHECK: hopper.setmaxnreg 232 {increase = true}
// CHECK: %[[S0:.*]] = arith.remui %{{.*}}, %c4_i32
// CHECK: %[[P0:.*]] = arith.andi
// CHECK: %[[I0:.*]] = arith.index_castui %[[S0]] : i32 to index
// CHECK: %[[S1:.*]] = arith.remui %{{.*}}, %c4_i32
// CHECK: %[[P1:.*]] = arith.andi
// CHECK: %[[I1:.*]] = arith.index_castui %[[S1]] : i32 to index
// CHECK: tile.for %[[IV:.*]] = %{{.*}} to %n step %{{.*}} iter_args(%[[A0:.*]] = %[[P0]], %[[A1:.*]] = %[[P1]]) -> (i32, i32) {
// CHECK: hopper.mbarrier_of %{{.*}}[%[[I0]]]
// CHECK: hopper.mbarrier_wait
// CHECK: tile.stage %{{.*}}[%[[I0]]]
// CHECK: tile.gemm
// CHECK: %[[NEXT:.*]] = arith.addi %[[IV]]
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[NEXT]], %n
// CHECK: hopper.mbarrier_of %{{.*}}[%[[I0]]]
// CHECK: hopper.mbarrier_arrive
// CHECK: tile.if %[[IN]] {
// CHECK: arith.index_castui %[[A1]]
// CHECK: hopper.mbarrier_of %{{.*}}[%[[I1]]]
// CHECK: hopper.mbarrier_wait
// CHECK: tile.stage %{{.*}}[%[[I1]]]
// CHECK: tile.gemm
// CHECK: hopper.mbarrier_of %{{.*}}[%[[I1]]]
// CHECK: hopper.mbarrier_arrive
// CHECK: }
// CHECK: arith.xori %[[A0]], %c1_i32
// CHECK: arith.xori %[[A1]], %c1_i32
// CHECK: tile.yield
tile.host @unrolled(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @unrolled_kernel grid(%c1, %c1, %c1) args(%kv, %n) : (!tile.ptr<bf16>, index) -> ()
  tile.return
}
tile.kernel @unrolled_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.copy %v[%c0, %c0] to %b box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  tile.pipelined %i = %c0 to %n step %c1 stages 4 groups 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %r = arith.muli %i, %c64 : index
    tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %s = tile.gemm %t, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  }
  tile.return
}

// -----

// A pipelined loop nested in one of one group (a prefetching persistent
// loop): each gets a ring of its own. Producer warp 0 issues the inner
// loop's copies (compute group 0's iterations: all of them here); warp 1,
// which no inner loop uses, issues the outer loop's, as its stages free, so
// the next outer tile is fetched while the compute threads are still on this
// one's inner tiles. Warp 0 runs the outer loop too: it waits for each outer
// iteration's copies and releases the outer stage with the compute threads
// (its empty barriers count 128 + 1). The compute threads wait for the
// outer tile once an outer iteration, run the inner loop on its stage, and
// release it after.
// CHECK-LABEL: tile.kernel @nested_kernel
// CHECK-SAME: block = array<i32: 256, 1, 1>, producer_threads = 128
// CHECK-COUNT-2: hopper.mbarrier_init {{.*}} count 129
// CHECK: %[[OUTER:.*]] = tile.alloc_shared {stages = 2 : i64} : <64x64xbf16, swizzle = 128>
// CHECK: %[[INNER:.*]] = tile.alloc_shared {stages = 3 : i64} : <64x64xbf16, swizzle = 128>
// CHECK: hopper.setmaxnreg
// CHECK: %[[WARP:.*]] = arith.divui %{{.*}}, %c32
// Warp 0: the outer loop without its copies; the inner loop's.
// CHECK: %[[W0:.*]] = arith.cmpi eq, %[[WARP]], %c0
// CHECK-NEXT: tile.if %[[W0]] {
// CHECK: hopper.elect_one
// CHECK: tile.for %{{.*}} = %{{.*}} to %n step %{{.*}} {
// CHECK: %[[OF:.*]] = hopper.mbarrier_of
// CHECK-NEXT: hopper.mbarrier_wait %[[OF]]
// CHECK-NOT: hopper.tma_load
// CHECK: tile.for %{{.*}} = %{{.*}} to %m step %c1{{.*}} {
// CHECK: hopper.mbarrier_arrive_expect_tx %{{.*}} bytes 8192
// CHECK: %[[KS:.*]] = tile.stage %[[INNER]]
// CHECK: hopper.tma_load %{{.*}} to %[[KS]]
// CHECK: }
// CHECK: hopper.mbarrier_arrive
// Warp 1: the outer loop's copies, nothing else.
// CHECK: %[[W1:.*]] = arith.cmpi eq, %[[WARP]], %c1
// CHECK-NEXT: tile.if %[[W1]] {
// CHECK: hopper.elect_one
// CHECK: tile.for %{{.*}} = %{{.*}} to %n step %{{.*}} {
// CHECK: hopper.mbarrier_arrive_expect_tx %{{.*}} bytes 8192
// CHECK: %[[QS:.*]] = tile.stage %[[OUTER]]
// CHECK: hopper.tma_load %{{.*}} to %[[QS]]
// CHECK-NOT: tile.for
// The compute threads: the outer stage, waited for once an iteration.
// CHECK: } else {
// CHECK: tile.for %{{.*}} = %{{.*}} to %n step %{{.*}} iter_args
// CHECK: hopper.mbarrier_wait
// CHECK: %[[Q:.*]] = tile.stage %[[OUTER]]
// CHECK: tile.for
// CHECK: hopper.mbarrier_wait
// CHECK: %[[K:.*]] = tile.stage %[[INNER]]
// CHECK: tile.gemm %[[K]], %[[Q]]
// CHECK: hopper.mbarrier_arrive
// CHECK: }
// CHECK: hopper.mbarrier_arrive
// CHECK-NOT: tile.copy
// CHECK: tile.return
tile.host @nested(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n", tile.size}, %m: index {tile.name = "m", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @nested_kernel grid(%c1, %c1, %c1) args(%kv, %n, %m) : (!tile.ptr<bf16>, index, index) -> ()
  tile.return
}
tile.kernel @nested_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n"}, %m: index {tile.name = "m"}) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %b = tile.block_id x
  %g = tile.grid_dim x
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  tile.pipelined %item = %b to %n step %g stages 2 {
    %q = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %q0 = arith.muli %item, %c64 : index
    tile.copy %v[%q0, %c0] to %q box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    tile.pipelined %i = %c0 to %m step %c1 stages 3 {
      %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      %r = arith.muli %i, %c64 : index
      tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
      %s = tile.gemm %t, %q {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    }
  }
  tile.return
}

// -----

// The producer reads a tile its own copies fill (here the inner loop's trip
// count, prefetched with the outer tile). That tile -- read other than as a
// gemm's operand -- lands on a barrier of its own, the early one (stage s's
// at s + stages in the full barriers' tile), and the outer tile, which only
// the gemm reads, on the full one. Warp 0, which issues the inner loop's
// copies, waits on the early barrier and reads that iteration's stage: not
// before the bounds have landed, and without waiting for the outer tile.
// Warp 1 arms both barriers, each with its copies' bytes, and reads
// nothing. The compute threads wait for both.
// CHECK-LABEL: tile.kernel @bounded_kernel
// CHECK: %[[LIM:.*]] = tile.alloc_shared {stages = 2 : i64} : <4xi32>
// CHECK: hopper.elect_one
// CHECK: tile.for %{{.*}} = %{{.*}} to %n step %{{.*}} {
// CHECK: %[[S:.*]] = arith.remui %{{.*}}, %c2
// CHECK: %[[E:.*]] = arith.addi %[[S]], %c2
// CHECK-NEXT: %[[EARLY:.*]] = hopper.mbarrier_of %[[BARS:.*]][%[[E]]] : <4xi64>
// CHECK-NEXT: hopper.mbarrier_wait %[[EARLY]]
// CHECK-NEXT: %[[L:.*]] = tile.stage %[[LIM]]
// CHECK-NEXT: tile.shared_load %[[L]]
// CHECK: tile.for
// CHECK: hopper.tma_load
// CHECK: hopper.elect_one
// CHECK: tile.for %{{.*}} = %{{.*}} to %n step %{{.*}} {
// CHECK: %[[EA:.*]] = hopper.mbarrier_of %[[BARS]]
// CHECK-NEXT: hopper.mbarrier_arrive_expect_tx %[[EA]] bytes 16
// CHECK-NEXT: %[[FA:.*]] = hopper.mbarrier_of %[[BARS]]
// CHECK-NEXT: hopper.mbarrier_arrive_expect_tx %[[FA]] bytes 8192
// CHECK: hopper.tma_load %kv_tma{{.*}}, %[[FA]] :
// CHECK: hopper.tma_load %lim_tma{{.*}}, %[[EA]] :
// CHECK-NOT: tile.shared_load
// CHECK: } else {
// CHECK: setmaxnreg 248
// CHECK: tile.for
// CHECK: %[[CE:.*]] = hopper.mbarrier_of %[[BARS]]
// CHECK-NEXT: hopper.mbarrier_wait %[[CE]]
// CHECK-NEXT: %[[CF:.*]] = hopper.mbarrier_of %[[BARS]]
// CHECK-NEXT: hopper.mbarrier_wait %[[CF]]
// CHECK-NEXT: tile.stage
// CHECK-NEXT: tile.stage %[[LIM]]
tile.host @bounded(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %lim: !tile.ptr<i32> {tile.name = "lim"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @bounded_kernel grid(%c1, %c1, %c1) args(%kv, %lim, %n) : (!tile.ptr<bf16>, !tile.ptr<i32>, index) -> ()
  tile.return
}
tile.kernel @bounded_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %lim: !tile.ptr<i32> {tile.name = "lim"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %b = tile.block_id x
  %g = tile.grid_dim x
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %l = tile.view %lim[%c0] sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  tile.pipelined %item = %b to %n step %g stages 2 {
    %q = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %m4 = tile.alloc_shared : !tile.shared<4xi32>
    %q0 = arith.muli %item, %c64 : index
    tile.copy %v[%q0, %c0] to %q box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %l0 = arith.muli %item, %c4 : index
    tile.copy %l[%l0] to %m4 box [4] : !tile.tensor<?xi32>, !tile.shared<4xi32>
    %m32 = tile.shared_load %m4[%c0, %c0] : !tile.shared<4xi32> -> i32
    %m = arith.index_cast %m32 : i32 to index
    tile.pipelined %i = %c0 to %m step %c1 stages 3 {
      %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      %r = arith.muli %i, %c64 : index
      tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
      %s = tile.gemm %t, %q {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    }
  }
  tile.return
}

// -----

// With three stages the outer loop's copies go out an iteration ahead of
// the rest of its body (on warp 1, which issues them): iteration 0's before
// the loop, then at the top of iteration i those of iteration i + 1 (if
// there is one), into the stage of i + 1. The coordinates are cloned with
// the later index. Warp 0 waits for iteration i's early copies (the
// bounds) to read the inner loop's bounds.
// CHECK-LABEL: tile.kernel @ahead_kernel
// CHECK: %[[LIM:.*]] = tile.alloc_shared {stages = 3 : i64} : <4xi32>
// CHECK: hopper.elect_one
// CHECK: tile.for %{{.*}} = %{{.*}} to %n step %{{.*}} {
// CHECK: %[[FULL:.*]] = hopper.mbarrier_of
// CHECK-NEXT: hopper.mbarrier_wait %[[FULL]]
// CHECK-NEXT: %[[L:.*]] = tile.stage %[[LIM]]
// CHECK-NEXT: tile.shared_load %[[L]]
// CHECK: tile.for
// CHECK: hopper.tma_load
// CHECK: hopper.elect_one
// CHECK: %[[FIRST:.*]] = arith.addi %[[LB:.*]], %{{.*}} : index
// CHECK: %[[IN0:.*]] = arith.cmpi slt, %[[FIRST]], %n
// CHECK-NEXT: tile.if %[[IN0]] {
// CHECK: hopper.mbarrier_arrive_expect_tx %{{.*}} bytes 16
// CHECK: hopper.mbarrier_arrive_expect_tx %{{.*}} bytes 8192
// CHECK: arith.muli %[[FIRST]], %c64
// CHECK: hopper.tma_load
// CHECK: hopper.tma_load
// CHECK: tile.for %[[I:.*]] = %[[LB]] to %n step %[[STEP:[^ ]*]] {
// CHECK: %[[AHEAD:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[AHEAD]], %n
// CHECK-NEXT: tile.if %[[IN]] {
// CHECK: hopper.mbarrier_wait
// CHECK: hopper.mbarrier_arrive_expect_tx %{{.*}} bytes 16
// CHECK: hopper.mbarrier_arrive_expect_tx %{{.*}} bytes 8192
// CHECK: arith.muli %[[AHEAD]], %c64
// CHECK: hopper.tma_load
// CHECK: hopper.tma_load
// CHECK: }
// CHECK-NOT: tile.shared_load
// CHECK: } else {
tile.host @ahead(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %lim: !tile.ptr<i32> {tile.name = "lim"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @ahead_kernel grid(%c1, %c1, %c1) args(%kv, %lim, %n) : (!tile.ptr<bf16>, !tile.ptr<i32>, index) -> ()
  tile.return
}
tile.kernel @ahead_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %lim: !tile.ptr<i32> {tile.name = "lim"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %b = tile.block_id x
  %g = tile.grid_dim x
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %l = tile.view %lim[%c0] sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  tile.pipelined %item = %b to %n step %g stages 3 {
    %q = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %m4 = tile.alloc_shared : !tile.shared<4xi32>
    %q0 = arith.muli %item, %c64 : index
    tile.copy %v[%q0, %c0] to %q box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %l0 = arith.muli %item, %c4 : index
    tile.copy %l[%l0] to %m4 box [4] : !tile.tensor<?xi32>, !tile.shared<4xi32>
    %m32 = tile.shared_load %m4[%c0, %c0] : !tile.shared<4xi32> -> i32
    %m = arith.index_cast %m32 : i32 to index
    tile.pipelined %i = %c0 to %m step %c1 stages 3 {
      %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      %r = arith.muli %i, %c64 : index
      tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
      %s = tile.gemm %t, %q {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    }
  }
  tile.return
}

// -----

// A nested loop of two groups runs once per outer iteration, and a run's
// trip count need not be a multiple of the groups: iteration j over all runs
// still goes to group j mod 2, so each stage is always read by the same
// group (an mbarrier's parity tells only two phases apart; a persistent
// indexer with stages = groups hung when the groups took turns afresh each
// run). The group's first iteration of a run is (group + 2 - runs mod 2)
// mod 2, in 32 bits (runs, the iterations of earlier runs, is kept mod
// 2 * stages).
// CHECK-LABEL: tile.kernel @nested_groups_kernel
// CHECK: } else {
// CHECK: %[[GROUP:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: tile.for %{{.*}} = %{{.*}} to %n step %{{.*}} iter_args
// CHECK: %[[RUNS:.*]] = tile.local_load {{.*}} : <i32>
// CHECK: %[[PAST:.*]] = arith.remui %[[RUNS]], %c2
// CHECK-NEXT: %[[G32:.*]] = arith.index_cast %[[GROUP]] : index to i32
// CHECK-NEXT: %[[PLUS:.*]] = arith.addi %[[G32]], %c2
// CHECK-NEXT: %[[DIFF:.*]] = arith.subi %[[PLUS]], %[[PAST]]
// CHECK-NEXT: %[[FIRST32:.*]] = arith.remui %[[DIFF]], %c2
// CHECK-NEXT: %[[FIRST:.*]] = arith.index_castui %[[FIRST32]] : i32 to index
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[FIRST]], %c1
// CHECK-NEXT: %[[LB:.*]] = arith.addi %{{.*}}, %[[OFF]]
// The stage and parity the loop starts from are that first iteration's
// (runs + first), not the group number's.
// CHECK: %[[FROM:.*]] = arith.index_cast %[[FIRST]] : index to i32
// CHECK-NEXT: %[[R:.*]] = tile.local_load
// CHECK-NEXT: arith.addi %[[R]], %[[FROM]]
// CHECK: tile.for %{{.*}} = %[[LB]] to %m step
tile.host @nested_groups(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n", tile.size}, %m: index {tile.name = "m", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @nested_groups_kernel grid(%c1, %c1, %c1) args(%kv, %n, %m) : (!tile.ptr<bf16>, index, index) -> ()
  tile.return
}
tile.kernel @nested_groups_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n"}, %m: index {tile.name = "m"}) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %b = tile.block_id x
  %g = tile.grid_dim x
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  tile.pipelined %item = %b to %n step %g stages 2 {
    %q = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %q0 = arith.muli %item, %c64 : index
    tile.copy %v[%q0, %c0] to %q box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    tile.pipelined %i = %c0 to %m step %c1 stages 2 groups 2 {
      %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      %r = arith.muli %i, %c64 : index
      tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
      %s = tile.gemm %t, %q {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    }
  }
  tile.return
}

// -----

// With `overlap`, each group's unrolled iterations that run every copy go
// first, in a loop whose copy c starts its gemm before copy c - 1's code
// after its gemm (g0 g1 e0 e1: the tensor cores work on g1 during e0), each
// releasing its stage once read; e1 starts with a warp sync (which keeps
// ptxas from hoisting e1's wait for g1 above e0); the rest (fewer than the
// copies) follow in the guarded loop.
// CHECK-LABEL: tile.kernel @overlap_kernel
// CHECK: } else {
// CHECK: %[[WHOLE:.*]] = arith.subi %n, %{{.*}}
// CHECK: tile.for %{{.*}} = %{{.*}} to %[[WHOLE]] step %{{.*}} iter_args
// CHECK: hopper.mbarrier_wait
// CHECK-NEXT: %[[S0:.*]] = tile.stage
// CHECK-NEXT: %[[G0:.*]] = tile.gemm %[[S0]]
// CHECK: hopper.mbarrier_wait
// CHECK-NEXT: %[[S1:.*]] = tile.stage
// CHECK-NEXT: %[[G1:.*]] = tile.gemm %[[S1]]
// CHECK-NOT: tile.gemm
// CHECK: tile.store_tile %[[G0]]
// CHECK-NEXT: hopper.mbarrier_of
// CHECK-NEXT: hopper.mbarrier_arrive
// CHECK-NEXT: hopper.warp_sync
// CHECK-NOT: hopper.warp_sync
// CHECK: tile.store_tile %[[G1]]
// CHECK: hopper.mbarrier_arrive
// CHECK: tile.yield
// CHECK: tile.for
// CHECK: tile.gemm
// CHECK: tile.if
// CHECK: tile.gemm
tile.host @overlap(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @overlap_kernel grid(%c1, %c1, %c1) args(%kv, %out, %n) : (!tile.ptr<bf16>, !tile.ptr<f32>, index) -> ()
  tile.return
}
tile.kernel @overlap_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %o = tile.view %out[%c0] sizes(%n) strides(%c64) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.copy %v[%c0, %c0] to %b box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  tile.pipelined %i = %c0 to %n step %c1 stages 4 groups 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %r = arith.muli %i, %c64 : index
    tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %s = tile.gemm %t, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    tile.store_tile %s, %o[%r, %c0] : tensor<64x64xf32>, !tile.tensor<?x64xf32>
  } {overlap}
  tile.return
}

// -----

// `overlap` with two gemms a body (one for each half of N, each read by its
// own code): part by part, each gemm starts before the code of the gemm
// before it -- the second half of copy 0 (h1) before copy 0's code of the
// first half, the first half of copy 1 before copy 0's code of the second:
// ga0 gb0 ea0 ga1 eb0 gb1 ea1 eb1. The stage is released after the first
// read of its last gemm (in eb), each code block but the first starts with
// a warp sync, and the stores keep their order.
// CHECK-LABEL: tile.kernel @overlap_parts_kernel
// CHECK: } else {
// CHECK: tile.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: hopper.mbarrier_wait
// CHECK-NEXT: %[[S0:.*]] = tile.stage
// CHECK-NEXT: %[[A0:.*]] = tile.gemm %[[S0]], %[[QA:[^ ]*]]
// CHECK-NEXT: %[[B0:.*]] = tile.gemm %[[S0]], %[[QB:[^ ]*]]
// CHECK-NOT: hopper.mbarrier_arrive
// CHECK: tile.store_tile %[[A0]]
// CHECK-NOT: hopper.mbarrier_arrive
// CHECK: hopper.mbarrier_wait
// CHECK-NEXT: %[[S1:.*]] = tile.stage
// CHECK-NEXT: %[[A1:.*]] = tile.gemm %[[S1]], %[[QA]]
// CHECK-NEXT: hopper.warp_sync
// CHECK-NEXT: tile.store_tile %[[B0]]
// CHECK-NEXT: hopper.mbarrier_arrive
// CHECK-NEXT: %[[B1:.*]] = tile.gemm %[[S1]], %[[QB]]
// CHECK-NEXT: hopper.warp_sync
// CHECK-NOT: hopper.mbarrier_arrive
// CHECK: tile.store_tile %[[A1]]
// CHECK-NOT: hopper.mbarrier_arrive
// CHECK: hopper.warp_sync
// CHECK-NEXT: tile.store_tile %[[B1]]
// CHECK-NEXT: hopper.mbarrier_arrive
// CHECK-NEXT: tile.yield
tile.host @overlap_parts(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @overlap_parts_kernel grid(%c1, %c1, %c1) args(%kv, %out, %n) : (!tile.ptr<bf16>, !tile.ptr<f32>, index) -> ()
  tile.return
}
tile.kernel @overlap_parts_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %o = tile.view %out[%c0] sizes(%n) strides(%c64) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  %qa = tile.alloc_shared : !tile.shared<32x64xbf16, swizzle = 128>
  %qb = tile.alloc_shared : !tile.shared<32x64xbf16, swizzle = 128>
  tile.copy %v[%c0, %c0] to %qa box [32, 64] : !tile.tensor<?x64xbf16>, !tile.shared<32x64xbf16, swizzle = 128>
  tile.copy %v[%c64, %c0] to %qb box [32, 64] : !tile.tensor<?x64xbf16>, !tile.shared<32x64xbf16, swizzle = 128>
  tile.pipelined %i = %c0 to %n step %c1 stages 4 groups 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %r = arith.muli %i, %c64 : index
    tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %a = tile.gemm %t, %qa {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<32x64xbf16, swizzle = 128> -> tensor<64x32xf32>
    %b = tile.gemm %t, %qb {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<32x64xbf16, swizzle = 128> -> tensor<64x32xf32>
    tile.store_tile %a, %o[%r, %c0] : tensor<64x32xf32>, !tile.tensor<?x64xf32>
    tile.store_tile %b, %o[%r, %c64] : tensor<64x32xf32>, !tile.tensor<?x64xf32>
  } {overlap}
  tile.return
}


// -----

// A stage is released once its iteration has read it: after the first read
// of the gemm's result (where distribute-fragments waits for the gemm), so
// the code after it runs while the producer refills the stage -- unrolled
// (two stages a group) and not (one stage a group: the next case).
// CHECK-LABEL: tile.kernel @early_kernel
// CHECK: } else {
// CHECK: hopper.mbarrier_wait
// CHECK-NEXT: %[[S0:.*]] = tile.stage
// CHECK: %[[G0:.*]] = tile.gemm %[[S0]]
// CHECK: %[[M0:.*]] = arith.maximumf %[[G0]]
// CHECK-NEXT: hopper.mbarrier_of
// CHECK-NEXT: hopper.mbarrier_arrive
// CHECK-NEXT: arith.mulf %[[M0]]
// CHECK: tile.store_tile
// CHECK: hopper.mbarrier_wait
// CHECK-NEXT: %[[S1:.*]] = tile.stage
// CHECK: %[[G1:.*]] = tile.gemm %[[S1]]
// CHECK: %[[M1:.*]] = arith.maximumf %[[G1]]
// CHECK-NEXT: hopper.mbarrier_of
// CHECK-NEXT: hopper.mbarrier_arrive
// CHECK-NEXT: arith.mulf %[[M1]]
// CHECK: tile.store_tile
// CHECK: tile.yield
tile.host @early(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @early_kernel grid(%c1, %c1, %c1) args(%kv, %out, %n) : (!tile.ptr<bf16>, !tile.ptr<f32>, index) -> ()
  tile.return
}
tile.kernel @early_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %o = tile.view %out[%c0] sizes(%n) strides(%c64) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.copy %v[%c0, %c0] to %b box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  tile.pipelined %i = %c0 to %n step %c1 stages 4 groups 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %r = arith.muli %i, %c64 : index
    tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %s = tile.gemm %t, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %m = arith.maximumf %s, %z : tensor<64x64xf32>
    %w = arith.mulf %m, %m : tensor<64x64xf32>
    tile.store_tile %w, %o[%r, %c0] : tensor<64x64xf32>, !tile.tensor<?x64xf32>
  }
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @early_single_kernel
// CHECK: } else {
// CHECK: %[[G:.*]] = tile.gemm
// CHECK: %[[M:.*]] = arith.maximumf %[[G]]
// CHECK-NEXT: hopper.mbarrier_of
// CHECK-NEXT: hopper.mbarrier_arrive
// CHECK-NEXT: arith.mulf %[[M]]
tile.host @early_single(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @early_single_kernel grid(%c1, %c1, %c1) args(%kv, %out, %n) : (!tile.ptr<bf16>, !tile.ptr<f32>, index) -> ()
  tile.return
}
tile.kernel @early_single_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 256, 1, 1>} {
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
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %m = arith.maximumf %s, %z : tensor<64x64xf32>
    %w = arith.mulf %m, %m : tensor<64x64xf32>
    tile.store_tile %w, %o[%r, %c0] : tensor<64x64xf32>, !tile.tensor<?x64xf32>
  }
  tile.return
}

// -----

// A gemm's result renamed (reshaped) first: the release follows the first
// op that reads its registers.
// CHECK-LABEL: tile.kernel @renamed_kernel
// CHECK: } else {
// CHECK: %[[G:.*]] = tile.gemm
// CHECK-NEXT: %[[R:.*]] = tile.reshape %[[G]]
// CHECK-NEXT: %[[T:.*]] = tile.reduce sum %[[R]]
// CHECK-NEXT: hopper.mbarrier_of
// CHECK-NEXT: hopper.mbarrier_arrive
// CHECK-NEXT: tile.store_tile %[[T]]
tile.host @renamed(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @renamed_kernel grid(%c1, %c1, %c1) args(%kv, %out, %n) : (!tile.ptr<bf16>, !tile.ptr<f32>, index) -> ()
  tile.return
}
tile.kernel @renamed_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %c2 = arith.constant 2 : index
  %o2 = tile.view %out[%c0] sizes(%n) strides(%c2) : !tile.ptr<f32> -> !tile.tensor<?x2xf32>
  %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.copy %v[%c0, %c0] to %b box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  tile.pipelined %i = %c0 to %n step %c1 stages 2 groups 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %r = arith.muli %i, %c64 : index
    tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %s = tile.gemm %t, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    %h = tile.reshape %s : tensor<64x64xf32> -> tensor<64x2x32xf32>
    %t2 = tile.reduce sum %h axis 2 : tensor<64x2x32xf32> -> tensor<64x2xf32>
    tile.store_tile %t2, %o2[%r, %c0] : tensor<64x2xf32>, !tile.tensor<?x2xf32>
  }
  tile.return
}

// -----

// Where the gemm's result is first read under an if, which may not run
// (and with it the wait for the gemm), the stage is released at the end.
// CHECK-LABEL: tile.kernel @late_kernel
// CHECK: } else {
// CHECK: tile.gemm
// CHECK-NEXT: tile.if
// CHECK-NEXT: tile.store_tile
// CHECK-NEXT: }
// CHECK: hopper.mbarrier_of
// CHECK-NEXT: hopper.mbarrier_arrive
// CHECK-NEXT: tile.yield
tile.host @late(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n", tile.size}, %c: i1 {tile.name = "c"}) {
  %c1 = arith.constant 1 : index
  tile.launch @late_kernel grid(%c1, %c1, %c1) args(%kv, %out, %n, %c) : (!tile.ptr<bf16>, !tile.ptr<f32>, index, i1) -> ()
  tile.return
}
tile.kernel @late_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n"}, %c: i1 {tile.name = "c"}) attributes {block = array<i32: 256, 1, 1>} {
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
    tile.if %c {
      tile.store_tile %s, %o[%r, %c0] : tensor<64x64xf32>, !tile.tensor<?x64xf32>
      tile.yield
    }
  }
  tile.return
}

// -----

// A continuous loop: the compute side runs each group's iterations of every
// outer iteration as one stream, in rounds of two copies (two stages a
// group). Epochs (a tile.while on whether the stream has ended) hold a
// tile.for of rounds carrying the value the body reads from the item's code
// before the loop (%m, reloaded at each epoch). A round: the walk to the
// group's next iteration (a tile.while releasing the item it leaves and
// waiting for the item it enters), copy 0's stage wait and gemm on its
// item's tile, the value switched to copy 0's item, the walk to copy 1's
// iteration (waiting for copy 0's gemm before releasing an item), copy 1's
// gemm (unguarded: past the stream's end it reads stale tiles), copy 0's
// code, the switch to copy 1's item, copy 1's code with its store and stage
// release under a test that its iteration exists.
// CHECK-LABEL: tile.kernel @continuous_kernel
// CHECK: } else {
// CHECK: tile.if
// CHECK: tile.while {
// CHECK: } do {
// CHECK: hopper.mbarrier_wait
// CHECK: tile.shared_load
// CHECK: %[[R:.*]] = tile.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[M:.*]] = %{{.*}}) -> (index) {
// CHECK: tile.while {
// CHECK: } do {
// CHECK: tile.if
// CHECK-NOT: hopper.wgmma_wait
// CHECK: hopper.mbarrier_arrive
// CHECK: tile.if
// CHECK: } else {
// CHECK: hopper.mbarrier_wait
// CHECK: tile.shared_load
// CHECK: }
// CHECK: hopper.mbarrier_wait
// CHECK: %[[Q0:.*]] = tile.stage %{{.*}}[%{{.*}}] : <64x64xbf16
// CHECK: %[[T0:.*]] = tile.stage %{{.*}}[%{{.*}}] : <64x64xbf16
// CHECK: %[[G0:.*]] = tile.gemm %[[T0]], %[[Q0]]
// CHECK: %[[M0:.*]] = tile.if %{{.*}} -> (index) {
// CHECK: tile.shared_load
// CHECK: tile.while {
// CHECK: } do {
// CHECK: hopper.wgmma_wait 0
// CHECK: hopper.mbarrier_of
// CHECK-NEXT: hopper.mbarrier_arrive
// CHECK: tile.yield
// CHECK-NEXT: }
// CHECK: tile.if %[[HAS1:[^ ]*]] {
// CHECK-NEXT: hopper.mbarrier_of
// CHECK-NEXT: hopper.mbarrier_wait
// CHECK: %[[G1:.*]] = tile.gemm
// CHECK-NOT: tile.if
// CHECK: arith.muli %{{.*}}, %[[M0]]
// CHECK: tile.store_tile %[[G0]]
// CHECK: %[[M1:.*]] = tile.if %{{.*}} -> (index) {
// CHECK: arith.muli %{{.*}}, %[[M1]]
// CHECK: tile.if %[[HAS1]] {
// CHECK-NEXT: tile.store_tile %[[G1]]
// CHECK: tile.if %[[HAS1]] {
// CHECK-NEXT: hopper.mbarrier_arrive
// CHECK: hopper.wgmma_wait 0
tile.host @continuous(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %lim: !tile.ptr<i32> {tile.name = "lim"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @continuous_kernel grid(%c1, %c1, %c1) args(%kv, %lim, %out, %n) : (!tile.ptr<bf16>, !tile.ptr<i32>, !tile.ptr<f32>, index) -> ()
  tile.return
}
tile.kernel @continuous_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %lim: !tile.ptr<i32> {tile.name = "lim"}, %out: !tile.ptr<f32> {tile.name = "out"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %b = tile.block_id x
  %g = tile.grid_dim x
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %l = tile.view %lim[%c0] sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  %o = tile.view %out[%c0] sizes(%n) strides(%c64) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  tile.pipelined %item = %b to %n step %g stages 2 {
    %q = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %m4 = tile.alloc_shared : !tile.shared<4xi32>
    %q0 = arith.muli %item, %c64 : index
    tile.copy %v[%q0, %c0] to %q box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %l0 = arith.muli %item, %c4 : index
    tile.copy %l[%l0] to %m4 box [4] : !tile.tensor<?xi32>, !tile.shared<4xi32>
    %m32 = tile.shared_load %m4[%c0, %c0] : !tile.shared<4xi32> -> i32
    %m = arith.index_cast %m32 : i32 to index
    tile.pipelined %i = %c0 to %m step %c1 stages 4 groups 2 {
      %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      %r = arith.muli %i, %c64 : index
      tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
      %s = tile.gemm %t, %q {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
      %row = arith.muli %r, %m : index
      tile.store_tile %s, %o[%row, %c0] : tensor<64x64xf32>, !tile.tensor<?x64xf32>
    } {continuous, overlap}
  }
  tile.return
}
