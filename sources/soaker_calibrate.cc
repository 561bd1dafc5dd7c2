// The Soaker's calibration: Calibrate, and LoadOrCalibrate at Start (the
// stored file when it is usable, else measure again), both measuring every CPU
// at once, one CalibrateCpu thread each, and storing the result
// (MeasureAndStore); the calibration in use and the median rate lent to CPUs
// that came online after it (SetCalibration, UpdateBorrowedCaveat). The file
// format and the soaker's other pure parts are in soaker_calibration_file.cc.
#include <algorithm>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "sources/soaker_internal.h"

namespace bottleneckd {

Status Soaker::KeyAndCpus(SoakerCalibrationKey* key, std::vector<int>* cpus) {
  BN_RETURN_IF_ERROR(ReadSoakerCalibrationKey(*fs_, options_.calibration_percentile, key));
  MutexLock l(&mu_);
  return ListCpus(cpus);
}

Status Soaker::Calibrate(SoakerCalibrationFile* out) {
  MutexLock c(&calibrate_mu_);
  SoakerCalibrationKey key;
  std::vector<int> cpus;
  BN_RETURN_IF_ERROR(KeyAndCpus(&key, &cpus));
  return MeasureAndStore(cpus, key, out);
}

bool Soaker::LoadUsable(const SoakerCalibrationKey& key, const std::vector<int>& cpus, SoakerCalibrationFile* f) const {
  return LoadSoakerCalibration(SoakerCalibrationPath(options_.state_dir), f).ok() &&
         SoakerCalibrationUsable(*f, key, cpus, UnixSeconds(), options_.calibration_max_age_seconds);
}

bool Soaker::StoredCalibrationUsable() {
  MutexLock c(&calibrate_mu_);  // not while another call is writing the file
  SoakerCalibrationKey key;
  std::vector<int> cpus;
  SoakerCalibrationFile f;
  return KeyAndCpus(&key, &cpus).ok() && LoadUsable(key, cpus, &f);
}

Status Soaker::LoadOrCalibrate() {
  MutexLock c(&calibrate_mu_);
  SoakerCalibrationKey key;
  std::vector<int> cpus;
  BN_RETURN_IF_ERROR(KeyAndCpus(&key, &cpus));
  SoakerCalibrationFile f;
  if (LoadUsable(key, cpus, &f)) {
    MutexLock l(&mu_);
    SetCalibration(f);
    return Status::OK();
  }
  // Missing, unreadable, malformed or stale: measure again. Failing to store
  // the result is in the caveat; the soaker runs on the calibration in memory.
  Status s = MeasureAndStore(cpus, key, &f);
  MutexLock l(&mu_);
  return calibration_.cpus.empty() ? s : Status::OK();
}

Status Soaker::MeasureAndStore(const std::vector<int>& cpus, const SoakerCalibrationKey& key,
                               SoakerCalibrationFile* out) {
  std::vector<CpuCalibration> results(cpus.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < cpus.size(); ++i) {
    results[i].cpu = cpus[i];
    try {
      threads.emplace_back(CalibrateCpu, options_.calibration_seconds, key.percentile, &cancel_calibration_,
                           &results[i]);
    } catch (const std::system_error& e) {
      results[i].error = "cannot start a thread: " + std::string(e.what());
    }
  }
  for (std::thread& t : threads) t.join();
  // A CPU that gave too few slices (busy with other work, or a vCPU the host
  // held back) is measured once more, on its own: a CPU missing from the
  // calibration is measured again or said in the caveat, never dropped
  // silently (DaemonSoaker.OnceWithSoakerAndCalibrate once found no cpu 0).
  for (CpuCalibration& r : results) {
    if (r.error.empty() || cancel_calibration_.load() || r.error.rfind("affinity refused", 0) == 0) continue;
    CpuCalibration again;
    again.cpu = r.cpu;
    try {
      // Its own thread: CalibrateCpu pins the thread that runs it.
      std::thread(CalibrateCpu, options_.calibration_seconds, key.percentile, &cancel_calibration_, &again).join();
    } catch (const std::system_error& e) {
      again.error = "cannot start a thread: " + std::string(e.what());
    }
    if (!again.error.empty()) again.error = r.error + "; measured again: " + again.error;
    r = std::move(again);
  }
  if (cancel_calibration_.load()) return Status::IOError("soaker calibration cancelled: nothing measured is stored");

  SoakerCalibrationFile f;
  f.key = key;
  std::string failures;
  int64_t now = UnixSeconds();
  for (const CpuCalibration& r : results) {
    if (r.error.empty()) {
      f.cpus.push_back({r.cpu, r.rate, now});
    } else {
      failures += (failures.empty() ? "" : "; ") + ("cpu " + std::to_string(r.cpu) + ": " + r.error);
    }
  }
  if (f.cpus.empty()) {
    return Status::IOError("soaker calibration: no CPU measured" +
                           (failures.empty() ? std::string() : ": " + failures));
  }
  *out = f;
  Status s = StoreSoakerCalibration(options_.state_dir, f);
  MutexLock l(&mu_);
  SetCalibration(f);
  SetCaveat("calibration", failures.empty() ? "" : "not calibrated: " + failures);
  SetCaveat("store", s.ok() ? "" : "calibration kept in memory only (" + s.message() + ")");
  return s.WithContext("storing the soaker calibration");
}

void Soaker::SetCalibration(const SoakerCalibrationFile& f) {
  calibration_ = f;
  borrowed_ = SoakerCalibration();
  if (f.cpus.empty()) return;
  std::vector<SoakerCalibration> v = f.cpus;
  std::sort(v.begin(), v.end(), [](const SoakerCalibration& a, const SoakerCalibration& b) {
    return a.iterations_per_second < b.iterations_per_second;
  });
  borrowed_ = v[v.size() / 2];
  borrowed_.cpu = -1;
  UpdateBorrowedCaveat();
}

void Soaker::UpdateBorrowedCaveat() {
  std::vector<int> borrowed;
  for (const auto& w : workers_) {
    bool have = std::any_of(calibration_.cpus.begin(), calibration_.cpus.end(),
                            [&](const SoakerCalibration& c) { return c.cpu == w->cpu; });
    if (!have) borrowed.push_back(w->cpu);
  }
  SetCaveat("borrowed", borrowed.empty() ? ""
                                         : "cpus " + FormatCpuList(borrowed) +
                                               " came online after the calibration and use "
                                               "the median rate of the others; run "
                                               "'bottleneckd calibrate'");
}

}  // namespace bottleneckd
