//===- PtxOverride.h - an edited PTX in place of the generated one --------===//
//
// `minitile compile --ptx FILE` and `minitile tune --ptx POINT@FILE` build a
// kernel's cubin from a hand-edited copy of its PTX (`--emit ptx`): for
// performance experiments -- a store taken out, a wait moved -- run with the
// generated launcher (its grid, shared memory and tensor maps) and, in the
// tune runner, checked against the other points' results. The edited text
// must define the same kernels with the same parameters as the generated
// one, or the launcher would pass them the wrong arguments.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace minitile {

/// Reads the edited PTX at `path` into `text`: "" or a one-line error.
std::string readPtx(const std::string &path, std::string &text);

/// Each kernel (`.entry`) `ptx` defines: its name, parameter list and
/// block-shape directives, comments dropped and white space collapsed
/// ("k(.param .u64 k_param_0, ...) .maxntid 384,1,1").
std::vector<std::string> ptxEntries(const std::string &ptx);

/// "" if `edited` may stand in for `generated` (the same kernels, in the
/// same order, with the same parameters and block shapes; .maxnreg and the
/// rest are the edit's to change), else a phrase saying what differs.
std::string checkPtxOverride(const std::string &generated, const std::string &edited);

} // namespace minitile
