#include "exporters/http/gzip_body.h"

#include <zlib.h>

#include <optional>
#include <string>

#include "base/parse_util.h"
#include "exporters/http/http_token.h"

namespace bottleneckd {
namespace {

// RFC 9110 qvalue, in thousandths: "0" ["." 0*3DIGIT] / "1" ["." 0*3"0"].
std::optional<int> ParseQValue(std::string_view s) {
  if (s.empty() || (s[0] != '0' && s[0] != '1')) return std::nullopt;
  int whole = s[0] - '0';
  s.remove_prefix(1);
  if (s.empty()) return whole * 1000;
  if (s[0] != '.' || s.size() > 4) return std::nullopt;
  int frac = 0, scale = 100;
  for (char c : s.substr(1)) {
    if (c < '0' || c > '9') return std::nullopt;
    frac += (c - '0') * scale;
    scale /= 10;
  }
  if (whole == 1 && frac != 0) return std::nullopt;
  return whole * 1000 + frac;
}

// One list element "coding *( OWS ; OWS name=value )": its coding and q (in
// thousandths, 1000 without one); false when it does not parse.
bool ParseCoding(std::string_view element, std::string_view* coding, int* q) {
  size_t semi = element.find(';');
  *coding = Trim(element.substr(0, semi));
  *q = 1000;
  if (!IsHttpToken(*coding)) return false;
  bool seen_q = false;
  while (semi != std::string_view::npos) {
    element.remove_prefix(semi + 1);
    semi = element.find(';');
    std::string_view param = Trim(element.substr(0, semi));
    size_t eq = param.find('=');
    if (eq == std::string_view::npos) return false;
    std::string_view name = Trim(param.substr(0, eq));
    if (!IsHttpToken(name)) return false;
    if (!EqualsIgnoringCase(name, "q")) continue;  // other parameters do not weigh
    std::optional<int> v = ParseQValue(Trim(param.substr(eq + 1)));
    if (!v || seen_q) return false;
    seen_q = true;
    *q = *v;
  }
  return true;
}

}  // namespace

bool AcceptsGzip(std::string_view accept_encoding) {
  std::optional<int> gzip, identity, any;
  while (!accept_encoding.empty()) {
    size_t comma = accept_encoding.find(',');
    std::string_view element = accept_encoding.substr(0, comma);
    accept_encoding.remove_prefix(comma == std::string_view::npos ? accept_encoding.size() : comma + 1);
    if (Trim(element).empty()) continue;  // "gzip,,deflate": empty elements are allowed
    std::string_view coding;
    int q;
    if (!ParseCoding(element, &coding, &q)) continue;
    std::optional<int>* slot = nullptr;
    if (EqualsIgnoringCase(coding, "gzip") || EqualsIgnoringCase(coding, "x-gzip")) {
      slot = &gzip;
    } else if (EqualsIgnoringCase(coding, "identity")) {
      slot = &identity;
    } else if (coding == "*") {
      slot = &any;
    }
    if (slot != nullptr && !*slot) *slot = q;
  }
  int gzip_q = gzip ? *gzip : any.value_or(0);
  std::optional<int> identity_q = identity ? identity : any;
  return gzip_q > 0 && (!identity_q || gzip_q >= *identity_q);
}

Status GzipEncode(std::string_view in, int level, std::string* out) {
  out->clear();
  z_stream zs{};
  // windowBits 15 + 16: a gzip wrapper instead of zlib's; memLevel 8 is
  // zlib's default.
  int rc = deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  if (rc != Z_OK) return Status::IOError(std::string("gzip: deflateInit2: ") + (zs.msg ? zs.msg : zError(rc)));
  // deflateBound is enough for one deflate(Z_FINISH) call; the body is at
  // most a few hundred MB (uInt counts up to 4 GiB, checked anyway).
  uLong bound = deflateBound(&zs, static_cast<uLong>(in.size()));
  if (in.size() > 0xffffffffu || bound > 0xffffffffu) {
    deflateEnd(&zs);
    return Status::IOError("gzip: body too large");
  }
  out->resize(bound);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out->data());
  zs.avail_out = static_cast<uInt>(bound);
  rc = deflate(&zs, Z_FINISH);
  size_t written = bound - zs.avail_out;
  std::string why;
  if (rc != Z_STREAM_END) why = zs.msg ? zs.msg : "returned " + std::to_string(rc);
  deflateEnd(&zs);
  if (!why.empty()) {
    out->clear();
    return Status::IOError("gzip: deflate: " + why);
  }
  out->resize(written);
  return Status::OK();
}

}  // namespace bottleneckd
