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
    `tile.name` argument attribute. The body runs on the host: it computes
    with `arith` on scalars, checks arguments (`tile.host_check`,
    `tile.check_ptr`) and ends with one `tile.launch`.
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
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       DenseI32ArrayAttr:$block,
                       DefaultValuedAttr<I64Attr, "0">:$smem_bytes,
                       DefaultValuedAttr<I64Attr, "0">:$producer_threads);
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
    kernel's signature.
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
  let arguments = (ins I1:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict";
}

def Tile_CheckPtrOp : Tile_Op<"check_ptr", [HasParent<"HostOp">]> {
  let summary = "the launcher checks a tensor's base pointer";
  let description = [{
    Unless the tensor is empty (`numel` is 0) the pointer must be non-null and
    a multiple of `align` bytes.
  }];
  let arguments = (ins Tile_AnyPtr:$ptr, Index:$numel, I64Attr:$align);
  let assemblyFormat = "$ptr `,` $numel `align` $align attr-dict `:` type($ptr)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Device: launch geometry
//===----------------------------------------------------------------------===//

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
}
def Tile_BlockIdOp : Tile_GeometryOp<"block_id"> {
  let summary = "the block's index within the grid";
}
def Tile_GridDimOp : Tile_GeometryOp<"grid_dim"> {
  let summary = "the number of blocks in the grid";
}

//===----------------------------------------------------------------------===//
// Device: global memory
//===----------------------------------------------------------------------===//

