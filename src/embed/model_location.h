// Where the embedded model's file is found (docs/CONFIG.md, "The embedded
// model"): in the directory the user named, else in $ENGRAM_HOME/models,
// then the user's data directory ($XDG_DATA_HOME/engram/models or
// ~/.local/share/engram/models), then the install prefix's
// share/engram/models (beside the libengram or the engram binary that is
// running), so pointing ENGRAM_HOME at a project keeps semantic search.
//
// Pure functions but for the filesystem checks; thread-safe.
#ifndef ENGRAM_SRC_EMBED_MODEL_LOCATION_H_
#define ENGRAM_SRC_EMBED_MODEL_LOCATION_H_

#include <optional>
#include <string>
#include <vector>

namespace engram {

// One directory to look in, and why it is looked in ("ENGRAM_HOME",
// "the user's data directory", ...).
struct ModelPlace {
  std::string dir;
  std::string why;
};

// What the lookup found: the file and why that one, or nothing, with every
// directory looked in (in order).
struct ModelLookup {
  std::string path;  // empty: not found
  std::string why;
  std::vector<std::string> looked;

  bool Found() const { return !path.empty(); }
  // "embed: local: no use-lite-en.bin in A, B or C; run ..." ("no model at
  // 'A/use-lite-en.bin'" for one place): the error when not found.
  std::string NotFoundMessage(const std::string& file_name) const;
};

// The default places, in order, given $ENGRAM_HOME's value (nullopt when
// unset), the user's data directory for engram (<data home>/engram) and
// the install prefix's data directory (InstalledModelsDir; empty: none).
// Places that repeat an earlier directory are left out.
std::vector<ModelPlace> DefaultModelPlaces(const std::optional<std::string>& engram_home,
                                           const std::string& user_data_dir,
                                           const std::string& installed_models_dir);

// The same from the process environment (ENGRAM_HOME, XDG_DATA_HOME, HOME).
std::vector<ModelPlace> ProcessModelPlaces();

// <prefix>/share/engram/models of the installed libengram, engram or
// engram-serve this code runs in, found from its own path; empty when no
// such directory exists (a build tree).
std::string InstalledModelsDir();

// The first of `places` holding a regular file `file_name`.
ModelLookup LocateModel(const std::vector<ModelPlace>& places, const std::string& file_name);

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_MODEL_LOCATION_H_
