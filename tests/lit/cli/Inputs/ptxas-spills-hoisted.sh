#!/bin/sh
# A stand-in ptxas for tests/lit/cli/wgmma-descriptors.test: it writes a
# placeholder cubin and reports, as ptxas -v does, 24 + 24 bytes of spills
# where the PTX makes no wgmma descriptor at its wgmma ("{lo, " is the
# high-word pack of a descriptor made at use), none where it does; with
# SPILLS=always, spills either way.
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift ;;
    *.ptx) in=$1 ;;
  esac
  shift
done
printf cubin > "$out"
bytes=24
if [ "$SPILLS" != always ] && grep -q '{lo, ' "$in"; then
  bytes=0
fi
echo "ptxas info    : Compiling entry function k for sm_90a" >&2
echo "ptxas info    : Function properties for k" >&2
echo "    48 bytes stack frame, $bytes bytes spill stores, $bytes bytes spill loads" >&2
echo "ptxas info    : Used 152 registers, used 1 barriers" >&2