def Tile_ViewOp : Tile_Op<"view", [Pure, AttrSizedOperandSegments]> {
  let summary = "a strided tensor view of a pointer";
  let description = [{
    `sizes` gives the `?` dimensions of the result type, in order; `strides`
    the stride of every dimension but the innermost (which is 1), in
    elements; `offset` (elements, default 0) moves the origin.

    ```mlir
    %t = tile.view %p[%off] sizes(%S) strides(%T) : !tile.ptr<f32> -> !tile.tensor<?x8xf32>
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
    dimension cannot be fixed.
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
  }];
  let arguments = (ins AnyType:$value, Tile_AnyTensor:$tensor,
                       Variadic<Index>:$indices);
  let assemblyFormat = [{
    $value `,` $tensor `[` $indices `]` attr-dict `:` type($value) `,` type($tensor)
  }];
  let hasVerifier = 1;
}

def Tile_ElemsToAlignedOp : Tile_Op<"elems_to_aligned", [Pure, Tile_InKernel]> {
  let summary = "elements from an address up to the next aligned one";
  let description = [{
    The number of innermost elements between `tensor[indices]` and the first
    address at or after it that is a multiple of `bytes`: 0 when it is aligned.
  }];
  let arguments = (ins Tile_AnyTensor:$tensor, Variadic<Index>:$indices,
                       I64Attr:$bytes);
  let results = (outs Index:$result);
  let assemblyFormat = [{
    $tensor `[` $indices `]` `bytes` $bytes attr-dict `:` type($tensor)
  }];
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"value is the vector's element type", "result", "value",
                   "::llvm::cast<::mlir::VectorType>($_self).getElementType()">]> {
  let summary = "a vector holding copies of a scalar";
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
  let results = (outs Tile_AnyLocal:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_LocalLoadOp : Tile_Op<"local_load", [Tile_InKernel,
    TypesMatchWith<"result is the variable's element type", "local", "result",
                   "::llvm::cast<::minitile::tile::LocalType>($_self).getElementType()">,
    MemoryEffects<[MemRead]>]> {
  let arguments = (ins Tile_AnyLocal:$local);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$local attr-dict `:` type($local)";
}

def Tile_LocalStoreOp : Tile_Op<"local_store", [Tile_InKernel,
    TypesMatchWith<"value is the variable's element type", "local", "value",
                   "::llvm::cast<::minitile::tile::LocalType>($_self).getElementType()">,
    MemoryEffects<[MemWrite]>]> {
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
    ```mlir
    %r = tile.for %i = %lb to %ub step %s iter_args(%acc = %init) -> (f32) {
      ...
      tile.yield %next : f32
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
  let arguments = (ins I1:$condition);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$thenRegion, AnyRegion:$elseRegion);
  let assemblyFormat = [{
    $condition (`->` `(` type($results)^ `)`)? $thenRegion (`else` $elseRegion^)? attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["ForOp", "ParallelOp", "IfOp", "PipelinedOp"]>]> {
  let summary = "ends a loop body or an if region, passing values on";
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
    (tile-pipeline allocates the tiles of a pipelined body so).
    `tile-plan-shared` gives every tile its place in the kernel's dynamic
    shared memory.
  }];
  let arguments = (ins DefaultValuedAttr<I64Attr, "1">:$stages);
  let results = (outs Tile_AnyShared:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_CopyOp : Tile_Op<"copy", [Tile_InKernel]> {
  let summary = "copies a box of a global tensor into a shared tile";
  let description = [{
    The box starts at `indices` and has the extents `box` (one per tensor
    dimension); its outer dimensions flatten onto the rows of the shared tile
    (`prod(box[:-1])` rows of `box[-1]` columns). Elements outside the tensor
    read as zero. The data is in the tile before the tile is next used.
  }];
  let arguments = (ins Tile_AnyTensor:$source, Variadic<Index>:$indices,
                       Tile_AnyShared:$dest, DenseI64ArrayAttr:$box);
  let assemblyFormat = [{
    $source `[` $indices `]` `to` $dest `box` $box attr-dict `:` type($source) `,` type($dest)
  }];
  let hasVerifier = 1;
}

def Tile_GemmOp : Tile_Op<"gemm", [Tile_InKernel]> {
  let summary = "C = A x B (+ C) on shared tiles, into an f32 fragment";
  let description = [{
    A is [M, K]; B is [K, N], or [N, K] with `transpose_b`; the result is the
    [M, N] fragment A x B plus `acc` when given (zero otherwise). On sm_90a it
    becomes wgmma: each warpgroup of the executing warps computes 64 rows.
    The result is computed asynchronously and waited for where it is first
    read; with `max_pending` = n, the gemm also waits, right after it starts,
    until at most n earlier gemms are still running (a pipelined loop
    accumulating into a loop-carried result releases a stage's tiles one
    iteration late, after that wait).

    ```mlir
    %c = tile.gemm %a, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>,
           !tile.shared<128x64xbf16, swizzle = 128> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_AnyShared:$a, Tile_AnyShared:$b,
                       Optional<Tile_Fragment>:$acc, UnitAttr:$transpose_b,
                       OptionalAttr<I64Attr>:$max_pending);
  let results = (outs Tile_Fragment:$result);
  let assemblyFormat = [{
    $a `,` $b (`,` $acc^)? attr-dict `:` type($a) `,` type($b) (`,` type($acc)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_LoadTileOp : Tile_Op<"load_tile", [Tile_InKernel,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "reads a box of a global tensor into a fragment";
  let description = [{
    The fragment's shape is the box; elements outside the tensor read as
    `padding`.
  }];
  let arguments = (ins Tile_AnyTensor:$source, Variadic<Index>:$indices,
                       DefaultValuedAttr<F64Attr, "0.0">:$padding);
  let results = (outs Tile_Fragment:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreTileOp : Tile_Op<"store_tile", [Tile_InKernel, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "writes a fragment to a box of a global tensor";
  let description = [{
    Elements outside the tensor, and where `mask` is false, are not written.
  }];
  let arguments = (ins Tile_Fragment:$value, Tile_AnyTensor:$dest,
                       Variadic<Index>:$indices, Optional<Tile_Fragment>:$mask);
  let assemblyFormat = [{
    $value `,` $dest `[` $indices `]` (`mask` $mask^)? attr-dict `:` type($value) `,` type($dest) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "repeats a scalar or fragment along new dimensions";
  let description = [{
    Source dimension i becomes result dimension `dims[i]` (same extent); the
    other result dimensions repeat it. A scalar source has no dimensions.
  }];
  let arguments = (ins AnyType:$source, DenseI64ArrayAttr:$dims);
  let results = (outs Tile_Fragment:$result);
  let assemblyFormat = "$source `dims` $dims attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "the same elements, in row-major order, with another shape";
  let arguments = (ins Tile_Fragment:$source);
  let results = (outs Tile_Fragment:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_TransposeOp : Tile_Op<"transpose", [Pure]> {
  let summary = "permutes the dimensions of a fragment";
  let description = [{ Result dimension i is source dimension `perm[i]`. }];
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
    %b = tile.convert_layout %a : tensor<64x8xf32, #frag> -> tensor<64x8xf32, #frag1>
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
def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce">;

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduces a fragment along one dimension";
  let description = [{
    The result drops dimension `axis`. Lowered in registers, then with warp
    shuffles, then through shared memory when the dimension spans warps.
    With `contract`, the float additions it makes may fuse with the
    multiplications that feed them (fma).

    ```mlir
    %s = tile.reduce sum %x axis 1 {contract} : tensor<64x128xf32> -> tensor<64xf32>
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
  let arguments = (ins I64Attr:$axis);
  let results = (outs Tile_Fragment:$result);
  let assemblyFormat = "`axis` $axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_PipelinedOp : Tile_Op<"pipelined", [RecursiveMemoryEffects, Tile_InKernel,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a loop whose copies run ahead of its computation";
  let description = [{
    Semantically a serial loop. Its body starts with copies of global boxes
    into shared tiles allocated in the body; `tile-pipeline` gives each of
    `stages` iterations in flight its own tiles, so the copies of iteration
    i + stages - 1 overlap the computation of iteration i. With `groups` > 1
    the iterations alternate between that many groups of the compute warps,
    each running its iterations' fragment code on its own warps; `stages` is
    then a multiple of `groups`, so each stage is always read by one group.
    Values carried from iteration to iteration (`iter_args`, a gemm's
    accumulator say) need one group.

    ```mlir
    %acc = tile.pipelined %k = %c0 to %n step %c1 stages 4
        iter_args(%c = %zero) -> (tensor<128x128xf32>) {
      %a = tile.alloc_shared : !tile.shared<128x64xbf16, swizzle = 128>
      %b = tile.alloc_shared : !tile.shared<128x64xbf16, swizzle = 128>
      tile.copy %A[%m0, %k0] to %a box [128, 64] : !tile.tensor<?x?xbf16>, !tile.shared<128x64xbf16, swizzle = 128>
      tile.copy %B[%n0, %k0] to %b box [128, 64] : !tile.tensor<?x?xbf16>, !tile.shared<128x64xbf16, swizzle = 128>
      %next = tile.gemm %a, %b, %c {transpose_b} : ... -> tensor<128x128xf32>
      tile.yield %next : tensor<128x128xf32>
    }
    ```
  }];
  let arguments = (ins Index:$lowerBound, Index:$upperBound, Index:$step,
                       Variadic<AnyType>:$initArgs,
                       I64Attr:$stages, DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$lb, "::mlir::Value":$ub,
      "::mlir::Value":$step, "int64_t":$stages, "int64_t":$groups,
      CArg<"::mlir::ValueRange", "{}">:$initArgs)>];
  let extraClassDeclaration = [{
    ::mlir::Value getInductionVar() { return getBody().getArgument(0); }
    ::mlir::Block::BlockArgListType getRegionIterArgs() {
      return getBody().getArguments().drop_front();
    }
  }];
}

//===----------------------------------------------------------------------===//
// Shared memory once planned, block barriers, warp shuffles: what the passes
// lower tiles and fragments to on every target
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

def Tile_ShuffleXorOp : Tile_Op<"shuffle_xor", [Pure, Tile_InKernel,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "the value of lane (lane ^ mask) of this warp";
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
    %v = tile.shuffle_idx %x, %src : f32
    ```
  }];
  let arguments = (ins AnyTypeOf<[I32, F32]>:$value, I32:$lane);
  let results = (outs AnyTypeOf<[I32, F32]>:$result);
  let assemblyFormat = "$value `,` $lane attr-dict `:` type($value)";
}

def Tile_BarrierOp : Tile_Op<"barrier", [Tile_InKernel]> {
  let summary = "waits for every thread of the block (__syncthreads)";
  let description = [{
    ```mlir
    tile.barrier
    ```
    Also orders the block's shared-memory accesses before and after it.
  }];
  let assemblyFormat = "attr-dict";
}

#endif // MINITILE_TILE_OPS
