#include "webhooks/metrics.h"

#include <sstream>

namespace kgate::webhooks {
namespace {

// Label values are escaped as the text format requires.
std::string label(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::vector<double> job_bounds() {
  return {1, 5, 15, 60, 300, 900, 1800, 3600, 7200};
}

}  // namespace

Metrics::Histogram Metrics::make(std::vector<double> bounds) {
  Histogram h;
  h.counts.assign(bounds.size() + 1, 0);
  h.bounds = std::move(bounds);
  return h;
}

void Metrics::Histogram::observe(double value) {
  size_t i = 0;
  while (i < bounds.size() && value > bounds[i]) ++i;
  ++counts[i];
  sum += value;
  ++total;
}

void Metrics::delivery(const std::string& event, const std::string& outcome, double seconds) {
  std::lock_guard lock(mutex_);
  ++deliveries_[{event, outcome}];
  answer_.observe(seconds);
}

void Metrics::job_finished(const std::string& kind, const std::string& outcome, double seconds) {
  std::lock_guard lock(mutex_);
  ++jobs_[{kind, outcome}];
  auto [it, added] = job_seconds_.try_emplace(kind, make(job_bounds()));
  it->second.observe(seconds);
}

void Metrics::job_retried(const std::string& kind) {
  std::lock_guard lock(mutex_);
  ++retries_[kind];
}

void Metrics::connection_refused(const std::string& reason) {
  std::lock_guard lock(mutex_);
  ++refused_[reason];
}

std::string Metrics::render(const std::map<std::string, double>& queue_depth,
                            double pending_deliveries) const {
  std::lock_guard lock(mutex_);
  std::ostringstream out;
  auto histogram = [&](const std::string& name, const std::string& labels, const Histogram& h) {
    uint64_t cumulative = 0;
    std::string sep = labels.empty() ? "" : ",";
    for (size_t i = 0; i < h.bounds.size(); ++i) {
      cumulative += h.counts[i];
      out << name << "_bucket{" << labels << sep << "le=\"" << h.bounds[i] << "\"} " << cumulative
          << "\n";
    }
    cumulative += h.counts.back();
    out << name << "_bucket{" << labels << sep << "le=\"+Inf\"} " << cumulative << "\n";
    std::string braces = labels.empty() ? "" : "{" + labels + "}";
    out << name << "_sum" << braces << " " << h.sum << "\n";
    out << name << "_count" << braces << " " << h.total << "\n";
  };
  out << "# HELP kgate_webhook_deliveries_total Deliveries received, by event and outcome.\n"
      << "# TYPE kgate_webhook_deliveries_total counter\n";
  for (const auto& [key, n] : deliveries_)
    out << "kgate_webhook_deliveries_total{event=\"" << label(key.first) << "\",outcome=\""
        << label(key.second) << "\"} " << n << "\n";
  out << "# HELP kgate_webhook_answer_seconds Time from a request's arrival to its answer.\n"
      << "# TYPE kgate_webhook_answer_seconds histogram\n";
  histogram("kgate_webhook_answer_seconds", "", answer_);
  out << "# HELP kgate_http_refused_total Connections and requests the HTTP front cut, by "
         "reason.\n# TYPE kgate_http_refused_total counter\n";
  for (const auto& [reason, n] : refused_)
    out << "kgate_http_refused_total{reason=\"" << label(reason) << "\"} " << n << "\n";
  out << "# HELP kgate_webhook_pending_deliveries Deliveries stored, waiting for GitHub's answer "
         "to be routed.\n# TYPE kgate_webhook_pending_deliveries gauge\n"
      << "kgate_webhook_pending_deliveries " << pending_deliveries << "\n";
  out << "# HELP kgate_jobs Jobs in the queue, by state.\n# TYPE kgate_jobs gauge\n";
  for (const auto& [state, n] : queue_depth)
    out << "kgate_jobs{state=\"" << label(state) << "\"} " << n << "\n";
  out << "# HELP kgate_jobs_finished_total Job attempts that ended, by kind and outcome.\n"
      << "# TYPE kgate_jobs_finished_total counter\n";
  for (const auto& [key, n] : jobs_)
    out << "kgate_jobs_finished_total{kind=\"" << label(key.first) << "\",outcome=\""
        << label(key.second) << "\"} " << n << "\n";
  out << "# HELP kgate_job_retries_total Failed job attempts scheduled again.\n"
      << "# TYPE kgate_job_retries_total counter\n";
  for (const auto& [kind, n] : retries_)
    out << "kgate_job_retries_total{kind=\"" << label(kind) << "\"} " << n << "\n";
  out << "# HELP kgate_job_seconds Job durations, by kind.\n# TYPE kgate_job_seconds histogram\n";
  for (const auto& [kind, h] : job_seconds_)
    histogram("kgate_job_seconds", "kind=\"" + label(kind) + "\"", h);
  return out.str();
}

}  // namespace kgate::webhooks
