#pragma once
// Counters and histograms for GET /metrics, in Prometheus' text format.
// Invariant: every method is safe to call from any thread.
#include <array>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kgate::webhooks {

class Metrics {
 public:
  void delivery(const std::string& event, const std::string& outcome, double answer_seconds);
  void job_finished(const std::string& kind, const std::string& outcome, double seconds);
  void job_retried(const std::string& kind);
  // A connection or request the HTTP front cut (http_front.h reasons).
  void connection_refused(const std::string& reason);

  // `gauges` adds values read at scrape time (queue depth by state).
  std::string render(const std::map<std::string, double>& queue_depth,
                     double pending_deliveries = 0) const;

 private:
  struct Histogram {
    std::vector<double> bounds;
    std::vector<uint64_t> counts;  // one per bound, plus +Inf
    double sum = 0;
    uint64_t total = 0;
    void observe(double value);
  };
  static Histogram make(std::vector<double> bounds);

  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, uint64_t> deliveries_;
  std::map<std::pair<std::string, std::string>, uint64_t> jobs_;
  std::map<std::string, uint64_t> retries_;
  std::map<std::string, uint64_t> refused_;
  Histogram answer_ = make({0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5});
  std::map<std::string, Histogram> job_seconds_;
};

}  // namespace kgate::webhooks
