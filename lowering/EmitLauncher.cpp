//===- EmitLauncher.cpp - tile.host -> C++ source -------------------------===//
//
// Expects: a module after the tile passes: each tile.host holds arith on
//          scalars, tile.host_check, tile.check_ptr and one tile.launch.
// Writes:  straight-line C++ with one variable per SSA value.
//
//===----------------------------------------------------------------------===//
#include "lowering/EmitLauncher.h"
#include "dialect/HopperDialect.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace minitile {

std::string cppStringLiteral(llvm::StringRef s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      r += '\\';
    if (c == '\n') {
      r += "\\n";
      continue;
    }
    r += c;
  }
  return r + "\"";
}

using namespace mlir;

namespace {

/// The C++ spelling of a launcher parameter or host value type.
std::string cppType(Type t, bool writable = true) {
  if (auto ptr = llvm::dyn_cast<tile::PtrType>(t))
    return (writable ? "" : "const ") + cppType(ptr.getElementType()) + " *";

  if (t.isIndex() || t.isInteger(64)) return "int64_t";
  if (t.isInteger(32)) return "int32_t";
  if (t.isInteger(16)) return "int16_t";
  if (t.isInteger(8)) return "int8_t";
  if (t.isInteger(1)) return "bool";
  if (t.isF32()) return "float";
  if (t.isF64()) return "double";
  if (t.isBF16()) return "minitile::rt::bf16";
  if (t.isF16()) return "minitile::rt::f16";
  if (llvm::isa<hopper::TmaDescType>(t)) return "CUtensorMap";
  return "";
}

/// The CUtensorMapDataType of `element`: every element type of the DSL has
/// one.
const char *tensorMapType(Type element) {
  const char *type = element.isBF16()                              ? "BFLOAT16"
                     : element.isF16()                             ? "FLOAT16"
                     : element.isF32()                             ? "FLOAT32"
                     : element.isF64()                             ? "FLOAT64"
                     : element.isInteger(1) || element.isInteger(8) ? "UINT8"
                     : element.isInteger(16)                       ? "UINT16"
                     : element.isInteger(32)                       ? "INT32"
                     : element.isInteger(64)                       ? "INT64"
                                                                   : nullptr;
  assert(type && "a tensor map of an element type the DSL does not have");
  return type;
}

/// The C++ type of launcher parameter `arg`: a pointer (const unless the
/// kernel writes through it) for a tensor, minitile::rt::Scalar<T> for an
/// arithmetic size or scalar, so that a call cannot convert one silently.
std::string parameterType(Value arg, bool written) {
  std::string type = cppType(arg.getType(), written);
  Type t = arg.getType();
  if (!type.empty() && !llvm::isa<tile::PtrType>(t) && (t.isIndex() || t.isIntOrFloat()) &&
      !t.isBF16() && !t.isF16())
    return "minitile::rt::Scalar<" + type + ">";
  return type;
}

/// Whether `arg`, a tensor argument of the launcher, is written by its kernel
/// (or not known to be only read).
bool isWritten(const LauncherOptions &options, tile::HostOp host, unsigned i) {
  auto it = options.access.find(host.getSymName().str() + "/" + host.getArgName(i).str());
  return it == options.access.end() || it->second.written;
}

/// "kernels/clean_logits.cpp:31", or "" for an unknown location.
std::string where(Location loc) {
  if (auto file = llvm::dyn_cast<FileLineColLoc>(loc))
    return file.getFilename().str() + ":" + std::to_string(file.getLine());
  return "";
}

/// "float *logits", "int64_t S".
std::string declare(const std::string &type, llvm::StringRef name) {
  return type + (type.back() == '*' ? "" : " ") + name.str();
}

/// The launcher's parameters as declared, each followed by ", ": the
/// stream, which ends every launcher, is the caller's to add.
std::string parameterList(tile::HostOp host, const LauncherOptions &options) {
  std::string list;
  for (unsigned i = 0, e = host.getNumArguments(); i < e; ++i) {
    std::string type = parameterType(host.getArgument(i), isWritten(options, host, i));
    assert(!type.empty() && "a launcher argument of a type the DSL does not make");
    list += declare(type, host.getArgName(i)) + ", ";
  }
  return list;
}

class HostWriter {
public:
  HostWriter(tile::HostOp host, llvm::raw_ostream &os, std::string variant = "")
      : host_(host), os_(os), variant_(std::move(variant)) {}

