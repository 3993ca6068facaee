#include "src/embed/blas_api.h"

#include "src/common/shared_library.h"

namespace engram {
namespace {

// OpenBLAS's ABI name and Debian's package of it (any of its variants,
// pthread, openmp or serial, answers to the name).
constexpr char kOpenBlasSoname[] = "libopenblas.so.0";
constexpr char kOpenBlasPackage[] = "libopenblas0";

Result<BlasApi> LoadBlas() {
  ENGRAM_ASSIGN_OR_RETURN(SharedLibrary library,
                          SharedLibrary::Open(kOpenBlasSoname, kOpenBlasPackage));
  BlasApi api;
  ENGRAM_RETURN_IF_ERROR(library.Find("cblas_sgemm", &api.sgemm));
  ENGRAM_RETURN_IF_ERROR(library.Find("openblas_get_num_threads", &api.get_num_threads));
  ENGRAM_RETURN_IF_ERROR(library.Find("openblas_set_num_threads", &api.set_num_threads));
  if (api.get_num_threads() != 1) api.set_num_threads(1);
  return api;
}

}  // namespace

Result<const BlasApi*> Blas() { return LoadedOnce<BlasApi, LoadBlas>(); }

}  // namespace engram
