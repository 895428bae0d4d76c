//===- main.cpp - main() of minitile and of every generator --------------===//
//
// The library minitile::main: linked with a set of generators it makes a
// minitile command line for them (the shipped kernels: `minitile`).
//
//===----------------------------------------------------------------------===//
#include "minitile/driver.h"

int main(int argc, char **argv) { return minitile::cliMain(argc, argv); }
