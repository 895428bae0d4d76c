// RUN: minitile-opt %s --tile-assign-layouts --tile-warp-specialize -split-input-file 2>&1 | FileCheck %s
// A persistent loop whose iterations come from a queue (a launch's work
// counter): each role runs it as a while loop until the index it gets is
// past the end. The producer's issuing thread claims each index as a stage
// frees -- the first is the block's own, the later ones the grid plus an
// atomic add, the launch's last claim resetting the counter -- and writes
// it to the stage's slot before arming the full barrier; past the end it
// arrives on the barrier bare. The others wait for the stage to be full and
// read the index from the slot.

// Two stages: the issue at the top of each iteration.
// CHECK-LABEL: tile.kernel @queued_kernel
// CHECK: %[[SLOTS:.*]] = tile.alloc_shared : <2xi32>
// Warp 0 follows the outer loop (it issues the inner loop's copies).
// CHECK: hopper.elect_one
// CHECK: tile.while {
// CHECK: hopper.mbarrier_wait
// CHECK: %[[I0:.*]] = tile.shared_load %[[SLOTS]]
// CHECK: %[[X0:.*]] = arith.index_cast %[[I0]]
// CHECK: %[[IN0:.*]] = arith.cmpi slt, %[[X0]], %n
// CHECK: tile.if %[[IN0]] {
// CHECK: tile.for
// CHECK: hopper.tma_load
// CHECK: hopper.mbarrier_arrive
// CHECK: } else {
// CHECK: tile.local_store %false
// Warp 1 issues the outer loop an iteration ahead of its body: iteration
// 0's copies before the loop (the block's own index, no claim), then in
// each iteration the next one's -- wait for its stage to be empty, claim
// (an atomic add, the launch's last claim resetting the counter), write the
// slot, then the copies or a bare arrive.
// CHECK: %[[Q:.*]] = tile.view %work_counter
// CHECK: hopper.elect_one
// CHECK-NOT: tile.while
// CHECK: hopper.mbarrier_wait
// CHECK: tile.if %{{.*}} -> (index) {
// CHECK-NEXT: tile.yield %{{.*}} : index
// CHECK: tile.shared_store %{{.*}}, %[[SLOTS]]
// CHECK: tile.if
// CHECK-NEXT: hopper.mbarrier_of
// CHECK-NEXT: hopper.mbarrier_arrive_expect_tx %{{.*}} bytes 8192
// CHECK: hopper.tma_load
// CHECK: tile.local_store
// CHECK: tile.while {
// CHECK: hopper.mbarrier_wait
// CHECK: %[[C:.*]] = tile.atomic  add %c1_i32{{.*}}, %[[Q]][%{{.*}}]
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[C]]
// CHECK: tile.if %[[LAST]] {
// CHECK: tile.atomic  exchange %c0_i32{{.*}}, %[[Q]]
// CHECK: arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NOT: hopper.mbarrier_wait
// CHECK: tile.shared_store %{{.*}}, %[[SLOTS]]
// CHECK: tile.if
// CHECK-NEXT: hopper.mbarrier_of
// CHECK-NEXT: hopper.mbarrier_arrive_expect_tx %{{.*}} bytes 8192
// CHECK: hopper.tma_load
// CHECK: } else {
// CHECK-NEXT: hopper.mbarrier_of
// CHECK-NEXT: hopper.mbarrier_arrive
// The compute threads: wait full, read the index, the body, release.
// CHECK: setmaxnreg 248
// CHECK: tile.while {
// CHECK: hopper.mbarrier_wait
// CHECK: tile.shared_load %[[SLOTS]]
// CHECK: tile.if
// CHECK: tile.stage
// CHECK: tile.for
// CHECK: tile.gemm
// CHECK: hopper.mbarrier_arrive
// CHECK: } else {
// CHECK-NOT: tile.copy
// CHECK: tile.return
tile.host @queued(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n", tile.size}, %m: index {tile.name = "m", tile.size}) {
  %c1 = arith.constant 1 : index
  %sms = tile.multiprocessor_count
  %blocks = arith.minsi %n, %sms : index
  %counter = tile.work_counter : !tile.ptr<i32>
  tile.launch @queued_kernel grid(%blocks, %c1, %c1) args(%kv, %n, %m, %counter) : (!tile.ptr<bf16>, index, index, !tile.ptr<i32>) -> ()
  tile.return
}
tile.kernel @queued_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n"}, %m: index {tile.name = "m"}, %counter: !tile.ptr<i32> {tile.name = "work_counter"}) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %b = tile.block_id x
  %g = tile.grid_dim x
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %queue = tile.view %counter[%c0] sizes() strides() : !tile.ptr<i32> -> !tile.tensor<1xi32>
  tile.pipelined %item = %b to %n step %g stages 2 queue %queue : !tile.tensor<1xi32> {
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

// Three stages: the same shape -- the issuing thread keeps the index it
// claimed (it reads no slot), and its first wait in the iteration is for
// the next iteration's stage to be empty, before it claims.
// CHECK-LABEL: tile.kernel @queued3_kernel
// CHECK: %[[SLOTS:.*]] = tile.alloc_shared : <3xi32>
// CHECK: tile.view %work_counter
// CHECK: hopper.elect_one
// CHECK-NOT: tile.while
// CHECK: tile.shared_store %{{.*}}, %[[SLOTS]]
// CHECK: hopper.mbarrier_arrive_expect_tx
// CHECK: tile.while {
// CHECK-NOT: tile.shared_load %[[SLOTS]]
// CHECK: hopper.mbarrier_wait
// CHECK-NOT: hopper.mbarrier_wait
// CHECK: tile.atomic  add
// CHECK-NOT: hopper.mbarrier_wait
// CHECK: tile.shared_store %{{.*}}, %[[SLOTS]]
// CHECK: hopper.mbarrier_arrive_expect_tx
// CHECK: } else {
// CHECK-NEXT: hopper.mbarrier_of
// CHECK-NEXT: hopper.mbarrier_arrive
tile.host @queued3(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n", tile.size}, %m: index {tile.name = "m", tile.size}) {
  %c1 = arith.constant 1 : index
  %sms = tile.multiprocessor_count
  %blocks = arith.minsi %n, %sms : index
  %counter = tile.work_counter : !tile.ptr<i32>
  tile.launch @queued3_kernel grid(%blocks, %c1, %c1) args(%kv, %n, %m, %counter) : (!tile.ptr<bf16>, index, index, !tile.ptr<i32>) -> ()
  tile.return
}
tile.kernel @queued3_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %n: index {tile.name = "n"}, %m: index {tile.name = "m"}, %counter: !tile.ptr<i32> {tile.name = "work_counter"}) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %b = tile.block_id x
  %g = tile.grid_dim x
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %queue = tile.view %counter[%c0] sizes() strides() : !tile.ptr<i32> -> !tile.tensor<1xi32>
  tile.pipelined %item = %b to %n step %g stages 3 queue %queue : !tile.tensor<1xi32> {
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

// No producer warpgroup (a block of two warps): a while loop whose first
// thread claims the next index between two barriers of the block.
// CHECK: remark: runs as a serial loop without a producer warpgroup
// CHECK-LABEL: tile.kernel @serial_kernel
// CHECK: %[[SLOT:.*]] = tile.alloc_shared : <1xi32>
// CHECK: tile.while {
// CHECK: arith.cmpi slt, %{{.*}}, %n
// CHECK: } do {
// CHECK: tile.copy
// CHECK: tile.barrier
// CHECK: tile.if
// CHECK: %[[C:.*]] = tile.atomic  add
// CHECK: tile.atomic  exchange
// CHECK: tile.shared_store %[[C]], %[[SLOT]]
// CHECK: tile.barrier
// CHECK: tile.shared_load %[[SLOT]]
tile.kernel @serial_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %out: !tile.ptr<bf16> {tile.name = "out"}, %n: index {tile.name = "n"}, %counter: !tile.ptr<i32> {tile.name = "work_counter"}) attributes {block = array<i32: 64, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %b = tile.block_id x
  %g = tile.grid_dim x
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %queue = tile.view %counter[%c0] sizes() strides() : !tile.ptr<i32> -> !tile.tensor<1xi32>
  tile.pipelined %item = %b to %n step %g stages 2 queue %queue : !tile.tensor<1xi32> {
    %q = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    tile.copy %v[%item, %c0] to %q box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  }
  tile.return
}

