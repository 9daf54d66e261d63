#include "gate/baseline_store.h"

#include "core/utc_time.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>

#include "core/file_util.h"
#include "core/version.h"
#include "gate/paired_ratio.h"

namespace kgate {

BaselineShape BaselineShape::from_samples(std::string shape, std::string phase,
                                          const std::vector<double>& seconds) {
  BaselineShape b;
  b.shape = std::move(shape);
  b.phase = std::move(phase);
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  b.sample_count = static_cast<int>(sorted.size());
  if (sorted.empty()) return b;
  b.median_s = quantile(sorted, 0.5);
  b.p10_s = quantile(sorted, 0.1);
  b.p25_s = quantile(sorted, 0.25);
  b.p75_s = quantile(sorted, 0.75);
  b.p90_s = quantile(sorted, 0.9);
  b.min_s = sorted.front();
  b.max_s = sorted.back();
  // Evenly spaced order statistics keep the distribution's shape in bounded space.
  size_t keep = std::min(sorted.size(), kMaxKeptSamples);
  for (size_t i = 0; i < keep; ++i)
    b.samples.push_back(sorted[keep == 1 ? 0 : i * (sorted.size() - 1) / (keep - 1)]);
  return b;
}

nlohmann::json BaselineShape::to_json() const {
  return {{"shape", shape},       {"phase", phase},
          {"median_s", median_s}, {"p10_s", p10_s},
          {"p25_s", p25_s},       {"p75_s", p75_s},
          {"p90_s", p90_s},       {"min_s", min_s},
          {"max_s", max_s},       {"sample_count", sample_count},
          {"samples", samples}};
}

BaselineShape BaselineShape::from_json(const nlohmann::json& j) {
  BaselineShape b;
  b.shape = j.at("shape").get<std::string>();
  b.phase = j.value("phase", "");
  b.median_s = j.at("median_s").get<double>();
  b.p10_s = j.value("p10_s", b.median_s);
  b.p25_s = j.value("p25_s", b.median_s);
  b.p75_s = j.value("p75_s", b.median_s);
  b.p90_s = j.value("p90_s", b.median_s);
  b.min_s = j.value("min_s", b.median_s);
  b.max_s = j.value("max_s", b.median_s);
  b.sample_count = j.value("sample_count", 0);
  b.samples = j.value("samples", std::vector<double>{});
  return b;
}

nlohmann::json BaselineEnvironment::to_json() const {
  return {{"gpu", gpu},
          {"driver", driver},
          {"cuda", cuda},
          {"arch", arch},
          {"sm_clock_mhz", sm_clock_mhz},
          {"gpu_index", gpu_index},
          {"gpu_uuid", gpu_uuid},
          {"pci_bus_id", pci_bus_id},
          {"peak_sm_clock_mhz", peak_sm_clock_mhz},
          {"peak_memory_clock_mhz", peak_memory_clock_mhz},
          {"kgate_version", kgate_version},
          {"source_hash", source_hash},
          {"revision", revision},
          {"date", date}};
}

BaselineEnvironment BaselineEnvironment::from_json(const nlohmann::json& j) {
  BaselineEnvironment e;
  e.gpu = j.value("gpu", "");
  e.driver = j.value("driver", "");
  e.cuda = j.value("cuda", "");
  e.arch = j.value("arch", "");
  e.sm_clock_mhz = j.value("sm_clock_mhz", 0.0);
  e.gpu_index = j.value("gpu_index", -1);
  e.gpu_uuid = j.value("gpu_uuid", "");
  e.pci_bus_id = j.value("pci_bus_id", "");
  e.peak_sm_clock_mhz = j.value("peak_sm_clock_mhz", 0.0);
  e.peak_memory_clock_mhz = j.value("peak_memory_clock_mhz", 0.0);
  e.kgate_version = j.value("kgate_version", "");
  e.source_hash = j.value("source_hash", "");
  e.revision = j.value("revision", "");
  e.date = j.value("date", "");
  return e;
}

const BaselineShape* BaselineEntry::shape(const std::string& name) const {
  for (const BaselineShape& s : shapes)
    if (s.shape == name) return &s;
  return nullptr;
}

nlohmann::json BaselineEntry::to_json() const {
  nlohmann::json j = {{"environment", environment.to_json()}, {"shapes", nlohmann::json::array()}};
  for (const BaselineShape& s : shapes) j["shapes"].push_back(s.to_json());
  return j;
}

BaselineEntry BaselineEntry::from_json(const nlohmann::json& j) {
  BaselineEntry e;
  e.environment = BaselineEnvironment::from_json(j.value("environment", nlohmann::json::object()));
  for (const auto& s : j.at("shapes")) e.shapes.push_back(BaselineShape::from_json(s));
  return e;
}

nlohmann::json BaselineFile::to_json() const {
  nlohmann::json j = {{"format", "kgate-baseline"},
                      {"version", 1},
                      {"kernel", kernel},
                      {"gpu", gpu},
                      {"history", nlohmann::json::array()}};
  for (const BaselineEntry& e : history) j["history"].push_back(e.to_json());
  return j;
}

Result<BaselineFile> BaselineFile::from_json(const nlohmann::json& j) {
  try {
    if (j.value("format", "") != "kgate-baseline")
      return Error::bad_input("not a kgate baseline file (\"format\" is not \"kgate-baseline\")");
    if (j.value("version", 0) != 1)
      return Error::bad_input("unsupported baseline version " +
                              j.value("version", nlohmann::json(0)).dump());
    BaselineFile f;
    f.kernel = j.at("kernel").get<std::string>();
    f.gpu = j.value("gpu", "");
    for (const auto& e : j.at("history")) f.history.push_back(BaselineEntry::from_json(e));
    return f;
  } catch (const nlohmann::json::exception& e) {
    return Error::bad_input(std::string("malformed baseline: ") + e.what());
  }
}

std::string gpu_slug(const std::string& gpu_name) {
  std::string slug;
  for (char c : gpu_name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      slug += static_cast<char>(std::tolower(c));
    else if (!slug.empty() && slug.back() != '-')
      slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  if (slug.size() > 64) slug.resize(64);
  return slug.empty() ? "unknown" : slug;
}

std::filesystem::path baseline_path(const std::filesystem::path& dir, const std::string& gpu_name,
                                    const std::string& kernel) {
  return dir / gpu_slug(gpu_name) / (kernel + ".json");
}

Result<std::optional<BaselineFile>> load_baseline(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) return std::optional<BaselineFile>{};
  auto text = read_file(path);
  if (!text.ok()) return text.error();
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) return Error::bad_input(path.string() + ": not valid JSON");
  auto file = BaselineFile::from_json(j);
  if (!file.ok()) return file.error().with_context(path.string());
  return std::optional<BaselineFile>(std::move(file.value()));
}

