// Included first in every source of an AddressSanitizer build (-include).
//
// LLVM's headers poison the unused space of their bump allocators when they
// are compiled with AddressSanitizer. Debian's libLLVM and libMLIR are not:
// an allocator grown by our instrumented inline copy of that header and then
// used by the library's own code makes false "use-after-poison" reports.
// The allocators belong to the libraries, so our copies leave them alone.
#pragma once
#include <sanitizer/asan_interface.h>
#define __asan_poison_memory_region(addr, size) ((void)(addr), (void)(size))
#define __asan_unpoison_memory_region(addr, size) ((void)(addr), (void)(size))
