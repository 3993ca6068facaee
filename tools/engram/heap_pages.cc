#include "tools/engram/heap_pages.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace engram::cli {

void ReserveHeapInLargePages() {
  // glibc serves blocks under its largest mmap threshold (32 MiB) from the
  // heap; kBlocks of them, freed, leave kReservedBytes of free heap.
  constexpr size_t kLargestHeapBlock = size_t{30} << 20;
  constexpr size_t kBlocks = kReservedBytes / kLargestHeapBlock;
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(size_t{32} << 20));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(kReservedBytes + (size_t{4} << 20)));
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  char* const start = static_cast<char*>(sbrk(0));
  // madvise wants a page-aligned start.
  char* const from = start + ((page - reinterpret_cast<uintptr_t>(start) % page) % page);
  // Volatile, so that the compiler keeps an allocation whose memory is
  // never used.
  void* volatile blocks[kBlocks] = {};
  for (void* volatile& block : blocks) block = malloc(kLargestHeapBlock);
  for (void* block : blocks) free(block);
  char* const to = static_cast<char*>(sbrk(0));
  if (to > from) madvise(from, static_cast<size_t>(to - from), MADV_HUGEPAGE);
}

}  // namespace engram::cli
