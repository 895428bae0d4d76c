// RUN: minitile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s
// Kernels become nvvm.kernel llvm.funcs; tensors become {ptr, strides}
// structs; launchers are dropped.

// CHECK-NOT: tile.host
tile.host @copy(%src: !tile.ptr<f32> {tile.name = "src"}, %dst: !tile.ptr<f32> {tile.name = "dst"}, %n: index {tile.name = "n"}) {
  %c1 = arith.constant 1 : index
  tile.launch @copy_kernel grid(%c1, %c1, %c1) args(%src, %dst, %n) : (!tile.ptr<f32>, !tile.ptr<f32>, index) -> ()
  tile.return
}

// CHECK-LABEL: llvm.func @copy_kernel(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64)
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 128, 1, 1>
tile.kernel @copy_kernel(%src: !tile.ptr<f32>, %dst: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // A view of rows of n elements, origin moved by %c4 elements.
  // CHECK: %[[ORIGIN:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  // CHECK: %[[V0:.*]] = llvm.mlir.poison : !llvm.struct<(ptr<1>, i64)>
  // CHECK: %[[V1:.*]] = llvm.insertvalue %[[ORIGIN]], %[[V0]][0]
  // CHECK: llvm.insertvalue %{{.*}}, %[[V1]][1]
  %s = tile.view %src[%c4] sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %d = tile.view %dst sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  // The thread index carries the block's range.
  // CHECK: nvvm.read.ptx.sreg.tid.x range <i32, 0, 128> : i32
  // CHECK: llvm.zext %{{.*}} : i32 to i64
  %t = tile.thread_id x
  // CHECK: nvvm.read.ptx.sreg.ctaid.y
  %b = tile.block_id y
  // The address of s[b, t] is origin + b * stride + t.
  // CHECK: llvm.mul %{{.*}}, %{{.*}} : i64
  // CHECK: llvm.add
  // CHECK: llvm.getelementptr
  // CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
  %x = tile.load %s[%b, %t] : !tile.tensor<?x?xf32> -> f32
  // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
  tile.store %x, %d[%b, %t] : f32, !tile.tensor<?x?xf32>
  // A vector store is aligned to its size; the splat is insert + shuffle.
  // CHECK: llvm.insertelement
  // CHECK: llvm.shufflevector %{{.*}} [0, 0, 0, 0] : vector<4xf32>
  // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
  %v = tile.splat %x : vector<4xf32>
  tile.store %v, %d[%b, %c0] : vector<4xf32>, !tile.tensor<?x?xf32>
  // Elements to the next 16-byte boundary: ((16 - (addr & 15)) & 15) / 4.
  // CHECK: llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
  // CHECK: llvm.and
  // CHECK: llvm.sub
  // CHECK: llvm.and
  // CHECK: llvm.udiv
  %gap = tile.elems_to_aligned %d[%b, %t] bytes 16 : !tile.tensor<?x?xf32>
  // A variable is an alloca.
  // CHECK: llvm.alloca %{{.*}} x i64 {alignment = 8 : i64} : (i64) -> !llvm.ptr
  %var = tile.alloc_local : !tile.local<index>
  tile.local_store %gap, %var : !tile.local<index>
  // Loops and ifs become branches.
  // CHECK: llvm.br
  // CHECK: llvm.cond_br
  %c1 = arith.constant 1 : index
  tile.for %i = %c0 to %n step %c1 {
    %g = tile.local_load %var : !tile.local<index>
    %g1 = arith.addi %g, %i : index
    tile.local_store %g1, %var : !tile.local<index>
  }
  %ceil = arith.ceildivsi %n, %c4 : index
  %cond = arith.cmpi slt, %t, %ceil : index
  tile.if %cond {
    tile.store %x, %d[%t, %t] : f32, !tile.tensor<?x?xf32>
  }
  // CHECK: llvm.return
  tile.return
}
// CHECK-NOT: tile.
// CHECK-NOT: arith.
// CHECK-NOT: scf.
