#include "agent/candidate_launch.h"

#include <cctype>
#include <limits>

namespace kgate {
namespace {

bool is_integer_text(const std::string& s) {
  if (s.empty()) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return s.size() < 19;
}

nlohmann::json expression_json(const std::string& text) {
  if (is_integer_text(text)) return std::stoll(text);
  return text;
}

// An integer or an expression string as text; nullopt for anything else.
std::optional<std::string> expression_text(const nlohmann::json& j) {
  if (j.is_number_integer()) return std::to_string(j.get<int64_t>());
  if (j.is_string()) return j.get<std::string>();
  return std::nullopt;
}

std::optional<std::vector<std::string>> dims_from(const nlohmann::json& j) {
  if (j.is_number_integer() || j.is_string()) return std::vector<std::string>{*expression_text(j)};
  if (!j.is_array()) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& d : j) {
    auto t = expression_text(d);
    if (!t) return std::nullopt;
    out.push_back(*t);
  }
  return out;
}

std::string list_text(const std::vector<std::string>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s + "]";
}

}  // namespace

nlohmann::json CandidateLaunch::to_json() const {
  nlohmann::json g = nlohmann::json::array(), b = nlohmann::json::array();
  for (const std::string& e : grid) g.push_back(expression_json(e));
  for (const std::string& e : block) b.push_back(expression_json(e));
  return {{"grid", g}, {"block", b}, {"shared_bytes", expression_json(shared_bytes)}};
}

std::optional<CandidateLaunch> CandidateLaunch::from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("grid") || !j.contains("block")) return std::nullopt;
  auto grid = dims_from(j["grid"]);
  auto block = dims_from(j["block"]);
  if (!grid || !block) return std::nullopt;
  CandidateLaunch l;
  l.grid = *grid;
  l.block = *block;
  if (j.contains("shared_bytes") && !j["shared_bytes"].is_null()) {
    auto s = expression_text(j["shared_bytes"]);
    if (!s) return std::nullopt;
    l.shared_bytes = *s;
  }
  return l;
}

std::string CandidateLaunch::text() const {
  return "grid " + list_text(grid) + ", block " + list_text(block) + ", shared_bytes " +
         shared_bytes;
}

CandidateLaunch launch_of(const Implementation& impl) {
  CandidateLaunch l;
  for (const Expression& e : impl.launch.grid) l.grid.push_back(e.text());
  for (const Expression& e : impl.launch.block) l.block.push_back(e.text());
  l.shared_bytes = impl.launch.shared_bytes.text();
  return l;
}

Result<LaunchSpec> parse_candidate_launch(const CandidateLaunch& launch) {
  LaunchSpec spec;
  auto dims = [](const std::vector<std::string>& in, const char* what,
                 std::vector<Expression>& out) -> Status {
    if (in.empty() || in.size() > 3)
      return Error::bad_input(std::string("launch.") + what + " needs 1 to 3 dimensions, got " +
                              std::to_string(in.size()));
    for (size_t i = 0; i < in.size(); ++i) {
      auto e = Expression::parse(in[i]);
      if (!e.ok())
        return Error::bad_input(std::string("launch.") + what + "[" + std::to_string(i) +
                                "]: " + e.error().message);
      out.push_back(*e);
    }
    return {};
  };
  KGATE_RETURN_IF_ERROR(dims(launch.grid, "grid", spec.grid));
  KGATE_RETURN_IF_ERROR(dims(launch.block, "block", spec.block));
  auto shared = Expression::parse(launch.shared_bytes.empty() ? "0" : launch.shared_bytes);
  if (!shared.ok()) return Error::bad_input("launch.shared_bytes: " + shared.error().message);
  spec.shared_bytes = *shared;
  return spec;
}

std::string check_candidate_launch(const CandidateLaunch& launch, const Kernel& kernel,
                                   const std::string& backend, const Variables& tunables,
                                   int64_t max_shared_bytes) {
  const Implementation* impl = kernel.implementation(backend);
  if (!impl) return "the kernel has no " + backend + " implementation";
  if (backend != "cuda")
    return "the " + backend + " backend has no launch geometry; leave out \"launch\"";
  auto spec = parse_candidate_launch(launch);
  if (!spec.ok()) return spec.error().message;
  Variables full = impl->default_tunables();
  for (const auto& [k, v] : tunables) full[k] = v;
  // The hardware's limits on every CUDA GPU since sm_30.
  const int64_t grid_max[3] = {std::numeric_limits<int32_t>::max(), 65535, 65535};
  const int64_t block_max[3] = {1024, 1024, 64};
  for (const Shape& shape : kernel.shapes) {
    if (!shape.runs_on(backend)) continue;
    auto at = [&](const std::string& what, const std::string& why) {
      return "launch." + what + " " + why + " on shape '" + shape.name + "'";
    };
    auto evaluated = kernel.variables(shape, full);
    if (!evaluated.ok()) return evaluated.error().message;
    const Variables& vars = *evaluated;
    int64_t threads = 1;
    for (int pass = 0; pass < 2; ++pass) {
      const bool is_grid = pass == 0;
      const auto& exprs = is_grid ? spec->grid : spec->block;
      for (size_t i = 0; i < exprs.size(); ++i) {
        const std::string what = std::string(is_grid ? "grid" : "block") + "[" + std::to_string(i) +
                                 "] \"" + exprs[i].text() + "\"";
        auto v = exprs[i].evaluate(vars);
        if (!v.ok()) return at(what, "does not evaluate: " + v.error().message);
        if (*v < 1) return at(what, "is " + std::to_string(*v) + ", not positive");
        const int64_t max = is_grid ? grid_max[i] : block_max[i];
        if (*v > max)
          return at(what,
                    "is " + std::to_string(*v) + ", above the hardware's " + std::to_string(max));
        if (!is_grid) threads *= *v;
      }
    }
    if (threads > 1024)
      return "launch.block has " + std::to_string(threads) + " threads on shape '" + shape.name +
             "'; a block holds at most 1024";
    auto shared = spec->shared_bytes.evaluate(vars);
    if (!shared.ok())
      return at("shared_bytes \"" + spec->shared_bytes.text() + "\"",
                "does not evaluate: " + shared.error().message);
    if (*shared < 0) return at("shared_bytes", "is " + std::to_string(*shared) + ", below zero");
    if (max_shared_bytes > 0 && *shared > max_shared_bytes)
      return at("shared_bytes", "is " + std::to_string(*shared) +
                                    " bytes, above this GPU's limit of " +
                                    std::to_string(max_shared_bytes) + " per block");
    if (*shared > (int64_t{1} << 30)) return at("shared_bytes", "is out of range");
  }
  return "";
}

Kernel kernel_with_launch(const Kernel& kernel, const std::string& backend,
                          const LaunchSpec& launch) {
  Kernel copy = kernel;
  for (Implementation& impl : copy.implementations)
    if (impl.backend == backend) impl.launch = launch;
  return copy;
}

}  // namespace kgate
