//===- HopperOps.td - the hopper dialect: Hopper's machine operations -----===//
//
// What the tile passes lower copies, pipelined loops and gemms to on sm_90:
// mbarriers, tensor-memory-accelerator copies, wgmma, setmaxnreg, named
// barriers. The portable `tile` dialect never needs these to describe a
// kernel; convert-tile-to-llvm maps each op to NVVM. Each op names the
// target feature it needs (see dialect/include/minitile/target.h), and no op
// reaches LLVM on a target that lacks it.
//
//===----------------------------------------------------------------------===//
#ifndef MINITILE_HOPPER_OPS
#define MINITILE_HOPPER_OPS

include "dialect/TileBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Hopper_Dialect : Dialect {
  let name = "hopper";
  let cppNamespace = "::minitile::hopper";
  let summary = "Machine operations of NVIDIA Hopper (sm_90, sm_90a)";
  let description = [{
    The asynchronous machinery of Hopper GPUs that tile passes target:
    mbarriers in shared memory, the tensor-memory accelerator (TMA) and its
    tensor maps, warpgroup matrix multiply-accumulate (wgmma), register
    reallocation between warpgroups (setmaxnreg) and named barriers. Shared
    memory operands are `!tile.shared` tiles.
  }];
  let dependentDialects = ["::minitile::tile::TileDialect"];
  let useDefaultTypePrinterParser = 1;
}

/// `feature` is the Target feature the op needs (a minitile::Feature name);
/// ops are device code unless `inKernel` is 0.
class Hopper_Op<string mnemonic, string feature, list<Trait> traits = [],
                bit inKernel = 1>
    : Op<Hopper_Dialect, mnemonic,
         !listconcat(traits, !if(inKernel, [Tile_InKernel], []))> {
  let extraClassDeclaration = [{
    /// The target feature this op needs.
    static ::minitile::Feature requiredFeature() {
      return ::minitile::Feature::}] # feature # [{;
    }
  }];
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Hopper_MBarrierType : TypeDef<Hopper_Dialect, "MBarrier"> {
  let mnemonic = "mbarrier";
  let summary = "an mbarrier object in shared memory";
  let description = [{
    A 64-bit barrier in shared memory that counts arrivals and, on sm_90,
    bytes of asynchronous copies (transactions). Its phase completes when both
    reach zero; waiters name the phase by its parity.
  }];
}