  bool write(tile::KernelOp kernel, const LauncherOptions &options, std::string &error);

private:
  std::string name(Value v) { return names_.lookup(v); }
  std::string define(Value v, const std::string &expr) {
    std::string n = "v" + std::to_string(counter_++);
    names_[v] = n;
    os_ << "  const " << cppType(v.getType()) << " " << n << " = " << expr << ";\n";
    return n;
  }
  bool writeOp(Operation &op, tile::KernelOp kernel, std::string &error);
  /// Reports `op`, which C++ on int64_t cannot compute, at its DSL line.
  bool cannotCompute(Operation &op, std::string &error) {
    llvm::raw_string_ostream os(error);
    os << "the launcher computes only integer arithmetic, not '" << op.getName() << "'";
    auto types = llvm::concat<Type>(op.getOperandTypes(), op.getResultTypes());
    auto other = llvm::find_if(types, [](Type t) { return !t.isIntOrIndex(); });
    if (other != types.end())
      os << " on " << *other;
    op.emitError(error);
    return false;
  }

  tile::HostOp host_;
  llvm::raw_ostream &os_;
  std::string variant_;
  llvm::DenseMap<Value, std::string> names_;
  unsigned counter_ = 0;
};

bool HostWriter::write(tile::KernelOp kernel, const LauncherOptions &options,
                       std::string &error) {
  std::string kname = host_.getSymName().str();
  os_ << (variant_.empty() ? "" : "static ") << "void " << kname << variant_ << "("
      << parameterList(host_, options) << "CUstream stream) {\n"
      << "  static const char *const kKernel = " << cppStringLiteral(kname) << ";\n";
  // Tensors are used by name; sizes and scalars through plain values.
  for (unsigned i = 0, e = host_.getNumArguments(); i < e; ++i) {
    Value arg = host_.getArgument(i);
    std::string name = host_.getArgName(i).str();
    if (parameterType(arg, true) != cppType(arg.getType()))
      define(arg, name + ".value");
    else
      names_[arg] = name;
  }
  for (Operation &op : host_.getBody().front())
    if (!writeOp(op, kernel, error))
      return false;
  os_ << "}\n";
  return true;
}

bool HostWriter::writeOp(Operation &op, tile::KernelOp kernel, std::string &error) {
  // Sizes are the caller's: their products may overflow, which C++ leaves
  // undefined. The runtime's checked helpers throw instead, naming the DSL
  // line that computes the value.
  auto checked = [&](const char *fn) {
    return define(op.getResult(0), std::string("minitile::rt::") + fn + "(" +
                                       name(op.getOperand(0)) + ", " +
                                       name(op.getOperand(1)) + ", kKernel, " +
                                       cppStringLiteral(where(op.getLoc())) + ")");
  };
  auto bin = [&](const char *sym) {
    return define(op.getResult(0), "(" + name(op.getOperand(0)) + " " + sym + " " +
                                        name(op.getOperand(1)) + ")");
  };
  auto call = [&](const char *fn) {
    return define(op.getResult(0), std::string(fn) + "(" + name(op.getOperand(0)) +
                                       ", " + name(op.getOperand(1)) + ", kKernel)");
  };
  auto cast = [&] {
    return define(op.getResult(0), "static_cast<" + cppType(op.getResult(0).getType()) +
                                       ">(" + name(op.getOperand(0)) + ")");
  };
  bool isBool = op.getNumOperands() && op.getOperand(0).getType().isInteger(1);
  return llvm::TypeSwitch<Operation *, bool>(&op)
      .Case([&](arith::ConstantOp c) {
        Attribute value = c.getValue();
        if (auto i = llvm::dyn_cast<IntegerAttr>(value)) {
          if (c.getType().isInteger(1))
            define(c, i.getValue().isZero() ? "false" : "true");
          else
            define(c, std::to_string(i.getValue().getSExtValue()) + "LL");
          return true;
        }
        return cannotCompute(op, error);
      })
      .Case([&](arith::AddIOp) { return !checked("add").empty(); })
      .Case([&](arith::SubIOp) { return !checked("subtract").empty(); })
      .Case([&](arith::MulIOp) { return !checked("multiply").empty(); })
      .Case([&](arith::DivSIOp) { return !call("minitile::rt::divide").empty(); })
      .Case([&](arith::RemSIOp) { return !call("minitile::rt::remainder").empty(); })
      .Case([&](arith::CeilDivSIOp) {
        return !call("minitile::rt::ceilDivide").empty();
      })
      .Case([&](arith::MinSIOp m) {
        define(m, "std::min(" + name(m.getLhs()) + ", " + name(m.getRhs()) + ")");
        return true;
      })
      .Case([&](arith::MaxSIOp m) {
        define(m, "std::max(" + name(m.getLhs()) + ", " + name(m.getRhs()) + ")");
        return true;
      })
      .Case([&](arith::AndIOp) { return !bin(isBool ? "&&" : "&").empty(); })
      .Case([&](arith::OrIOp) { return !bin(isBool ? "||" : "|").empty(); })
      .Case([&](arith::XOrIOp) { return !bin(isBool ? "!=" : "^").empty(); })
      .Case([&](arith::CmpIOp c) {
        using P = arith::CmpIPredicate;
        const char *sym = nullptr;
        switch (c.getPredicate()) {
        case P::eq: sym = "=="; break;
        case P::ne: sym = "!="; break;
        case P::slt: sym = "<"; break;
        case P::sle: sym = "<="; break;
        case P::sgt: sym = ">"; break;
        case P::sge: sym = ">="; break;
        default: // unsigned: the DSL compares signed
          return cannotCompute(op, error);
        }
        return !bin(sym).empty();
      })
      .Case([&](arith::SelectOp s) {
        define(s, "(" + name(s.getCondition()) + " ? " + name(s.getTrueValue()) +
                      " : " + name(s.getFalseValue()) + ")");
        return true;
      })
      .Case<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>(
          [&](Operation *) { return !cast().empty(); })
      .Case([&](tile::MultiprocessorCountOp m) {
        define(m, "int64_t(minitile::rt::multiprocessorCount())");
        return true;
      })
      .Case([&](tile::WorkCounterOp m) {
        define(m, "minitile::rt::workCounter(stream)");
        return true;
      })
      .Case([&](tile::HostCheckOp c) {
        os_ << "  if (!" << name(c.getCondition())
            << ") throw minitile::rt::Error(std::string(kKernel) + \": \" + "
            << cppStringLiteral(c.getMessage()) << ");\n";
        return true;
      })
      .Case([&](tile::CheckPtrOp c) {
        os_ << "  minitile::rt::checkPointer(kKernel, " << cppStringLiteral(name(c.getPtr()))
            << ", " << name(c.getPtr()) << ", " << name(c.getNumel()) << ", "
            << c.getAlign() << ");\n";
        return true;
      })
      .Case([&](hopper::MakeTmaDescOp m) {
        std::string id = std::to_string(counter_);
        auto list = [&](const char *what, auto &&values) {
          os_ << "  const int64_t " << what << id << "[] = {";
          llvm::interleaveComma(values, os_);
          os_ << "};\n";
        };
        SmallVector<std::string> dims, strides;
        for (Value v : m.getDims())
          dims.push_back(name(v));
        for (Value v : m.getStrides())
          strides.push_back(name(v));
        strides.push_back("0");
        list("dims", dims);
        list("strides", strides);
        list("box", m.getBox());
        Type element = llvm::cast<tile::PtrType>(m.getBase().getType()).getElementType();
        const char *type = tensorMapType(element);
        define(m, "minitile::rt::tensorMap(kKernel, " + cppStringLiteral(m.getTensor()) + ", " +
                      name(m.getBase()) + ", " + name(m.getOffset()) +
                      ", CU_TENSOR_MAP_DATA_TYPE_" + type + ", " +
                      std::to_string(tile::elementBytes(element)) + ", " +
                      std::to_string(m.getDims().size()) + ", dims" + id + ", strides" + id +
                      ", box" + id + ", " + std::to_string(m.getSwizzle()) + ")");
        return true;
      })
      .Case([&](tile::LaunchOp l) {
        std::string gx = name(l.getGridX()), gy = name(l.getGridY()),
                    gz = name(l.getGridZ());
        os_ << "  if (" << gx << " == 0 || " << gy << " == 0 || " << gz
            << " == 0) return;  // an empty grid: nothing to do\n";
        os_ << "  void *params[] = {";
        for (Value arg : l.getArgs())
          os_ << "const_cast<void *>(static_cast<const void *>(&" << name(arg) << ")), ";
        os_ << "nullptr};\n";
        ArrayRef<int32_t> block = kernel.getBlock();
        os_ << "  image" << variant_ << "().launch({" << gx << ", " << gy << ", " << gz << "}, {"
            << block[0] << ", " << block[1] << ", " << block[2] << "}, "
            << kernel.getSmemBytes() << ", stream, params, "
            << cppStringLiteral(where(l.getLoc())) << ");\n";
        return true;
      })
      .Case([&](tile::ReturnOp) { return true; })
      .Default([&](Operation *) { return cannotCompute(op, error); });
}

void writeImage(llvm::raw_ostream &os, const std::vector<char> &image, bool isCubin,
                StringRef variant) {
  os << "alignas(64) const unsigned char kImage" << variant << "[] = {";
  for (size_t i = 0; i < image.size(); ++i) {
    if (i % 16 == 0)
      os << "\n   ";
    os << " 0x" << llvm::format_hex_no_prefix(static_cast<unsigned char>(image[i]), 2)
       << ",";
  }
  if (!isCubin)
    os << " 0x00"; // PTX is loaded as a C string
  os << "};\n";
}

} // namespace

