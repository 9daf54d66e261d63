#include "runner/compile_check.h"

#include "runner/cuda/cuda_backend.h"
#include "runner/host/host_backend.h"
#include "runner/reference.h"

namespace kgate {

nlohmann::json CompileCheck::to_json() const {
  nlohmann::json j = {{"kernel", kernel},
                      {"target", target},
                      {"tunables", tunables},
                      {"ok", ok},
                      {"from_cache", from_cache}};
  if (ok) {
    j["symbol"] = symbol;
    if (registers >= 0) j["registers"] = registers;
  } else {
    j["errors"] = digest;
  }
  return j;
}

std::vector<Variables> tunable_settings(const std::vector<Tunable>& tunables, bool all) {
  Variables defaults;
  for (const Tunable& t : tunables)
    if (!t.values.empty()) defaults[t.name] = t.values.front();
  std::vector<Variables> out = {defaults};
  if (!all) return out;
  // Odometer over the value lists; index 0 everywhere is the defaults.
  std::vector<size_t> index(tunables.size(), 0);
  while (true) {
    size_t t = 0;
    while (t < tunables.size() && ++index[t] == tunables[t].values.size()) index[t++] = 0;
    if (t == tunables.size()) break;
    Variables v;
    for (size_t i = 0; i < tunables.size(); ++i) v[tunables[i].name] = tunables[i].values[index[i]];
    out.push_back(std::move(v));
  }
  return out;
}

namespace {

CompileCheck record(const std::string& kernel, const std::string& target, const Variables& tunables,
                    const Result<CompileOutcome>& outcome) {
  CompileCheck c{kernel, target, tunables};
  if (!outcome.ok()) {
    c.digest = outcome.error().message + "\n";  // a refused flag, a bad entry
    return c;
  }
  c.ok = outcome->ok;
  if (c.ok) {
    c.symbol = outcome->program.entry;
    c.registers = outcome->program.resources.registers;
    c.from_cache = outcome->program.from_cache;
  } else {
    c.digest = outcome->digest();
  }
  return c;
}

}  // namespace

Result<std::vector<CompileCheck>> check_compiles(
    const Manifest& manifest, const CompileCheckOptions& options,
    const std::function<void(const std::string&, const std::string&, size_t)>& on_start) {
  if (!options.kernel.empty() && !manifest.kernel(options.kernel))
    return Error::bad_input("no kernel '" + options.kernel + "' in " + manifest.path.string());
  std::vector<CompileCheck> out;
  auto host = make_host_backend();
  for (const Kernel& kernel : manifest.kernels) {
    if (!options.kernel.empty() && kernel.name != options.kernel) continue;
    for (const Implementation& impl : kernel.implementations) {
      if (!options.backend.empty() && impl.backend != options.backend) continue;
      std::vector<std::pair<std::string, Backend*>> targets;
      std::vector<std::unique_ptr<Backend>> cuda;
      if (impl.backend == "host") {
        targets.emplace_back("host", host.get());
      } else {
        for (const std::string& arch : options.cuda_archs) {
          cuda.push_back(make_cuda_backend(arch));
          targets.emplace_back("cuda " + arch, cuda.back().get());
        }
      }
      std::vector<Variables> settings = tunable_settings(impl.tunables, options.all_tunables);
      for (const auto& [target, backend] : targets) {
        if (on_start) on_start(kernel.name, target, settings.size());
        for (const Variables& tunables : settings) {
          CompileRequest request;
          request.kernel = &kernel;
          request.impl = &impl;
          request.root = manifest.root;
          request.tunables = tunables;
          auto outcome = backend->compile(request);
          if (!outcome.ok() && outcome.error().kind == ExitCode::kInfrastructure)
            return outcome.error().with_context(kernel.name + " (" + target + ")");
          out.push_back(record(kernel.name, target, tunables, outcome));
        }
      }
    }
    if (options.references && options.backend.empty()) {
      if (on_start) on_start(kernel.name, "reference", 1);
      auto outcome = build_reference(kernel, manifest.root);
      if (!outcome.ok() && outcome.error().kind == ExitCode::kInfrastructure)
        return outcome.error().with_context(kernel.name + " (reference)");
      out.push_back(record(kernel.name, "reference", {}, outcome));
    }
    // The reference kernel judges the large shapes on a GPU: a port whose
    // reference kernel does not compile must fail here, not on the GPU.
    const auto& device_ref = kernel.reference.cuda;
    if (options.references && device_ref &&
        (options.backend.empty() || options.backend == device_ref->backend)) {
      for (const std::string& arch : options.cuda_archs) {
        const std::string target = "reference cuda " + arch;
        if (on_start) on_start(kernel.name, target, 1);
        CompileRequest request;
        request.kernel = &kernel;
        request.impl = &*device_ref;
        request.root = manifest.root;
        auto outcome = make_cuda_backend(arch)->compile(request);
        if (!outcome.ok() && outcome.error().kind == ExitCode::kInfrastructure)
          return outcome.error().with_context(kernel.name + " (" + target + ")");
        out.push_back(record(kernel.name, target, {}, outcome));
      }
    }
  }
  return out;
}

}  // namespace kgate
