//===- TileOps.td - tile dialect operations --------------------------------===//
#ifndef MINITILE_TILE_OPS
#define MINITILE_TILE_OPS

include "dialect/TileBase.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Functions: the launcher and the kernel
//===----------------------------------------------------------------------===//

defvar Tile_FunctionExtraDecls = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    /// The user-facing name of argument `i` (`tile.name`), or "" if unnamed.
    ::llvm::StringRef getArgName(unsigned i);
}];

class Tile_FunctionOp<string mnemonic, list<Trait> traits = []>
    : Tile_Op<mnemonic, !listconcat(traits, [
        FunctionOpInterface, IsolatedFromAbove, AutomaticAllocationScope,
        DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>])> {
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = Tile_FunctionExtraDecls;
}

def Tile_HostOp : Tile_FunctionOp<"host"> {
  let summary = "the host side of a kernel: checks, grid, launch";
  let description = [{
    Its arguments are the launcher's parameters, in order, each named by a
    `tile.name` argument attribute (`tile.size` marks the sizes). The body runs
    on the host: it computes with `arith` on scalars, checks arguments
    (`tile.host_check`, `tile.check_ptr`) and ends with one `tile.launch`.
    `doc` is the kernel's one-line description, for the generated header.

    ```mlir
    tile.host @scale(%x: !tile.ptr<f32> {tile.name = "x"}, %n: index {tile.name = "n", tile.size}) attributes {doc = "x[i] *= 2 for i < n"} {
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      %blocks = arith.ceildivsi %n, %c128 : index
      tile.launch @scale_kernel grid(%blocks, %c1, %c1) args(%x, %n) : (!tile.ptr<f32>, index) -> ()
      tile.return
    }
    tile.kernel @scale_kernel(%x: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
      tile.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       OptionalAttr<StrAttr>:$doc);
}

def Tile_KernelOp : Tile_FunctionOp<"kernel"> {
  let summary = "device code run by every thread of a block";
  let description = [{
    `block` is the number of threads per block in x, y, z. The body's ops run
    in every thread; `tile.parallel` spreads a loop over the threads.
    `smem_bytes` is the dynamic shared memory the kernel needs. After warp
    specialisation the first `producer_threads` threads (a warpgroup) only
    feed shared memory; the rest, the compute threads, run the program.
    With `min_blocks_per_sm`, the registers of a thread are capped so that
    that many blocks fit on a multiprocessor at once (ptxas spills past it).
    With `producer_registers` (24 to 64, a multiple of 8), a warp-specialised
    kernel's producer warps keep that many registers each (40 by default)
    and the compute threads get what that leaves of the block's (setmaxnreg):
    for a producer whose code needs fewer, the compute threads get more.

    ```mlir
    tile.kernel @scale_kernel(%x: !tile.ptr<f32> {tile.name = "x"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 128, 1, 1>} {
      %c128 = arith.constant 128 : index
      %v = tile.view %x sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
      %b = tile.block_id x
      %t = tile.thread_id x
      %first = arith.muli %b, %c128 : index
      %i = arith.addi %first, %t : index
      %in = arith.cmpi slt, %i, %n : index
      tile.if %in {
        %e = tile.load %v[%i] : !tile.tensor<?xf32> -> f32
        %twice = arith.addf %e, %e : f32
        tile.store %twice, %v[%i] : f32, !tile.tensor<?xf32>
      }
      tile.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       DenseI32ArrayAttr:$block,
                       DefaultValuedAttr<I64Attr, "0">:$smem_bytes,
                       DefaultValuedAttr<I64Attr, "0">:$producer_threads,
                       OptionalAttr<I32Attr>:$min_blocks_per_sm,
                       OptionalAttr<I32Attr>:$producer_registers);
  let extraClassDeclaration = !strconcat(Tile_FunctionExtraDecls, [{
    /// Threads per block (product of `block`).
    int64_t getNumThreads();
    /// Threads that run the program (all but the producers).
    int64_t getNumComputeThreads() { return getNumThreads() - getProducerThreads(); }
  }]);
}

def Tile_ReturnOp : Tile_Op<"return", [Pure, Terminator, ReturnLike,
    ParentOneOf<["HostOp", "KernelOp"]>]> {
  let summary = "ends a launcher or a kernel";
  let description = [{
    The last op of every `tile.host` and `tile.kernel` body; it takes no
    values (results go through tensors).

    ```mlir
    tile.kernel @nothing() attributes {block = array<i32: 32, 1, 1>} {
      tile.return
    }
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Host ops
//===----------------------------------------------------------------------===//

def Tile_LaunchOp : Tile_Op<"launch", [HasParent<"HostOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "launches a tile.kernel on a grid of blocks";
  let description = [{
    A grid with a zero extent launches nothing. The argument types match the
    kernel's signature; the block shape and the shared memory are the kernel's.

    ```mlir
    tile.host @fill(%out: !tile.ptr<f32> {tile.name = "out"}, %rows: index {tile.name = "rows", tile.size}) {
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %blocks = arith.ceildivsi %rows, %c4 : index
      tile.launch @fill_kernel grid(%blocks, %c1, %c1) args(%out, %rows) : (!tile.ptr<f32>, index) -> ()
      tile.return
    }
    tile.kernel @fill_kernel(%out: !tile.ptr<f32>, %rows: index) attributes {block = array<i32: 32, 4, 1>} {
      tile.return
    }
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel, Index:$gridX, Index:$gridY,
                       Index:$gridZ, Variadic<AnyType>:$args);
  let assemblyFormat = [{
    $kernel `grid` `(` $gridX `,` $gridY `,` $gridZ `)`
    `args` `(` $args `)` attr-dict `:` functional-type($args, results)
  }];
}

def Tile_HostCheckOp : Tile_Op<"host_check", [HasParent<"HostOp">]> {
  let summary = "the launcher throws `message` unless `condition` holds";
  let description = [{
    The launcher throws `minitile::rt::Error` with the kernel's name and
    `message` before launching anything.

    ```mlir
    tile.host @window(%ks: !tile.ptr<i32> {tile.name = "ks"}, %S: index {tile.name = "S", tile.size}, %T: index {tile.name = "S_kv", tile.size}) {
      %c1 = arith.constant 1 : index
      %fits = arith.cmpi sle, %T, %S : index
      tile.host_check %fits, "S_kv must not exceed S"
      tile.launch @window_kernel grid(%S, %c1, %c1) args(%ks, %S, %T) : (!tile.ptr<i32>, index, index) -> ()
      tile.return
    }
    tile.kernel @window_kernel(%ks: !tile.ptr<i32>, %S: index, %T: index) attributes {block = array<i32: 32, 1, 1>} {
      tile.return
    }
    ```
  }];
  let arguments = (ins I1:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict";
}

def Tile_MultiprocessorCountOp
    : Tile_Op<"multiprocessor_count", [Pure, HasParent<"HostOp">]> {
  let summary = "the launcher's device's number of multiprocessors";
  let description = [{
    Read by the launcher from the current device at each launch: a
    persistent kernel sizes its grid to the device with it, then strides
    over its work items by `tile.grid_dim`.

    ```mlir
    tile.host @persistent(%n: index {tile.name = "n", tile.size}) {
      %c1 = arith.constant 1 : index
      %sms = tile.multiprocessor_count
      %blocks = arith.minsi %n, %sms : index
      tile.launch @persistent_kernel grid(%blocks, %c1, %c1) args(%n) : (index) -> ()
      tile.return
    }
    tile.kernel @persistent_kernel(%n: index) attributes {block = array<i32: 128, 1, 1>} {
      %b = tile.block_id x
      %blocks = tile.grid_dim x
      tile.for %item = %b to %n step %blocks {
      }
      tile.return
    }
    ```
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
  let builders = [OpBuilder<(ins), [{
    build($_builder, $_state, $_builder.getIndexType());
  }]>];
}

def Tile_WorkCounterOp : Tile_Op<"work_counter", [HasParent<"HostOp">]> {
  let summary = "the launch's work counter, for kernels that take items from a queue";
  let description = [{
    A pointer to one i32 on the device, zero before the launch, that the
    launches on the launcher's stream share in turn (the runtime's
    `workCounter(stream)`): the queue of a `tile.pipelined` whose iterations
    are handed out at run time. The kernel leaves it zero again.

    ```mlir
    tile.host @queued(%n: index {tile.name = "n", tile.size}) {
      %c1 = arith.constant 1 : index
      %sms = tile.multiprocessor_count
      %blocks = arith.minsi %n, %sms : index
      %counter = tile.work_counter : !tile.ptr<i32>
      tile.launch @queued_kernel grid(%blocks, %c1, %c1) args(%n, %counter) : (index, !tile.ptr<i32>) -> ()
      tile.return
    }
    tile.kernel @queued_kernel(%n: index, %counter: !tile.ptr<i32>) attributes {block = array<i32: 128, 1, 1>} {
      tile.return
    }
    ```
  }];
  let results = (outs Tile_AnyPtr:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_CheckPtrOp : Tile_Op<"check_ptr", [HasParent<"HostOp">]> {
  let summary = "the launcher checks a tensor's base pointer";
  let description = [{
    Unless the tensor is empty (`numel` is 0) the pointer must be non-null and
    a multiple of `align` bytes.

    ```mlir
    tile.host @copy(%x: !tile.ptr<bf16> {tile.name = "x"}, %n: index {tile.name = "n", tile.size}) {
      %c1 = arith.constant 1 : index
      tile.check_ptr %x, %n align 16 : !tile.ptr<bf16>
      tile.launch @copy_kernel grid(%c1, %c1, %c1) args(%x, %n) : (!tile.ptr<bf16>, index) -> ()
      tile.return
    }
    tile.kernel @copy_kernel(%x: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_AnyPtr:$ptr, Index:$numel, I64Attr:$align);
  let assemblyFormat = "$ptr `,` $numel `align` $align attr-dict `:` type($ptr)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Device: launch geometry
//===----------------------------------------------------------------------===//

def Tile_Dim : I32EnumAttr<"Dim", "a launch dimension: x, y or z",
    [I32EnumAttrCase<"x", 0>, I32EnumAttrCase<"y", 1>, I32EnumAttrCase<"z", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::minitile::tile";
}
def Tile_DimAttr : EnumAttr<Tile_Dialect, Tile_Dim, "dim"> {
  let summary = "a launch dimension: x, y or z";
  let description = [{
    Written bare in `tile.thread_id`, `tile.block_id` and `tile.grid_dim`.

    ```mlir
    tile.kernel @dims() attributes {block = array<i32: 32, 4, 2>} {
      %x = tile.thread_id x
      %y = tile.thread_id y
      %z = tile.thread_id z
      tile.return
    }
    ```
  }];
}

class Tile_GeometryOp<string mnemonic>
    : Tile_Op<mnemonic, [Pure, Tile_InKernel]> {
  let arguments = (ins Tile_DimAttr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim attr-dict";
  let builders = [OpBuilder<(ins "::minitile::tile::Dim":$dim), [{
    build($_builder, $_state, $_builder.getIndexType(), dim);
  }]>];
}

def Tile_ThreadIdOp : Tile_GeometryOp<"thread_id"> {
  let summary = "the thread's index within its block";
  let description = [{
    From 0 to the kernel's `block` extent in that dimension, exclusive.

    ```mlir
    tile.kernel @rows() attributes {block = array<i32: 32, 4, 1>} {
      %lane = tile.thread_id x
      %row = tile.thread_id y
      tile.return
    }
    ```
  }];
}
def Tile_BlockIdOp : Tile_GeometryOp<"block_id"> {
  let summary = "the block's index within the grid";
  let description = [{
    From 0 to the launch's grid extent in that dimension, exclusive.

    ```mlir
    tile.kernel @blocks() attributes {block = array<i32: 128, 1, 1>} {
      %c128 = arith.constant 128 : index
      %b = tile.block_id x
      %first = arith.muli %b, %c128 : index
      tile.return
    }
    ```
  }];
}
def Tile_GridDimOp : Tile_GeometryOp<"grid_dim"> {
  let summary = "the number of blocks in the grid";
  let description = [{
    The launch's grid extent in that dimension: a grid-stride loop steps by it.

    ```mlir
    tile.kernel @grid_stride(%n: index) attributes {block = array<i32: 32, 1, 1>} {
      %b = tile.block_id x
      %blocks = tile.grid_dim x
      tile.for %i = %b to %n step %blocks {
      }
      tile.return
    }
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Device: global memory
//===----------------------------------------------------------------------===//

def Tile_ViewOp : Tile_Op<"view", [Pure, AttrSizedOperandSegments]> {
  let summary = "a strided tensor view of a pointer";
  let description = [{
    `sizes` gives the `?` dimensions of the result type, in order; `strides`
    the stride of every dimension but the innermost (which is 1), in
    elements; `offset` (elements, default 0) moves the origin. Here, `rows`
    rows of 8 elements, `pitch` elements apart, starting 8 elements in:

    ```mlir
    tile.kernel @rows(%p: !tile.ptr<f32>, %rows: index, %pitch: index) attributes {block = array<i32: 128, 1, 1>} {
      %c8 = arith.constant 8 : index
      %t = tile.view %p[%c8] sizes(%rows) strides(%pitch) : !tile.ptr<f32> -> !tile.tensor<?x8xf32>
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_AnyPtr:$base, Optional<Index>:$offset,
                       Variadic<Index>:$sizes, Variadic<Index>:$strides);
  let results = (outs Tile_AnyTensor:$result);
  let assemblyFormat = [{
    $base (`[` $offset^ `]`)? `sizes` `(` $sizes `)` `strides` `(` $strides `)`
    attr-dict `:` type($base) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Size of dimension `d` as a value (a new constant for static ones).
    ::mlir::Value getSize(::mlir::OpBuilder &b, unsigned d);
  }];
}

def Tile_SliceOp : Tile_Op<"slice", [Pure]> {
  let summary = "the view with dimension `dim` fixed at `index`";
  let description = [{
    A batch's or a row's slice of a tensor, one rank lower; the innermost
    dimension cannot be fixed. Here, batch `b` of a [S, B, 128] tensor:

    ```mlir
    tile.kernel @batch(%q: !tile.ptr<bf16>, %S: index, %B: index) attributes {block = array<i32: 128, 1, 1>} {
      %c128 = arith.constant 128 : index
      %rowStride = arith.muli %B, %c128 : index
      %all = tile.view %q sizes(%S, %B) strides(%rowStride, %c128) : !tile.ptr<bf16> -> !tile.tensor<?x?x128xbf16>
      %b = tile.block_id y
      %one = tile.slice %all dim 1 at %b : !tile.tensor<?x?x128xbf16> -> !tile.tensor<?x128xbf16>
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$source, I64Attr:$dim, Index:$index);
  let results = (outs Tile_AnyTensor:$result);
  let assemblyFormat = "$source `dim` $dim `at` $index attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load", [Tile_InKernel,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "reads one element, or a vector of consecutive inner elements";
  let description = [{
    With a `vector<N x T>` result, reads elements `[i_last, i_last + N)` of
    the innermost dimension; their address must be aligned to `N * sizeof(T)`.

    ```mlir
    tile.kernel @load(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %v = tile.view %p sizes(%n) strides(%c4) : !tile.ptr<f32> -> !tile.tensor<?x4xf32>
      %r = tile.thread_id x
      %first = tile.load %v[%r, %c0] : !tile.tensor<?x4xf32> -> f32
      %row = tile.load %v[%r, %c0] : !tile.tensor<?x4xf32> -> vector<4xf32>
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$tensor, Variadic<Index>:$indices);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $tensor `[` $indices `]` attr-dict `:` type($tensor) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [Tile_InKernel,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "writes one element, or a vector of consecutive inner elements";
  let description = [{
    A `vector<N x T>` value writes elements `[i_last, i_last + N)` of the
    innermost dimension; their address must be aligned to `N * sizeof(T)`.
    With `add` (f32, or a vector of 2 or 4 of them) the value is added to
    the elements instead, each in one indivisible step (a relaxed
    reduction: `red.global.add`), returning nothing.

    ```mlir
    tile.kernel @store(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %v = tile.view %p sizes(%n) strides(%c4) : !tile.ptr<f32> -> !tile.tensor<?x4xf32>
      %r = tile.thread_id x
      %one = arith.constant 1.0 : f32
      %ones = tile.splat %one : vector<4xf32>
      tile.store %ones, %v[%r, %c0] : vector<4xf32>, !tile.tensor<?x4xf32>
      tile.store %one, %v[%r, %c0] : f32, !tile.tensor<?x4xf32>
      tile.store add %ones, %v[%c0, %c0] : vector<4xf32>, !tile.tensor<?x4xf32>
      tile.return
    }
    ```
  }];
  let arguments = (ins AnyType:$value, Tile_AnyTensor:$tensor,
                       Variadic<Index>:$indices, UnitAttr:$add);
  let assemblyFormat = [{
    (`add` $add^)? $value `,` $tensor `[` $indices `]` attr-dict `:` type($value) `,` type($tensor)
  }];
  let hasVerifier = 1;
}

def Tile_ElemsToAlignedOp : Tile_Op<"elems_to_aligned", [Pure, Tile_InKernel]> {
  let summary = "elements from an address up to the next aligned one";
  let description = [{
    The number of innermost elements between `tensor[indices]` and the first
    address at or after it that is a multiple of `bytes`: 0 when it is aligned.
    A loop peels that many elements off before it stores whole vectors.

    ```mlir
    tile.kernel @head(%p: !tile.ptr<f32>, %n: index, %start: index) attributes {block = array<i32: 32, 1, 1>} {
      %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
      %gap = tile.elems_to_aligned %v[%start] bytes 16 : !tile.tensor<?xf32>
      %aligned = arith.addi %start, %gap : index
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$tensor, Variadic<Index>:$indices,
                       I64Attr:$bytes);
  let results = (outs Index:$result);
  let assemblyFormat = [{
    $tensor `[` $indices `]` `bytes` $bytes attr-dict `:` type($tensor)
  }];
  let hasVerifier = 1;
}

def Tile_FillAsyncOp : Tile_Op<"fill_async", [Tile_InKernel,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "one value to a range of a rank-1 tensor, written asynchronously by one thread";
  let description = [{
    Writes `value` to elements `[lo, hi)` of `tensor` (nothing where
    `hi <= lo`). The block issues it once: every thread of the block reaches
    it and one of them starts the writes -- or, marked `single`, the one
    thread that reaches it (tile-warp-specialize marks the copy it gives the
    producer warpgroup's elected thread so). `tile-lower-fills` makes the
    16-byte aligned run bulk copies of a shared tile holding `value` and the
    unaligned ends single stores. The writes are asynchronous: done when the
    kernel ends, unordered with the block's own accesses to the range, which
    the block must neither read nor write. Not inside `tile.parallel` or a
    `tile.pipelined` loop of several groups (not every thread runs their
    iterations).

    ```mlir
    tile.kernel @mask(%p: !tile.ptr<f32>, %rows: index, %n: index, %lo: index) attributes {block = array<i32: 128, 1, 1>} {
      %all = tile.view %p sizes(%rows, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
      %b = tile.block_id x
      %row = tile.slice %all dim 0 at %b : !tile.tensor<?x?xf32> -> !tile.tensor<?xf32>
      tile.fill_async %row[%lo to %n] with 0xFF800000 : f32 : !tile.tensor<?xf32>
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$tensor, Index:$lo, Index:$hi, TypedAttrInterface:$value,
                       UnitAttr:$single);
  let assemblyFormat = [{
    $tensor `[` $lo `to` $hi `]` `with` $value (`single` $single^)? attr-dict `:` type($tensor)
  }];
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"value is the vector's element type", "result", "value",
                   "::llvm::cast<::mlir::VectorType>($_self).getElementType()">]> {
  let summary = "a vector holding copies of a scalar";
  let description = [{
    Makes the vector that a vector `tile.store` or `tile.shared_store` writes.

    ```mlir
    tile.kernel @splat() attributes {block = array<i32: 32, 1, 1>} {
      %ninf = arith.constant 0xFF800000 : f32
      %four = tile.splat %ninf : vector<4xf32>
      tile.return
    }
    ```
  }];
  let arguments = (ins AnyType:$value);
  let results = (outs VectorOfRankAndType<[1], [AnyType]>:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Device: per-thread variables
//===----------------------------------------------------------------------===//

def Tile_AllocLocalOp : Tile_Op<"alloc_local", [Tile_InKernel,
    MemoryEffects<[MemAlloc<AutomaticAllocationScopeResource>]>]> {
  let summary = "a mutable variable private to each thread";
  let description = [{
    Read with `tile.local_load`, written with `tile.local_store`; lowering
    keeps it in registers. Its value is undefined until it is first stored.

    ```mlir
    tile.kernel @count(%n: index) attributes {block = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %seen = tile.alloc_local : !tile.local<index>
      tile.local_store %c0, %seen : !tile.local<index>
      tile.for %i = %c0 to %n step %c1 {
        %before = tile.local_load %seen : !tile.local<index>
        %after = arith.addi %before, %c1 : index
        tile.local_store %after, %seen : !tile.local<index>
      }
      tile.return
    }
    ```
  }];
  let results = (outs Tile_AnyLocal:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_LocalLoadOp : Tile_Op<"local_load", [Tile_InKernel,
    TypesMatchWith<"result is the variable's element type", "local", "result",
                   "::llvm::cast<::minitile::tile::LocalType>($_self).getElementType()">,
    MemoryEffects<[MemRead]>]> {
  let summary = "reads a per-thread variable";
  let description = [{
    The value the thread last stored to the variable.

    ```mlir
    tile.kernel @phase() attributes {block = array<i32: 32, 1, 1>} {
      %c1 = arith.constant 1 : index
      %phase = tile.alloc_local : !tile.local<index>
      tile.local_store %c1, %phase : !tile.local<index>
      %p = tile.local_load %phase : !tile.local<index>
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_AnyLocal:$local);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$local attr-dict `:` type($local)";
}

def Tile_LocalStoreOp : Tile_Op<"local_store", [Tile_InKernel,
    TypesMatchWith<"value is the variable's element type", "local", "value",
                   "::llvm::cast<::minitile::tile::LocalType>($_self).getElementType()">,
    MemoryEffects<[MemWrite]>]> {
  let summary = "writes a per-thread variable";
  let description = [{
    Replaces the variable's value for this thread.

    ```mlir
    tile.kernel @flip() attributes {block = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %phase = tile.alloc_local : !tile.local<index>
      tile.local_store %c0, %phase : !tile.local<index>
      %p = tile.local_load %phase : !tile.local<index>
      %flipped = arith.xori %p, %c1 : index
      tile.local_store %flipped, %phase : !tile.local<index>
      tile.return
    }
    ```
  }];
  let arguments = (ins AnyType:$value, Tile_AnyLocal:$local);
  let assemblyFormat = "$value `,` $local attr-dict `:` type($local)";
}

//===----------------------------------------------------------------------===//
// Structured control flow
//===----------------------------------------------------------------------===//

def Tile_ForOp : Tile_Op<"for", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a serial loop run by every thread that reaches it";
  let description = [{
    Runs `lb, lb + step, ... < ub` in order in each thread. `iter_args`
    carry values from one iteration to the next; the loop's results are their
    values after the last one (the initial values when it runs no iteration).

    ```mlir
    tile.kernel @row_sum(%p: !tile.ptr<f32>, %rows: index, %cols: index) attributes {block = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0.0 : f32
      %v = tile.view %p sizes(%rows, %cols) strides(%cols) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
      %r = tile.block_id x
      %sum = tile.for %c = %c0 to %cols step %c1 iter_args(%acc = %zero) -> (f32) {
        %e = tile.load %v[%r, %c] : !tile.tensor<?x?xf32> -> f32
        %next = arith.addf %acc, %e : f32
        tile.yield %next : f32
      }
      tile.return
    }
    ```
  }];
  let arguments = (ins Index:$lowerBound, Index:$upperBound, Index:$step,
                       Variadic<AnyType>:$initArgs);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$lb, "::mlir::Value":$ub,
      "::mlir::Value":$step, CArg<"::mlir::ValueRange", "{}">:$initArgs)>];
  let extraClassDeclaration = [{
    ::mlir::Value getInductionVar() { return getBody().getArgument(0); }
    ::mlir::Block::BlockArgListType getRegionIterArgs() {
      return getBody().getArguments().drop_front();
    }
  }];
}

def Tile_ParallelOp : Tile_Op<"parallel", [RecursiveMemoryEffects, Tile_InKernel,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a loop whose iterations are spread over the block's threads";
  let description = [{
    Iterations `lb, lb + step, ... < ub` run once each, on some thread of the
    block, in no particular order; every thread of the block must reach the
    loop. Without results.

    With `across_x`, the iterations are spread over the threads of one row of
    the block (same y and z): each row runs the whole loop, its bounds may
    differ from row to row, and every thread of the row must reach it.
    `tile-distribute-parallel` turns both into per-thread `tile.for` loops.

    ```mlir
    tile.kernel @zero(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 32, 4, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0.0 : f32
      %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
      tile.parallel %i = %c0 to %n step %c1 {
        tile.store %zero, %v[%i] : f32, !tile.tensor<?xf32>
      }
      // Each of the 4 rows of 32 threads clears its own row of m.
      %m = tile.view %p sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
      %row = tile.thread_id y
      tile.parallel %j = %c0 to %n step %c1 {
        tile.store %zero, %m[%row, %j] : f32, !tile.tensor<?x?xf32>
      } {across_x}
      tile.return
    }
    ```
  }];
  let arguments = (ins Index:$lowerBound, Index:$upperBound, Index:$step,
                       UnitAttr:$across_x);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$lb, "::mlir::Value":$ub,
      "::mlir::Value":$step, CArg<"bool", "false">:$acrossX)>];
  let extraClassDeclaration = [{
    ::mlir::Value getInductionVar() { return getBody().getArgument(0); }
  }];
}

def Tile_IfOp : Tile_Op<"if", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">, NoRegionArguments]> {
  let summary = "runs one of two regions";
  let description = [{
    Runs `thenRegion` where `condition` holds, else `elseRegion` (which may be
    left out when the op has no results). Each region yields the results.

    ```mlir
    tile.kernel @clamp(%p: !tile.ptr<i32>, %n: index, %hi: i32) attributes {block = array<i32: 128, 1, 1>} {
      %v = tile.view %p sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
      %t = tile.thread_id x
      %e = tile.load %v[%t] : !tile.tensor<?xi32> -> i32
      %above = arith.cmpi sgt, %e, %hi : i32
      %c = tile.if %above -> (i32) {
        tile.yield %hi : i32
      } else {
        tile.yield %e : i32
      }
      tile.return
    }
    ```
  }];
  let arguments = (ins I1:$condition);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$thenRegion, AnyRegion:$elseRegion);
  let assemblyFormat = [{
    $condition (`->` `(` type($results)^ `)`)? $thenRegion (`else` $elseRegion^)? attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_WhileOp : Tile_Op<"while", [RecursiveMemoryEffects, Tile_InKernel,
    NoRegionArguments]> {
  let summary = "a loop that runs while a condition computed each time holds";
  let description = [{
    Runs `condition`, which ends with `tile.condition %c`; while `%c` is
    true it runs `body` and starts over. Nothing is carried between
    iterations but memory: per-thread variables (`tile.local`) and shared
    tiles. Each thread runs its own loop; where the body holds a block
    barrier or a warp-wide op, the condition must come out the same in every
    thread that meets them.

    ```mlir
    tile.kernel @count_down(%n: i32) attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %left = tile.alloc_local : !tile.local<i32>
      tile.local_store %n, %left : !tile.local<i32>
      tile.while {
        %l = tile.local_load %left : !tile.local<i32>
        %go = arith.cmpi sgt, %l, %c0 : i32
        tile.condition %go
      } do {
        %l = tile.local_load %left : !tile.local<i32>
        %next = arith.subi %l, %c1 : i32
        tile.local_store %next, %left : !tile.local<i32>
        tile.yield
      }
      tile.return
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$condition, SizedRegion<1>:$body);
  let assemblyFormat = "$condition `do` $body attr-dict";
  let hasVerifier = 1;
}

def Tile_ConditionOp : Tile_Op<"condition", [Pure, Terminator,
    HasParent<"WhileOp">]> {
  let summary = "ends the condition region of a tile.while: run the body or stop";
  let description = [{
    ```mlir
    tile.kernel @once() attributes {block = array<i32: 32, 1, 1>} {
      %done = tile.alloc_local : !tile.local<i1>
      %false = arith.constant false
      %true = arith.constant true
      tile.local_store %false, %done : !tile.local<i1>
      tile.while {
        %d = tile.local_load %done : !tile.local<i1>
        %go = arith.xori %d, %true : i1
        tile.condition %go
      } do {
        tile.local_store %true, %done : !tile.local<i1>
        tile.yield
      }
      tile.return
    }
    ```
  }];
  let arguments = (ins I1:$condition);
  let assemblyFormat = "$condition attr-dict";
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["ForOp", "ParallelOp", "IfOp", "PipelinedOp", "WhileOp"]>]> {
  let summary = "ends a loop body or an if region, passing values on";
  let description = [{
    Its values are the `iter_args` of a `tile.for`'s next iteration or the
    results of a `tile.if`; it is implied (and not printed) in bodies that
    pass nothing on.

    ```mlir
    tile.kernel @max_of(%x: f32, %y: f32) attributes {block = array<i32: 32, 1, 1>} {
      %bigger = arith.cmpf ogt, %x, %y : f32
      %m = tile.if %bigger -> (f32) {
        tile.yield %x : f32
      } else {
        tile.yield %y : f32
      }
      tile.return
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* no values */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

//===----------------------------------------------------------------------===//
// Tiles: shared memory and register fragments
//===----------------------------------------------------------------------===//

def Tile_AllocSharedOp : Tile_Op<"alloc_shared", [Tile_InKernel]> {
  let summary = "a tile of shared memory";
  let description = [{
    With `stages` > 1 it is that many tiles, reached with `tile.stage`
    (tile-warp-specialize allocates the tiles of a pipelined body so).
    `tile-plan-shared` gives every tile its place in the kernel's dynamic
    shared memory.

    ```mlir
    tile.kernel @tiles() attributes {block = array<i32: 128, 1, 1>} {
      %q = tile.alloc_shared : !tile.shared<64x128xbf16, swizzle = 128>
      %ring = tile.alloc_shared {stages = 3 : i64} : !tile.shared<64x128xbf16, swizzle = 128>
      tile.return
    }
    ```
  }];
  let arguments = (ins DefaultValuedAttr<I64Attr, "1">:$stages);
  let results = (outs Tile_AnyShared:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_CopyOp : Tile_Op<"copy", [Tile_InKernel, AttrSizedOperandSegments]> {
  let summary = "copies a box of a global tensor, or gathered rows of it, into a shared tile";
  let description = [{
    The box starts at `indices` and has the extents `box` (one per tensor
    dimension); its outer dimensions flatten onto the rows of the shared tile
    (`prod(box[:-1])` rows of `box[-1]` columns). Elements outside the tensor
    read as zero. The data is in the tile before the tile is next used.
    `tile-lower-copies` makes it a TMA copy where it can, a copy by the
    compute threads otherwise. Here, block `b`'s 64 rows of kv:

    ```mlir
    tile.kernel @copy(%kv: !tile.ptr<bf16>, %S: index) attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %v = tile.view %kv sizes(%S) strides(%c128) : !tile.ptr<bf16> -> !tile.tensor<?x128xbf16>
      %b = tile.block_id x
      %row = arith.muli %b, %c64 : index
      %t = tile.alloc_shared : !tile.shared<64x128xbf16, swizzle = 128>
      tile.copy %v[%row, %c0] to %t box [64, 128] : !tile.tensor<?x128xbf16>, !tile.shared<64x128xbf16, swizzle = 128>
      tile.return
    }
    ```

    A gathered copy (`rows` given) copies rows chosen by an i32 index
    tensor: the source has rank 2, and tile row `r` is source row
    `indices[0] + rows[row_indices[0], ..., row_indices[-1] + r]`, columns
    `indices[1]` on. A row whose index is negative, or lies past the end of
    `rows`' innermost dimension, reads as zeros, as does one outside the
    source. On the TMA each row is a box of its own. Here the 64 kv rows
    that query `s` selected, from slot `j` on:

    ```mlir
    tile.kernel @gather(%kv: !tile.ptr<bf16>, %idx: !tile.ptr<i32>, %S: index, %K: index, %s: index, %j: index) attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c128 = arith.constant 128 : index
      %v = tile.view %kv sizes(%S) strides(%c128) : !tile.ptr<bf16> -> !tile.tensor<?x128xbf16>
      %i = tile.view %idx sizes(%S, %K) strides(%K) : !tile.ptr<i32> -> !tile.tensor<?x?xi32>
      %t = tile.alloc_shared : !tile.shared<64x128xbf16, swizzle = 128>
      tile.copy %v[%c0, %c0] to %t box [64, 128] rows %i[%s, %j] : !tile.tensor<?x128xbf16>, !tile.shared<64x128xbf16, swizzle = 128>, !tile.tensor<?x?xi32>
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$source, Variadic<Index>:$indices,
                       Tile_AnyShared:$dest, DenseI64ArrayAttr:$box,
                       Optional<Tile_AnyTensor>:$rows, Variadic<Index>:$row_indices);
  let assemblyFormat = [{
    $source `[` $indices `]` `to` $dest `box` $box (`rows` $rows^ `[` $row_indices `]`)? attr-dict `:` type($source) `,` type($dest) (`,` type($rows)^)?
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$source, "::mlir::ValueRange":$indices,
                   "::mlir::Value":$dest, "::llvm::ArrayRef<int64_t>":$box), [{
      build($_builder, $_state, source, indices, dest, $_builder.getDenseI64ArrayAttr(box),
            ::mlir::Value(), ::mlir::ValueRange());
    }]>
  ];
  let extraClassDeclaration = [{
    /// Whether the copy gathers rows through an index tensor.
    bool isGather() { return static_cast<bool>(getRows()); }
  }];
  let hasVerifier = 1;
}

def Tile_GemmOp : Tile_Op<"gemm", [Tile_InKernel]> {
  let summary = "C = A x B (+ C) on shared tiles or a register A, into an f32 fragment";
  let description = [{
    A is [M, K], a shared tile or a fragment (registers); B is a shared tile
    [K, N], or [N, K] with `transpose_b`; the result is the [M, N] fragment
    A x B plus `acc` when given (zero otherwise). On sm_90a it becomes
    wgmma: each warpgroup of the executing warps computes 64 rows. A
    fragment A is wgmma's register operand: its layout is wgmma's A-operand
    layout, which is the accumulator layout of a gemm with N = K (so a
    gemm's result, cast to bf16, feeds the next gemm as it is);
    tile-assign-layouts converts a fragment of another layout.
    The result is computed asynchronously and waited for where it is first
    read; with `max_pending` = n, the gemm also waits, right after it starts,
    until at most n earlier gemms are still running (a pipelined loop
    accumulating into a loop-carried result releases a stage's tiles one
    iteration late, after that wait).


    ```mlir
    tile.kernel @gemm() attributes {block = array<i32: 128, 1, 1>} {
      %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      %b = tile.alloc_shared : !tile.shared<32x64xbf16, swizzle = 128>
      %c = tile.gemm %a, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<32x64xbf16, swizzle = 128> -> tensor<64x32xf32>
      %d = tile.gemm %a, %b, %c {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<32x64xbf16, swizzle = 128>, tensor<64x32xf32> -> tensor<64x32xf32>
      %p = arith.truncf %d : tensor<64x32xf32> to tensor<64x32xbf16>
      %v = tile.alloc_shared : !tile.shared<32x64xbf16, swizzle = 128>
      %o = tile.gemm %p, %v : tensor<64x32xbf16>, !tile.shared<32x64xbf16, swizzle = 128> -> tensor<64x64xf32>
      tile.return
    }
    ```
  }];
  let arguments = (ins AnyTypeOf<[Tile_AnyShared, Tile_Fragment]>:$a, Tile_AnyShared:$b,
                       Optional<Tile_Fragment>:$acc, UnitAttr:$transpose_b,
                       OptionalAttr<I64Attr>:$max_pending);
  let results = (outs Tile_Fragment:$result);
  let assemblyFormat = [{
    $a `,` $b (`,` $acc^)? attr-dict `:` type($a) `,` type($b) (`,` type($acc)^)? `->` type($result)
  }];
  let extraClassDeclaration = [{
    /// Whether A is a fragment (wgmma's register operand), not a shared tile.
    bool hasRegisterA();
  }];
  let hasVerifier = 1;
}

def Tile_LoadTileOp : Tile_Op<"load_tile", [Tile_InKernel,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "reads a box of a global tensor into a fragment";
  let description = [{
    The fragment's shape is the box; elements outside the tensor read as
    `padding` (here -inf in the second load).

    ```mlir
    tile.kernel @load_tile(%w: !tile.ptr<f32>, %S: index) attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %v = tile.view %w sizes(%S) strides(%c64) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
      %b = tile.block_id x
      %row = arith.muli %b, %c64 : index
      %rows = tile.load_tile %v[%row, %c0] : !tile.tensor<?x64xf32> -> tensor<64x64xf32>
      %padded = tile.load_tile %v[%row, %c0] {padding = 0xFFF0000000000000 : f64} : !tile.tensor<?x64xf32> -> tensor<64x64xf32>
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$source, Variadic<Index>:$indices,
                       DefaultValuedAttr<F64Attr, "0.0">:$padding);
  let results = (outs Tile_Fragment:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_SharedLoadTileOp : Tile_Op<"shared_load_tile", [Tile_InKernel,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "reads a box of a shared tile into a fragment";
  let description = [{
    As `tile.load_tile`, from a shared tile: the fragment's shape is the box
    at the indices; elements outside the tile read as `padding`. The threads
    read what the block wrote before its last barrier, or what a copy into
    the tile brought (a pipelined loop's copies are there when its body
    starts).

    ```mlir
    tile.kernel @shared_load_tile(%i: index) attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %w = tile.alloc_shared : !tile.shared<4x64xf32>
      %rows = tile.shared_load_tile %w[%i, %c0] : !tile.shared<4x64xf32> -> tensor<2x64xf32>
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_AnyShared:$tile, Variadic<Index>:$indices,
                       DefaultValuedAttr<F64Attr, "0.0">:$padding);
  let results = (outs Tile_Fragment:$result);
  let assemblyFormat = [{
    $tile `[` $indices `]` attr-dict `:` type($tile) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreTileOp : Tile_Op<"store_tile", [Tile_InKernel, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "writes (or adds) a fragment to a box, or to gathered rows, of a global tensor";
  let description = [{
    Elements outside the tensor, and where `mask` is false, are not written.
    With `add` (f32) each element is added to the tensor's, in one
    indivisible step (red.global.add; two or four at a time where a thread
    holds them side by side): partial sums from many blocks meet there.
    With `rows` (an i32 index tensor; the destination has rank 2, as for a
    gathered tile.copy) fragment row `r` goes to row `indices[0] +
    rows[row_indices[0], ..., row_indices[-1] + r]`; a row whose index is
    negative, or lies past the end of `rows`' innermost dimension, is not
    written. Rows may repeat: with `add` every addition lands.

    ```mlir
    tile.kernel @store_tile(%o: !tile.ptr<f32>, %i: !tile.ptr<i32>, %S: index, %T: index) attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %v = tile.view %o sizes(%S, %T) strides(%T) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
      %idx = tile.view %i sizes(%S) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
      %x = arith.constant dense<1.0> : tensor<16x64xf32>
      %col = tile.iota axis 1 : tensor<16x64xi32>
      %c32 = arith.constant dense<32> : tensor<16x64xi32>
      %left = arith.cmpi slt, %col, %c32 : tensor<16x64xi32>
      tile.store_tile %x, %v[%c0, %c0] : tensor<16x64xf32>, !tile.tensor<?x?xf32>
      tile.store_tile %x, %v[%c0, %c0] mask %left : tensor<16x64xf32>, !tile.tensor<?x?xf32>, tensor<16x64xi1>
      tile.store_tile add %x, %v[%c0, %c0] rows %idx : !tile.tensor<?xi32> [%c0] : tensor<16x64xf32>, !tile.tensor<?x?xf32>
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_Fragment:$value, Tile_AnyTensor:$dest,
                       Variadic<Index>:$indices, Optional<Tile_Fragment>:$mask,
                       UnitAttr:$add, Optional<Tile_AnyTensor>:$rows,
                       Variadic<Index>:$row_indices);
  let assemblyFormat = [{
    (`add` $add^)? $value `,` $dest `[` $indices `]` (`rows` $rows^ `:` type($rows) `[` $row_indices `]`)? (`mask` $mask^)? attr-dict `:` type($value) `,` type($dest) (`,` type($mask)^)?
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$value, "::mlir::Value":$dest,
                   "::mlir::ValueRange":$indices, "::mlir::Value":$mask), [{
      build($_builder, $_state, value, dest, indices, mask, /*add=*/false, ::mlir::Value(),
            ::mlir::ValueRange());
    }]>
  ];
  let hasVerifier = 1;
}

def Tile_SharedStoreTileOp : Tile_Op<"shared_store_tile", [Tile_InKernel,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "writes a fragment to a box of a shared tile";
  let description = [{
    As `tile.store_tile`, into a shared tile, stored in the tile's layout
    (its swizzle, which wgmma descriptors and TMA copies read); elements
    outside the tile are not written. Every thread holding the fragment
    runs it: tile-distribute-fragments ends it with a barrier of those
    threads, so that the tile is whole for whatever reads it next (a gemm,
    a copy, a `tile.shared_load_tile`), and puts a barrier before the
    stores too where the tile may have been read before them.
    tile-order-async fences the stores (`fence.proxy.async`) where the
    async proxy reads the tile (a wgmma operand).

    ```mlir
    tile.kernel @shared_store_tile() attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %x = arith.constant dense<1.0> : tensor<64x64xbf16>
      %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
      tile.shared_store_tile %x, %t[%c0, %c0] : tensor<64x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_Fragment:$value, Tile_AnyShared:$tile, Variadic<Index>:$indices);
  let assemblyFormat = [{
    $value `,` $tile `[` $indices `]` attr-dict `:` type($value) `,` type($tile)
  }];
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "repeats a scalar or fragment along new dimensions";
  let description = [{
    Source dimension i becomes result dimension `dims[i]` (same extent); the
    other result dimensions repeat it. A scalar source has no dimensions.

    ```mlir
    tile.kernel @broadcast(%s: f32) attributes {block = array<i32: 128, 1, 1>} {
      %w = arith.constant dense<2.0> : tensor<64xf32>
      %rows = tile.broadcast %w dims [1] : tensor<64xf32> -> tensor<16x64xf32>
      %all = tile.broadcast %s dims [] : f32 -> tensor<16x64xf32>
      tile.return
    }
    ```
  }];
  let arguments = (ins AnyType:$source, DenseI64ArrayAttr:$dims);
  let results = (outs Tile_Fragment:$result);
  let assemblyFormat = "$source `dims` $dims attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "the same elements, in row-major order, with another shape";
  let description = [{
    The element counts of the two shapes are equal. Here the 128 columns of
    a gemm result split into 2 queries of 64 heads:

    ```mlir
    tile.kernel @reshape() attributes {block = array<i32: 128, 1, 1>} {
      %s = arith.constant dense<1.0> : tensor<64x128xf32>
      %heads = tile.reshape %s : tensor<64x128xf32> -> tensor<64x2x64xf32>
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_Fragment:$source);
  let results = (outs Tile_Fragment:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_TransposeOp : Tile_Op<"transpose", [Pure]> {
  let summary = "permutes the dimensions of a fragment";
  let description = [{
    Result dimension i is source dimension `perm[i]`.

    ```mlir
    tile.kernel @transpose() attributes {block = array<i32: 128, 1, 1>} {
      %x = arith.constant dense<1.0> : tensor<64x2xf32>
      %t = tile.transpose %x perm [1, 0] : tensor<64x2xf32> -> tensor<2x64xf32>
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_Fragment:$source, DenseI64ArrayAttr:$perm);
  let results = (outs Tile_Fragment:$result);
  let assemblyFormat = "$source `perm` $perm attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure,
    AllShapesMatch<["source", "result"]>, AllElementTypesMatch<["source", "result"]>]> {
  let summary = "the same fragment in another layout";
  let description = [{
    tile-assign-layouts inserts it where a fragment meets a user that needs
    its elements on other threads or registers. tile-distribute-fragments
    renames registers where only they differ, uses warp shuffles where each
    element stays in its warp, and goes through shared memory otherwise.

    ```mlir
    tile.kernel @convert() attributes {block = array<i32: 32, 1, 1>} {
      %a = arith.constant dense<1.0> : tensor<32x8xf32, #tile.frag<reg = [[0, 1], [0, 2], [0, 4]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = []>>
      %b = tile.convert_layout %a : tensor<32x8xf32, #tile.frag<reg = [[0, 1], [0, 2], [0, 4]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = []>> -> tensor<32x8xf32, #tile.frag<reg = [[1, 0], [2, 0], [4, 0]], lane = [[0, 1], [0, 2], [0, 4], [8, 0], [16, 0]], warp = []>>
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_Fragment:$source);
  let results = (outs Tile_Fragment:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "sum, max or min",
    [I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>, I32EnumAttrCase<"min", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::minitile::tile";
}
def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce"> {
  let summary = "how tile.reduce combines elements";
  let description = [{
    `sum`, `max` or `min`, written bare in `tile.reduce`.

    ```mlir
    tile.kernel @kinds() attributes {block = array<i32: 128, 1, 1>} {
      %x = arith.constant dense<1.0> : tensor<64x64xf32>
      %sum = tile.reduce sum %x axis 1 : tensor<64x64xf32> -> tensor<64xf32>
      %max = tile.reduce max %x axis 1 : tensor<64x64xf32> -> tensor<64xf32>
      %min = tile.reduce min %x axis 1 : tensor<64x64xf32> -> tensor<64xf32>
      tile.return
    }
    ```
  }];
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduces a fragment along one dimension";
  let description = [{
    The result drops dimension `axis`. Lowered in registers, then with warp
    shuffles, then through shared memory when the dimension spans warps.
    With `contract`, the float additions it makes may fuse with the
    multiplications that feed them (fma).


    ```mlir
    tile.kernel @reduce() attributes {block = array<i32: 128, 1, 1>} {
      %x = arith.constant dense<1.0> : tensor<64x2x64xf32>
      %sum = tile.reduce sum %x axis 2 {contract} : tensor<64x2x64xf32> -> tensor<64x2xf32>
      %max = tile.reduce max %sum axis 1 : tensor<64x2xf32> -> tensor<64xf32>
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_Fragment:$source, Tile_ReduceKindAttr:$kind, I64Attr:$axis,
                       UnitAttr:$contract);
  let results = (outs Tile_Fragment:$result);
  let assemblyFormat = "$kind $source `axis` $axis attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_IotaOp : Tile_Op<"iota", [Pure]> {
  let summary = "a fragment whose elements are their index along `axis`";
  let description = [{
    An integer fragment; element (i0, i1, ...) holds `i_axis`.

    ```mlir
    tile.kernel @iota() attributes {block = array<i32: 128, 1, 1>} {
      %row = tile.iota axis 0 : tensor<64x2xi32>
      %col = tile.iota axis 1 : tensor<64x2xi32>
      tile.return
    }
    ```
  }];
  let arguments = (ins I64Attr:$axis);
  let results = (outs Tile_Fragment:$result);
  let assemblyFormat = "`axis` $axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_PipelinedOp : Tile_Op<"pipelined", [RecursiveMemoryEffects, Tile_InKernel,
    SingleBlockImplicitTerminator<"YieldOp">, AttrSizedOperandSegments]> {
  let summary = "a loop whose copies run ahead of its computation";
  let description = [{
    Semantically a serial loop. Its body starts with copies of global boxes
    into shared tiles allocated in the body; `tile-warp-specialize` gives each
    of `stages` iterations in flight its own tiles, so the copies of iteration
    i + stages - 1 overlap the computation of iteration i. With `groups` > 1
    the iterations alternate between that many groups of the compute warps,
    each running its iterations' fragment code on its own warps; `stages` is
    then a multiple of `groups`, so each stage is always read by one group.
    Values carried from iteration to iteration (`iter_args`, a gemm's
    accumulator say) need one group. A pipelined loop may nest in one of one
    group (every compute thread runs each of its iterations): the outer
    loop's copies then run ahead by its own stages -- a persistent kernel's
    next work item, say -- while the inner loop's ring runs on. With
    `overlap`, a group running several stages in turn starts its next
    iteration's gemm before the code after this one's, which then runs
    while the tensor cores work (two gemm results live at once: for bodies
    with one gemm, and registers for both). With `continuous` (a loop nested
    in a pipelined loop of one group, the last thing its body does), each
    group's iterations of one run and the next form one stream: an
    overlapped loop's gemms go on from one outer iteration into the next
    without draining, the outer iteration's values the body reads switched
    where its iterations cross into the next (`tile-warp-specialize` says
    what it needs). With `cooperative` (groups > 1), every group runs every
    iteration instead, each its share of the body: the body's top-level
    gemms (a multiple of `groups`, none nested in a region) are dealt out in
    order, the first groups-th to group 0 and so on, each group running the
    code that reads its gemms' results; every stage is read by all groups
    and released when all have read it, so `stages` need not be a multiple
    of `groups`. Code that writes memory reads a gemm's result (it runs on
    that gemm's group); pure code reading none runs on every group.

    With a `queue` (a one-element i32 tensor all blocks share, zero at the
    launch; one group, nested in no other pipelined loop, carrying
    nothing), the iterations are handed out at run time, a persistent
    kernel's work items: a block's first index is the lower bound, each
    later one `step` plus the count of earlier claims (an atomic add on the
    queue), and the block's loop ends at its first index at or past the
    upper bound. The lower bounds across the grid are the indices below
    `step`, one a block, all below the upper bound; the last claim of the
    launch sets the queue back to zero. `tile-warp-specialize` claims on the
    producer, as it issues an iteration's copies, and passes the index to
    the compute threads through shared memory with the stage.


    ```mlir
    tile.kernel @pipelined(%kv: !tile.ptr<bf16>, %S: index) attributes {block = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %v = tile.view %kv sizes(%S) strides(%c128) : !tile.ptr<bf16> -> !tile.tensor<?x128xbf16>
      %q = tile.alloc_shared : !tile.shared<64x128xbf16, swizzle = 128>
      %tiles = arith.ceildivsi %S, %c64 : index
      tile.pipelined %i = %c0 to %tiles step %c1 stages 4 groups 2 {
        %k = tile.alloc_shared : !tile.shared<64x128xbf16, swizzle = 128>
        %row = arith.muli %i, %c64 : index
        tile.copy %v[%row, %c0] to %k box [64, 128] : !tile.tensor<?x128xbf16>, !tile.shared<64x128xbf16, swizzle = 128>
        %s = tile.gemm %k, %q {transpose_b} : !tile.shared<64x128xbf16, swizzle = 128>, !tile.shared<64x128xbf16, swizzle = 128> -> tensor<64x64xf32>
      }
      tile.return
    }
    ```
  }];
  let arguments = (ins Index:$lowerBound, Index:$upperBound, Index:$step,
                       Optional<Tile_AnyTensor>:$queue, Variadic<AnyType>:$initArgs,
                       I64Attr:$stages, DefaultValuedAttr<I64Attr, "1">:$groups,
                       UnitAttr:$overlap, UnitAttr:$continuous, UnitAttr:$cooperative);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$lb, "::mlir::Value":$ub,
      "::mlir::Value":$step, "int64_t":$stages, "int64_t":$groups,
      CArg<"::mlir::ValueRange", "{}">:$initArgs, CArg<"::mlir::Value", "{}">:$queue)>];
  let extraClassDeclaration = [{
    ::mlir::Value getInductionVar() { return getBody().getArgument(0); }
    ::mlir::Block::BlockArgListType getRegionIterArgs() {
      return getBody().getArguments().drop_front();
    }
    /// The gemms at the top level of the body (what a cooperative loop deals
    /// out to its groups), or -1 where a gemm is nested in a region.
    int64_t getTopLevelGemms();
  }];
}

//===----------------------------------------------------------------------===//
// Shared memory once planned, elements of shared tiles, atomics, block
// barriers and warp-wide ops: what the passes lower tiles and fragments to on
// every target, and what per-thread DSL code uses directly
//===----------------------------------------------------------------------===//

def Tile_SharedViewOp : Tile_Op<"shared_view", [Pure, Tile_InKernel]> {
  let summary = "the shared tile at a byte offset of the dynamic shared memory";
  let description = [{
    Offsets count from the kernel's dynamic shared memory, aligned to 1024
    bytes (what 128-byte swizzles need). `tile-plan-shared` replaces each
    `tile.alloc_shared` with one.

    ```mlir
    tile.kernel @planned() attributes {block = array<i32: 128, 1, 1>, smem_bytes = 33792 : i64} {
      %c0 = arith.constant 0 : index
      %c16384 = arith.constant 16384 : index
      %a = tile.shared_view %c0 : !tile.shared<64x128xbf16, swizzle = 128>
      %b = tile.shared_view %c16384 : !tile.shared<64x128xbf16, swizzle = 128>
      tile.return
    }
    ```
  }];
  let arguments = (ins Index:$offset);
  let results = (outs Tile_AnyShared:$result);
  let assemblyFormat = "$offset attr-dict `:` type($result)";
}

def Tile_StageOp : Tile_Op<"stage", [Pure, Tile_InKernel,
    AllTypesMatch<["tiles", "result"]>]> {
  let summary = "stage `index` of a shared tile allocated with stages";
  let description = [{
    `index` is from 0 to the allocation's `stages`, exclusive.

    ```mlir
    tile.kernel @stage(%n: index) attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %ring = tile.alloc_shared {stages = 3 : i64} : !tile.shared<64x128xbf16, swizzle = 128>
      tile.for %i = %c0 to %n step %c1 {
        %s = arith.remui %i, %c3 : index
        %k = tile.stage %ring[%s] : !tile.shared<64x128xbf16, swizzle = 128>
      }
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_AnyShared:$tiles, Index:$index);
  let results = (outs Tile_AnyShared:$result);
  let assemblyFormat = "$tiles `[` $index `]` attr-dict `:` type($tiles)";
}

def Tile_SharedLoadOp : Tile_Op<"shared_load", [Tile_InKernel,
    MemoryEffects<[MemRead]>]> {
  let summary = "reads elements [col, col + lanes) of a row of a shared tile";
  let description = [{
    `row` counts rows of the tile seen as a matrix (outer dimensions
    flattened); the lanes stay inside one 16-byte chunk. The tile's swizzle
    decides the address. The result is the tile's element type, or a vector
    of it.

    ```mlir
    tile.kernel @read_back() attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %t = tile.alloc_shared : !tile.shared<128x32xf32>
      %r = tile.thread_id x
      %one = tile.shared_load %t[%r, %c0] : !tile.shared<128x32xf32> -> f32
      %four = tile.shared_load %t[%r, %c4] : !tile.shared<128x32xf32> -> vector<4xf32>
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_AnyShared:$tile, Index:$row, Index:$col);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$tile `[` $row `,` $col `]` attr-dict `:` type($tile) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_SharedStoreOp : Tile_Op<"shared_store", [Tile_InKernel]> {
  let summary = "writes elements [col, col + lanes) of a row of a shared tile";
  let description = [{
    As `tile.shared_load`: `row` counts rows of the tile seen as a matrix and
    the lanes stay inside one 16-byte chunk. Other threads see the values
    after a barrier.

    ```mlir
    tile.kernel @write(%x: f32) attributes {block = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %t = tile.alloc_shared : !tile.shared<128x32xf32>
      %r = tile.thread_id x
      %xs = tile.splat %x : vector<4xf32>
      tile.shared_store %x, %t[%r, %c0] : f32, !tile.shared<128x32xf32>
      tile.shared_store %xs, %t[%r, %c4] : vector<4xf32>, !tile.shared<128x32xf32>
      tile.barrier
      tile.return
    }
    ```
  }];
  let arguments = (ins AnyType:$value, Tile_AnyShared:$tile, Index:$row, Index:$col);
  let assemblyFormat = "$value `,` $tile `[` $row `,` $col `]` attr-dict `:` type($value) `,` type($tile)";
  let hasVerifier = 1;
}

def Tile_AtomicKind : I32EnumAttr<"AtomicKind",
    "the read-modify-write of an atomic op",
    [I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"max", 1>, I32EnumAttrCase<"min", 2>,
     I32EnumAttrCase<"and_", 3, "and">, I32EnumAttrCase<"or_", 4, "or">,
     I32EnumAttrCase<"xor_", 5, "xor">,
     I32EnumAttrCase<"exchange", 6>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::minitile::tile";
}
def Tile_AtomicKindAttr : EnumAttr<Tile_Dialect, Tile_AtomicKind, "atomic"> {
  let summary = "the read-modify-write of tile.atomic and tile.shared_atomic";
  let description = [{
    `add`, `max`, `min`, `and`, `or`, `xor` or `exchange`, written bare.

    ```mlir
    tile.kernel @kinds(%x: i32) attributes {block = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %t = tile.alloc_shared : !tile.shared<4xi32>
      %a = tile.shared_atomic max %x, %t[%c0, %c0] : i32, !tile.shared<4xi32>
      %b = tile.shared_atomic or %x, %t[%c0, %c0] : i32, !tile.shared<4xi32>
      %c = tile.shared_atomic exchange %x, %t[%c0, %c0] : i32, !tile.shared<4xi32>
      tile.return
    }
    ```
  }];
}

defvar Tile_AtomicDescription = [{
    Replaces the element `x` with `x + value` (`add`), `max(x, value)`,
    `min(x, value)` (signed), `x & value`, `x | value`, `x ^ value` or `value`
    (`exchange`), as one indivisible step, and returns `x`. Integers of 32
    and 64 bits take every kind; f32 takes `add` and `exchange`. Relaxed
    ordering: atomic against every other atomic op on the element, but no
    fence; a barrier orders it against plain loads and stores.
}];

def Tile_AtomicOp : Tile_Op<"atomic", [Tile_InKernel,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "an atomic read-modify-write of one element of a global tensor";
  let description = !strconcat(Tile_AtomicDescription, [{

    ```mlir
    tile.kernel @count(%p: !tile.ptr<i32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
      %one = arith.constant 1 : i32
      %counts = tile.view %p sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
      %i = tile.thread_id x
      %old = tile.atomic add %one, %counts[%i] : i32, !tile.tensor<?xi32>
      tile.return
    }
    ```
  }]);
  let arguments = (ins Tile_AtomicKindAttr:$kind, AnyTypeOf<[I32, I64, F32]>:$value,
                       Tile_AnyTensor:$tensor, Variadic<Index>:$indices);
  let results = (outs AnyTypeOf<[I32, I64, F32]>:$result);
  let assemblyFormat = [{
    $kind $value `,` $tensor `[` $indices `]` attr-dict `:` type($value) `,` type($tensor)
  }];
  let hasVerifier = 1;
}

def Tile_SharedAtomicOp : Tile_Op<"shared_atomic", [Tile_InKernel,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "an atomic read-modify-write of one element of a shared tile";
  let description = !strconcat(Tile_AtomicDescription, [{
    `row` and `col` address the element as in `tile.shared_load`.

    A histogram of the threads' values, then a barrier before reading it:

    ```mlir
    tile.kernel @histogram(%x: i32) attributes {block = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %hist = tile.alloc_shared : !tile.shared<2048xi32>
      %bin = arith.index_cast %x : i32 to index
      %old = tile.shared_atomic add %one, %hist[%c0, %bin] : i32, !tile.shared<2048xi32>
      tile.barrier
      tile.return
    }
    ```
  }]);
  let arguments = (ins Tile_AtomicKindAttr:$kind, AnyTypeOf<[I32, I64, F32]>:$value,
                       Tile_AnyShared:$tile, Index:$row, Index:$col);
  let results = (outs AnyTypeOf<[I32, I64, F32]>:$result);
  let assemblyFormat = [{
    $kind $value `,` $tile `[` $row `,` $col `]` attr-dict `:` type($value) `,` type($tile)
  }];
  let hasVerifier = 1;
}

def Tile_ShuffleXorOp : Tile_Op<"shuffle_xor", [Pure, Tile_InKernel,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "the value of lane (lane ^ mask) of this warp";
  let description = [{
    Every lane of the warp takes part. Two shuffles sum a value over each
    quad of lanes:

    ```mlir
    tile.kernel @quad_sum(%x: f32) attributes {block = array<i32: 32, 1, 1>} {
      %y = tile.shuffle_xor %x, 1 : f32
      %xy = arith.addf %x, %y : f32
      %z = tile.shuffle_xor %xy, 2 : f32
      %sum = arith.addf %xy, %z : f32
      tile.return
    }
    ```
  }];
  let arguments = (ins AnyTypeOf<[I32, F32]>:$value, I64Attr:$mask);
  let results = (outs AnyTypeOf<[I32, F32]>:$result);
  let assemblyFormat = "$value `,` $mask attr-dict `:` type($value)";
}

def Tile_ShuffleIdxOp : Tile_Op<"shuffle_idx", [Pure, Tile_InKernel,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "the value of lane `lane` of this warp";
  let description = [{
    Every lane of the warp takes part; `lane` may differ from lane to lane.

    ```mlir
    tile.kernel @shuffle() attributes {block = array<i32: 32, 1, 1>} {
      %x = arith.constant 1.0 : f32
      %src = arith.constant 0 : i32
      %v = tile.shuffle_idx %x, %src : f32
      tile.return
    }
    ```
  }];
  let arguments = (ins AnyTypeOf<[I32, F32]>:$value, I32:$lane);
  let results = (outs AnyTypeOf<[I32, F32]>:$result);
  let assemblyFormat = "$value `,` $lane attr-dict `:` type($value)";
}

class Tile_ShuffleByOp<string mnemonic, string which, string example>
    : Tile_Op<mnemonic, [Pure, Tile_InKernel, AllTypesMatch<["value", "result"]>]> {
  let summary = "the value of the lane `delta` " # which # " this one";
  let description = !strconcat([{
    Every lane of the warp takes part (the kernel's threads are whole warps);
    a lane whose source would fall outside the warp gets its own value.
    `delta` may differ from lane to lane.
}], example);
  let arguments = (ins AnyTypeOf<[I32, F32]>:$value, I32:$delta);
  let results = (outs AnyTypeOf<[I32, F32]>:$result);
  let assemblyFormat = "$value `,` $delta attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def Tile_ShuffleUpOp : Tile_ShuffleByOp<"shuffle_up", "below", [{
    An inclusive prefix sum over the warp, in five steps:

    ```mlir
    tile.kernel @prefix_sum(%x: i32) attributes {block = array<i32: 32, 1, 1>} {
      %lane = tile.thread_id x
      %l = arith.index_cast %lane : index to i32
      %c1 = arith.constant 1 : i32
      %up = tile.shuffle_up %x, %c1 : i32
      %has = arith.cmpi sge, %l, %c1 : i32
      %sum = arith.addi %x, %up : i32
      %x1 = arith.select %has, %sum, %x : i32
      tile.return
    }
    ```
}]>;

def Tile_ShuffleDownOp : Tile_ShuffleByOp<"shuffle_down", "above", [{
    ```mlir
    tile.kernel @next(%x: f32) attributes {block = array<i32: 64, 1, 1>} {
      %c1 = arith.constant 1 : i32
      %right = tile.shuffle_down %x, %c1 : f32
      tile.return
    }
    ```
}]>;

def Tile_VoteKind : I32EnumAttr<"VoteKind", "what a warp vote returns",
    [I32EnumAttrCase<"ballot", 0>, I32EnumAttrCase<"any", 1>, I32EnumAttrCase<"all", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::minitile::tile";
}
def Tile_VoteKindAttr : EnumAttr<Tile_Dialect, Tile_VoteKind, "vote"> {
  let summary = "what tile.vote returns: ballot, any or all";
  let description = [{
    Written bare in `tile.vote`.

    ```mlir
    tile.kernel @votes(%p: i1) attributes {block = array<i32: 32, 1, 1>} {
      %lanes = tile.vote ballot %p : i32
      %some = tile.vote any %p : i1
      %every = tile.vote all %p : i1
      tile.return
    }
    ```
  }];
}

def Tile_VoteOp : Tile_Op<"vote", [Tile_InKernel]> {
  let summary = "combines a predicate over the lanes of the warp";
  let description = [{
    `ballot`: an i32 whose bit l is lane l's predicate; `any` / `all`: an i1,
    true where some / every lane's predicate is. Every lane of the warp runs
    it together (the kernel's threads are whole warps). Not pure: no pass
    moves it across control flow or merges two of them.

    ```mlir
    tile.kernel @ballot(%x: i32) attributes {block = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : i32
      %positive = arith.cmpi sgt, %x, %c0 : i32
      %lanes = tile.vote ballot %positive : i32
      %count = math.ctpop %lanes : i32
      tile.return
    }
    ```
  }];
  let arguments = (ins Tile_VoteKindAttr:$kind, I1:$predicate);
  let results = (outs AnyTypeOf<[I32, I1]>:$result);
  let assemblyFormat = "$kind $predicate attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_BarrierOp : Tile_Op<"barrier", [Tile_InKernel]> {
  let summary = "waits for every thread of the block (__syncthreads)";
  let description = [{
    Also orders the block's shared-memory accesses before and after it. Every
    thread of the block must reach it; in a warp-specialised kernel
    `tile-warp-specialize` makes it a `hopper.named_barrier` of the compute
    threads (the producer warpgroup never reaches it).

    ```mlir
    tile.kernel @barrier() attributes {block = array<i32: 128, 1, 1>} {
      tile.barrier
      tile.return
    }
    ```
  }];
  let assemblyFormat = "attr-dict";
}

#endif // MINITILE_TILE_OPS
