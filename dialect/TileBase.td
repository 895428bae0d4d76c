//===- TileBase.td - the tile dialect, its types and attributes ----------===//
//
// A minitile program is a module holding, for each kernel, a `tile.host`
// function (the launcher: argument checks, grid size, launch) and the
// `tile.kernel` it launches (the device code). Scalars and, later, fragments
// use upstream `arith`; memory, threads, loops and launches are tile ops.
//
//===----------------------------------------------------------------------===//
#ifndef MINITILE_TILE_BASE
#define MINITILE_TILE_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::minitile::tile";
  let summary = "Tile-level kernels for NVIDIA GPUs";
  let description = [{
    Global tensors are views (`!tile.tensor`) of kernel pointer arguments with
    runtime sizes. Device code runs on a block of threads: `tile.parallel`
    spreads a loop over them, `tile.for` runs a loop in every thread.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // `tile.target = "sm_90a"` on a module: the architecture it is compiled for.
  let hasOperationAttrVerify = 1;
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Tile_PtrType : Tile_Type<"Ptr", "ptr"> {
  let summary = "a pointer to global memory holding elements of one type";
  let description = [{
    The device address of a tensor's first element, as the launcher receives
    it; `tile.view` makes a tensor of it.

    ```mlir
    tile.kernel @ptr(%x: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 32, 1, 1>} {
      %v = tile.view %x sizes(%n) strides() : !tile.ptr<bf16> -> !tile.tensor<?xbf16>
      tile.return
    }
    ```
  }];
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def Tile_TensorType : Tile_Type<"GlobalTensor", "tensor"> {
  let summary = "a strided view of global memory; the innermost stride is 1";
  let description = [{
    `!tile.tensor<?x64xf32>`: a rank-2 view with a runtime outer size and a
    static inner size. Outer strides are runtime values held by the view.
    Elements are integers or floats.

    ```mlir
    tile.kernel @tensor(%q: !tile.ptr<bf16>, %S: index, %rowStride: index) attributes {block = array<i32: 32, 1, 1>} {
      %c128 = arith.constant 128 : index
      %v = tile.view %q sizes(%S) strides(%rowStride, %c128) : !tile.ptr<bf16> -> !tile.tensor<?x64x128xbf16>
      tile.return
    }
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getShape().size(); }
    /// Number of `?` dimensions: the sizes a `tile.view` supplies.
    unsigned getNumDynamicDims() const;
  }];
}

def Tile_LocalType : Tile_Type<"Local", "local"> {
  let summary = "a mutable per-thread variable";
  let description = [{
    Made by `tile.alloc_local`; each thread has its own.

    ```mlir
    tile.kernel @local() attributes {block = array<i32: 32, 1, 1>} {
      %acc = tile.alloc_local : !tile.local<f32>
      tile.return
    }
    ```
  }];
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def Tile_SharedType : Tile_Type<"Shared", "shared"> {
  let summary = "a tile in shared memory";
  let description = [{
    `!tile.shared<64x128xbf16, swizzle = 128>`. With a swizzle of S bytes the
    innermost dimension is stored in panels of S bytes: panel p holds columns
    [p * S / e, (p + 1) * S / e) of every row, rows S bytes apart, and the
    16-byte chunk c of row r sits at chunk c ^ (r % (S / 16)) -- the layout
    the tensor-memory accelerator writes and wgmma reads. Swizzle 0 is plain
    row-major, and is not printed.

    ```mlir
    tile.kernel @shared() attributes {block = array<i32: 128, 1, 1>} {
      %k = tile.alloc_shared : !tile.shared<64x128xbf16, swizzle = 128>
      %scratch = tile.alloc_shared : !tile.shared<4x4xf32>
      tile.return
    }
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType, "int64_t":$swizzle);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getShape().size(); }
    int64_t getNumElements() const;
    /// Bytes the tile occupies.
    int64_t getBytes() const;
    /// Elements per swizzle panel row (the whole row when not swizzled).
    int64_t getPanelWidth() const;
    /// Byte offset of element (row, col) of the tile seen as a matrix of
    /// rows = product of all outer dimensions.
    int64_t byteOffset(int64_t row, int64_t col) const;
  }];
}

def Tile_FragLayoutAttr : AttrDef<Tile_Dialect, "FragLayout"> {
  let mnemonic = "frag";
  let summary = "which thread and register hold each element of a fragment";
  let description = [{
    A linear layout: register bit i, lane bit i and warp bit i each add a
    coordinate vector (`reg`, `lane`, `warp`: one vector per bit, rank
    entries each) and the element a thread holds in a register is the sum over
    the set bits. A zero vector marks a bit whose values hold copies. Every
    vector has at most one non-zero entry, a power of two. There are 5 lane
    vectors; the warp vectors count the warps (a power of two) that execute
    the fragment's code. `tile-assign-layouts` puts one on every fragment
    type. Here, 2 warps hold a [32, 8] fragment, each thread 2 elements:

    ```mlir
    tile.kernel @frag() attributes {block = array<i32: 64, 1, 1>} {
      %z = arith.constant dense<0.0> : tensor<32x8xf32, #tile.frag<reg = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0]]>>
      tile.return
    }
    ```
  }];
  let parameters = (ins "unsigned":$rank, ArrayRefParameter<"int64_t">:$reg,
                        ArrayRefParameter<"int64_t">:$lane,
                        ArrayRefParameter<"int64_t">:$warp);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getNumRegBits() const { return getReg().size() / getRank(); }
    unsigned getNumWarpBits() const { return getWarp().size() / getRank(); }
    int64_t getNumRegs() const { return int64_t(1) << getNumRegBits(); }
    int64_t getNumWarps() const { return int64_t(1) << getNumWarpBits(); }
    ::llvm::ArrayRef<int64_t> regBasis(unsigned bit) const {
      return getReg().slice(bit * getRank(), getRank());
    }
    ::llvm::ArrayRef<int64_t> laneBasis(unsigned bit) const {
      return getLane().slice(bit * getRank(), getRank());
    }
    ::llvm::ArrayRef<int64_t> warpBasis(unsigned bit) const {
      return getWarp().slice(bit * getRank(), getRank());
    }
    /// The coordinate register `reg` of lane `lane` of warp `warp` holds.
    ::llvm::SmallVector<int64_t> coordinate(int64_t reg, int64_t lane, int64_t warp) const;
  }];
}

def Tile_AnyPtr : Type<CPred<"::llvm::isa<::minitile::tile::PtrType>($_self)">,
                       "tile pointer", "::minitile::tile::PtrType">;
def Tile_AnyTensor : Type<CPred<"::llvm::isa<::minitile::tile::GlobalTensorType>($_self)">,
                          "tile tensor", "::minitile::tile::GlobalTensorType">;
def Tile_AnyShared : Type<CPred<"::llvm::isa<::minitile::tile::SharedType>($_self)">,
                          "shared tile", "::minitile::tile::SharedType">;
// A fragment: a statically shaped builtin tensor, with a #tile.frag layout
// once layouts are assigned.
def Tile_Fragment : Type<CPred<"::minitile::tile::isFragmentType($_self)">,
                         "fragment (a static shape of power-of-two extents, at most "
                         "65536 elements)", "::mlir::RankedTensorType">;
def Tile_AnyLocal : Type<CPred<"::llvm::isa<::minitile::tile::LocalType>($_self)">,
                         "tile local variable", "::minitile::tile::LocalType">;

// Ops that only make sense inside device code.
def Tile_InKernel : NativeOpTrait<"InKernel"> {
  let cppNamespace = "::minitile::tile";
}

#endif // MINITILE_TILE_BASE
