// Fuzz target: recording.yaml (ParseRecordingInfo), the soaker file
// (ParseSoakerFile) and sample times (ParseSecondsNs) take whatever a
// recording holds: a Status for anything malformed, never a crash, a throw or
// a sanitizer report. What parses must survive its own round trip.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "recording/recording.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bottleneckd::RecordingInfo info;
  if (bottleneckd::ParseRecordingInfo(text, "fuzz.yaml", &info).ok()) {
    bottleneckd::RecordingInfo again;
    if (!bottleneckd::ParseRecordingInfo(bottleneckd::RecordingInfoYaml(info), "again.yaml", &again).ok() ||
        again.samples != info.samples || again.runs.size() != info.runs.size() || again.version != info.version ||
        again.sources != info.sources)
      std::abort();
  }
  bottleneckd::SoakerReading r;
  if (bottleneckd::ParseSoakerFile(text, &r).ok()) {
    bottleneckd::SoakerReading again;
    if (!bottleneckd::ParseSoakerFile(bottleneckd::SoakerFileText(r), &again).ok() ||
        again.cpus.size() != r.cpus.size())
      std::abort();
  }
  int64_t ns = 0;
  (void)bottleneckd::ParseSecondsNs(text, &ns);
  return 0;
}
