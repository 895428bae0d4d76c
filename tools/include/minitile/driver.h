//===- minitile/driver.h - the minitile command line, for any generators --===//
//
// `minitile` is this driver linked with the shipped kernels. A generator of
// your own is the same driver linked with your kernels (the sources with
// MINITILE_KERNEL in them): minitile_add_generator() in CMake links the
// library minitile::main, whose main() calls cliMain(). Call cliMain()
// yourself only to wrap the command line in a main() of your own.
//
//===----------------------------------------------------------------------===//
#pragma once

namespace minitile {

/// Runs `argv` as the minitile command line (`list`, `compile ...`) over every
/// generator linked into the program; returns the exit status.
int cliMain(int argc, char **argv);

} // namespace minitile
