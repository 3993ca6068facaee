#include "src/common/file_contents.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace engram {
namespace {

Status Failed(const std::string& what, const std::string& path) {
  return IOError("read file " + path + ": " + what + ": " + std::strerror(errno));
}

// Closes the descriptor when it goes out of scope.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

// What identifies the version of the file `info` describes.
FileContents::Stamp StampFrom(const struct stat& info) {
  FileContents::Stamp stamp;
  stamp.device = static_cast<uint64_t>(info.st_dev);
  stamp.inode = static_cast<uint64_t>(info.st_ino);
  stamp.size = static_cast<uint64_t>(info.st_size);
  stamp.mtime_ns = static_cast<int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
  stamp.ctime_ns = static_cast<int64_t>(info.st_ctim.tv_sec) * 1000000000 + info.st_ctim.tv_nsec;
  return stamp;
}

// Maps `size` bytes of `fd` read-only at an address that is a multiple of
// kLargePage, and asks for large pages there: the page cache then fills
// what it reads for this mapping in large folios, and a mapping of a file
// held in large folios takes a fault per folio rather than one per 16
// pages. nullptr (errno set) when it cannot.
const char* MapAligned(int fd, size_t size) {
  constexpr size_t kLargePage = size_t{2} << 20;
  const size_t reserved = size + kLargePage;
  void* area = ::mmap(nullptr, reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED) return nullptr;
  char* const base = static_cast<char*>(area);
  const size_t lead = (kLargePage - reinterpret_cast<uintptr_t>(base) % kLargePage) % kLargePage;
  void* mapped = ::mmap(base + lead, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
  if (mapped == MAP_FAILED) {
    const int error = errno;
    ::munmap(area, reserved);
    errno = error;
    return nullptr;
  }
  // Give back the reservation around the mapping.
  if (lead > 0) ::munmap(base, lead);
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t used = lead + (size + page - 1) / page * page;
  if (reserved > used) ::munmap(base + used, reserved - used);
  ::madvise(mapped, size, MADV_HUGEPAGE);  // a hint only
  return static_cast<const char*>(mapped);
}

}  // namespace

std::string FileContents::Stamp::ToString() const {
  return std::to_string(device) + " " + std::to_string(inode) + " " + std::to_string(size) + " " +
         std::to_string(mtime_ns) + " " + std::to_string(ctime_ns);
}

Result<FileContents::Stamp> FileContents::StampOf(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return NotFound("read file " + path + ": no such file");
    return Failed("cannot see", path);
  }
  return StampFrom(info);
}

Result<std::unique_ptr<FileContents>> FileContents::Read(const std::string& path) {
  return Open(path, /*map=*/false);
}

Result<std::unique_ptr<FileContents>> FileContents::Map(const std::string& path) {
  return Open(path, /*map=*/true);
}

Result<std::unique_ptr<FileContents>> FileContents::Open(const std::string& path, bool map) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return NotFound("read file " + path + ": no such file");
    return Failed("cannot open", path);
  }
  const FdCloser closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) return Failed("cannot size", path);
  if (!S_ISREG(info.st_mode)) return IOError("read file " + path + ": not a regular file");
  const auto size = static_cast<size_t>(info.st_size);
  const Stamp stamp = StampFrom(info);
  if (size == 0) return std::unique_ptr<FileContents>(new FileContents(nullptr, 0, stamp));
  if (map) {
    const char* mapped = MapAligned(fd, size);
    if (mapped == nullptr) return Failed("cannot map", path);
    return std::unique_ptr<FileContents>(new FileContents(mapped, size, stamp));
  }

  // Anonymous pages, not the heap: page-aligned, returned to the system
  // whole, and made read-only once filled.
  void* memory = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED)
    return Failed("cannot allocate " + std::to_string(size) + " bytes", path);
  std::unique_ptr<FileContents> bytes(
      new FileContents(static_cast<const char*>(memory), size, stamp));
  ::madvise(memory, size, MADV_HUGEPAGE);  // fewer faults while filling; a hint only

  auto* out = static_cast<char*>(memory);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, out + done, size - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Failed("cannot read at byte " + std::to_string(done), path);
    if (n == 0) {
      return IOError("read file " + path + ": it shrank to " + std::to_string(done) +
                     " bytes while read (it was " + std::to_string(size) + ")");
    }
    done += static_cast<size_t>(n);
  }
  ::mprotect(memory, size, PROT_READ);
  return bytes;
}

FileContents::~FileContents() {
  if (data_ != nullptr) ::munmap(const_cast<char*>(data_), size_);
}

}  // namespace engram
