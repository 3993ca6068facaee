#include "src/embed/model_location.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace engram {
namespace {

namespace fs = std::filesystem;

// Relative paths from the install's libdir, bindir and engram-serve's
// directory (<libexecdir>/engram) to its models directory
// (<datadir>/engram/models), fixed at configure time.
#ifndef ENGRAM_MODELS_FROM_LIBDIR
#define ENGRAM_MODELS_FROM_LIBDIR "../share/engram/models"
#endif
#ifndef ENGRAM_MODELS_FROM_BINDIR
#define ENGRAM_MODELS_FROM_BINDIR "../share/engram/models"
#endif
#ifndef ENGRAM_MODELS_FROM_LIBEXECDIR
#define ENGRAM_MODELS_FROM_LIBEXECDIR "../../share/engram/models"
#endif

bool IsDirectory(const fs::path& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

}  // namespace

std::string ModelLookup::NotFoundMessage(const std::string& file_name) const {
  std::string missing;
  if (looked.size() == 1) {
    missing = "no model at '" + (fs::path(looked[0]) / file_name).string() + "'";
  } else {
    missing = "no " + file_name + " in ";
    for (size_t i = 0; i < looked.size(); ++i) {
      if (i > 0) missing += i + 1 == looked.size() ? " or " : ", ";
      missing += looked[i];
    }
  }
  return "embed: local: " + missing + "; run 'make build' (or use_lite_convert) to create it";
}

std::vector<ModelPlace> DefaultModelPlaces(const std::optional<std::string>& engram_home,
                                           const std::string& user_data_dir,
                                           const std::string& installed_models_dir) {
  std::vector<ModelPlace> candidates;
  if (engram_home && !engram_home->empty()) {
    candidates.push_back({*engram_home + "/models", "ENGRAM_HOME"});
  }
  candidates.push_back({user_data_dir + "/models", "the user's data directory"});
  if (!installed_models_dir.empty()) {
    candidates.push_back({installed_models_dir, "the install prefix"});
  }
  std::vector<ModelPlace> places;
  for (ModelPlace& place : candidates) {
    bool repeated = false;
    for (const ModelPlace& earlier : places) repeated = repeated || earlier.dir == place.dir;
    if (!repeated) places.push_back(std::move(place));
  }
  return places;
}

std::vector<ModelPlace> ProcessModelPlaces() {
  const char* engram_home = std::getenv("ENGRAM_HOME");
  const char* xdg = std::getenv("XDG_DATA_HOME");
  const char* home = std::getenv("HOME");
  const std::string data_home = xdg != nullptr && *xdg != '\0'
                                    ? std::string(xdg)
                                    : std::string(home != nullptr ? home : ".") + "/.local/share";
  return DefaultModelPlaces(
      engram_home == nullptr ? std::nullopt : std::optional<std::string>(engram_home),
      data_home + "/engram", InstalledModelsDir());
}

std::string InstalledModelsDir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&InstalledModelsDir), &info) == 0 ||
      info.dli_fname == nullptr) {
    return "";
  }
  // A library's own path; for the main program (the engram CLI, linked
  // statically) the loader may give the name it was run by, found on
  // PATH, so its path is the kernel's.
  fs::path file(info.dli_fname);
  if (!file.is_absolute()) file = "/proc/self/exe";
  std::error_code ec;
  const fs::path self = fs::canonical(file, ec);
  if (ec) return "";
  for (const char* relative :
       {ENGRAM_MODELS_FROM_LIBDIR, ENGRAM_MODELS_FROM_BINDIR, ENGRAM_MODELS_FROM_LIBEXECDIR}) {
    const fs::path dir = (self.parent_path() / relative).lexically_normal();
    if (IsDirectory(dir)) return dir.string();
  }
  return "";
}

ModelLookup LocateModel(const std::vector<ModelPlace>& places, const std::string& file_name) {
  ModelLookup lookup;
  for (const ModelPlace& place : places) {
    lookup.looked.push_back(place.dir);
    const fs::path path = fs::path(place.dir) / file_name;
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) {
      lookup.path = path.string();
      lookup.why = "found in " + place.dir + " (" + place.why + ")";
      return lookup;
    }
  }
  return lookup;
}

}  // namespace engram
