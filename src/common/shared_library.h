// A system library opened on first use (dlopen) rather than linked, so a
// process that never needs it never loads it. Every library a program links
// is mapped and relocated before main() runs: libcurl and its two dozen
// dependencies cost a one-shot `engram search` about 10 ms of its start-up
// here, OpenBLAS and libgfortran about 3 ms and a pool of threads, and a
// lexical search uses neither. The headers of such a library are still used
// at build time for its types and constants; only its functions are looked
// up at run time, by name, into a table its one user keeps (see
// src/http/curl_api.h, src/embed/blas_api.h).
//
// A library, once opened, stays open for the life of the process. Thread-
// safe: Open may race with itself; the loader serialises it.
#ifndef ENGRAM_SRC_COMMON_SHARED_LIBRARY_H_
#define ENGRAM_SRC_COMMON_SHARED_LIBRARY_H_

#include <string>
#include <utility>

#include "engram/status.h"

namespace engram {

class SharedLibrary {
 public:
  // Opens the library of ABI name `soname` (e.g. "libcurl.so.4") as the
  // dynamic linker would have at start-up. Unavailable naming the library,
  // what the loader said and the Debian package that installs it
  // (`package`) when it cannot be loaded.
  static Result<SharedLibrary> Open(const std::string& soname, const std::string& package);

  // Sets `*function` to the library's function `name`. Unavailable naming
  // the library and the function when it has none (an older version).
  template <typename Function>
  Status Find(const char* name, Function** function) const {
    void* address = nullptr;
    ENGRAM_RETURN_IF_ERROR(FindAddress(name, &address));
    *function = reinterpret_cast<Function*>(address);
    return Status::OK();
  }

 private:
  SharedLibrary(std::string soname, void* handle) : soname_(std::move(soname)), handle_(handle) {}
  Status FindAddress(const char* name, void** address) const;

  std::string soname_;
  void* handle_;  // never closed
};

// The table `Load` fills, loaded on the first call in the process and kept
// for its life; the same error on every call when it failed. Thread-safe.
template <typename Table, Result<Table> (*Load)()>
Result<const Table*> LoadedOnce() {
  static const Result<Table>* const loaded = new Result<Table>(Load());  // never freed
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_SHARED_LIBRARY_H_
