// Every continuous source's entry (sources/source_entry.h), in the order the
// daemon starts and reads them: the capture first (it opens before any other
// thread exists, so the capabilities it needs can be dropped from the whole
// process), the soaker, then the eBPF sources. The switchable ones are
// listed in --help after the polled collectors of collectors/collector.h and
// switched like them (--collector.NAME, --no-collector.NAME,
// collectors.NAME.enabled).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sources/source_entry.h"

namespace bottleneckd {

const std::vector<const SourceEntry*>& SourceRegistry();

// The entry named `name`; null when there is none.
const SourceEntry* FindSourceEntry(std::string_view name);

// A polled collector's or a switchable source's name.
bool KnownCollectorName(const std::string& name);

}  // namespace bottleneckd
