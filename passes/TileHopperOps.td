//===- TileHopperOps.td - the machine-level ops the passes produce --------===//
//
// What the tile passes lower tiles, copies, pipelines and gemms to: shared
// memory at fixed offsets, mbarriers, tensor-memory-accelerator copies, wgmma,
// warp shuffles and named barriers. convert-tile-to-llvm maps each to NVVM.
//
//===----------------------------------------------------------------------===//
#ifndef MINITILE_TILE_HOPPER_OPS
#define MINITILE_TILE_HOPPER_OPS

//===----------------------------------------------------------------------===//
// Shared memory, once planned
//===----------------------------------------------------------------------===//

def Tile_SharedViewOp : Tile_Op<"shared_view", [Pure, Tile_InKernel]> {
  let summary = "the shared tile at a byte offset of the dynamic shared memory";
  let description = [{
    Offsets count from the kernel's dynamic shared memory, aligned to 1024
    bytes (what 128-byte swizzles need).
  }];
  let arguments = (ins Index:$offset);
  let results = (outs Tile_AnyShared:$result);
  let assemblyFormat = "$offset attr-dict `:` type($result)";
}

def Tile_StageOp : Tile_Op<"stage", [Pure, Tile_InKernel,
    AllTypesMatch<["tiles", "result"]>]> {
  let summary = "stage `index` of a shared tile allocated with stages";
  let arguments = (ins Tile_AnyShared:$tiles, Index:$index);
  let results = (outs Tile_AnyShared:$result);
  let assemblyFormat = "$tiles `[` $index `]` attr-dict `:` type($tiles)";
}

def Tile_MBarrierOfOp : Tile_Op<"mbarrier_of", [Pure, Tile_InKernel]> {
  let summary = "the mbarrier held in element `index` of a shared tile of i64";
  let arguments = (ins Tile_AnyShared:$tile, Index:$index);
  let results = (outs Tile_MBarrierType:$result);
  let assemblyFormat = "$tile `[` $index `]` attr-dict `:` type($tile)";
}

def Tile_SharedLoadOp : Tile_Op<"shared_load", [Tile_InKernel]> {
  let summary = "reads elements [col, col + lanes) of a row of a shared tile";
  let description = [{
    `row` counts rows of the tile seen as a matrix (outer dimensions
    flattened); the lanes stay inside one 16-byte chunk.
  }];
  let arguments = (ins Tile_AnyShared:$tile, Index:$row, Index:$col);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$tile `[` $row `,` $col `]` attr-dict `:` type($tile) `->` type($result)";
}

def Tile_SharedStoreOp : Tile_Op<"shared_store", [Tile_InKernel]> {
  let summary = "writes elements [col, col + lanes) of a row of a shared tile";
  let arguments = (ins AnyType:$value, Tile_AnyShared:$tile, Index:$row, Index:$col);
  let assemblyFormat = "$value `,` $tile `[` $row `,` $col `]` attr-dict `:` type($value) `,` type($tile)";
}

//===----------------------------------------------------------------------===//
// Synchronisation
//===----------------------------------------------------------------------===//

def Tile_MBarrierInitOp : Tile_Op<"mbarrier_init", [Tile_InKernel]> {
  let summary = "initialises an mbarrier expecting `count` arrivals a phase";
  let arguments = (ins Tile_MBarrierType:$barrier, I64Attr:$count);
  let assemblyFormat = "$barrier `count` $count attr-dict";
}

def Tile_MBarrierArriveOp : Tile_Op<"mbarrier_arrive", [Tile_InKernel]> {
  let summary = "this thread arrives on the mbarrier";
  let arguments = (ins Tile_MBarrierType:$barrier);
  let assemblyFormat = "$barrier attr-dict";
}

def Tile_MBarrierExpectTxOp : Tile_Op<"mbarrier_arrive_expect_tx", [Tile_InKernel]> {
  let summary = "arrives, and makes the phase also wait for `bytes` of copies";
  let arguments = (ins Tile_MBarrierType:$barrier, I64Attr:$bytes);
  let assemblyFormat = "$barrier `bytes` $bytes attr-dict";
}

def Tile_MBarrierWaitOp : Tile_Op<"mbarrier_wait", [Tile_InKernel]> {
  let summary = "waits until the mbarrier's phase of parity `parity` completes";
  let arguments = (ins Tile_MBarrierType:$barrier, Index:$parity);
  let assemblyFormat = "$barrier `parity` $parity attr-dict";
}

def Tile_FenceMBarrierInitOp : Tile_Op<"fence_mbarrier_init", [Tile_InKernel]> {
  let summary = "makes mbarrier initialisation visible to the async proxy";
  let assemblyFormat = "attr-dict";
}

def Tile_FenceProxyAsyncOp : Tile_Op<"fence_proxy_async", [Tile_InKernel]> {
  let summary = "orders this thread's shared stores before async-proxy reads (wgmma, TMA)";
  let assemblyFormat = "attr-dict";
}

def Tile_BarrierOp : Tile_Op<"barrier", [Tile_InKernel]> {
  let summary = "bar.sync: waits for `threads` threads at named barrier `id`";
  let description = [{
    Barrier 0 with every thread of the block is __syncthreads(); the compute
    threads of a warp-specialised kernel meet at barrier 1.
  }];
  let arguments = (ins I64Attr:$id, I64Attr:$threads);
  let assemblyFormat = "$id `threads` $threads attr-dict";
}

