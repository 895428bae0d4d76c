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
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def Tile_TensorType : Tile_Type<"GlobalTensor", "tensor"> {
  let summary = "a strided view of global memory; the innermost stride is 1";
  let description = [{
    `!tile.tensor<?x64xf32>`: a rank-2 view with a runtime outer size and a
    static inner size. Outer strides are runtime values held by the view.
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
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def Tile_Dim : I32EnumAttr<"Dim", "a launch dimension: x, y or z",
    [I32EnumAttrCase<"x", 0>, I32EnumAttrCase<"y", 1>, I32EnumAttrCase<"z", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::minitile::tile";
}
def Tile_DimAttr : EnumAttr<Tile_Dialect, Tile_Dim, "dim">;

def Tile_AnyPtr : Type<CPred<"::llvm::isa<::minitile::tile::PtrType>($_self)">,
                       "tile pointer", "::minitile::tile::PtrType">;
def Tile_AnyTensor : Type<CPred<"::llvm::isa<::minitile::tile::GlobalTensorType>($_self)">,
                          "tile tensor", "::minitile::tile::GlobalTensorType">;
def Tile_AnyLocal : Type<CPred<"::llvm::isa<::minitile::tile::LocalType>($_self)">,
                         "tile local variable", "::minitile::tile::LocalType">;

// Ops that only make sense inside device code.
def Tile_InKernel : NativeOpTrait<"InKernel"> {
  let cppNamespace = "::minitile::tile";
}

#endif // MINITILE_TILE_BASE
