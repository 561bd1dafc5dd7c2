// Fuzz target: the YAML config parser and the listen-address parser must
// reject anything malformed with a Status, never crash or throw.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/listen_address.h"
#include "base/parse_util.h"
#include "daemon/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bottleneckd::Config c;
  (void)bottleneckd::ParseConfig(text, "fuzz.yaml", &c);
  bottleneckd::ListenAddress a;
  (void)bottleneckd::ParseListenAddress(text, &a);
  double d;
  (void)bottleneckd::ParseDuration(text, &d);
  return 0;
}
