// OpenBLAS's functions, looked up when the first product runs on it
// (src/common/shared_library.h says why): the encoder runs a search query's
// products on its own kernel, so a process that embeds no batch never loads
// OpenBLAS, libgfortran or OpenBLAS's pool of threads.
//
// The table sets OpenBLAS to one thread when it loads it, process-wide: its
// one user, the USE-Lite encoder, runs sgemm on threads of its own, each on
// a share of the texts, and OpenBLAS threads inside those calls would
// oversubscribe the CPUs (use_lite_encoder.h, `threads`).
#ifndef ENGRAM_SRC_EMBED_BLAS_API_H_
#define ENGRAM_SRC_EMBED_BLAS_API_H_

#include <cblas.h>

#include "engram/status.h"

namespace engram {

struct BlasApi {
  decltype(&::cblas_sgemm) sgemm = nullptr;
  decltype(&::openblas_get_num_threads) get_num_threads = nullptr;
  decltype(&::openblas_set_num_threads) set_num_threads = nullptr;
};

// The process's table, loaded on the first call; the same error on every
// call when OpenBLAS cannot be loaded (named, with the package to install).
Result<const BlasApi*> Blas();

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_BLAS_API_H_