TensorAccessMap analyzeTensorAccess(ModuleOp module) {
  TensorAccessMap map;
  for (auto host : module.getOps<tile::HostOp>()) {
    auto launches = host.getBody().getOps<tile::LaunchOp>();
    if (launches.empty())
      continue;
    tile::LaunchOp launch = *launches.begin();
    auto kernel = module.lookupSymbol<tile::KernelOp>(launch.getKernel());
    if (!kernel)
      continue;
    for (auto [j, operand] : llvm::enumerate(launch.getArgs())) {
      auto arg = llvm::dyn_cast<BlockArgument>(operand);
      if (!arg || arg.getOwner()->getParentOp() != host ||
          !llvm::isa<tile::PtrType>(arg.getType()))
        continue;
      TensorAccess &access =
          map[host.getSymName().str() + "/" + host.getArgName(arg.getArgNumber()).str()];
      tile::PointerAccess a = tile::pointerAccess(kernel.getArgument(j));
      access.read |= a.read;
      access.written |= a.written;
    }
  }
  return map;
}

bool describeLauncherArguments(ModuleOp module, const TensorAccessMap &access,
                               std::vector<LauncherArgument> &out, std::string &error) {
  auto hosts = module.getOps<tile::HostOp>();
  if (hosts.empty()) {
    error = "the module has no tile.host";
    return false;
  }
  tile::HostOp host = *hosts.begin();
  tile::LaunchOp launch = *host.getBody().getOps<tile::LaunchOp>().begin();
  auto kernel = module.lookupSymbol<tile::KernelOp>(launch.getKernel());
  std::string typeText;
  auto print = [&](Type t) {
    typeText.clear();
    llvm::raw_string_ostream os(typeText);
    os << t;
    return typeText;
  };
  out.clear();
  for (unsigned i = 0, e = host.getNumArguments(); i < e; ++i) {
    Value arg = host.getArgument(i);
    LauncherArgument a;
    a.name = host.getArgName(i).str();
    auto ptr = llvm::dyn_cast<tile::PtrType>(arg.getType());
    if (!ptr) {
      a.kind = host.getArgAttr(i, "tile.size") ? LauncherArgument::Kind::size
                                               : LauncherArgument::Kind::scalar;
      a.type = print(arg.getType());
      out.push_back(std::move(a));
      continue;
    }
    a.kind = LauncherArgument::Kind::tensor;
    a.type = print(ptr.getElementType());
    auto it = access.find(host.getSymName().str() + "/" + a.name);
    a.access = it == access.end() ? TensorAccess{true, true} : it->second;
    // The shape: the tensor() call made the first view of the pointer, at
    // the kernel's entry, from expressions of size arguments and constants.
    tile::ViewOp view;
    for (auto [j, operand] : llvm::enumerate(launch.getArgs()))
      if (operand == arg && kernel)
        for (Operation *user : kernel.getArgument(j).getUsers())
          if (auto v = llvm::dyn_cast<tile::ViewOp>(user);
              v && v.getBase() == kernel.getArgument(j) &&
              (!view || v->isBeforeInBlock(view)))
            view = v;
    if (!view) {
      error = "tensor '" + a.name + "' has no view giving its shape";
      return false;
    }
    auto type = llvm::cast<tile::GlobalTensorType>(view.getResult().getType());
    unsigned dynamic = 0;
    for (int64_t size : type.getShape()) {
      if (!ShapedType::isDynamic(size)) {
        a.dims.push_back(tile::SizeExpr::of(size));
      } else {
        std::string why;
        std::optional<tile::SizeExpr> e =
            kernel ? tile::sizeExprOf(view.getSizes()[dynamic++], kernel, &why) : std::nullopt;
        if (!e) {
          error = "the shape of tensor '" + a.name +
                  "' is not an expression of sizes and constants (it depends on " + why + ")";
          return false;
        }
        a.dims.push_back(std::move(*e));
      }
      a.shape.push_back(a.dims.back().text());
    }
    out.push_back(std::move(a));
  }
  return true;
}

