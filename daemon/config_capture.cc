// The collectors.pcap section of the config: live capture (sources/capture.h,
// docs/pcap.md). Every key is optional; capture is off until `interfaces`
// names at least one.
#include <algorithm>

#include "base/config_reader.h"
#include "daemon/config.h"

namespace bottleneckd {
namespace {

// Linux interface names: 1 to 15 bytes (IFNAMSIZ - 1), no '/', ':' is allowed
// (aliases), no whitespace.
bool ValidInterfaceName(const std::string& s) {
  if (s.empty() || s.size() > 15 || s == "." || s == "..") return false;
  return std::none_of(s.begin(), s.end(), [](char c) { return c == '/' || c <= ' ' || c == 0x7f; });
}

Status Interfaces(const ConfigReader& r, const YAML::Node& n, std::vector<std::string>* out) {
  if (!n.IsMap() || !n["interfaces"] || n["interfaces"].IsNull()) return Status::OK();
  const YAML::Node v = n["interfaces"];
  if (!v.IsSequence()) return At(r.file(), v.Mark(), "collectors.pcap.interfaces must be a list of interface names");
  BN_RETURN_IF_ERROR(r.ListSize(v, "collectors.pcap.interfaces"));
  out->clear();
  for (const auto& item : v) {
    std::string name = item.IsScalar() ? item.Scalar() : "";
    if (!ValidInterfaceName(name))
      return At(r.file(), item.Mark(),
                "'" + name + "' is not an interface name (1 to 15 characters, no '/' or spaces)");
    if (std::find(out->begin(), out->end(), name) != out->end())
      return At(r.file(), item.Mark(), "interface '" + name + "' is listed twice");
    out->push_back(name);
  }
  return Status::OK();
}

}  // namespace

bool CaptureEnabled(const CollectorsSection& c) {
  return !c.pcap.interfaces.empty() && std::find(c.disabled.begin(), c.disabled.end(), "pcap") == c.disabled.end();
}

Status CheckCaptureInterfaces(const CollectorsSection& c) {
  if (CollectorEnabled(c, "pcap", false) && c.pcap.interfaces.empty())
    return Status::InvalidArgument(
        "the pcap collector is on but has no interface: set collectors.pcap.interfaces or --capture.interface IF");
  return Status::OK();
}

Status ParseCapture(const ConfigReader& r, const YAML::Node& n, CaptureOptions* out) {
  BN_RETURN_IF_ERROR(r.Map(n, "collectors.pcap",
                           {"enabled", "interfaces", "snaplen", "buffer_bytes", "timeout", "filter", "promiscuous",
                            "top_flows", "max_flows", "reply_timeout"}));
  if (!n.IsDefined() || n.IsNull()) return Status::OK();
  BN_RETURN_IF_ERROR(Interfaces(r, n, &out->interfaces));
  double v = 0;
  if (n["snaplen"]) {
    // 64 keeps Ethernet + IPv4/IPv6 + UDP headers; 262144 is libpcap's maximum.
    BN_RETURN_IF_ERROR(r.Number(n, "snaplen", 64, 262144, true, &v));
    out->snaplen = static_cast<uint32_t>(v);
  }
  if (n["buffer_bytes"]) {
    BN_RETURN_IF_ERROR(r.Number(n, "buffer_bytes", 65536, 1u << 30, true, &v));
    out->buffer_bytes = static_cast<uint32_t>(v);
  }
  double timeout = out->timeout_ms / 1000.0;
  BN_RETURN_IF_ERROR(r.Duration(n, "timeout", {"collectors.pcap.timeout", 0.001, 10, "100ms or 1s"}, &timeout));
  out->timeout_ms = std::max(1, static_cast<int>(timeout * 1000 + 0.5));
  BN_RETURN_IF_ERROR(r.String(n, "filter", &out->filter));  // a BPF filter may span lines
  if (!out->filter.empty()) {
    Status s = CheckCaptureFilter(out->filter);
    if (!s.ok()) return At(r.file(), n["filter"].Mark(), "collectors.pcap." + s.message());
  }
  BN_RETURN_IF_ERROR(r.Bool(n, "promiscuous", &out->promiscuous));
  if (n["top_flows"]) {
    BN_RETURN_IF_ERROR(r.Number(n, "top_flows", 1, 1000, true, &v));
    out->traffic.top_flows = static_cast<size_t>(v);
  }
  if (n["max_flows"]) {
    BN_RETURN_IF_ERROR(r.Number(n, "max_flows", 1, 1 << 20, true, &v));
    out->traffic.max_tracked_flows = static_cast<size_t>(v);
  }
  BN_RETURN_IF_ERROR(r.Duration(n, "reply_timeout", {"collectors.pcap.reply_timeout", 0.001, 60, "100ms or 1s"},
                                &out->traffic.reply_timeout_seconds));
  return Status::OK();
}

}  // namespace bottleneckd
