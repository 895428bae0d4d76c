// RUN: minitile-opt %s | minitile-opt | FileCheck %s
// The ops per-thread code uses directly -- elements of shared tiles, atomics,
// warp votes and shuffles, while loops -- print in a form that parses back.

// CHECK-LABEL: tile.kernel @k
tile.kernel @k(%p: !tile.ptr<i32>, %n: index, %x: f32) attributes {block = array<i32: 64, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  %hist = tile.alloc_shared : !tile.shared<2x256xi32>
  // CHECK: tile.shared_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : i32, <2x256xi32>
  tile.shared_store %one, %hist[%c1, %c0] : i32, !tile.shared<2x256xi32>
  // CHECK: tile.shared_load %{{.*}}[%{{.*}}, %{{.*}}] : <2x256xi32> -> i32
  %h = tile.shared_load %hist[%c1, %c0] : !tile.shared<2x256xi32> -> i32
  // CHECK: tile.shared_atomic{{ +}}add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : i32, <2x256xi32>
  %old = tile.shared_atomic add %one, %hist[%c1, %c0] : i32, !tile.shared<2x256xi32>
  // CHECK: tile.atomic{{ +}}max %{{.*}}, %{{.*}}[%{{.*}}] : i32, <?xi32>
  %m = tile.atomic max %h, %v[%c0] : i32, !tile.tensor<?xi32>
  // CHECK: tile.atomic{{ +}}exchange
  %e = tile.atomic exchange %h, %v[%c0] : i32, !tile.tensor<?xi32>
  // CHECK: tile.atomic{{ +}}and
  %a = tile.atomic and %h, %v[%c0] : i32, !tile.tensor<?xi32>
  %pred = arith.cmpi sgt, %old, %one : i32
  // CHECK: tile.vote{{ +}}ballot %{{.*}} : i32
  %lanes = tile.vote ballot %pred : i32
  // CHECK: tile.vote{{ +}}any %{{.*}} : i1
  %any = tile.vote any %pred : i1
  // CHECK: tile.shuffle_up %{{.*}}, %{{.*}} : i32
  %up = tile.shuffle_up %lanes, %one : i32
  // CHECK: tile.shuffle_idx %{{.*}}, %{{.*}} : f32
  %from = tile.shuffle_idx %x, %one : f32
  %left = tile.alloc_local : !tile.local<i32>
  tile.local_store %one, %left : !tile.local<i32>
  // CHECK: tile.while {
  // CHECK:   tile.condition %{{.*}}
  // CHECK: } do {
  // CHECK:   tile.barrier
  // CHECK:   tile.yield
  // CHECK: }
  tile.while {
    %l = tile.local_load %left : !tile.local<i32>
    %go = arith.cmpi sgt, %l, %one : i32
    tile.condition %go
  } do {
    %l = tile.local_load %left : !tile.local<i32>
    %next = arith.subi %l, %one : i32
    tile.local_store %next, %left : !tile.local<i32>
    tile.barrier
    tile.yield
  }
  tile.return
}
