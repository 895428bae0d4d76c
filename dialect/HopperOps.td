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
    reach zero; waiters name the phase by its parity. `hopper.mbarrier_of`
    names one held in a shared tile of i64.

    ```mlir
    tile.kernel @barrier(%parity: index) attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %tiles = tile.alloc_shared : !tile.shared<1xi64>
      %b = hopper.mbarrier_of %tiles[%c0] : !tile.shared<1xi64>
      hopper.mbarrier_wait %b parity %parity
      tile.return
    }
    ```
  }];
}

def Hopper_TmaDescType : TypeDef<Hopper_Dialect, "TmaDesc"> {
  let mnemonic = "tma_desc";
  let summary = "a CUDA tensor map, passed to the kernel by value";
  let description = [{
    The 128-byte `CUtensorMap` the launcher encodes with
    `cuTensorMapEncodeTiled`; a kernel parameter passed as a grid constant.

    ```mlir
    tile.kernel @load(%kv: !hopper.tma_desc) attributes {block = array<i32: 128, 1, 1>} {
      tile.return
    }
    ```
  }];
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

def Hopper_MBarrierOfOp : Hopper_Op<"mbarrier_of", "mbarrier", [Pure]> {
  let summary = "the mbarrier held in element `index` of a shared tile of i64";
  let description = [{
    `tile-warp-specialize` and `tile-lower-copies` allocate their barriers so:
    one shared tile of i64 per ring, one element per stage.

    ```mlir
    tile.kernel @ring(%stage: index) attributes {block = array<i32: 128, 1, 1>} {
      %full = tile.alloc_shared : !tile.shared<4xi64>
      %b = hopper.mbarrier_of %full[%stage] : !tile.shared<4xi64>
      tile.return
    }
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
    One thread initialises; `hopper.fence_mbarrier_init` and a barrier make
    it visible to the other threads and to the copy engine.

    ```mlir
    tile.kernel @init() attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %tiles = tile.alloc_shared : !tile.shared<1xi64>
      %t = tile.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      tile.if %first {
        %b = hopper.mbarrier_of %tiles[%c0] : !tile.shared<1xi64>
        hopper.mbarrier_init %b count 128
        hopper.fence_mbarrier_init
      }
      tile.barrier
      tile.return
    }
    ```
  }];
  let arguments = (ins Hopper_MBarrierType:$barrier, I64Attr:$count);
  let assemblyFormat = "$barrier `count` $count attr-dict";
  let hasVerifier = 1;
}

def Hopper_MBarrierArriveOp : Hopper_Op<"mbarrier_arrive", "mbarrier"> {
  let summary = "this thread arrives on the mbarrier";
  let description = [{
    The phase completes when as many threads as the barrier's count have
    arrived (and its expected bytes have landed). `releases` names the
    shared tiles the arrive hands back to whoever waits for the phase (a
    ring stage to its producer): `tile-order-async` makes every wgmma
    reading them complete first. Here each of the 128 threads releases a
    stage it has finished reading:

    ```mlir
    tile.kernel @release(%stage: index) attributes {block = array<i32: 128, 1, 1>} {
      %empty = tile.alloc_shared : !tile.shared<4xi64>
      %k = tile.alloc_shared {stages = 4 : i64} : !tile.shared<64x64xbf16, swizzle = 128>
      %ks = tile.stage %k[%stage] : !tile.shared<64x64xbf16, swizzle = 128>
      %b = hopper.mbarrier_of %empty[%stage] : !tile.shared<4xi64>
      hopper.mbarrier_arrive %b releases(%ks : !tile.shared<64x64xbf16, swizzle = 128>)
      tile.return
    }
    ```
  }];
  let arguments = (ins Hopper_MBarrierType:$barrier, Variadic<Tile_AnyShared>:$releases);
  let assemblyFormat = "$barrier (`releases` `(` $releases^ `:` type($releases) `)`)? attr-dict";
  let builders = [
    OpBuilder<(ins "::mlir::Value":$barrier), [{
      build($_builder, $_state, barrier, ::mlir::ValueRange());
    }]>
  ];
}

def Hopper_MBarrierExpectTxOp : Hopper_Op<"mbarrier_arrive_expect_tx", "tma"> {
  let summary = "arrives, and makes the phase also wait for `bytes` of copies";
  let description = [{
    Issued by the thread that starts the copies, with the bytes they will
    move: the phase completes only when those bytes have landed too.

    ```mlir
    tile.kernel @expect(%kv: !hopper.tma_desc, %t0: i32) attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c0_i32 = arith.constant 0 : i32
      %tiles = tile.alloc_shared : !tile.shared<1xi64>
      %full = hopper.mbarrier_of %tiles[%c0] : !tile.shared<1xi64>
      %k = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      hopper.mbarrier_arrive_expect_tx %full bytes 8192
      hopper.tma_load %kv[%c0_i32, %t0] to %k offset 0, %full : !tile.shared<64x64xbf16, swizzle = 128>
      tile.return
    }
    ```
  }];
  let arguments = (ins Hopper_MBarrierType:$barrier, I64Attr:$bytes);
  let assemblyFormat = "$barrier `bytes` $bytes attr-dict";
  let hasVerifier = 1;
}

def Hopper_MBarrierWaitOp : Hopper_Op<"mbarrier_wait", "mbarrier"> {
  let summary = "waits until the mbarrier's phase of parity `parity` completes";
  let description = [{
    `parity` is 0 or 1: the phase's number modulo 2. A ring of stages waits
    for round `j / stages` of stage `j % stages` with parity
    `(j / stages) % 2`.

    ```mlir
    tile.kernel @wait(%j: index) attributes {block = array<i32: 128, 1, 1>} {
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %full = tile.alloc_shared : !tile.shared<4xi64>
      %stage = arith.remui %j, %c4 : index
      %round = arith.divui %j, %c4 : index
      %parity = arith.andi %round, %c1 : index
      %b = hopper.mbarrier_of %full[%stage] : !tile.shared<4xi64>
      hopper.mbarrier_wait %b parity %parity
      tile.return
    }
    ```
  }];
  let arguments = (ins Hopper_MBarrierType:$barrier, Index:$parity);
  let assemblyFormat = "$barrier `parity` $parity attr-dict";
}

def Hopper_FenceMBarrierInitOp : Hopper_Op<"fence_mbarrier_init", "tma"> {
  let summary = "makes mbarrier initialisation visible to the async proxy";
  let description = [{
    Issued by the thread that initialised the barriers, before the block
    meets; see `hopper.mbarrier_init`.

    ```mlir
    tile.kernel @fence() attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %tiles = tile.alloc_shared : !tile.shared<1xi64>
      %b = hopper.mbarrier_of %tiles[%c0] : !tile.shared<1xi64>
      hopper.mbarrier_init %b count 1
      hopper.fence_mbarrier_init
      tile.return
    }
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Hopper_FenceProxyAsyncOp : Hopper_Op<"fence_proxy_async", "tma"> {
  let summary = "orders this thread's shared stores before async-proxy reads (wgmma, TMA)";
  let description = [{
    Stores by threads (the generic proxy) are not seen by the asynchronous
    proxy without it; a barrier after the fence then lets wgmma read the tile.

    ```mlir
    tile.kernel @fence(%x: f32) attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %t = tile.alloc_shared : !tile.shared<128x32xf32>
      %r = tile.thread_id x
      tile.shared_store %x, %t[%r, %c0] : f32, !tile.shared<128x32xf32>
      hopper.fence_proxy_async
      tile.barrier
      tile.return
    }
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
    Lets a subset of the block's warps (the compute warpgroups of a
    warp-specialised kernel) meet without the others. `threads` is a
    multiple of 32; `id` is 1 to 15 (0 is the block-wide `tile.barrier`).

    ```mlir
    tile.kernel @compute_only() attributes {block = array<i32: 384, 1, 1>, producer_threads = 128 : i64} {
      %c128 = arith.constant 128 : index
      %t = tile.thread_id x
      %producer = arith.cmpi ult, %t, %c128 : index
      tile.if %producer {
      } else {
        hopper.named_barrier 1 threads 256
      }
      tile.return
    }
    ```
  }];
  let arguments = (ins I64Attr:$id, I64Attr:$threads);
  let assemblyFormat = "$id `threads` $threads attr-dict";
  let hasVerifier = 1;
}

def Hopper_BarSyncOp : Hopper_Op<"bar_sync", "namedBarriers"> {
  let summary = "bar.sync at a barrier chosen at run time: waits for `threads` threads there";
  let description = [{
    `hopper.named_barrier` with the barrier's number an i32 computed at run
    time (1 to 15; 0 is the block-wide `tile.barrier`): each warpgroup
    waiting at its own barrier, say. Its arrivals count towards `threads`
    with those of `hopper.bar_arrive` at the same barrier.

    ```mlir
    tile.kernel @turns() attributes {block = array<i32: 256, 1, 1>} {
      %c2 = arith.constant 2 : i32
      hopper.bar_sync %c2 threads 256
      tile.return
    }
    ```
  }];
  let arguments = (ins I32:$id, I64Attr:$threads);
  let assemblyFormat = "$id `threads` $threads attr-dict";
  let hasVerifier = 1;
}

def Hopper_BarArriveOp : Hopper_Op<"bar_arrive", "namedBarriers"> {
  let summary = "bar.arrive: counts this warp's threads at a barrier without waiting";
  let description = [{
    The other half of `hopper.bar_sync`: the threads arrive at barrier `id`
    (1 to 15, an i32 computed at run time) and go on; those waiting there
    with `hopper.bar_sync` pass once `threads` threads have arrived. One
    warpgroup hands another its turn this way (tile-ping-pong).

    ```mlir
    tile.kernel @hand_over() attributes {block = array<i32: 256, 1, 1>} {
      %c3 = arith.constant 3 : i32
      hopper.bar_arrive %c3 threads 256
      tile.return
    }
    ```
  }];
  let arguments = (ins I32:$id, I64Attr:$threads);
  let assemblyFormat = "$id `threads` $threads attr-dict";
  let hasVerifier = 1;
}

def Hopper_WarpSyncOp : Hopper_Op<"warp_sync", "namedBarriers"> {
  let summary = "bar.warp.sync: the warp's lanes meet; ptxas moves no wait across it";
  let description = [{
    Every lane of the warp must reach it (it is placed only where the warp
    is converged: the top level of a warpgroup's loop body). Beside
    ordering the lanes, it is an edge ptxas schedules nothing across: a
    warpgroup's wgmma wait after it stays after it. tile-warp-specialize
    puts one before each copy's code after its gemm in an overlapped loop,
    so that the next copy's wait for its gemm is not hoisted above the
    previous copy's code (which would then no longer run under that gemm).

    ```mlir
    tile.kernel @sync() attributes {block = array<i32: 128, 1, 1>} {
      hopper.warp_sync
      tile.return
    }
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Hopper_ElectOneOp : Hopper_Op<"elect_one", "elect"> {
  let summary = "true in one lane of the warp (elect.sync)";
  let description = [{
    Every lane of the warp must reach it; exactly one gets true. The producer
    warp of a warp-specialised kernel elects the thread that issues the copies.

    ```mlir
    tile.kernel @elect() attributes {block = array<i32: 128, 1, 1>} {
      %leader = hopper.elect_one
      tile.if %leader {
      }
      tile.return
    }
    ```
  }];
  let results = (outs I1:$result);
  let assemblyFormat = "attr-dict";
}

def Hopper_LaneIdOp : Hopper_Op<"lane_id", "namedBarriers"> {
  let summary = "this thread's lane in its warp, read where it stands";
  let description = [{
    The lane (0 to 31), as an index, read at this point of the program:
    what is computed from it stays where it is computed rather than being
    hoisted out of the loops around it. A producer warp's lanes compute
    their pieces' addresses from it inside the loop that issues them, so a
    loop's worth of addresses is never live at once in its few registers.

    ```mlir
    tile.kernel @lane() attributes {block = array<i32: 128, 1, 1>} {
      %l = hopper.lane_id
      tile.return
    }
    ```
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
}

def Hopper_SetMaxNRegOp : Hopper_Op<"setmaxnreg", "setmaxnreg"> {
  let summary = "moves registers between the warpgroups (setmaxnreg)";
  let description = [{
    `count` is a multiple of 8 from 24 to 256: the registers per thread of
    the executing warpgroup from now on, fewer (`increase = false`) or more.
    The producer warpgroup of a warp-specialised kernel gives registers up and
    the compute warpgroups take them:

    ```mlir
    tile.kernel @registers() attributes {block = array<i32: 384, 1, 1>, producer_threads = 128 : i64} {
      %c128 = arith.constant 128 : index
      %t = tile.thread_id x
      %producer = arith.cmpi ult, %t, %c128 : index
      tile.if %producer {
        hopper.setmaxnreg 40 {increase = false}
      } else {
        hopper.setmaxnreg 232 {increase = true}
      }
      tile.return
    }
    ```
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
    The launcher passes the map to the kernel as an argument. Here, 64 x 64
    boxes of a [S, 128] bf16 tensor:

    ```mlir
    tile.host @load(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %S: index {tile.name = "S", tile.size}) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %map = hopper.make_tma_desc %kv[%c0] dims(%c128, %S) strides(%c256) box [64, 64] swizzle 128 of "kv" : !tile.ptr<bf16>
      tile.launch @load_kernel grid(%c1, %c1, %c1) args(%map) : (!hopper.tma_desc) -> ()
      tile.return
    }
    tile.kernel @load_kernel(%map: !hopper.tma_desc) attributes {block = array<i32: 128, 1, 1>} {
      tile.return
    }
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
    Here the two 128-byte panels of 64 rows of a 128-column bf16 tensor:

    ```mlir
    tile.kernel @tma(%kv: !hopper.tma_desc, %t0: i32) attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %tiles = tile.alloc_shared : !tile.shared<1xi64>
      %full = hopper.mbarrier_of %tiles[%c0] : !tile.shared<1xi64>
      %k = tile.alloc_shared : !tile.shared<64x128xbf16, swizzle = 128>
      hopper.mbarrier_arrive_expect_tx %full bytes 16384
      hopper.tma_load %kv[%c0_i32, %t0] to %k offset 0, %full : !tile.shared<64x128xbf16, swizzle = 128>
      hopper.tma_load %kv[%c64_i32, %t0] to %k offset 8192, %full : !tile.shared<64x128xbf16, swizzle = 128>
      hopper.mbarrier_wait %full parity %c0
      tile.return
    }
    ```
  }];
  let arguments = (ins Hopper_TmaDescType:$desc, Variadic<I32>:$coords,
                       Tile_AnyShared:$dest, I64Attr:$offset, Hopper_MBarrierType:$barrier);
  let assemblyFormat = [{
    $desc `[` $coords `]` `to` $dest `offset` $offset `,` $barrier attr-dict `:` type($dest)
  }];
  let hasVerifier = 1;
}

def Hopper_CpAsyncOp : Hopper_Op<"cp_async", "mbarrier"> {
  let summary = "starts a 16-byte copy from global to shared memory by this thread";
  let description = [{
    Copies the first `bytes` (0 to 16, an i32) of the 16 bytes at
    `tensor[indices]` onwards (16-byte aligned, contiguous) to byte `offset`
    of `dest` (16-byte aligned) and zeros the rest of the 16 there: 0 bytes
    read nothing and write 16 zeros. The copy is asynchronous (PTX `cp.async`, in the generic proxy):
    `hopper.cp_async_arrive` makes a barrier count it. Whoever waits for
    that barrier and then reads the tile through the async proxy (a wgmma)
    orders the two with `hopper.fence_proxy_async` after the wait. Here one
    lane's piece of a gathered row:

    ```mlir
    tile.kernel @piece(%p: !tile.ptr<bf16>, %row: index) attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c128 = arith.constant 128 : index
      %kv = tile.view %p sizes() strides(%c128) : !tile.ptr<bf16> -> !tile.tensor<128x128xbf16>
      %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      %c16_i32 = arith.constant 16 : i32
      hopper.cp_async %kv[%row, %c0] to %t[%c16] bytes %c16_i32 : !tile.tensor<128x128xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$tensor, Variadic<Index>:$indices, Tile_AnyShared:$dest,
                       Index:$offset, I32:$bytes);
  let assemblyFormat = [{
    $tensor `[` $indices `]` `to` $dest `[` $offset `]` `bytes` $bytes attr-dict `:` type($tensor) `,` type($dest)
  }];
  let hasVerifier = 1;
}

def Hopper_CpAsyncArriveOp : Hopper_Op<"cp_async_arrive", "mbarrier"> {
  let summary = "the barrier counts an arrival once this thread's cp_async copies have landed";
  let description = [{
    One arrival on `barrier`, made when every `hopper.cp_async` this thread
    started before it has landed (PTX `cp.async.mbarrier.arrive.noinc`: the
    barrier's count includes these arrivals). The copies' bytes are then
    visible to the threads that see the phase complete.

    ```mlir
    tile.kernel @landed() attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %tiles = tile.alloc_shared : !tile.shared<1xi64>
      %full = hopper.mbarrier_of %tiles[%c0] : !tile.shared<1xi64>
      hopper.cp_async_arrive %full
      tile.return
    }
    ```
  }];
  let arguments = (ins Hopper_MBarrierType:$barrier);
  let assemblyFormat = "$barrier attr-dict";
}

def Hopper_BulkStoreOp : Hopper_Op<"bulk_store", "tma"> {
  let summary = "starts a bulk copy of a shared tile's first bytes to global memory";
  let description = [{
    Copies the first `bytes` bytes (an i32, a multiple of 16) of `source` to
    `tensor[indices]` onwards, whose address is 16-byte aligned. The copy
    joins this thread's bulk async-group that `hopper.bulk_commit` closes;
    `source` is not written again before `hopper.bulk_wait_read` says it was
    read. Here, 256 bytes of a tile of -inf to the start of a row:

    ```mlir
    tile.kernel @bulk(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c256 = arith.constant 256 : i32
      %row = tile.view %p sizes() strides() : !tile.ptr<f32> -> !tile.tensor<1024xf32>
      %src = tile.alloc_shared : !tile.shared<512xf32>
      hopper.bulk_store %src to %row[%c0] bytes %c256 : !tile.shared<512xf32>, !tile.tensor<1024xf32>
      hopper.bulk_commit
      hopper.bulk_wait_read
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_AnyShared:$source, Tile_AnyTensor:$tensor, Variadic<Index>:$indices,
                       I32:$bytes);
  let assemblyFormat = [{
    $source `to` $tensor `[` $indices `]` `bytes` $bytes attr-dict `:` type($source) `,` type($tensor)
  }];
  let hasVerifier = 1;
}

def Hopper_BulkCommitOp : Hopper_Op<"bulk_commit", "tma"> {
  let summary = "closes this thread's bulk async-group of copies to global memory";
  let description = [{
    The `hopper.bulk_store` ops this thread started since its last commit
    form one group, which `hopper.bulk_wait_read` can wait for.

    ```mlir
    tile.kernel @commit() attributes {block = array<i32: 128, 1, 1>} {
      hopper.bulk_commit
      tile.return
    }
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Hopper_BulkWaitReadOp : Hopper_Op<"bulk_wait_read", "tma"> {
  let summary = "waits until this thread's bulk copies have read their shared sources";
  let description = [{
    Every group this thread committed has read its shared memory (the
    writes to global memory may still be under way; they are done when the
    kernel ends). A thread without groups passes straight through.

    ```mlir
    tile.kernel @drain() attributes {block = array<i32: 128, 1, 1>} {
      hopper.bulk_wait_read
      tile.return
    }
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

def Hopper_WgmmaDescOp : Hopper_Op<"wgmma_desc", "wgmma", [Pure]> {
  let summary = "the 64-bit wgmma descriptor of a shared tile region";
  let description = [{
    Starts `offset` bytes into the tile; the tile's swizzle gives the layout
    type. For a K-major operand (rows of K, 128-byte swizzled) `sbo` is the
    byte distance between 8-row groups and `lbo` is left out (the hardware
    ignores it). For an MN-major operand (B stored [K, N]: rows of 64 bf16
    of N, a wgmma with `transpose_b`) `sbo` is the byte distance between
    groups of 8 rows of K and `lbo` the distance between 64-element groups
    of N (the tile's 128-byte panels). Both multiples of 16 below 2^18.
    Each k-step of 16 bf16 elements of a K-major tile starts 32 bytes
    further into the 128-byte swizzled rows:

    ```mlir
    tile.kernel @descriptors() attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      %k0 = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
      %k1 = hopper.wgmma_desc %a[%c32] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
      tile.return
    }
    ```

    B stored [K, N] = [64, 128]: two panels of 64 rows of 128 bytes (8192
    bytes each); the second k-step starts 16 rows (2048 bytes) in:

    ```mlir
    tile.kernel @mn_major() attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c2048 = arith.constant 2048 : index
      %b = tile.alloc_shared : !tile.shared<64x128xbf16, swizzle = 128>
      %k0 = hopper.wgmma_desc %b[%c0] sbo 1024 lbo 8192 : !tile.shared<64x128xbf16, swizzle = 128>
      %k1 = hopper.wgmma_desc %b[%c2048] sbo 1024 lbo 8192 : !tile.shared<64x128xbf16, swizzle = 128>
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_AnyShared:$tile, Index:$offset, I64Attr:$sbo,
                       OptionalAttr<I64Attr>:$lbo);
  let results = (outs I64:$result);
  let assemblyFormat =
      "$tile `[` $offset `]` `sbo` $sbo (`lbo` $lbo^)? attr-dict `:` type($tile)";
  let hasVerifier = 1;
}

def Hopper_StMatrixOp : Hopper_Op<"stmatrix", "stmatrix"> {
  let summary = "a warp stores 8 x 8 matrices of 16-bit elements into a shared tile";
  let description = [{
    stmatrix.sync.aligned.m8n8: each of the warp's lanes gives one i32
    (two 16-bit elements) per matrix, `values` holding 1, 2 or 4 matrices. In
    a matrix lane l holds row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 (the
    layout of an mma accumulator); with `trans` the matrix is stored
    transposed. Lane l names where row l % 8 of matrix l / 8 goes: 8
    elements, 16 bytes, from the tile's element (`row`, `col`) on, `col` a
    multiple of 8 (a 16-byte chunk, which the tile's swizzle keeps whole).
    Every lane of the warp executes it; lanes past 8 times the count name
    nothing. Other threads see the values after a barrier, as with
    `tile.shared_store`.

    ```mlir
    tile.kernel @store(%a: i32, %b: i32, %c: i32, %d: i32) attributes {block = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c7 = arith.constant 7 : index
      %t = tile.alloc_shared : !tile.shared<16x64xbf16, swizzle = 128>
      %l = tile.thread_id x
      // Lanes 0-15 name rows 0-15 at column 0, lanes 16-31 the same rows at column 8.
      %row = arith.remui %l, %c16 : index
      %half = arith.divui %l, %c16 : index
      %col = arith.muli %half, %c8 : index
      hopper.stmatrix %a, %b, %c, %d into %t[%row, %col] : !tile.shared<16x64xbf16, swizzle = 128>
      hopper.stmatrix %a into %t[%row, %c0] {trans} : !tile.shared<16x64xbf16, swizzle = 128>
      tile.barrier
      tile.return
    }
    ```
  }];
  let arguments = (ins Variadic<I32>:$values, Tile_AnyShared:$tile, Index:$row, Index:$col,
                       UnitAttr:$trans);
  let assemblyFormat =
      "$values `into` $tile `[` $row `,` $col `]` attr-dict `:` type($tile)";
  let hasVerifier = 1;
}

def Hopper_WgmmaFenceOp : Hopper_Op<"wgmma_fence", "wgmma"> {
  let summary = "orders register writes before the next wgmma";
  let description = [{
    Issued by the warpgroup before its first wgmma, and again whenever it has
    written the accumulator registers since. The sequence of a 64 x 8 x 32
    product in two k-steps:

    ```mlir
    tile.kernel @wgmma() attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      %b = tile.alloc_shared : !tile.shared<8x64xbf16, swizzle = 128>
      %a0 = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
      %b0 = hopper.wgmma_desc %b[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
      %a1 = hopper.wgmma_desc %a[%c32] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
      %b1 = hopper.wgmma_desc %b[%c32] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
      %z = arith.constant 0.0 : f32
      hopper.wgmma_fence
      %d:4 = hopper.wgmma %a0, %b0 n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
      %e:4 = hopper.wgmma %a1, %b1 n 8 acc(%d#0, %d#1, %d#2, %d#3) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
      hopper.wgmma_commit
      hopper.wgmma_wait 0
      tile.return
    }
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Hopper_WgmmaCommitOp : Hopper_Op<"wgmma_commit", "wgmma"> {
  let summary = "closes the group of wgmmas issued so far";
  let description = [{
    `hopper.wgmma_wait` then counts this group. As in `hopper.wgmma_fence`:

    ```mlir
    tile.kernel @wgmma() attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      %b = tile.alloc_shared : !tile.shared<8x64xbf16, swizzle = 128>
      %a0 = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
      %b0 = hopper.wgmma_desc %b[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
      %a1 = hopper.wgmma_desc %a[%c32] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
      %b1 = hopper.wgmma_desc %b[%c32] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
      %z = arith.constant 0.0 : f32
      hopper.wgmma_fence
      %d:4 = hopper.wgmma %a0, %b0 n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
      %e:4 = hopper.wgmma %a1, %b1 n 8 acc(%d#0, %d#1, %d#2, %d#3) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
      hopper.wgmma_commit
      hopper.wgmma_wait 0
      tile.return
    }
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Hopper_WgmmaWaitOp : Hopper_Op<"wgmma_wait", "wgmma"> {
  let summary = "waits until at most `pending` wgmma groups are in flight";
  let description = [{
    The accumulator registers of a group may be read only after a wait that
    leaves the group no longer pending; `hopper.wgmma_wait 0` waits for all.
    As in `hopper.wgmma_fence`:

    ```mlir
    tile.kernel @wgmma() attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      %b = tile.alloc_shared : !tile.shared<8x64xbf16, swizzle = 128>
      %a0 = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
      %b0 = hopper.wgmma_desc %b[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
      %a1 = hopper.wgmma_desc %a[%c32] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
      %b1 = hopper.wgmma_desc %b[%c32] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
      %z = arith.constant 0.0 : f32
      hopper.wgmma_fence
      %d:4 = hopper.wgmma %a0, %b0 n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
      %e:4 = hopper.wgmma %a1, %b1 n 8 acc(%d#0, %d#1, %d#2, %d#3) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
      hopper.wgmma_commit
      hopper.wgmma_wait 0
      tile.return
    }
    ```
  }];
  let arguments = (ins I64Attr:$pending);
  let assemblyFormat = "$pending attr-dict";
  let hasVerifier = 1;
}

def Hopper_WgmmaOp : Hopper_Op<"wgmma", "wgmma", [AttrSizedOperandSegments]> {
  let summary = "one wgmma.mma_async m64nNk16, bf16 x bf16 -> f32";
  let description = [{
    `acc` are this thread's N/2 accumulator registers in wgmma order; with
    `zero_acc` their values are ignored and the product starts from zero.
    A comes from shared memory (`descA`, K-major) or from registers: `regs`,
    this thread's four i32 registers of A's 64 x 16 k-step, each two bf16
    (the lower-numbered element in the low half) in wgmma's A-fragment
    layout. B is K-major (stored [N, K]) or, with `transpose_b`, MN-major
    (stored [K, N]; the PTX imm-trans-b operand is 1). The registers of A
    are read until a `hopper.wgmma_wait` covers the group: no other op may
    read or write them before it (tile-order-async waits there).
    Every thread of the warpgroup issues it, between `hopper.wgmma_fence` and
    `hopper.wgmma_commit`:

    ```mlir
    tile.kernel @wgmma() attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      %b = tile.alloc_shared : !tile.shared<8x64xbf16, swizzle = 128>
      %a0 = hopper.wgmma_desc %a[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
      %b0 = hopper.wgmma_desc %b[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
      %a1 = hopper.wgmma_desc %a[%c32] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
      %b1 = hopper.wgmma_desc %b[%c32] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
      %z = arith.constant 0.0 : f32
      hopper.wgmma_fence
      %d:4 = hopper.wgmma %a0, %b0 n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
      %e:4 = hopper.wgmma %a1, %b1 n 8 acc(%d#0, %d#1, %d#2, %d#3) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
      hopper.wgmma_commit
      hopper.wgmma_wait 0
      tile.return
    }
    ```

    A from registers (`wgmma.mma_async ... d, {a0, a1, a2, a3}, b-desc, ...`):

    ```mlir
    tile.kernel @wgmma_rs(%p: i32) attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %b = tile.alloc_shared : !tile.shared<8x64xbf16, swizzle = 128>
      %b0 = hopper.wgmma_desc %b[%c0] sbo 1024 : !tile.shared<8x64xbf16, swizzle = 128>
      %z = arith.constant 0.0 : f32
      hopper.wgmma_fence
      %d:4 = hopper.wgmma regs(%p, %p, %p, %p), %b0 n 8 acc(%z, %z, %z, %z) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
      hopper.wgmma_commit
      hopper.wgmma_wait 0
      tile.return
    }
    ```
  }];
  let arguments = (ins Optional<I64>:$descA, Variadic<I32>:$a, I64:$descB, Variadic<F32>:$acc,
                       I64Attr:$n, UnitAttr:$zero_acc, UnitAttr:$transpose_b);
  let results = (outs Variadic<F32>:$results);
  let assemblyFormat = [{
    ($descA^)? (`regs` `(` $a^ `)`)? `,` $descB `n` $n `acc` `(` $acc `)` attr-dict `:` functional-type($acc, $results)
  }];
  let hasVerifier = 1;
}

#endif // MINITILE_HOPPER_OPS
