// libpq's functions, looked up when the first PostgreSQL connection is made
// (src/common/shared_library.h says why): libpq brings Kerberos, LDAP and
// TLS libraries with it, and a process on a SQLite store, the default,
// never loads any of them.
#ifndef ENGRAM_SRC_STORE_POSTGRES_PQ_API_H_
#define ENGRAM_SRC_STORE_POSTGRES_PQ_API_H_

#include <libpq-fe.h>

#include "engram/status.h"

namespace engram {

struct PqApi {
  decltype(&::PQconnectdbParams) connectdb_params = nullptr;
  decltype(&::PQstatus) status = nullptr;
  decltype(&::PQerrorMessage) error_message = nullptr;
  decltype(&::PQfinish) finish = nullptr;
  decltype(&::PQexec) exec = nullptr;
  decltype(&::PQexecParams) exec_params = nullptr;
  decltype(&::PQprepare) prepare = nullptr;
  decltype(&::PQexecPrepared) exec_prepared = nullptr;
  decltype(&::PQresultStatus) result_status = nullptr;
  decltype(&::PQresultErrorField) result_error_field = nullptr;
  decltype(&::PQresultErrorMessage) result_error_message = nullptr;
  decltype(&::PQclear) clear = nullptr;
  decltype(&::PQntuples) ntuples = nullptr;
  decltype(&::PQnfields) nfields = nullptr;
  decltype(&::PQgetvalue) getvalue = nullptr;
  decltype(&::PQgetlength) getlength = nullptr;
  decltype(&::PQgetisnull) getisnull = nullptr;
  decltype(&::PQcmdTuples) cmd_tuples = nullptr;
  decltype(&::PQsetNoticeProcessor) set_notice_processor = nullptr;
  decltype(&::PQserverVersion) server_version = nullptr;
};

// The process's table, loaded on the first call; the same error on every
// call when libpq cannot be loaded (named, with the package to install).
Result<const PqApi*> Pq();

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_POSTGRES_PQ_API_H_
