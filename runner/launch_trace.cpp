#include "runner/launch_trace.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "core/file_util.h"

namespace kgate {

Result<LaunchTrace> parse_launch_trace(const nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("launches") || !doc["launches"].is_array())
    return Error::bad_input("not a kgate launch trace: expected an object with \"launches\"");
  LaunchTrace trace;
  trace.nvtx_pushes = doc.value("nvtx_pushes", 0L);
  trace.dropped_records = doc.value("dropped_records", 0L);
  const auto& launches = doc["launches"];
  for (size_t i = 0; i < launches.size(); ++i) {
    const auto& l = launches[i];
    try {
      TracedLaunch t;
      t.name = l.at("name").get<std::string>();
      t.start_ns = l.at("start_ns").get<uint64_t>();
      t.end_ns = l.at("end_ns").get<uint64_t>();
      for (int d = 0; d < 3; ++d) {
        t.grid[d] = l.at("grid").at(d).get<uint32_t>();
        t.block[d] = l.at("block").at(d).get<uint32_t>();
      }
      t.stream = l.value("stream", 0u);
      if (l.contains("range") && l["range"].is_string()) t.range = l["range"];
      trace.launches.push_back(std::move(t));
    } catch (const nlohmann::json::exception& e) {
      return Error::bad_input("launch trace: launches[" + std::to_string(i) + "]: " + e.what());
    }
  }
  return trace;
}

Result<LaunchTrace> read_launch_trace(const std::filesystem::path& path) {
  auto text = read_file(path);
  if (!text.ok()) return text.error();
  auto doc = nlohmann::json::parse(*text, nullptr, false);
  if (doc.is_discarded())
    return Error::bad_input(path.string() +
                            ": not valid JSON (was the traced program killed before it exited?)");
  auto trace = parse_launch_trace(doc);
  if (!trace.ok()) return trace.error().with_context(path.string());
  return trace;
}

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

}  // namespace kgate
