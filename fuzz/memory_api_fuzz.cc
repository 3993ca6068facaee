// The request path behind the HTTP API on any bytes: the first byte picks
// the operation, the rest is its JSON body (or, for the GET routes, the
// JSON made of a query string, every value a string). Each call answers a
// value or a Status with a message; none may crash or throw.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fuzz/fuzz_engine.h"
#include "src/common/json_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto args = engram::ParseJson(body, "request body");
  if (!args.ok()) return 0;
  engram::MemoryApi& api = engram::fuzz::FuzzedApi();
  const bool from_query = (data[0] & 0x10) != 0;
  engram::Result<nlohmann::json> answer = engram::InvalidArgument("none");
  switch (data[0] % 8) {
    case 0:
      answer = api.Search(*args);
      break;
    case 1:
      answer = api.Add(*args);
      break;
    case 2:
      answer = api.List(*args, from_query);
      break;
    case 3:
      answer = api.Get(*args, from_query);
      break;
    case 4:
      answer = api.Update(*args);
      break;
    case 5:
      answer = api.History(*args, from_query);
      break;
    case 6:
      answer = api.Forget(*args, from_query);
      break;
    default:
      answer = api.Health();
      break;
  }
  if (!answer.ok() && answer.status().message().empty()) std::abort();
  if (answer.ok()) engram::DumpJson(*answer);
  return 0;
}
