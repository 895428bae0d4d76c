// RUN: minitile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s
// Integer division is defined for every divisor (LLVM's sdiv, udiv, srem and
// urem are undefined on zero, and sdiv/srem on MIN / -1, which let LLVM
// delete the code around them): the divisor is 1 where it would be undefined,
// and the result then chosen as x / 0 = -1, x % 0 = x; MIN / -1 = MIN,
// MIN % -1 = 0 (the division by 1 gives those). A constant divisor other
// than 0 and -1 is left alone.

// CHECK-LABEL: llvm.func @divide
tile.kernel @divide(%q: !tile.ptr<i32>, %a: i32, %b: i32) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %d = tile.view %q sizes(%c4) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  // a / b: b == 0, or a == MIN and b == -1, divide by 1; b == 0 gives -1.
  // CHECK-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-DAG: %[[ONES:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK: %[[BYZERO:.*]] = llvm.icmp "eq" %[[B:.*]], %[[ZERO]] : i32
  // CHECK: %[[MIN:.*]] = llvm.mlir.constant(-2147483648 : i32) : i32
  // CHECK: %[[ISMIN:.*]] = llvm.icmp "eq" %[[A:.*]], %[[MIN]] : i32
  // CHECK: %[[ISONES:.*]] = llvm.icmp "eq" %[[B]], %[[ONES]] : i32
  // CHECK: %[[OVERFLOW:.*]] = llvm.and %[[ISMIN]], %[[ISONES]] : i1
  // CHECK: %[[UNSAFE:.*]] = llvm.or %[[BYZERO]], %[[OVERFLOW]] : i1
  // CHECK: %[[SAFE:.*]] = llvm.select %[[UNSAFE]], %[[ONE]], %[[B]] : i1, i32
  // CHECK: %[[Q:.*]] = llvm.sdiv %[[A]], %[[SAFE]] : i32
  // CHECK: llvm.select %[[BYZERO]], %[[ONES]], %[[Q]] : i1, i32
  %x = arith.divsi %a, %b : i32
  tile.store %x, %d[%c0] : i32, !tile.tensor<?xi32>
  // a % b: b == 0 gives a.
  // CHECK: %[[R:.*]] = llvm.srem %[[A]], %{{.*}} : i32
  // CHECK: llvm.select %{{.*}}, %[[A]], %[[R]] : i1, i32
  %y = arith.remsi %a, %b : i32
  tile.store %y, %d[%c1] : i32, !tile.tensor<?xi32>
  // Unsigned: only a zero divisor is undefined.
  // CHECK: %[[UQ:.*]] = llvm.udiv %[[A]], %{{.*}} : i32
  // CHECK: llvm.select %{{.*}}, %{{.*}}, %[[UQ]] : i1, i32
  %z = arith.divui %a, %b : i32
  tile.store %z, %d[%c2] : i32, !tile.tensor<?xi32>
  // A constant divisor of 7 needs no guard.
  // CHECK: %[[SEVEN:.*]] = llvm.mlir.constant(7 : i32) : i32
  // CHECK-NEXT: llvm.sdiv %[[A]], %[[SEVEN]] : i32
  %c7 = arith.constant 7 : i32
  %w = arith.divsi %a, %c7 : i32
  tile.store %w, %d[%c3] : i32, !tile.tensor<?xi32>
  // ceildiv by b: guarded before it expands.
  // CHECK: llvm.select
  %v = arith.ceildivsi %a, %b : i32
  tile.store %v, %d[%c4] : i32, !tile.tensor<?xi32>
  tile.return
}
