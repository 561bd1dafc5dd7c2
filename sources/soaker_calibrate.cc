// The Soaker's calibration: Calibrate, and LoadOrCalibrate at Start (the
// stored file when it is usable, else measure again), both measuring every CPU
// at once, one CalibrateCpu thread each, and storing the result
// (MeasureAndStore); the calibration in use and the median rate lent to CPUs
// that came online after it (SetCalibration, UpdateBorrowedCaveat). The file
// format and the soaker's other pure parts are in soaker_calibration_file.cc.
#include <algorithm>
#include <cstdio>
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
  // A disturbed one is used by a soaker that starts during a run (measuring
  // there would block the tick and measure the run's load), but the daemon's
  // start measures it again, before any run.
  return KeyAndCpus(&key, &cpus).ok() && LoadUsable(key, cpus, &f) &&
         std::none_of(f.cpus.begin(), f.cpus.end(), [](const SoakerCalibration& c) { return c.disturbed; });
}

Status Soaker::LoadOrCalibrate() {
  MutexLock c(&calibrate_mu_);
  SoakerCalibrationKey key;
  std::vector<int> cpus;
  BN_RETURN_IF_ERROR(KeyAndCpus(&key, &cpus));
  SoakerCalibrationFile f;
  if (LoadUsable(key, cpus, &f)) {
    std::vector<int> disturbed;
    for (const SoakerCalibration& c : f.cpus)
      if (c.disturbed) disturbed.push_back(c.cpu);
    MutexLock l(&mu_);
    SetCalibration(f);
    SetCaveat("disturbed", disturbed.empty() ? ""
                                             : "the stored calibration of cpus " + FormatCpuList(disturbed) +
                                                   " was disturbed: delivered idle reads high there; measured "
                                                   "again at the daemon's next start, or now with 'bottleneckd "
                                                   "calibrate' on quiet CPUs");
    return Status::OK();
  }
  // Missing, unreadable, malformed or stale: measure again. Failing to store
  // the result is in the caveat; the soaker runs on the calibration in memory.
  Status s = MeasureAndStore(cpus, key, &f);
  MutexLock l(&mu_);
  return calibration_.cpus.empty() ? s : Status::OK();
}

namespace {

// The file's rows of the CPUs measured, judged (JudgeCalibrations).
std::vector<SoakerCalibration> Judged(const std::vector<CpuCalibration>& results, int64_t now) {
  std::vector<SoakerCalibration> cpus;
  std::vector<double> ran;
  for (const CpuCalibration& r : results) {
    if (!r.error.empty()) continue;
    cpus.push_back({r.cpu, r.rate, now});
    ran.push_back(r.ran_share);
  }
  JudgeCalibrations(ran, &cpus);
  return cpus;
}

}  // namespace

void JudgeCalibrations(const std::vector<double>& ran_share, std::vector<SoakerCalibration>* cpus) {
  std::vector<double> rates;
  for (const SoakerCalibration& c : *cpus) rates.push_back(c.iterations_per_second);
  std::sort(rates.begin(), rates.end());
  const double median = rates.empty() ? 0 : rates[rates.size() / 2];
  for (size_t i = 0; i < cpus->size(); ++i) {
    SoakerCalibration& c = (*cpus)[i];
    char why[96];
    if (i < ran_share.size() && ran_share[i] < kCalibrationMinRanShare) {
      std::snprintf(why, sizeof why, "its thread ran %.0f %% of the time (queued behind other work)",
                    ran_share[i] * 100);
    } else if (median > 0 && c.iterations_per_second < kCalibrationMinOfMedian * median) {
      std::snprintf(why, sizeof why, "%.0f %% of the median rate of the CPUs calibrated with it",
                    c.iterations_per_second / median * 100);
    } else {
      continue;
    }
    c.disturbed = true;
    c.disturbed_why = why;
  }
}

