// The collectors.pcap section of the config: live capture (sources/capture.h,
// docs/pcap.md). Every key is optional; capture is off until `interfaces`
// names at least one.
#include <algorithm>

#include "base/config_fields.h"
#include "sources/source_config.h"

namespace bottleneckd {
namespace {

// Linux interface names: 1 to 15 bytes (IFNAMSIZ - 1), no '/', ':' is allowed
// (aliases), no whitespace.
bool ValidInterfaceName(const std::string& s) {
  if (s.empty() || s.size() > 15 || s == "." || s == "..") return false;
  return std::none_of(s.begin(), s.end(), [](char c) { return c == '/' || c <= ' ' || c == 0x7f; });
}

Status CaptureInterfaces(const ConfigReader& r, const YAML::Node& v, CaptureOptions* o) {
  if (v.IsNull()) return Status::OK();
  if (!v.IsSequence()) return At(r.file(), v.Mark(), "collectors.pcap.interfaces must be a list of interface names");
  BN_RETURN_IF_ERROR(r.ListSize(v, "collectors.pcap.interfaces"));
  std::vector<std::string>& out = o->interfaces;
  out.clear();
  for (const auto& item : v) {
    std::string name = item.IsScalar() ? item.Scalar() : "";
    if (!ValidInterfaceName(name))
      return At(r.file(), item.Mark(),
                "'" + name + "' is not an interface name (1 to 15 characters, no '/' or spaces)");
    if (std::find(out.begin(), out.end(), name) != out.end())
      return At(r.file(), item.Mark(), "interface '" + name + "' is listed twice");
    out.push_back(name);
  }
  return Status::OK();
}

// pcap_set_timeout takes whole milliseconds: at least 1.
Status CaptureTimeout(const ConfigReader& r, const YAML::Node& n, std::string_view key, CaptureOptions* o) {
  double timeout = o->timeout_ms / 1000.0;
  BN_RETURN_IF_ERROR(r.Duration(n, key, {"collectors.pcap.timeout", 0.001, 10, "100ms or 1s"}, &timeout));
  o->timeout_ms = std::max(1, static_cast<int>(timeout * 1000 + 0.5));
  return Status::OK();
}

// A BPF program may span lines; it is compiled to check it.
Status CaptureFilter(const ConfigReader& r, const YAML::Node& n, std::string_view key, CaptureOptions* o) {
  BN_RETURN_IF_ERROR(r.String(n, key, &o->filter));
  if (o->filter.empty()) return Status::OK();
  Status s = CheckCaptureFilter(o->filter);
  if (!s.ok()) return At(r.file(), n[std::string(key)].Mark(), "collectors.pcap." + s.message());
  return Status::OK();
}

}  // namespace

Status ParseCapture(const ConfigReader& r, const YAML::Node& n, CaptureOptions* out) {
  using C = CaptureOptions;
  static const FieldTable<C> kFields = [] {
    FieldTable<C> t = {
        CustomField<C>("interfaces", CaptureInterfaces),
        // 64 keeps Ethernet + IPv4/IPv6 + UDP headers; 262144 is libpcap's maximum.
        WholeField("snaplen", &C::snaplen, 64, 262144),
        WholeField("buffer_bytes", &C::buffer_bytes, 65536, 1u << 30),
        {"timeout", CaptureTimeout},
        {"filter", CaptureFilter},
        BoolField("promiscuous", &C::promiscuous),
    };
    FieldTable<TrafficOptions> traffic = {
        WholeField("top_flows", &TrafficOptions::top_flows, 1, 1000),
        WholeField("max_flows", &TrafficOptions::max_tracked_flows, 1, 1 << 20),
        DurationField("reply_timeout", &TrafficOptions::reply_timeout_seconds,
                      {"collectors.pcap.reply_timeout", 0.001, 60, "100ms or 1s"}),
    };
    t.Add(traffic.Within(&C::traffic));
    return t;
  }();
  return kFields.Parse(r, n, "collectors.pcap", out, {"enabled"});
}

}  // namespace bottleneckd