def Tile_ElectOneOp : Tile_Op<"elect_one", [Tile_InKernel]> {
  let summary = "true in one lane of the warp (elect.sync)";
  let results = (outs I1:$result);
  let assemblyFormat = "attr-dict";
}

def Tile_SetMaxNRegOp : Tile_Op<"setmaxnreg", [Tile_InKernel]> {
  let summary = "moves registers between the warpgroups (setmaxnreg)";
  let arguments = (ins I64Attr:$count, BoolAttr:$increase);
  let assemblyFormat = "$count attr-dict";
}

def Tile_ShuffleXorOp : Tile_Op<"shuffle_xor", [Pure, Tile_InKernel,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "the value of lane (lane ^ mask) of this warp";
  let arguments = (ins AnyTypeOf<[I32, F32]>:$value, I64Attr:$mask);
  let results = (outs AnyTypeOf<[I32, F32]>:$result);
  let assemblyFormat = "$value `,` $mask attr-dict `:` type($value)";
}

//===----------------------------------------------------------------------===//
// The tensor-memory accelerator
//===----------------------------------------------------------------------===//

def Tile_MakeTmaDescOp : Tile_Op<"make_tma_desc", [HasParent<"HostOp">, AttrSizedOperandSegments]> {
  let summary = "encodes a tensor map on the host (cuTensorMapEncodeTiled)";
  let description = [{
    The map covers the tensor `offset` elements past `base`: `dims` are its
    extents and `strides` the byte strides of all but the innermost
    dimension, both innermost first; `box` the box extents, innermost first;
    `swizzle` 0, 32, 64 or 128 bytes. `tensor` names the tensor in errors.
  }];
  let arguments = (ins Tile_AnyPtr:$base, Index:$offset, Variadic<Index>:$dims,
                       Variadic<Index>:$strides, DenseI64ArrayAttr:$box,
                       I64Attr:$swizzle, StrAttr:$tensor);
  let results = (outs Tile_TmaDescType:$result);
  let assemblyFormat = [{
    $base `[` $offset `]` `dims` `(` $dims `)` `strides` `(` $strides `)` `box` $box
    `swizzle` $swizzle `of` $tensor attr-dict `:` type($base)
  }];
  let hasVerifier = 1;
}

def Tile_TmaLoadOp : Tile_Op<"tma_load", [Tile_InKernel]> {
  let summary = "starts a tensor map box copy to shared memory, completing on a barrier";
  let description = [{
    `coords` are the box origin, innermost first; the box lands `offset`
    bytes into `dest` and its bytes complete a transaction of `barrier`.
  }];
  let arguments = (ins Tile_TmaDescType:$desc, Variadic<I32>:$coords,
                       Tile_AnyShared:$dest, I64Attr:$offset, Tile_MBarrierType:$barrier);
  let assemblyFormat = [{
    $desc `[` $coords `]` `to` $dest `offset` $offset `,` $barrier attr-dict `:` type($dest)
  }];
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

def Tile_WgmmaDescOp : Tile_Op<"wgmma_desc", [Pure, Tile_InKernel]> {
  let summary = "the 64-bit wgmma descriptor of a K-major shared tile region";
  let description = [{
    Starts `offset` bytes into the tile; `sbo` is the byte distance between
    8-row groups; the tile's swizzle gives the layout type.
  }];
  let arguments = (ins Tile_AnyShared:$tile, Index:$offset, I64Attr:$sbo);
  let results = (outs I64:$result);
  let assemblyFormat = "$tile `[` $offset `]` `sbo` $sbo attr-dict `:` type($tile)";
}

def Tile_WgmmaFenceOp : Tile_Op<"wgmma_fence", [Tile_InKernel]> {
  let summary = "orders register writes before the next wgmma";
  let assemblyFormat = "attr-dict";
}

def Tile_WgmmaCommitOp : Tile_Op<"wgmma_commit", [Tile_InKernel]> {
  let summary = "closes the group of wgmmas issued so far";
  let assemblyFormat = "attr-dict";
}

def Tile_WgmmaWaitOp : Tile_Op<"wgmma_wait", [Tile_InKernel]> {
  let summary = "waits until at most `pending` wgmma groups are in flight";
  let arguments = (ins I64Attr:$pending);
  let assemblyFormat = "$pending attr-dict";
}

def Tile_WgmmaOp : Tile_Op<"wgmma", [Tile_InKernel]> {
  let summary = "one wgmma.mma_async m64nNk16, bf16 x bf16 -> f32, both K-major";
  let description = [{
    `acc` are this thread's N/2 accumulator registers in wgmma order; with
    `zero_acc` their values are ignored and the product starts from zero.
  }];
  let arguments = (ins I64:$descA, I64:$descB, Variadic<F32>:$acc, I64Attr:$n,
                       UnitAttr:$zero_acc);
  let results = (outs Variadic<F32>:$results);
  let assemblyFormat = [{
    $descA `,` $descB `n` $n `acc` `(` $acc `)` attr-dict `:` functional-type($acc, $results)
  }];
  let hasVerifier = 1;
}

#endif // MINITILE_TILE_HOPPER_OPS
