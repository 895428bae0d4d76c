//===- Compile.h - one kernel from generator to PTX, cubin or C++ --------===//
#pragma once

#include "lowering/EmitLauncher.h"
#include "lowering/Stages.h"

#include <string>
#include <utility>
#include <vector>

namespace minitile {

enum class Emit { tile, mlir, llvm, ptx, cubin, cpp };

/// Where each wgmma's shared-memory descriptors are made: hoisted out of the
/// loops their tiles are invariant in (held in registers), at each wgmma
/// (from the tile's base; fewer registers, more instructions), or -- auto --
/// hoisted unless that spills registers and at each wgmma spills fewer.
enum class WgmmaDescriptors { automatic, hoisted, atUse };

struct CompileRequest {
  std::string kernel;                                      // generator name
  std::vector<std::pair<std::string, std::string>> params; // -p name=value
  std::string instanceName;                                // "" = kernel
  std::string arch = "sm_90a";                             // --arch
  Emit emit = Emit::ptx;
  bool printIRAfterAll = false;
  bool timePasses = false;
  bool remarks = false; // print remarks to stderr
  std::string cppNamespace = "minitile::kernels";
  std::string headerName; // for Emit::cpp: how the source includes the header
  std::string variant;    // for Emit::cpp: LauncherOptions::variant
  std::string tunedBy;    // the tables its parameters come from ("" if none), for provenance
  // --ptx: the text assembled instead of the generated PTX (cubin, cpp), and
  // the file it came from ("" = none). PtxOverride.h says what it must keep.
  std::string ptx;
  std::string ptxFile;
  WgmmaDescriptors wgmmaDescriptors = WgmmaDescriptors::automatic; // --wgmma-descriptors
};

struct CompileResult {
  bool ok = false;
  std::string error;        // one line, when !ok
  std::string text;         // tile / mlir / llvm / ptx
  std::vector<char> binary; // cubin; for cpp, the image the launcher embeds
  LauncherSource launcher;  // cpp
  std::vector<LauncherArgument> arguments; // cpp: the launcher's arguments
  // cubin and cpp (when ptxas ran): what ptxas reports, the most over the
  // module's kernels -- registers a thread, and bytes a thread spills to
  // local memory (stores and loads; 0 is what a fast kernel needs).
  int registers = 0;
  int64_t spillStoreBytes = 0, spillLoadBytes = 0;
  std::string serialised; // ptxas's reasons for serialising its wgmmas
};

/// "auto", "hoisted" or "at-use" as a WgmmaDescriptors: "", else the
/// one-line error for another.
std::string parseWgmmaDescriptors(const std::string &text, WgmmaDescriptors &out);

/// "" if `result` is neither spilling nor serialised, else one line saying
/// how ("spills 24 bytes a thread to local memory (16 stored, 8 loaded;
/// ptxas -v, 255 registers)", "has its wgmmas serialised by ptxas ((C7512)
/// ...)", or both joined by "and").
std::string describeSlowCode(const CompileResult &result);

/// Instantiates the generator with the parameters and runs the pipeline as
/// far as `emit` needs. Never throws; errors come back in the result.
CompileResult compile(const CompileRequest &request);

/// The first line of generated files: "NAME: kernel K of FILE <how>, for
/// ARCH" (`how`: "with p=v ...", say).
std::string provenance(const CompileRequest &request, const std::string &how);

/// How generated files name a generator's source `file`: as recorded when it
/// is relative to a root ("kernels/indexer_fwd.cpp"), else by its file name
/// only, so that the output does not depend on where the tree or build is.
std::string provenanceFile(const std::string &file);

/// Every parameter of generator `kernel`, in its order, with its value once
/// `params` are applied (a bool as "true"/"false"). False with `error` set,
/// as compile() words it, for an unknown kernel, parameter or value.
bool effectiveParams(const std::string &kernel,
                     const std::vector<std::pair<std::string, std::string>> &params,
                     std::vector<std::pair<std::string, std::string>> &out,
                     std::string &error);

/// The launcher arguments of the kernel `request` builds (its kernel,
/// parameters and arch; the DSL alone, no pass): what a shape's names and
/// values are checked against. False with `error` set as compile() words it.
bool kernelArguments(const CompileRequest &request, std::vector<LauncherArgument> &out,
                     std::string &error);

/// "threads=256 rows_per_block=4": every parameter of a generator with the
/// values of `request` applied (for provenance lines).
std::string describeParams(const CompileRequest &request);

} // namespace minitile
