#!/usr/bin/env python3
"""Named edits of a kernel's PTX (minitile compile --emit ptx), for
`minitile tune --ptx PARAMS@FILE` experiments: each keeps the kernels, their
parameters and block shape (what --ptx requires) and changes one thing.

  ptx_edit.py EDIT IN.ptx OUT.ptx      EDIT: one of the names below, or
                                        several joined by '+'

  nostore   every st.global of a register kept, under a predicate that is
            never true (kernel parameter 0 == -12345): the code that makes
            the value stays, the store is never taken
  nohint    mbarrier.try_wait without its suspend-time hint: ptxas then
            spins on TRYWAIT instead of NANOSLEEP.SYNCS between tries
  qfirst    every 3-d tensor copy (the indexer's query tiles, read once)
            with an L2 evict_first policy: streamed data recycles its own
            lines instead of the cache's others (the bench's eviction copy
            leaves the L2 dirty: each line a load takes writes one back)
  kvlast    every 2-d tensor copy (the indexer's KV tiles, which every
            multiprocessor reads) with an L2 evict_last policy
  stfirst   every st.global with an L2 evict_first policy (the logits)
  noprefetch  without the prefetch.tensormap of each tensor map at the
            kernel's start (which the lowering adds)
"""
import re
import sys


def nostore(ptx):
    entry = re.search(r"\.entry\s+(\w+)\s*\(\s*\.param\s+\.(?:u|b|s)64\s+(\w+)", ptx)
    if not entry:
        sys.exit("ptx_edit: nostore needs a kernel whose first parameter is 64-bit")
    param = entry.group(2)
    store = re.compile(r"^(\s*)(st\.global\.[\w.]+\s+\[[^\]]+\],\s*%\w+;)", re.M)
    never = (r"\1{ .reg .pred never; .reg .b64 p0; ld.param.b64 p0, [" + param +
             r"]; setp.eq.s64 never, p0, -12345; @never \2 }")
    out, n = store.subn(never, ptx)
    if not n:
        sys.exit("ptx_edit: nostore found no st.global of a register")
    return out


def nohint(ptx):
    wait = re.compile(r"(mbarrier\.try_wait[\w.:]*\s+[^;]*?),\s*\d+\s*;")
    out, n = wait.subn(r"\1;", ptx)
    if not n:
        sys.exit("ptx_edit: nohint found no mbarrier.try_wait with a suspend-time hint")
    return out


def noprefetch(ptx):
    prefetch = re.compile(r"^[ \t]*(@%\w+\s+)?prefetch\.tensormap\s+\[[^\]]+\];[ \t]*\n", re.M)
    out, n = prefetch.subn("", ptx)
    if not n:
        sys.exit("ptx_edit: noprefetch found no prefetch.tensormap")
    return out


def _hinted_copies(ptx, dims, policy, name):
    copy = re.compile(r"^(\s*)(cp\.async\.bulk\.tensor\.%sd\.shared::cta\.global\.tile\."
                      r"mbarrier::complete_tx::bytes)(\s+[^;]+);" % dims, re.M)
    hinted = (r"\1{ .reg .b64 pol; createpolicy.fractional.L2::%s.b64 pol, 1.0; "
              r"\2.L2::cache_hint\3, pol; }" % policy)
    out, n = copy.subn(hinted, ptx)
    if not n:
        sys.exit("ptx_edit: %s found no %s-d tensor copy" % (name, dims))
    return out


def qfirst(ptx):
    return _hinted_copies(ptx, 3, "evict_first", "qfirst")


def kvlast(ptx):
    return _hinted_copies(ptx, 2, "evict_last", "kvlast")


def stfirst(ptx):
    # One policy register, made at the kernel's entry (before its first
    # parameter load), so the stores in the loop gain no instruction.
    first = re.search(r"^\s*ld\.param", ptx, re.M)
    if not first:
        sys.exit("ptx_edit: stfirst found no ld.param to put the policy before")
    ptx = (ptx[:first.start()] + "\n\t.reg .b64 %stpol;\n"
           "\tcreatepolicy.fractional.L2::evict_first.b64 %stpol, 1.0;" + ptx[first.start():])
    store = re.compile(r"^(\s*)(@%\w+\s+)?st\.global\.([\w.]+)(\s+\[[^\]]+\],\s*[^;]+);", re.M)
    out, n = store.subn(r"\1\2st.global.L2::cache_hint.\3\4, %stpol;", ptx)
    if not n:
        sys.exit("ptx_edit: stfirst found no st.global")
    return out


EDITS = {"nostore": nostore, "nohint": nohint, "noprefetch": noprefetch, "qfirst": qfirst,
         "kvlast": kvlast, "stfirst": stfirst}

if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    text = open(sys.argv[2]).read()
    for name in sys.argv[1].split("+"):
        if name not in EDITS:
            sys.exit("ptx_edit: no edit '%s' (%s)" % (name, ", ".join(EDITS)))
        text = EDITS[name](text)
    open(sys.argv[3], "w").write(text)