bool emitLauncher(ModuleOp module, const std::vector<char> &image, bool isCubin,
                  const LauncherOptions &options, LauncherSource &out,
                  std::string &error) {
  std::string header, source;
  llvm::raw_string_ostream h(header), s(source);
  h << "// " << options.provenance << "\n// Generated by minitile; do not edit.\n"
    << "#pragma once\n\n#include <minitile/runtime.h>\n\n#include <cstdint>\n\n"
    << "namespace " << options.cppNamespace << " {\n\n";
  s << "// " << options.provenance << "\n// Generated by minitile; do not edit.\n"
    << "#include \"" << options.headerName << "\"\n\n"
    << "#include <algorithm>\n#include <string>\n\n";

  for (auto host : module.getOps<tile::HostOp>()) {
    auto launch = *host.getBody().getOps<tile::LaunchOp>().begin();
    // tile.launch's verifier has checked that it names a tile.kernel.
    auto kernel = module.lookupSymbol<tile::KernelOp>(launch.getKernel());
    // Declaration, with the kernel's documentation and its arguments.
    if (auto doc = host.getDoc())
      h << "/// " << host.getSymName() << ": " << *doc << "\n";
    h << "/// Arguments in the order the kernel declares them, then the stream:\n";
    for (unsigned i = 0, e = host.getNumArguments(); i < e; ++i) {
      Type t = host.getArgument(i).getType();
      h << "///   " << host.getArgName(i) << ": ";
      if (auto ptr = llvm::dyn_cast<tile::PtrType>(t)) {
        auto it = options.access.find(host.getSymName().str() + "/" +
                                      host.getArgName(i).str());
        TensorAccess a = it == options.access.end() ? TensorAccess{true, true} : it->second;
        h << "device pointer to " << ptr.getElementType() << ", "
          << (a.read && a.written ? "read and written"
              : a.written         ? "written"
              : a.read            ? "read"
                                  : "not used");
      } else {
        h << (host.getArgAttr(i, "tile.size") ? "size, " : "scalar, ") << cppType(t);
      }
      h << "\n";
    }
    h << "/// Throws minitile::rt::Error on a bad argument or a CUDA failure.\n";
    std::string parameters = parameterList(host, options);
    h << "void " << host.getSymName() << "(" << parameters << "CUstream stream = nullptr);\n\n";

    // Definition.
    std::string definitions;
    llvm::raw_string_ostream d(definitions);
    const std::string &v = options.variant;
    d << "namespace {\n";
    writeImage(d, image, isCubin, v);
    d << "minitile::rt::KernelImage &image" << v << "() {\n"
      << "  static minitile::rt::KernelImage image(kImage" << v << ", sizeof kImage" << v << ", "
      << (isCubin ? "minitile::rt::ImageKind::cubin" : "minitile::rt::ImageKind::ptx")
      << ", \"" << kernel.getSymName() << "\");\n  return image;\n}\n"
      << "} // namespace\n\nnamespace " << options.cppNamespace << " {\n\n";
    HostWriter writer(host, d, v);
    if (!writer.write(kernel, options, error))
      return false;
    d << "\n} // namespace " << options.cppNamespace << "\n";
    s << definitions;
    out.definitions += definitions;

    // What composeDispatch() needs to call it.
    std::string name = host.getSymName().str(), args;
    out.signature = "void " + name + "(" + parameters + "CUstream stream)";
    for (unsigned i = 0, e = host.getNumArguments(); i < e; ++i) {
      args += host.getArgName(i).str() + ", ";
      if (host.getArgAttr(i, "tile.size"))
        out.sizes.push_back(host.getArgName(i).str());
    }
    out.call = name + v + "(" + args + "stream)";
  }
  h << "} // namespace " << options.cppNamespace << "\n";
  out.header = std::move(header);
  out.source = std::move(source);
  return true;
}

