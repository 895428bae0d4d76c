//===- EmitLauncher.cpp - tile.host -> C++ source -------------------------===//
//
// Expects: a module after the tile passes: each tile.host holds arith on
//          scalars, tile.host_check, tile.check_ptr and one tile.launch.
// Writes:  straight-line C++ with one variable per SSA value.
//
//===----------------------------------------------------------------------===//
#include "lowering/EmitLauncher.h"
#include "dialect/HopperDialect.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace minitile {

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

/// Launcher parameters: the tensors, then the sizes and scalars, each in the
/// order the kernel declares them.
std::vector<unsigned> parameterOrder(tile::HostOp host) {
  std::vector<unsigned> order;
  for (bool pointers : {true, false})
    for (unsigned i = 0, e = host.getNumArguments(); i < e; ++i)
      if (llvm::isa<tile::PtrType>(host.getArgument(i).getType()) == pointers)
        order.push_back(i);
  return order;
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

class HostWriter {
public:
  HostWriter(tile::HostOp host, llvm::raw_ostream &os) : host_(host), os_(os) {}

  bool write(tile::KernelOp kernel, const llvm::DenseSet<unsigned> &written,
             std::string &error);

private:
  std::string name(Value v) { return names_.lookup(v); }
  std::string define(Value v, const std::string &expr) {
    std::string n = "v" + std::to_string(counter_++);
    names_[v] = n;
    os_ << "  const " << cppType(v.getType()) << " " << n << " = " << expr << ";\n";
    return n;
  }
  std::string quoted(StringRef s) {
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
  bool writeOp(Operation &op, tile::KernelOp kernel, std::string &error);

  tile::HostOp host_;
  llvm::raw_ostream &os_;
  llvm::DenseMap<Value, std::string> names_;
  unsigned counter_ = 0;
};

bool HostWriter::write(tile::KernelOp kernel, const llvm::DenseSet<unsigned> &written,
                       std::string &error) {
  std::string kname = host_.getSymName().str();
  os_ << "void " << kname << "(";
  for (unsigned i : parameterOrder(host_)) {
    Value arg = host_.getArgument(i);
    names_[arg] = host_.getArgName(i).str();
    os_ << declare(cppType(arg.getType(), written.contains(i)), host_.getArgName(i))
        << ", ";
  }
  os_ << "CUstream stream) {\n"
      << "  static const char *const kKernel = " << quoted(kname) << ";\n";
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
                                       quoted(where(op.getLoc())) + ")");
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
        error = "the launcher cannot hold the constant of type " +
                std::string(cppType(c.getType()));
        return false;
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
        default:
          error = "the launcher cannot compute an unsigned comparison";
          return false;
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
      .Case([&](tile::HostCheckOp c) {
        os_ << "  if (!" << name(c.getCondition())
            << ") throw minitile::rt::Error(std::string(kKernel) + \": \" + "
            << quoted(c.getMessage()) << ");\n";
        return true;
      })
      .Case([&](tile::CheckPtrOp c) {
        os_ << "  minitile::rt::checkPointer(kKernel, " << quoted(name(c.getPtr()))
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
        const char *type = element.isBF16()      ? "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16"
                           : element.isF16()     ? "CU_TENSOR_MAP_DATA_TYPE_FLOAT16"
                           : element.isF32()     ? "CU_TENSOR_MAP_DATA_TYPE_FLOAT32"
                           : element.isInteger(32) ? "CU_TENSOR_MAP_DATA_TYPE_INT32"
                           : element.isInteger(8)  ? "CU_TENSOR_MAP_DATA_TYPE_UINT8"
                                                   : nullptr;
        if (!type) {
          error = "the launcher cannot make a tensor map of " + std::string(cppType(element));
          return false;
        }
        define(m, "minitile::rt::tensorMap(kKernel, " + quoted(m.getTensor()) + ", " +
                      name(m.getBase()) + ", " + name(m.getOffset()) + ", " + type + ", " +
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
        os_ << "  image().launch({" << gx << ", " << gy << ", " << gz << "}, {"
            << block[0] << ", " << block[1] << ", " << block[2] << "}, "
            << kernel.getSmemBytes() << ", stream, params);\n";
        return true;
      })
      .Case([&](tile::ReturnOp) { return true; })
      .Default([&](Operation *o) {
        error = "the launcher cannot compute '" +
                o->getName().getStringRef().str() + "'";
        return false;
      });
}

/// Pointer arguments the kernel stores through: their launcher parameters
/// are not const.
llvm::DenseSet<unsigned> writtenArguments(tile::KernelOp kernel) {
  llvm::DenseSet<unsigned> written;
  auto note = [&](Value tensor) {
    if (auto view = tile::rootView(tensor))
      if (auto arg = llvm::dyn_cast<BlockArgument>(view.getBase()))
        written.insert(arg.getArgNumber());
  };
  kernel.walk([&](tile::StoreOp store) { note(store.getTensor()); });
  kernel.walk([&](tile::StoreTileOp store) { note(store.getDest()); });
  return written;
}

void writeImage(llvm::raw_ostream &os, const std::vector<char> &image, bool isCubin) {
  os << "alignas(64) const unsigned char kImage[] = {";
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
    auto kernel = module.lookupSymbol<tile::KernelOp>(launch.getKernel());
    if (!kernel) {
      error = "launcher '" + host.getSymName().str() + "' launches a missing kernel";
      return false;
    }
    llvm::DenseSet<unsigned> written = writtenArguments(kernel);

    // Declaration, with the kernel's documentation and its arguments.
    if (auto doc = host.getDoc())
      h << "/// " << host.getSymName() << ": " << *doc << "\n";
    std::vector<unsigned> order = parameterOrder(host);
    for (unsigned i : order) {
      Type t = host.getArgument(i).getType();
      h << "///   " << host.getArgName(i) << ": ";
      if (auto ptr = llvm::dyn_cast<tile::PtrType>(t)) {
        h << "device pointer to " << ptr.getElementType();
        h << (written.contains(i) ? ", written" : ", read");
      } else {
        h << t << (host.getArgAttr(i, "tile.size") ? " size" : " scalar");
      }
      h << "\n";
    }
    h << "/// Throws minitile::rt::Error on a bad argument or a CUDA failure.\n";
    h << "void " << host.getSymName() << "(";
    for (unsigned i : order) {
      std::string type = cppType(host.getArgument(i).getType(), written.contains(i));
      if (type.empty()) {
        error = "argument '" + host.getArgName(i).str() +
                "' has a type the launcher cannot pass";
        return false;
      }
      h << declare(type, host.getArgName(i)) << ", ";
    }
    h << "CUstream stream = nullptr);\n\n";

    // Definition.
    s << "namespace {\n";
    writeImage(s, image, isCubin);
    s << "minitile::rt::KernelImage &image() {\n"
      << "  static minitile::rt::KernelImage image(kImage, sizeof kImage, "
      << (isCubin ? "minitile::rt::ImageKind::cubin" : "minitile::rt::ImageKind::ptx")
      << ", \"" << kernel.getSymName() << "\");\n  return image;\n}\n"
      << "} // namespace\n\nnamespace " << options.cppNamespace << " {\n\n";
    HostWriter writer(host, s);
    if (!writer.write(kernel, written, error))
      return false;
    s << "\n} // namespace " << options.cppNamespace << "\n";
  }
  h << "} // namespace " << options.cppNamespace << "\n";
  out.header = std::move(header);
  out.source = std::move(source);
  return true;
}

} // namespace minitile
