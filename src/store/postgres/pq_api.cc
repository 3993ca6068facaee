#include "src/store/postgres/pq_api.h"

#include "src/common/shared_library.h"

namespace engram {
namespace {

// libpq's ABI name since PostgreSQL 8.0 and Debian's package of it.
constexpr char kPqSoname[] = "libpq.so.5";
constexpr char kPqPackage[] = "libpq5";

Result<PqApi> LoadPq() {
  ENGRAM_ASSIGN_OR_RETURN(SharedLibrary library, SharedLibrary::Open(kPqSoname, kPqPackage));
  PqApi api;
  ENGRAM_RETURN_IF_ERROR(library.Find("PQconnectdbParams", &api.connectdb_params));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQstatus", &api.status));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQerrorMessage", &api.error_message));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQfinish", &api.finish));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQexec", &api.exec));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQexecParams", &api.exec_params));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQprepare", &api.prepare));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQexecPrepared", &api.exec_prepared));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQresultStatus", &api.result_status));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQresultErrorField", &api.result_error_field));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQresultErrorMessage", &api.result_error_message));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQclear", &api.clear));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQntuples", &api.ntuples));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQnfields", &api.nfields));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQgetvalue", &api.getvalue));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQgetlength", &api.getlength));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQgetisnull", &api.getisnull));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQcmdTuples", &api.cmd_tuples));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQsetNoticeProcessor", &api.set_notice_processor));
  ENGRAM_RETURN_IF_ERROR(library.Find("PQserverVersion", &api.server_version));
  return api;
}

}  // namespace

Result<const PqApi*> Pq() { return LoadedOnce<PqApi, LoadPq>(); }

}  // namespace engram
