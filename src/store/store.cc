#include "src/store/store.h"

namespace engram {

Status RunTransaction(const std::function<Status(const char*)>& exec, const char* begin,
                      bool* in_transaction, const std::function<Status()>& body) {
  if (*in_transaction) return body();
  ENGRAM_RETURN_IF_ERROR(exec(begin));
  *in_transaction = true;
  Status s = body();
  *in_transaction = false;
  if (s.ok()) {
    s = exec("COMMIT");
    if (s.ok()) return s;
  }
  exec("ROLLBACK").IgnoreError();  // report the failure that caused it
  return s;
}

}  // namespace engram