// -----

// A queue loop whose body reads a tile other than as a gemm's operand (the
// inner loop's trip count): that tile lands on the stage's early barrier,
// the query tile on its full one. The issuing thread writes the slot, then
// arms both (past the end it arrives on both bare); warp 0, which issues
// the inner loop's copies, waits only for the early one before it reads
// the slot and the bounds; the compute threads wait for both.
// CHECK-LABEL: tile.kernel @queued_bounds_kernel
// CHECK: %[[SLOTS:.*]] = tile.alloc_shared : <2xi32>
// CHECK: hopper.elect_one
// CHECK: tile.while {
// CHECK: %[[S:.*]] = arith.index_cast
// CHECK: %[[E:.*]] = arith.addi %{{.*}}, %c2
// CHECK-NEXT: %[[EARLY:.*]] = hopper.mbarrier_of %[[BARS:.*]][%[[E]]] : <4xi64>
// CHECK-NEXT: hopper.mbarrier_wait %[[EARLY]]
// CHECK-NOT: hopper.mbarrier_wait
// CHECK: tile.shared_load %[[SLOTS]]
// CHECK: tile.shared_load
// CHECK: tile.for
// CHECK: hopper.tma_load
// CHECK: tile.atomic  add
// CHECK: tile.shared_store %{{.*}}, %[[SLOTS]]
// CHECK: tile.if
// CHECK: %[[EA:.*]] = hopper.mbarrier_of %[[BARS]]
// CHECK-NEXT: hopper.mbarrier_arrive_expect_tx %[[EA]] bytes 16
// CHECK-NEXT: %[[FA:.*]] = hopper.mbarrier_of %[[BARS]]
// CHECK-NEXT: hopper.mbarrier_arrive_expect_tx %[[FA]] bytes 8192
// CHECK: hopper.tma_load %lim_tma{{.*}}, %[[EA]] :
// CHECK: hopper.tma_load %kv_tma{{.*}}, %[[FA]] :
// CHECK: } else {
// CHECK: hopper.mbarrier_arrive
// CHECK: hopper.mbarrier_arrive
// CHECK: setmaxnreg 248
// CHECK: tile.while {
// CHECK: hopper.mbarrier_of %[[BARS]]
// CHECK-NEXT: hopper.mbarrier_wait
// CHECK-NEXT: hopper.mbarrier_of %[[BARS]]
// CHECK-NEXT: hopper.mbarrier_wait
// CHECK: tile.shared_load %[[SLOTS]]
tile.host @queued_bounds(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %lim: !tile.ptr<i32> {tile.name = "lim"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  %sms = tile.multiprocessor_count
  %blocks = arith.minsi %n, %sms : index
  %counter = tile.work_counter : !tile.ptr<i32>
  tile.launch @queued_bounds_kernel grid(%blocks, %c1, %c1) args(%kv, %lim, %n, %counter) : (!tile.ptr<bf16>, !tile.ptr<i32>, index, !tile.ptr<i32>) -> ()
  tile.return
}
tile.kernel @queued_bounds_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %lim: !tile.ptr<i32> {tile.name = "lim"}, %n: index {tile.name = "n"}, %counter: !tile.ptr<i32> {tile.name = "work_counter"}) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %b = tile.block_id x
  %g = tile.grid_dim x
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %l = tile.view %lim[%c0] sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  %queue = tile.view %counter[%c0] sizes() strides() : !tile.ptr<i32> -> !tile.tensor<1xi32>
  tile.pipelined %item = %b to %n step %g stages 2 queue %queue : !tile.tensor<1xi32> {
    %m4 = tile.alloc_shared : !tile.shared<4xi32>
    %q = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %l0 = arith.muli %item, %c4 : index
    tile.copy %l[%l0] to %m4 box [4] : !tile.tensor<?xi32>, !tile.shared<4xi32>
    %q0 = arith.muli %item, %c64 : index
    tile.copy %v[%q0, %c0] to %q box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
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
