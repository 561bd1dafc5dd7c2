// Fuzz target: Accept-Encoding negotiation and the gzip encoder
// (exporters/http/gzip_body.h). Any bytes as a header value must give an
// answer without crashing, and the same bytes as a body must gzip and inflate
// back to themselves.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "exporters/http/gzip_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)bottleneckd::AcceptsGzip(in);
  std::string gz;
  if (!bottleneckd::GzipEncode(in, bottleneckd::kGzipFastest, &gz).ok()) std::abort();
  std::string back(size, '\0');
  uLongf n = static_cast<uLongf>(size);
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) std::abort();
  zs.next_in = reinterpret_cast<Bytef*>(gz.data());
  zs.avail_in = static_cast<uInt>(gz.size());
  zs.next_out = reinterpret_cast<Bytef*>(back.data());
  zs.avail_out = static_cast<uInt>(n);
  int rc = inflate(&zs, Z_FINISH);
  bool same = rc == Z_STREAM_END && zs.total_out == size && back == in;
  inflateEnd(&zs);
  if (!same) std::abort();
  return 0;
}
