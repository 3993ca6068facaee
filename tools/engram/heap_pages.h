// The engram command's heap in large pages. A one-shot process starts with
// an empty heap, and every 4 KiB page it first touches is a page fault: a
// blended search touches about 6 MB (the lexical search's matches above
// all), some 1,000 faults, about a tenth of its time. ReserveHeapInLargePages,
// called first thing in main, grows the heap once by kReservedBytes (address
// space only: nothing is touched) and asks for transparent huge pages there
// (MADV_HUGEPAGE, which the kernel's default "madvise" mode honours), so the
// process faults its heap in by the 2 MiB page: 3 faults for those 6 MB.
// Allocations below 32 MiB come from that heap (M_MMAP_THRESHOLD), and it is
// not given back while under kReservedBytes (M_TRIM_THRESHOLD). What a
// process needs beyond it grows the heap as before, in 4 KiB pages. The cost:
// a process's memory rounds up to 2 MiB blocks of what it touches. A hint
// only; where the kernel or allocator does not take it, nothing changes.
// Only the engram program calls it, and not under a sanitizer (whose
// allocator has no such heap); engram-serve, which lives long and
// allocates from many threads, keeps glibc's defaults.
#ifndef ENGRAM_TOOLS_ENGRAM_HEAP_PAGES_H_
#define ENGRAM_TOOLS_ENGRAM_HEAP_PAGES_H_

#include <cstddef>

namespace engram::cli {

inline constexpr size_t kReservedBytes = size_t{60} << 20;

void ReserveHeapInLargePages();

}  // namespace engram::cli

#endif  // ENGRAM_TOOLS_ENGRAM_HEAP_PAGES_H_