def Hopper_TmaDescType : TypeDef<Hopper_Dialect, "TmaDesc"> {
  let mnemonic = "tma_desc";
  let summary = "a CUDA tensor map, passed to the kernel by value";
  let description = [{
    The 128-byte `CUtensorMap` the launcher encodes with
    `cuTensorMapEncodeTiled`; a kernel parameter passed as a grid constant.
  }];
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

def Hopper_MBarrierOfOp : Hopper_Op<"mbarrier_of", "mbarrier", [Pure]> {
  let summary = "the mbarrier held in element `index` of a shared tile of i64";
  let description = [{
    ```mlir
    %full = tile.alloc_shared : !tile.shared<4xi64>
    %b = hopper.mbarrier_of %full[%stage] : !tile.shared<4xi64>
    ```
  }];
  let arguments = (ins Tile_AnyShared:$tile, Index:$index);
  let results = (outs Hopper_MBarrierType:$result);
  let assemblyFormat = "$tile `[` $index `]` attr-dict `:` type($tile)";
  let hasVerifier = 1;
}

def Hopper_MBarrierInitOp : Hopper_Op<"mbarrier_init", "mbarrier"> {
  let summary = "initialises an mbarrier expecting `count` arrivals a phase";
  let description = [{
    ```mlir
    hopper.mbarrier_init %b count 128
    ```
    One thread initialises; `hopper.fence_mbarrier_init` and a barrier make
    it visible to the other threads and to the copy engine.
  }];
  let arguments = (ins Hopper_MBarrierType:$barrier, I64Attr:$count);
  let assemblyFormat = "$barrier `count` $count attr-dict";
  let hasVerifier = 1;
}

def Hopper_MBarrierArriveOp : Hopper_Op<"mbarrier_arrive", "mbarrier"> {
  let summary = "this thread arrives on the mbarrier";
  let description = [{
    ```mlir
    hopper.mbarrier_arrive %empty
    ```
  }];
  let arguments = (ins Hopper_MBarrierType:$barrier);
  let assemblyFormat = "$barrier attr-dict";
}

def Hopper_MBarrierExpectTxOp : Hopper_Op<"mbarrier_arrive_expect_tx", "tma"> {
  let summary = "arrives, and makes the phase also wait for `bytes` of copies";
  let description = [{
    ```mlir
    hopper.mbarrier_arrive_expect_tx %full bytes 16384
    ```
  }];
  let arguments = (ins Hopper_MBarrierType:$barrier, I64Attr:$bytes);
  let assemblyFormat = "$barrier `bytes` $bytes attr-dict";
  let hasVerifier = 1;
}

def Hopper_MBarrierWaitOp : Hopper_Op<"mbarrier_wait", "mbarrier"> {
  let summary = "waits until the mbarrier's phase of parity `parity` completes";
  let description = [{
    ```mlir
    hopper.mbarrier_wait %full parity %p
    ```
    `parity` is 0 or 1: the phase's number modulo 2.
  }];
  let arguments = (ins Hopper_MBarrierType:$barrier, Index:$parity);
  let assemblyFormat = "$barrier `parity` $parity attr-dict";
}

def Hopper_FenceMBarrierInitOp : Hopper_Op<"fence_mbarrier_init", "tma"> {
  let summary = "makes mbarrier initialisation visible to the async proxy";
  let description = [{
    ```mlir
    hopper.fence_mbarrier_init
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Hopper_FenceProxyAsyncOp : Hopper_Op<"fence_proxy_async", "tma"> {
  let summary = "orders this thread's shared stores before async-proxy reads (wgmma, TMA)";
  let description = [{
    ```mlir
    tile.shared_store %v, %tile[%r, %c] : f32, !tile.shared<64x64xf32>
    hopper.fence_proxy_async
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Warps and warpgroups
//===----------------------------------------------------------------------===//

def Hopper_NamedBarrierOp : Hopper_Op<"named_barrier", "namedBarriers"> {
  let summary = "bar.sync: waits for `threads` threads at named barrier `id`";
  let description = [{
    ```mlir
    hopper.named_barrier 1 threads 256
    ```
    Lets a subset of the block's warps (the compute warpgroups of a
    warp-specialised kernel) meet without the others. `threads` is a
    multiple of 32; `id` is 1 to 15 (0 is the block-wide `tile.barrier`).
  }];
  let arguments = (ins I64Attr:$id, I64Attr:$threads);
  let assemblyFormat = "$id `threads` $threads attr-dict";
  let hasVerifier = 1;
}

def Hopper_ElectOneOp : Hopper_Op<"elect_one", "elect"> {
  let summary = "true in one lane of the warp (elect.sync)";
  let description = [{
    ```mlir
    %leader = hopper.elect_one
    ```
  }];
  let results = (outs I1:$result);
  let assemblyFormat = "attr-dict";
}

def Hopper_SetMaxNRegOp : Hopper_Op<"setmaxnreg", "setmaxnreg"> {
  let summary = "moves registers between the warpgroups (setmaxnreg)";
  let description = [{
    ```mlir
    hopper.setmaxnreg 40 {increase = false}
    hopper.setmaxnreg 232 {increase = true}
    ```
    `count` is a multiple of 8 from 24 to 256.
  }];
  let arguments = (ins I64Attr:$count, BoolAttr:$increase);
  let assemblyFormat = "$count attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// The tensor-memory accelerator
//===----------------------------------------------------------------------===//

def Hopper_MakeTmaDescOp : Hopper_Op<"make_tma_desc", "tma",
    [HasParent<"::minitile::tile::HostOp">, AttrSizedOperandSegments], /*inKernel=*/0> {
  let summary = "encodes a tensor map on the host (cuTensorMapEncodeTiled)";
  let description = [{
    The map covers the tensor `offset` elements past `base`: `dims` are its
    extents and `strides` the byte strides of all but the innermost
    dimension, both innermost first; `box` the box extents, innermost first;
    `swizzle` 0, 32, 64 or 128 bytes. `tensor` names the tensor in errors.

    ```mlir
    %d = hopper.make_tma_desc %kv[%c0] dims(%c128, %S_kv) strides(%c256) box [64, 64]
           swizzle 128 of "kv" : !tile.ptr<bf16>
    ```
  }];
  let arguments = (ins Tile_AnyPtr:$base, Index:$offset, Variadic<Index>:$dims,
                       Variadic<Index>:$strides, DenseI64ArrayAttr:$box,
                       I64Attr:$swizzle, StrAttr:$tensor);
  let results = (outs Hopper_TmaDescType:$result);
  let assemblyFormat = [{
    $base `[` $offset `]` `dims` `(` $dims `)` `strides` `(` $strides `)` `box` $box
    `swizzle` $swizzle `of` $tensor attr-dict `:` type($base)
  }];
  let hasVerifier = 1;
}

def Hopper_TmaLoadOp : Hopper_Op<"tma_load", "tma"> {
  let summary = "starts a tensor map box copy to shared memory, completing on a barrier";
  let description = [{
    `coords` are the box origin, innermost first; the box lands `offset`
    bytes into `dest` and its bytes complete a transaction of `barrier`.

    ```mlir
    hopper.tma_load %desc[%c0_i32, %t0] to %tile offset 0, %full : !tile.shared<64x128xbf16, swizzle = 128>
    ```
  }];
  let arguments = (ins Hopper_TmaDescType:$desc, Variadic<I32>:$coords,
                       Tile_AnyShared:$dest, I64Attr:$offset, Hopper_MBarrierType:$barrier);
  let assemblyFormat = [{
    $desc `[` $coords `]` `to` $dest `offset` $offset `,` $barrier attr-dict `:` type($dest)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

def Hopper_WgmmaDescOp : Hopper_Op<"wgmma_desc", "wgmma", [Pure]> {
  let summary = "the 64-bit wgmma descriptor of a K-major shared tile region";
  let description = [{
    Starts `offset` bytes into the tile; `sbo` is the byte distance between
    8-row groups; the tile's swizzle gives the layout type.

    ```mlir
    %da = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x128xbf16, swizzle = 128>
    ```
  }];
  let arguments = (ins Tile_AnyShared:$tile, Index:$offset, I64Attr:$sbo);
  let results = (outs I64:$result);
  let assemblyFormat = "$tile `[` $offset `]` `sbo` $sbo attr-dict `:` type($tile)";
}

def Hopper_WgmmaFenceOp : Hopper_Op<"wgmma_fence", "wgmma"> {
  let summary = "orders register writes before the next wgmma";
  let description = [{
    ```mlir
    hopper.wgmma_fence
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Hopper_WgmmaCommitOp : Hopper_Op<"wgmma_commit", "wgmma"> {
  let summary = "closes the group of wgmmas issued so far";
  let description = [{
    ```mlir
    hopper.wgmma_commit
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Hopper_WgmmaWaitOp : Hopper_Op<"wgmma_wait", "wgmma"> {
  let summary = "waits until at most `pending` wgmma groups are in flight";
  let description = [{
    ```mlir
    hopper.wgmma_wait 0
    ```
    The accumulator registers of a group may be read only after a wait that
    leaves the group no longer pending.
  }];
  let arguments = (ins I64Attr:$pending);
  let assemblyFormat = "$pending attr-dict";
  let hasVerifier = 1;
}

def Hopper_WgmmaOp : Hopper_Op<"wgmma", "wgmma"> {
  let summary = "one wgmma.mma_async m64nNk16, bf16 x bf16 -> f32, both K-major";
  let description = [{
    `acc` are this thread's N/2 accumulator registers in wgmma order; with
    `zero_acc` their values are ignored and the product starts from zero.

    ```mlir
    %d:4 = hopper.wgmma %da, %db n 8 acc(%z, %z, %z, %z) {zero_acc}
             : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    ```
  }];
  let arguments = (ins I64:$descA, I64:$descB, Variadic<F32>:$acc, I64Attr:$n,
                       UnitAttr:$zero_acc);
  let results = (outs Variadic<F32>:$results);
  let assemblyFormat = [{
    $descA `,` $descB `n` $n `acc` `(` $acc `)` attr-dict `:` functional-type($acc, $results)
  }];
  let hasVerifier = 1;
}

#endif // MINITILE_HOPPER_OPS