bool composeDispatch(const std::vector<DispatchVariant> &variants,
                     const DispatchTables &tables, const LauncherOptions &options,
                     LauncherSource &out, std::string &error) {
  assert(!variants.empty() && "nothing to dispatch among");
  const LauncherSource &first = variants.front().launcher;
  // Every variant's launcher takes the same arguments.
  for (const DispatchVariant &v : variants)
    if (v.launcher.signature != first.signature) {
      error = "the tuned variants have different launchers ('" + first.signature +
              "' with " + variants.front().description + ", '" + v.launcher.signature +
              "' with " + v.description + "); dispatching needs one";
      return false;
    }
  const int nTables = std::max<int>(1, tables.devices.size());
  // The sizes the shapes name, in the launcher's order.
  std::vector<std::string> names;
  for (const std::string &size : first.sizes)
    for (const DispatchVariant &v : variants)
      for (const auto &shape : v.shapes)
        for (const auto &entry : shape.sizes)
          if (entry.first == size && llvm::find(names, size) == names.end())
            names.push_back(size);

  // Per table: its tuned shapes (a row per shape, a column per size; a
  // shape that leaves a size out counts it as 1, as nearestVariant() does
  // for sizes below 1 -- the column then does not decide), the variant of
  // each, and its line for all shapes' variant.
  struct Table {
    std::string rows, variantOf, shapesText;
    unsigned count = 0;
    int general = -1;
  };
  std::vector<Table> perTable(nTables);
  for (auto [i, v] : llvm::enumerate(variants)) {
    for (int t : v.generalOn)
      perTable[t].general = int(i);
    for (const auto &shape : v.shapes) {
      Table &table = perTable[shape.table];
      table.rows += "      {";
      std::string text;
      for (auto [j, size] : llvm::enumerate(names)) {
        int64_t value = 1;
        for (const auto &entry : shape.sizes)
          if (entry.first == size)
            value = entry.second;
        table.rows += (j ? ", " : "") + std::to_string(value) + ".0";
        text += (j ? "," : "") + size + "=" + std::to_string(value);
      }
      table.rows += "},  // " + text + ": " + v.description + "\n";
      table.variantOf += (table.count ? ", " : "") + std::to_string(i);
      table.shapesText += (table.count ? "; " : "") + text;
      ++table.count;
    }
  }

  // The header: the first variant's declaration, its documentation saying
  // how the call chooses.
  std::string header = first.header;
  size_t eol = header.find('\n');
  header = "// " + options.provenance + header.substr(eol);
  size_t throws = header.find("/// Throws minitile::rt::Error");
  assert(throws != std::string::npos && "emitLauncher writes the Throws line");
  std::string how = "/// Compiled " + std::to_string(variants.size()) + " times";
  for (int t = 0; t < nTables; ++t) {
    const Table &table = perTable[t];
    std::string on = nTables > 1 ? "on " + tables.devices[t] +
                                       (t == tables.fallback ? " (and devices no table names)"
                                                             : "") +
                                       ", "
                                 : "";
    std::string general =
        table.general >= 0 ? variants[table.general].description : std::string();
    how += nTables > 1 ? ".\n/// " + on : ", ";
    if (table.count == 0)
      how += "every call runs " + general;
    else
      how += "with the values tuned for " + table.shapesText +
             ": each call runs the one tuned for the shape nearest its sizes "
             "(least sum of |log2 size - log2 tuned|)" +
             (table.general >= 0 ? ", the one for all shapes (" + general +
                                       ") where shapes of two are as near"
                                 : std::string());
  }
  header.insert(throws, how + ".\n");

  std::string source;
  llvm::raw_string_ostream s(source);
  s << "// " << options.provenance << "\n// Generated by minitile; do not edit.\n"
    << "#include \"" << options.headerName << "\"\n\n"
    << "#include <algorithm>\n#include <string>\n\n";
  for (const DispatchVariant &v : variants)
    s << "// " << v.description << "\n" << v.launcher.definitions << "\n";
  s << "namespace " << options.cppNamespace << " {\n\n" << first.signature << " {\n";
  auto sizes = [&](llvm::StringRef indent) {
    s << indent << "const int64_t sizes[] = {";
    for (auto [j, size] : llvm::enumerate(names))
      s << (j ? ", " : "") << size << ".value";
    s << "};\n";
  };
  // One table's choice, into `variant`, or its switch's subject.
  auto choose = [&](const Table &table, llvm::StringRef indent, bool assign) {
    std::string lhs = assign ? "variant = " : "switch (";
    std::string rhs = assign ? ";\n" : ") {\n";
    if (table.count == 0) {
      s << indent << lhs << table.general << rhs;
      return;
    }
    s << indent << "// The shapes the variants were tuned for (" << llvm::join(names, ", ")
      << ").\n"
      << indent << "static const double kTuned[][" << names.size() << "] = {\n"
      << table.rows << indent << "};\n"
      << indent << "static const int kVariant[] = {" << table.variantOf << "};\n";
    sizes(indent);
    s << indent << lhs << "minitile::rt::nearestVariant(&kTuned[0][0], kVariant, "
      << table.count << ", " << names.size() << ", sizes, " << table.general << ")" << rhs;
  };
  if (nTables == 1) {
    choose(perTable[0], "  ", false);
  } else {
    s << "  // The tables the variants come from, one per device.\n"
      << "  static const char *const kDevices[] = {";
    for (auto [t, device] : llvm::enumerate(tables.devices))
      s << (t ? ", " : "") << "\"" << device << "\"";
    s << "};\n  static minitile::rt::DeviceTableCache deviceCache;\n"
      << "  int variant = 0;\n"
      << "  switch (minitile::rt::deviceTable(kDevices, " << nTables << ", "
      << tables.fallback << ", deviceCache)) {\n";
    for (int t = 0; t < nTables; ++t) {
      s << (t + 1 == nTables ? "  default: {" : "  case " + std::to_string(t) + ": {") << "  // "
        << tables.devices[t] << "\n";
      choose(perTable[t], "    ", true);
      s << "    break;\n  }\n";
    }
    s << "  }\n  switch (variant) {\n";
  }
  for (auto [i, v] : llvm::enumerate(variants))
    s << (i + 1 == variants.size() ? "  default: " : "  case " + std::to_string(i) + ": ")
      << v.launcher.call << ";\n    return;\n";
  s << "  }\n}\n\n} // namespace " << options.cppNamespace << "\n";
  out.header = std::move(header);
  out.source = std::move(source);
  out.signature = first.signature;
  out.sizes = first.sizes;
  return true;
}

} // namespace minitile