Status Soaker::MeasureAndStore(const std::vector<int>& cpus, const SoakerCalibrationKey& key,
                               SoakerCalibrationFile* out) {
  std::vector<CpuCalibration> results(cpus.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < cpus.size(); ++i) {
    results[i].cpu = cpus[i];
    try {
      threads.emplace_back(CalibrateCpu, options_.calibration_seconds, key.percentile, &cancel_calibration_,
                           CalibrationCounter(cpus[i]), &results[i]);
    } catch (const std::system_error& e) {
      results[i].error = "cannot start a thread: " + std::string(e.what());
    }
  }
  for (std::thread& t : threads) t.join();
  // A CPU that gave too few slices, or whose measure was disturbed (its
  // thread queued behind other work, or far below the others' rate), is
  // measured once more on its own: a CPU missing from the calibration is
  // measured again or said in the caveat, never dropped silently
  // (DaemonSoaker.OnceWithSoakerAndCalibrate once found no cpu 0), and a
  // disturbed one is stored with its mark and said.
  // The second round measures only those, together (one more
  // calibration_time however many CPUs the host has).
  const int64_t now = UnixSeconds();
  const std::vector<SoakerCalibration> judged = Judged(results, now);
  std::vector<size_t> redo;
  for (size_t i = 0; i < results.size(); ++i) {
    const CpuCalibration& r = results[i];
    if (r.error.rfind("affinity refused", 0) == 0) continue;
    auto j = std::find_if(judged.begin(), judged.end(), [&](const SoakerCalibration& c) { return c.cpu == r.cpu; });
    if (!r.error.empty() || (j != judged.end() && j->disturbed)) redo.push_back(i);
  }
  std::vector<CpuCalibration> again(redo.size());
  for (size_t k = 0; k < redo.size(); ++k) again[k].cpu = results[redo[k]].cpu, again[k].error = "cancelled";
  threads.clear();
  for (size_t k = 0; k < redo.size() && !cancel_calibration_.load(); ++k) {
    again[k].error.clear();
    try {
      threads.emplace_back(CalibrateCpu, options_.calibration_seconds, key.percentile, &cancel_calibration_,
                           CalibrationCounter(again[k].cpu), &again[k]);
    } catch (const std::system_error& e) {
      again[k].error = "cannot start a thread: " + std::string(e.what());
    }
  }
  for (std::thread& t : threads) t.join();
  for (size_t k = 0; k < redo.size(); ++k) {
    CpuCalibration& r = results[redo[k]];
    if (again[k].error.empty() || !r.error.empty()) {
      if (!again[k].error.empty()) again[k].error = r.error + "; measured again: " + again[k].error;
      r = std::move(again[k]);
    }  // else keep the disturbed measure: the second failed
  }
  if (cancel_calibration_.load()) return Status::IOError("soaker calibration cancelled: nothing measured is stored");

  SoakerCalibrationFile f;
  f.key = key;
  f.cpus = Judged(results, now);
  std::string failures, disturbed;
  for (const CpuCalibration& r : results)
    if (!r.error.empty())
      failures += (failures.empty() ? "" : "; ") + ("cpu " + std::to_string(r.cpu) + ": " + r.error);
  for (const SoakerCalibration& c : f.cpus)
    if (c.disturbed)
      disturbed += (disturbed.empty() ? "" : "; ") + ("cpu" + std::to_string(c.cpu) + " " + c.disturbed_why);
  if (f.cpus.empty()) {
    return Status::IOError("soaker calibration: no CPU measured" +
                           (failures.empty() ? std::string() : ": " + failures));
  }
  *out = f;
  Status s = StoreSoakerCalibration(options_.state_dir, f);
  MutexLock l(&mu_);
  SetCalibration(f);
  SetCaveat("calibration", failures.empty() ? "" : "not calibrated: " + failures);
  SetCaveat("disturbed", disturbed.empty() ? ""
                                           : "calibration disturbed, twice (" + disturbed +
                                                 "): delivered idle reads high there; measured again at the next "
                                                 "start, or now with 'bottleneckd calibrate' on quiet CPUs");
  SetCaveat("store", s.ok() ? "" : "calibration kept in memory only (" + s.message() + ")");
  return s.WithContext("storing the soaker calibration");
}

std::atomic<uint64_t>* Soaker::CalibrationCounter(int cpu) {
  MutexLock l(&mu_);
  std::unique_ptr<std::atomic<uint64_t>>& n = calibration_ns_[cpu];
  if (!n) n = std::make_unique<std::atomic<uint64_t>>(0);
  return n.get();  // stable: the map's values are never removed
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
