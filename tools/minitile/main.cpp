//===- main.cpp - the minitile CLI with the shipped kernels --------------===//
#include "tools/minitile/Driver.h"

int main(int argc, char **argv) { return minitile::cliMain(argc, argv); }
