// RUN: minitile-opt %s --tile-lower-copies --canonicalize | FileCheck %s --check-prefix=TMA
// RUN: minitile-opt %s --tile-lower-copies=fallback=true --canonicalize | FileCheck %s --check-prefix=PLAIN
// A gathered copy: the 8 kv rows (of batch b) that row s of idx selects from
// slot j on, into an [8, 128] tile.

// Through the tensor-memory accelerator, the tensor map's box is one row (of one batch, one 64-column
// panel). The issuing thread reads the 8 indices first -- a slot past idx's
// end has none (-1) -- then starts two boxes a row: a row without an index,
// or with a negative one, at row -1, wholly outside kv (zeros).
// TMA: hopper.make_tma_desc %kv[%{{.*}}] dims(%c128, %b_count, %n) strides(%c256, %{{.*}}) box [64, 1, 1] swizzle 128 of "kv"
// TMA-LABEL: tile.kernel @g_kernel
// TMA: %[[B:.*]] = arith.index_cast %{{.*}} : index to i32
// TMA: tile.if
// TMA-NEXT: hopper.mbarrier_arrive_expect_tx %[[BAR:.*]] bytes 2048
// TMA-NEXT: %[[IN0:.*]] = arith.cmpi slt, %[[J:.*]], %[[K:.*]] : index
// TMA-NEXT: %[[I0:.*]] = tile.if %[[IN0]] -> (i32) {
// TMA-NEXT: tile.load %{{.*}}[%{{.*}}, %[[J]]] : <?x?xi32> -> i32
// TMA: tile.yield %c-1_i32 : i32
// TMA-COUNT-7: tile.load
// TMA: %[[OK0:.*]] = arith.cmpi sge, %[[I0]], %c0_i32 : i32
// TMA-NEXT: %[[ROW0:.*]] = arith.select %[[OK0]], %[[I0]], %c-1_i32 : i32
// TMA: hopper.tma_load %kv_tma[%c0_i32, %[[B]], %[[ROW0]]] to %{{.*}} offset 0, %[[BAR]]
// TMA-NEXT: hopper.tma_load %kv_tma[%c64_i32, %[[B]], %[[ROW0]]] to %{{.*}} offset 1024, %[[BAR]]
// TMA-NEXT: hopper.tma_load %kv_tma[%c0_i32, %[[B]], %{{.*}}] to %{{.*}} offset 128, %[[BAR]]
// TMA-NEXT: hopper.tma_load %kv_tma[%c64_i32, %[[B]], %{{.*}}] to %{{.*}} offset 1152, %[[BAR]]
// TMA-COUNT-12: hopper.tma_load
// TMA-NOT: hopper.tma_load
// TMA: hopper.mbarrier_wait %[[BAR]]
// TMA-NOT: tile.copy

// Element by element: each element reads its row's index (-1 past idx's
// end), and a negative one reads zero.
// PLAIN-LABEL: tile.kernel @g_kernel
// PLAIN: tile.for
// PLAIN: %[[PICK:.*]] = tile.if %{{.*}} -> (index) {
// PLAIN: tile.load %{{.*}} : <?x?xi32> -> i32
// PLAIN: tile.yield %c-1 : index
// PLAIN: arith.cmpi sge, %[[PICK]], %c0 : index
// PLAIN: tile.load %{{.*}} : <?x128xbf16> -> bf16
// PLAIN: tile.shared_store
// PLAIN: tile.barrier
// PLAIN-NOT: tile.copy
tile.host @g(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %idx: !tile.ptr<i32> {tile.name = "idx"},
             %n: index {tile.name = "n"}, %b_count: index {tile.name = "b_count"},
             %s_count: index {tile.name = "s_count"}, %k: index {tile.name = "k"}) {
  %c1 = arith.constant 1 : index
  tile.launch @g_kernel grid(%c1, %c1, %c1) args(%kv, %idx, %n, %b_count, %s_count, %k) : (!tile.ptr<bf16>, !tile.ptr<i32>, index, index, index, index) -> ()
  tile.return
}
tile.kernel @g_kernel(%kv: !tile.ptr<bf16>, %idx: !tile.ptr<i32>, %n: index, %b_count: index, %s_count: index, %k: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %stride = arith.muli %b_count, %c128 : index
  %v = tile.view %kv sizes(%n, %b_count) strides(%stride, %c128) : !tile.ptr<bf16> -> !tile.tensor<?x?x128xbf16>
  %i = tile.view %idx sizes(%s_count, %k) strides(%k) : !tile.ptr<i32> -> !tile.tensor<?x?xi32>
  %b = tile.block_id x
  %s = tile.block_id y
  %jb = tile.block_id z
  %j = arith.muli %jb, %c8 : index
  %one = tile.slice %v dim 1 at %b : !tile.tensor<?x?x128xbf16> -> !tile.tensor<?x128xbf16>
  %t = tile.alloc_shared : !tile.shared<8x128xbf16, swizzle = 128>
  tile.copy %one[%c0, %c0] to %t box [8, 128] rows %i[%s, %j] : !tile.tensor<?x128xbf16>, !tile.shared<8x128xbf16, swizzle = 128>, !tile.tensor<?x?xi32>
  tile.return
}
