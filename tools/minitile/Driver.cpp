//===- Driver.cpp - `minitile list`, `compile` and `tune` ----------------===//
#include "minitile/driver.h"
#include "tools/minitile/Compile.h"
#include "tools/minitile/Files.h"
#include "tools/minitile/PtxOverride.h"
#include "tools/minitile/Tune.h"

#include "minitile/dsl.h"

#include <CLI/CLI.hpp>

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/stat.h>
#include <unistd.h>

#include <iostream>
#include <map>
#include <set>

namespace minitile {

namespace {

int fail(const std::string &message) {
  // Messages from the DSL and the pipeline already say "file:line: error:"
  // (or start with "error: "); others may quote such a message later on.
  size_t at = message.find("error: ");
  bool located = at == 0 || (at != std::string::npos && at >= 2 &&
                             message.compare(at - 2, 2, ": ") == 0 &&
                             message.find(' ') == at - 1);
  std::cerr << "minitile: " << (located ? "" : "error: ") << message << "\n";
  return 1;
}

/// Says on stderr that a kernel spills or has its wgmmas serialised (it
/// compiles; a fast kernel must do neither).
void warnSlowCode(const CompileRequest &request, const CompileResult &result) {
  std::string slow = describeSlowCode(result);
  if (!slow.empty())
    std::cerr << "minitile: warning: " << request.kernel << " (" << describeParams(request)
              << ") " << slow << "\n";
}

/// "a directory", "a FIFO", ...: what lstat() says a path that is not a
/// regular file is.
std::string kindOf(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// A file written in full or not at all: the text goes to a temporary file
/// beside `path`, renamed over it once finished and removed otherwise -- also
/// when SIGINT, SIGTERM or SIGHUP ends the program (files::removeOnSignal).
///
/// `path` is a new path or an existing regular file the user may write
/// (which keeps its permissions). Anything else -- a symbolic link, a
/// device such as /dev/null, a FIFO, a directory, a read-only file -- is
/// refused before any work: renaming over it would replace it.
class OutputFile {
public:
  explicit OutputFile(std::string path) : path_(std::move(path)) {}
  ~OutputFile() {
    // A stream that failed (a full disk) must not report it again as it
    // is destroyed: raw_fd_ostream would abort with "IO failure on output
    // stream". The error was reported, or the file is abandoned anyway.
    if (stream_) {
      stream_->close();
      stream_->clear_error();
    }
    if (!temp_.empty()) {
      llvm::sys::fs::remove(temp_);
      files::keep(temp_.str().str());
    }
  }
  /// Creates the temporary file; false with `error` set if it cannot.
  bool open(std::string &error) {
    struct stat st;
    if (::lstat(path_.c_str(), &st) == 0) {
      if (!S_ISREG(st.st_mode)) {
        error = "'" + path_ + "' is " + kindOf(st.st_mode) +
                ", not a regular file; -o takes a new path or a regular file";
        return false;
      }
      if (!(st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) || ::access(path_.c_str(), W_OK)) {
        error = "'" + path_ + "' is read-only; minitile does not replace it";
        return false;
      }
      mode_ = st.st_mode & 07777;
    }
    llvm::SmallString<256> model(files::temporaryModel(path_));
    int fd;
    files::SignalsHeld held; // no moment where the file exists unregistered
    if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, temp_)) {
      error = "cannot write '" + path_ + "': " + ec.message();
      temp_.clear();
      return false;
    }
    files::removeOnSignal(temp_.str().str());
    stream_ = std::make_unique<llvm::raw_fd_ostream>(fd, /*shouldClose=*/true);
    return true;
  }
  llvm::raw_fd_ostream &os() { return *stream_; }
  /// Closes the temporary file: false with `error` set if any write failed
  /// (a full disk). Every file of an output is finished before any is
  /// installed, so a failure leaves none of them.
  bool finish(std::string &error) {
    stream_->close();
    if (stream_->has_error()) {
      error = "cannot write '" + path_ + "': " + stream_->error().message();
      stream_->clear_error();
      return false;
    }
    if (mode_ && ::chmod(temp_.c_str(), *mode_) != 0) {
      error = "cannot keep the permissions of '" + path_ + "'";
      return false;
    }
    return true;
  }
  /// Renames the finished temporary file over `path`.
  bool install(std::string &error) {
    files::SignalsHeld held;
    if (std::error_code ec = llvm::sys::fs::rename(temp_, path_)) {
      error = "cannot write '" + path_ + "': " + ec.message();
      return false;
    }
    files::keep(temp_.str().str());
    temp_.clear();
    return true;
  }

private:
  std::string path_;
  llvm::SmallString<256> temp_;
  std::unique_ptr<llvm::raw_fd_ostream> stream_;
  std::optional<mode_t> mode_; // of the file replaced
};

int list() {
  for (const GeneratorInfo &info : Registry::global().all()) {
    std::cout << info.name << ": " << info.summary << "\n";
    std::unique_ptr<Generator> gen;
    try {
      gen = info.create();
    } catch (const Error &e) { // a Param declared wrong, at its line
      std::cout.flush();
      return fail(e.what());
    }
    for (ParamBase *p : gen->params()) {
      std::cout << "  -p " << p->name() << "=" << p->value() << "  (" << p->domain()
                << ")";
      if (!p->help().empty())
        std::cout << "  " << p->help();
      std::cout << "\n";
    }
    std::vector<const TunedTableInfo *> tables = Registry::global().tunedTables(info.name);
    if (!tables.empty()) {
      std::cout << "  tuned (compile uses these where -p does not give a value; --untuned "
                   "does not):";
      for (const TunedTableInfo *t : tables)
        std::cout << " " << t->name << " (" << t->device
                  << (t->fallback ? ", also for devices without a table" : "") << ")";
      std::cout << "\n";
    }
  }
  return 0;
}

/// For --emit cpp: the header and source paths that -o names. `-o DIR/k.h`
/// (or `.hpp`) names the header, `-o DIR/k` (no extension) a stem; either
/// gives DIR/k.h (.hpp) and DIR/k.cpp. Anything else is ambiguous (is
/// `k.cpp` the source, or a stem for `k.cpp.h`?): false, with `error` set.
bool cppPaths(const std::string &out, std::pair<std::string, std::string> &paths,
              std::string &error) {
  llvm::StringRef file = llvm::sys::path::filename(out);
  if (file.empty() || file == "." || file == ".." || out.back() == '/') {
    error = "--emit cpp: -o names a file, not the directory '" + out + "'";
    return false;
  }
  llvm::StringRef ext = llvm::sys::path::extension(file);
  if (!ext.empty() && ext != ".h" && ext != ".hpp") {
    llvm::SmallString<256> stem(out);
    llvm::sys::path::replace_extension(stem, "");
    error = "--emit cpp: -o names the header ('" + stem.str().str() + ".h') or a stem "
            "without an extension ('" + stem.str().str() + "'), not '" + out + "'";
    return false;
  }
  // A stem names no file of its own, but one that exists as something else
  // than a regular file (a directory, a FIFO, a device, a symbolic link)
  // is a mistake: -o /dev/full would write /dev/full.h and /dev/full.cpp.
  struct stat st;
  if (ext.empty() && ::lstat(out.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    error = "--emit cpp: -o '" + out + "' is " + kindOf(st.st_mode) +
            "; it names the header (DIR/k.h) or a stem (DIR/k, writing DIR/k.h and DIR/k.cpp)";
    return false;
  }
  llvm::SmallString<256> header(out), source(out);
  if (ext.empty())
    header += ".h";
  else
    llvm::sys::path::replace_extension(source, "");
  source += ".cpp";
  paths = {header.str().str(), source.str().str()};
  return true;
}

/// Where the values -p does not give come from.
struct TunedSource {
  std::string file;   // --tuned FILE
  bool untuned = false; // --untuned: the generator's defaults
  std::string device; // --device NAME: that shipped table only
};

/// The tables `request` takes values from, with their names for messages
/// and their devices: --tuned's file, or the tables shipped with the
/// kernel (MINITILE_TUNED_TABLE) -- for a launcher each (its call picks by
/// its device), else the fallback's or --device's -- or none.
bool tunedTables(const CompileRequest &request, const TunedSource &source,
                 std::vector<std::pair<std::string, std::string>> &texts,
                 DispatchTables &tables, std::string &error) {
  if (!source.file.empty()) {
    std::string text;
    if (std::string why = files::readInput(source.file, text); !why.empty()) {
      error = "cannot read --tuned '" + source.file + "': " + why;
      return false;
    }
    texts.emplace_back(source.file, std::move(text));
    return true;
  }
  if (source.untuned)
    return true;
  std::vector<const TunedTableInfo *> shipped = Registry::global().tunedTables(request.kernel);
  if (!source.device.empty()) {
    std::string names;
    for (const TunedTableInfo *t : shipped) {
      if (llvm::StringRef(t->device).equals_insensitive(source.device)) {
        texts.emplace_back(t->name, t->text);
        return true;
      }
      names += (names.empty() ? "" : ", ") + t->device;
    }
    error = "--device " + source.device + ": kernel '" + request.kernel +
            "' ships no table for it (" +
            (names.empty() ? std::string("it ships none") : "it has " + names) + ")";
    return false;
  }
  for (const TunedTableInfo *t : shipped) {
    // (The fallback comes first.)
    if ((request.emit != Emit::cpp || !request.ptx.empty()) && !texts.empty())
      break;
    texts.emplace_back(t->name, t->text);
    tables.devices.push_back(t->device);
  }
  if (tables.devices.size() < 2)
    tables.devices.clear();
  return true;
}

int compileCommand(CompileRequest request, const std::vector<std::string> &params,
                   const TunedSource &source, const std::string &shape,
                   const std::string &output) {
  std::set<std::string> given;
  for (const std::string &p : params) {
    size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0)
      return fail("-p takes name=value, not '" + p + "'");
    std::string name = p.substr(0, eq);
    if (!given.insert(name).second)
      return fail("parameter '" + name + "' is given twice");
    request.params.emplace_back(name, p.substr(eq + 1));
  }
  // The tables' values for the parameters -p does not give: one kernel, or
  // one per tuned shape and device that a launcher dispatches among (the
  // variants of equal parameters joined).
  std::vector<std::pair<std::string, std::string>> texts;
  DispatchTables tables;
  std::string tablesError;
  if (!tunedTables(request, source, texts, tables, tablesError))
    return fail(tablesError);
  if (!shape.empty() && texts.empty())
    return fail("--shape chooses a line of a tuned table: give --tuned FILE too (kernel '" +
                request.kernel + "' ships none)");
  std::vector<TunedVariant> variants;
  std::vector<std::vector<std::pair<int, std::vector<std::pair<std::string, std::string>>>>>
      variantShapes;
  std::vector<std::vector<int>> generalOn;
  std::vector<std::vector<std::pair<std::string, std::string>>> seen;
  std::string tunedBy;
  std::vector<std::string> tunedNames;
  for (auto [t, named] : llvm::enumerate(texts)) {
    std::vector<TunedVariant> some;
    if (std::string error = applyTunedText(named.second, named.first, request.kernel,
                                           request.params, shape,
                                           request.emit == Emit::cpp && request.ptx.empty(),
                                           some);
        !error.empty())
      return fail(error + (source.file.empty() ? "; --untuned compiles without the shipped tables"
                                               : ""));
    for (TunedVariant &v : some) {
      std::string name = llvm::sys::path::filename(named.first).str();
      // (Named where a line gave a value -p did not.)
      if (!v.from.empty() && v.params.size() > request.params.size() &&
          !llvm::is_contained(tunedNames, name)) {
        tunedNames.push_back(name);
        tunedBy += (tunedBy.empty() ? "" : ", ") + name;
      }
      std::vector<std::pair<std::string, std::string>> every;
      std::string error;
      if (!effectiveParams(request.kernel, v.params, every, error))
        return fail(error + (v.from.empty() ? "" : " (with the values of " + v.from + ")") +
                    (source.file.empty() ? "; --untuned compiles without the shipped tables"
                                         : ""));
      size_t at = llvm::find(seen, every) - seen.begin();
      if (at == seen.size()) {
        seen.push_back(every);
        variants.push_back(v);
        variantShapes.emplace_back();
        generalOn.emplace_back();
      }
      for (auto &sizes : v.shapes)
        variantShapes[at].push_back({int(t), sizes});
      // A line for all shapes, or none (the plain values): the table's
      // kernel where its shapes do not decide.
      if (v.general || v.shapes.empty())
        generalOn[at].push_back(int(t));
    }
  }
  if (variants.size() == 1)
    request.params = variants.front().params;
  if (variants.size() > 1 && !request.ptx.empty())
    return fail("--ptx replaces one kernel's PTX, and the tuned tables give " +
                std::to_string(variants.size()) +
                " kernels: give --device, --untuned or the -p values of one");
  if (!tunedBy.empty())
    request.tunedBy = tunedBy + (source.file.empty() ? " (shipped)" : "");
  bool toStdout = output == "-";
  if (request.emit == Emit::cubin && toStdout)
    return fail("--emit cubin writes a binary: give -o FILE");

  // Open the outputs first: an unwritable path fails before any work.
  std::vector<std::unique_ptr<OutputFile>> files;
  std::string error;
  std::pair<std::string, std::string> cpp;
  if (!toStdout) {
    if (request.emit == Emit::cpp) {
      if (!cppPaths(output, cpp, error))
        return fail(error);
      files.push_back(std::make_unique<OutputFile>(cpp.first));
      files.push_back(std::make_unique<OutputFile>(cpp.second));
      request.headerName = llvm::sys::path::filename(cpp.first).str();
    } else {
      files.push_back(std::make_unique<OutputFile>(output));
    }
    for (auto &f : files)
      if (!f->open(error))
        return fail(error);
  } else if (request.emit == Emit::cpp) {
    request.headerName = (request.instanceName.empty() ? request.kernel
                                                        : request.instanceName) + ".h";
  }

  CompileResult result;
  if (variants.size() > 1) {
    std::vector<DispatchVariant> parts;
    for (auto [i, v] : llvm::enumerate(variants)) {
      CompileRequest one = request;
      one.params = v.params;
      one.variant = "_v" + std::to_string(i);
      CompileResult r = compile(one);
      if (!r.ok)
        return fail(r.error + (v.from.empty() ? "" : " (with the values of " + v.from + ")"));
      warnSlowCode(one, r);
      // The sizes of each shape the variant won on (the scalars a tuning
      // also records do not choose).
      std::vector<DispatchVariant::Shape> shapes;
      for (const auto &[table, shape] : variantShapes[i]) {
        const std::string &tuned = texts[table].first;
        std::vector<std::pair<std::string, int64_t>> sizes;
        std::string text;
        for (const auto &[name, value] : shape) {
          text += (text.empty() ? "" : ",") + name + "=" + value;
          if (llvm::find(r.launcher.sizes, name) == r.launcher.sizes.end())
            continue;
          int64_t n = 0;
          if (llvm::StringRef(value).getAsInteger(10, n) || n < 0)
            return fail(tuned + ": size " + name + "=" + value +
                        " of a tuned shape is not a non-negative integer");
          sizes.emplace_back(name, n);
        }
        if (sizes.empty())
          return fail(tuned + ": the tuned shape " + text + " gives none of " + request.kernel +
                      "'s sizes (" + llvm::join(r.launcher.sizes, ", ") + ")");
        shapes.push_back({table, std::move(sizes)});
      }
      parts.push_back(
          {std::move(r.launcher), describeParams(one), std::move(shapes), generalOn[i]});
    }
    LauncherOptions options;
    options.cppNamespace = request.cppNamespace;
    options.headerName = request.headerName;
    options.provenance = provenance(request, "tuned by " + request.tunedBy);
    std::string error;
    if (!composeDispatch(parts, tables, options, result.launcher, error))
      return fail(request.tunedBy + ": " + error);
    result.ok = true;
  } else {
    result = compile(request);
    if (result.ok)
      warnSlowCode(request, result);
    else if (variants.size() == 1 && !variants.front().from.empty())
      result.error += " (with the values of " + variants.front().from + ")" +
                      (source.file.empty() ? "; --untuned compiles without the shipped tables"
                                           : "");
  }
  if (!result.ok)
    return fail(result.error);

  if (toStdout) {
    if (request.emit == Emit::cpp)
      std::cout << result.launcher.header << "\n// ---- " << request.headerName
                << " ends; the source follows ----\n\n" << result.launcher.source;
    else
      std::cout << result.text;
    std::cout.flush();
    return std::cout.good() ? 0 : fail("cannot write to standard output");
  }
  if (request.emit == Emit::cpp) {
    files[0]->os() << result.launcher.header;
    files[1]->os() << result.launcher.source;
  } else if (request.emit == Emit::cubin) {
    files[0]->os().write(result.binary.data(), result.binary.size());
  } else {
    files[0]->os() << result.text;
  }
  for (auto &f : files)
    if (!f->finish(error))
      return fail(error);
  for (auto &f : files)
    if (!f->install(error))
      return fail(error);
  return 0;
}

/// "" if `ns` is a C++ namespace name (identifiers joined by ::), else why not.
std::string checkNamespace(const std::string &ns) {
  if (ns.empty())
    return "is empty";
  size_t start = 0;
  while (true) {
    size_t end = ns.find("::", start);
    std::string part = ns.substr(start, end == std::string::npos ? end : end - start);
    if (part.empty())
      return "has an empty component";
    if (std::string why = cppNameProblem(part); !why.empty())
      return "has '" + part + "', which " + why;
    if (end == std::string::npos)
      return "";
    start = end + 2;
  }
}

int run(int argc, char **argv) {
  if (std::string problem = Registry::global().problems(); !problem.empty())
    return fail(problem);

  CLI::App app{"minitile: a tile language embedded in C++, compiled to PTX"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "help for every subcommand");

  CLI::App *listCmd = app.add_subcommand("list", "print the kernels and their parameters");

  CLI::App *compileCmd = app.add_subcommand("compile", "compile a kernel");
  CompileRequest request;
  std::vector<std::string> params;
  std::string output, emit = "ptx";
  compileCmd->add_option("kernel", request.kernel, "kernel name (see 'minitile list')")
      ->required();
  compileCmd->add_option("-p,--param", params, "generator parameter name=value")
      ->take_all();
  compileCmd->add_option("--arch", request.arch,
                         "GPU architecture (" + Target::supportedList() + ")")
      ->capture_default_str();
  std::map<std::string, Emit> emits{{"tile", Emit::tile}, {"mlir", Emit::mlir},
                                    {"llvm", Emit::llvm}, {"ptx", Emit::ptx},
                                    {"cubin", Emit::cubin}, {"cpp", Emit::cpp}};
  compileCmd->add_option("--emit", emit, "tile|mlir|llvm|ptx|cubin|cpp")
      ->capture_default_str();
  compileCmd->add_option("-o,--output", output,
                         "output file, '-' for stdout; for --emit cpp the header "
                         "(DIR/k.h) or a stem (DIR/k), writing DIR/k.h and DIR/k.cpp")
      ->required();
  compileCmd->add_option("--name", request.instanceName,
                         "name of the launcher function (default: the kernel's)");
  compileCmd->add_option("--namespace", request.cppNamespace,
                         "C++ namespace of the launcher")
      ->capture_default_str();
  compileCmd->add_flag("--print-ir-after-all", request.printIRAfterAll,
                       "print the IR after every stage and pass to stderr");
  compileCmd->add_flag("--time-passes", request.timePasses,
                       "report the time of every stage and pass on stderr");
  compileCmd->add_flag("--remarks", request.remarks,
                       "print the passes' remarks (e.g. why a loop was not warp-specialised)");
  std::string descriptors = "auto";
  compileCmd->add_option("--wgmma-descriptors", descriptors,
                         "auto|hoisted|at-use: where each wgmma's shared-memory descriptors "
                         "are made -- before the loops their tile is invariant in (held in "
                         "registers), or at each wgmma from the tile's base (fewer registers, "
                         "more instructions); auto: hoisted unless that spills and at-use "
                         "spills less (ptxas decides; --remarks says which)")
      ->capture_default_str();
  std::string shape;
  TunedSource tunedSource;
  auto *tunedOption = compileCmd->add_option(
      "--tuned", tunedSource.file,
      "a table of tuned values (minitile tune): the line for this kernel gives the "
      "parameters -p does not; with lines for single shapes, --emit cpp compiles each and "
      "its launcher picks by the sizes. Without it, the tables the kernel ships with are "
      "used (minitile list shows them)");
  compileCmd->add_flag("--untuned", tunedSource.untuned,
                       "the generator's defaults for the parameters -p does not give, not "
                       "the tables the kernel ships with")
      ->excludes(tunedOption);
  compileCmd->add_option("--device", tunedSource.device,
                         "of the tables the kernel ships with, the one measured on this "
                         "device (H100, H200, ...); without it, a launcher (--emit cpp) "
                         "holds every table's kernels and picks by the device it runs on, "
                         "other outputs take the fallback table's");
  compileCmd->add_option("--ptx", request.ptxFile,
                         "assemble FILE instead of the PTX the passes make (a hand-edited copy "
                         "of --emit ptx's, for experiments; the same kernels with the same "
                         "parameters); with --emit cubin or cpp");
  compileCmd->add_option("--shape", shape,
                         "with --tuned: use the line of the tuned shape nearest this one "
                         "(size=N,size=N, e.g. S=4096,S_kv=1024)");

  CLI::App *tuneCmd = app.add_subcommand(
      "tune", "compile every point of a parameter space into DIR/tune-runner, which times "
              "them on a GPU and writes the winners to a table for compile --tuned");
  TuneRequest tuneRequest;
  tuneCmd->add_option("kernel", tuneRequest.kernel, "kernel name (see 'minitile list')")
      ->required();
  tuneCmd->add_option("-p,--param", tuneRequest.params, "a fixed parameter name=value")
      ->allow_extra_args(false)
      ->take_all();
  tuneCmd->add_option("--space", tuneRequest.spaces,
                      "a searched parameter and its values: name=v1,v2,... (repeatable; "
                      "the points are every combination)")
      ->allow_extra_args(false)
      ->take_all()
      ->required();
  tuneCmd->add_option("--shape", tuneRequest.shapes,
                      "a shape to time on: every size (and scalar) of the kernel, "
                      "NAME=V,NAME=V (repeatable)")
      ->allow_extra_args(false)
      ->take_all()
      ->required();
  tuneCmd->add_option("--init", tuneRequest.inits,
                      "how tensor TENSOR starts: TENSOR=SPEC, SPEC a number, uniform:LO,HI, "
                      "normal:MEAN,STD or "
                      "iota[*M][/D][+C] (along the first dimension; M and D numbers or sizes' "
                      "names: iota*S_kv/S+1). Default: uniform:-1,1 "
                      "for floats, 0 for integers; NaN or -1 for tensors only written")
      ->allow_extra_args(false)
      ->take_all();
  tuneCmd->add_option("--arch", tuneRequest.arch,
                      "GPU architecture (" + Target::supportedList() + ")")
      ->capture_default_str();
  tuneCmd->add_option("-o,--output", tuneRequest.output,
                      "the directory to write (new, or one minitile tune wrote)")
      ->required();
  tuneCmd->add_option("--ptx", tuneRequest.ptx,
                      "PARAMS@FILE: one more point, the kernel of PARAMS (every searched "
                      "parameter, name=value,...) assembled from FILE, a hand-edited copy of "
                      "its --emit ptx -- timed and checked beside the others, never written "
                      "to the table (repeatable)")
      ->allow_extra_args(false)
      ->take_all();
  tuneCmd->add_option("--wgmma-descriptors", tuneRequest.wgmmaDescriptors,
                      "auto|hoisted|at-use: as for compile, for every point")
      ->capture_default_str();
  tuneCmd->add_option("--unordered", tuneRequest.unordered,
                      "a tensor whose rows (its last dimension) points may write in any "
                      "order, such as an unsorted top-k's indices and scores: compared as "
                      "multisets (repeatable)")
      ->allow_extra_args(false)
      ->take_all();
  tuneCmd->add_flag("--allow-spills", tuneRequest.allowSpills,
                    "time points whose kernels spill registers to local memory too (by "
                    "default they are left out, each with a note)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    return fail(e.what());
  }

  if (listCmd->parsed())
    return list();
  if (tuneCmd->parsed()) {
    for (int i = 0; i < argc; ++i)
      tuneRequest.commandLine += (i ? " " : "") + std::string(i ? argv[i] : "minitile");
    std::string error = tuneCommand(tuneRequest);
    return error.empty() ? 0 : fail(error);
  }
  auto it = emits.find(emit);
  if (it == emits.end())
    return fail("unknown --emit '" + emit + "' (tile, mlir, llvm, ptx, cubin, cpp)");
  request.emit = it->second;
  if (std::string error = parseWgmmaDescriptors(descriptors, request.wgmmaDescriptors);
      !error.empty())
    return fail(error);
  if (std::string why = cppNameProblem(request.instanceName);
      compileCmd->count("--name") && !why.empty())
    return fail("--name '" + request.instanceName + "' " + why);
  if (std::string why = checkNamespace(request.cppNamespace); !why.empty())
    return fail("--namespace '" + request.cppNamespace + "' " + why);
  if (!tunedSource.device.empty() && (tunedSource.untuned || !tunedSource.file.empty()))
    return fail("--device chooses one of the tables a kernel ships with: not with --tuned "
                "or --untuned");
  if (!shape.empty() && tunedSource.untuned)
    return fail("--shape chooses a line of a tuned table: not with --untuned");
  if (!request.ptxFile.empty()) {
    if (request.emit != Emit::cubin && request.emit != Emit::cpp)
      return fail("--ptx replaces the PTX a cubin or a launcher is built from: give --emit "
                  "cubin or cpp");
    if (!tunedSource.file.empty())
      return fail("--ptx and --tuned do not go together: the edited PTX is one kernel's");
    if (std::string error = readPtx(request.ptxFile, request.ptx); !error.empty())
      return fail(error);
  }
  return compileCommand(request, params, tunedSource, shape, output);
}

} // namespace

int cliMain(int argc, char **argv) {
  // Nothing escapes as an abort: every exception is a one-line error, and
  // so is an LLVM fatal error (docs/ROBUSTNESS.md lists them).
  files::installFatalErrorHandlers("minitile");
  setPtxasChildHook([](int pid, bool started) {
    if (started)
      files::endOnSignal(pid);
    else
      files::forgetChild(pid);
  });
  int status;
  try {
    status = run(argc, argv);
  } catch (const std::exception &e) {
    status = fail(std::string("internal error: ") + e.what());
  } catch (...) {
    status = fail("internal error: an unknown exception");
  }
  // (Remarks and --print-ir-after-all write to llvm::outs() and errs().)
  return files::finishStandardStreams(status);
}

} // namespace minitile
