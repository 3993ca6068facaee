#include "src/common/shared_library.h"

#include <dlfcn.h>

#include <utility>

namespace engram {

Result<SharedLibrary> SharedLibrary::Open(const std::string& soname, const std::string& package) {
  // RTLD_LOCAL: its symbols serve the table that asked, not later loads.
  void* handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Unavailable(soname + " could not be loaded (" +
                       std::string(why != nullptr ? why : "no reason given") + "); install " +
                       package);
  }
  return SharedLibrary(soname, handle);
}

Status SharedLibrary::FindAddress(const char* name, void** address) const {
  dlerror();  // clears an earlier error, so a null symbol is told apart
  void* found = dlsym(handle_, name);
  const char* why = dlerror();
  if (why != nullptr || found == nullptr) {
    return Unavailable(soname_ + " has no function " + name +
                       (why != nullptr ? std::string(" (") + why + ")" : std::string()));
  }
  *address = found;
  return Status::OK();
}

}  // namespace engram
