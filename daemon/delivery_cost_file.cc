#include "daemon/delivery_cost_file.h"

#include <charconv>
#include <cmath>

#include "base/parse_util.h"
#include "base/state_file.h"
#include "sources/soaker.h"

namespace bottleneckd {
namespace {

constexpr int kFormatVersion = 1;
constexpr const char* kFileName = kDeliveryCostFile;
constexpr size_t kMaxFileBytes = 64u << 10;

constexpr InterruptSource kSources[] = {InterruptSource::kMeasured, InterruptSource::kTicks};

void AppendDouble(double v, std::string* out) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest exact form
  out->append(buf, ec == std::errc() ? ptr : buf);
}

std::string OneLine(std::string_view s) {
  std::string out(Trim(s));
  for (char& c : out)
    if (c == '\n') c = ' ';
  return out;
}

Status ParseFit(std::string_view rest, size_t n, DeliveryCost* cost) {
  std::string_view name = NextToken(&rest);
  InterruptSource src;
  if (name == "measured") {
    src = InterruptSource::kMeasured;
  } else if (name == "ticks") {
    src = InterruptSource::kTicks;
  } else {
    return StateLineError(n, "unknown interrupt source '" + std::string(name) + "' (measured, ticks)");
  }
  DeliveryFit f;
  for (double* v : {&f.n, &f.sx, &f.sy, &f.sxx, &f.sxy, &f.syy}) {
    std::string_view tok = NextToken(&rest);
    if (!ParseDouble(tok, v) || !std::isfinite(*v)) return StateLineError(n, "bad number '" + std::string(tok) + "'");
  }
  if (f.n < 0 || f.sxx < 0 || f.syy < 0) return StateLineError(n, "negative count or sum of squares");
  cost->Restore(src, f);
  return Status::OK();
}

}  // namespace

Status ReadDeliveryCostHost(const HostFs& fs, DeliveryCostHost* out) {
  std::string buf;
  BN_RETURN_IF_ERROR(fs.ReadProc("cpuinfo", &buf));
  out->cpu_model = ParseCpuinfoModel(buf);
  out->hypervisor = ParseCpuinfoHypervisor(buf);
  out->cpus = 0;
  std::string_view text = buf, line;
  while (NextLine(&text, &line)) {
    std::string_view rest = line;
    if (NextToken(&rest) == "processor") ++out->cpus;
  }
  BN_RETURN_IF_ERROR(fs.ReadProc("sys/kernel/osrelease", &buf));
  out->kernel = std::string(Trim(buf));
  return Status::OK();
}

std::string FormatDeliveryCost(const DeliveryCostHost& host, const DeliveryCost& cost) {
  std::string out =
      "# bottleneckd interrupt delivery cost: least-squares sums of the soaker's unexplained time\n"
      "# against interrupts per second, per interrupt source (analysis/delivery_cost.h).\n"
      "# Dropped when the host below changes.\n";
  out += "format " + std::to_string(kFormatVersion) + "\n";
  out += "cpu_model " + OneLine(host.cpu_model) + "\n";
  out += "kernel " + OneLine(host.kernel) + "\n";
  out += "cpus " + std::to_string(host.cpus) + "\n";
  out += std::string("hypervisor ") + (host.hypervisor ? "1" : "0") + "\n";
  out += "# fit <source> <n> <sum x> <sum y> <sum xx> <sum xy> <sum yy>\n";
  for (InterruptSource src : kSources) {
    const DeliveryFit& f = cost.fit(src);
    if (f.n <= 0) continue;
    out += std::string("fit ") + InterruptSourceName(src);
    for (double v : {f.n, f.sx, f.sy, f.sxx, f.sxy, f.syy}) {
      out += ' ';
      AppendDouble(v, &out);
    }
    out += '\n';
  }
  return out;
}

Status ParseDeliveryCost(std::string_view text, DeliveryCostHost* host, DeliveryCost* cost) {
  *host = DeliveryCostHost();
  *cost = DeliveryCost();
  bool model = false, kernel = false, cpus = false, hypervisor = false;
  auto line = [&](size_t n, std::string_view key, std::string_view value) -> Status {
    if (key == "cpu_model") {
      host->cpu_model = std::string(value);
      model = true;
    } else if (key == "kernel") {
      host->kernel = std::string(value);
      kernel = true;
    } else if (key == "cpus") {
      int64_t v = 0;
      if (!ParseI64(value, &v) || v < 1 || v > kMaxCpuId + 1)
        return StateLineError(n, "bad cpus '" + std::string(value) + "'");
      host->cpus = static_cast<int>(v);
      cpus = true;
    } else if (key == "hypervisor") {
      if (value != "0" && value != "1")
        return StateLineError(n, "bad hypervisor '" + std::string(value) + "' (0 or 1)");
      host->hypervisor = value == "1";
      hypervisor = true;
    } else if (key == "fit") {
      BN_RETURN_IF_ERROR(ParseFit(value, n, cost));
    }
    // Unknown keys (a later version's additions) are skipped.
    return Status::OK();
  };
  BN_RETURN_IF_ERROR(ForEachStateLine(text, kFormatVersion, "delivery cost file", line));
  if (!model || !kernel || !cpus || !hypervisor)
    return Status::Corruption("missing host line (cpu_model, kernel, cpus and hypervisor are all needed)");
  return Status::OK();
}

Status LoadDeliveryCost(const std::string& state_dir, const DeliveryCostHost& host, DeliveryCost* cost,
                        std::string* note) {
  std::string path = state_dir + "/" + kFileName, text;
  Status s = ReadStateFile(path, kMaxFileBytes, &text);
  if (!s.ok()) {
    if (s.IsNotFound()) {
      *note = "none learned yet";
      return Status::OK();
    }
    return s;
  }
  DeliveryCostHost was;
  DeliveryCost read;
  BN_RETURN_IF_ERROR(ParseDeliveryCost(text, &was, &read).WithContext(path));
  if (!(was == host)) {
    *note = "learned on another host (" + was.cpu_model + ", kernel " + was.kernel + ", " + std::to_string(was.cpus) +
            " CPUs): learning again";
    return Status::OK();
  }
  *cost = read;
  *note = "restored from " + path;
  return Status::OK();
}

Status StoreDeliveryCost(const std::string& state_dir, const DeliveryCostHost& host, const DeliveryCost& cost) {
  return WriteStateFile(state_dir, kFileName, FormatDeliveryCost(host, cost));
}

}  // namespace bottleneckd
