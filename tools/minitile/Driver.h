//===- Driver.h - the minitile command line, for any set of generators ---===//
//
// `minitile` is this driver linked with the shipped kernels; users link it
// with their own generators (minitile_add_generator() in CMake).
//
//===----------------------------------------------------------------------===//
#pragma once

namespace minitile {
int cliMain(int argc, char **argv);
} // namespace minitile
