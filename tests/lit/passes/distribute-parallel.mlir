// RUN: minitile-opt %s --tile-distribute-parallel | FileCheck %s
// A parallel loop over a block of N threads becomes a serial loop that
// thread t starts at lb + t * step and strides by N * step.

// CHECK-LABEL: tile.kernel @one_dim
// CHECK-SAME: block = array<i32: 256, 1, 1>
tile.kernel @one_dim(%n: index) attributes {block = array<i32: 256, 1, 1>} {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  // CHECK: %[[T:.*]] = tile.thread_id{{ +}}x
  // CHECK: %[[N:.*]] = arith.constant 256 : index
  // CHECK: %[[OFF:.*]] = arith.muli %[[T]], %c4 : index
  // CHECK: %[[LB:.*]] = arith.addi %c3, %[[OFF]] : index
  // CHECK: %[[STRIDE:.*]] = arith.muli %[[N]], %c4 : index
  // CHECK: tile.for %[[I:.*]] = %[[LB]] to %{{.*}} step %[[STRIDE]] {
  // CHECK-NEXT: arith.addi %[[I]]
  // CHECK-NOT: tile.parallel
  tile.parallel %i = %c3 to %n step %c4 {
    %x = arith.addi %i, %c3 : index
  }
  tile.return
}

// CHECK-LABEL: tile.kernel @three_dims
tile.kernel @three_dims(%n: index) attributes {block = array<i32: 32, 4, 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // The linear thread index is x + 32 * y + 128 * z, of 256 threads.
  // CHECK: %[[X:.*]] = tile.thread_id{{ +}}x
  // CHECK: %[[Y:.*]] = tile.thread_id{{ +}}y
  // CHECK: %[[C32:.*]] = arith.constant 32 : index
  // CHECK: %[[YS:.*]] = arith.muli %[[Y]], %[[C32]]
  // CHECK: %[[XY:.*]] = arith.addi %[[X]], %[[YS]]
  // CHECK: %[[Z:.*]] = tile.thread_id{{ +}}z
  // CHECK: %[[C128:.*]] = arith.constant 128 : index
  // CHECK: %[[ZS:.*]] = arith.muli %[[Z]], %[[C128]]
  // CHECK: %[[TID:.*]] = arith.addi %[[XY]], %[[ZS]]
  // CHECK: %[[N:.*]] = arith.constant 256 : index
  // CHECK: arith.muli %[[TID]], %c1
  // CHECK: arith.muli %[[N]], %c1
  // CHECK: tile.for
  tile.parallel %i = %c0 to %n step %c1 {
  }
  tile.return
}

// With across_x, each row of the block (same y) runs the loop on its own:
// iterations spread over the 32 threads of the row only.
// CHECK-LABEL: tile.kernel @per_row
tile.kernel @per_row(%n: index) attributes {block = array<i32: 32, 8, 1>} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // CHECK: %[[X:.*]] = tile.thread_id{{ +}}x
  // CHECK-NOT: tile.thread_id{{ +}}y
  // CHECK: %[[N:.*]] = arith.constant 32 : index
  // CHECK: %[[OFF:.*]] = arith.muli %[[X]], %c4
  // CHECK: %[[STRIDE:.*]] = arith.muli %[[N]], %c4
  // CHECK: tile.for %{{.*}} = %{{.*}} to %{{.*}} step %[[STRIDE]] {
  tile.parallel %i = %c0 to %n step %c4 {
  } {across_x}
  tile.return
}
