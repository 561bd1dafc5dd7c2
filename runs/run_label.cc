#include "runs/run_label.h"

namespace bottleneckd {

std::string RunLabel(std::string_view name) {
  if (name.size() <= kRunLabelBytes) return std::string(name);
  size_t cut = kRunLabelBytes;
  // Back off continuation bytes (10xxxxxx) so that no character is split.
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
  return std::string(name.substr(0, cut));
}

}  // namespace bottleneckd