Status save_baseline(const std::filesystem::path& path, const BaselineFile& file) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec)
    return Error::infrastructure("cannot create " + path.parent_path().string() + ": " +
                                 ec.message());
  return write_file_atomic(path, file.to_json().dump(1) + "\n");
}

Result<BaselineFile> append_baseline(const std::filesystem::path& path, const std::string& kernel,
                                     BaselineEntry entry, size_t max_history) {
  auto loaded = load_baseline(path);
  if (!loaded.ok()) return loaded.error();
  BaselineFile file;
  if (*loaded) file = std::move(**loaded);
  if (!file.kernel.empty() && file.kernel != kernel)
    return Error::bad_input(path.string() + " holds kernel '" + file.kernel + "', not '" + kernel +
                            "'");
  file.kernel = kernel;
  file.gpu = entry.environment.gpu;
  file.history.push_back(std::move(entry));
  if (file.history.size() > max_history)
    file.history.erase(file.history.begin(), file.history.end() - static_cast<long>(max_history));
  KGATE_RETURN_IF_ERROR(save_baseline(path, file));
  return file;
}

BaselineEntry baseline_entry(const std::vector<ShapeMeasurement>& shapes,
                             const std::string& source_hash, const std::string& revision) {
  BaselineEntry e;
  std::vector<double> clocks;
  for (const ShapeMeasurement& m : shapes) {
    if (m.status != MeasureStatus::kPass || m.head_seconds.empty()) continue;
    if (e.environment.gpu.empty()) {
      e.environment.gpu = m.device.name;
      e.environment.driver = m.device.driver;
      e.environment.cuda = m.device.runtime;
      e.environment.arch = m.device.arch;
      e.environment.gpu_index = m.device.index;
      e.environment.gpu_uuid = m.device.uuid;
      e.environment.pci_bus_id = m.device.pci_bus_id;
      e.environment.peak_sm_clock_mhz = m.device.peak_sm_clock_mhz;
      e.environment.peak_memory_clock_mhz = m.device.peak_memory_clock_mhz;
    }
    clocks.insert(clocks.end(), m.head_clock_mhz.begin(), m.head_clock_mhz.end());
    e.shapes.push_back(BaselineShape::from_samples(m.shape, m.phase, m.head_seconds));
  }
  e.environment.sm_clock_mhz = clocks.empty() ? 0 : quantile(clocks, 0.5);
  e.environment.kgate_version = kVersion;
  e.environment.source_hash = source_hash;
  e.environment.revision = revision;
  e.environment.date = utc_now_iso8601();
  return e;
}

std::optional<BaselineComparison> compare_with_baseline(const BaselineEntry& entry,
                                                        const std::string& shape,
                                                        double head_median_s) {
  const BaselineShape* s = entry.shape(shape);
  if (!s || !(s->median_s > 0) || !(head_median_s > 0)) return std::nullopt;
  BaselineComparison c;
  c.median_s = s->median_s;
  c.p10_s = s->p10_s;
  c.p90_s = s->p90_s;
  c.ratio = head_median_s / s->median_s;
  c.within_band = head_median_s >= s->p10_s && head_median_s <= s->p90_s;
  c.recorded = entry.environment.date;
  return c;
}

void attach_baseline(KernelGate& gate, const BaselineEntry& entry) {
  for (ShapeGate& s : gate.shapes)
    s.baseline = compare_with_baseline(entry, s.shape, s.head_median_s);
}

}  // namespace kgate
