#include "webhooks/job_environment.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>

#include "core/file_util.h"
#include "core/redact.h"

extern char** environ;

namespace kgate::webhooks {
namespace {

// What compilers, the CUDA driver and kgate's own subcommands read.
const char* const kAllowed[] = {
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "LD_LIBRARY_PATH",
    "CC",
    "CXX",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "NVIDIA_VISIBLE_DEVICES",
    "NVIDIA_DRIVER_CAPABILITIES",
    "KGATE_CACHE_DIR",
    "KGATE_STATE_DIR",
    "KGATE_LOCK_DIR",
    "KGATE_HOST_THREADS",
    "KGATE_CUDA_ARCH",
};
// CUDA_HOME, CUDA_PATH, CUDA_VISIBLE_DEVICES, CUDA_CACHE_PATH, ...; LC_ALL, LC_CTYPE, ...
const char* const kAllowedPrefixes[] = {"CUDA_", "LC_"};
const char* const kCredentialWords[] = {"TOKEN",    "SECRET", "KEY",
                                        "PASSWORD", "PASSWD", "CREDENTIAL"};

std::mutex sealed_mutex;
std::optional<std::vector<std::pair<std::string, std::string>>> sealed;

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

bool names_a_credential(const std::string& name) {
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  // Paths to secrets are not secrets; their contents are handled as files.
  if (ends_with(upper, "_FILE") || ends_with(upper, "_DIRECTORY")) return false;
  for (const char* word : kCredentialWords)
    if (upper.find(word) != std::string::npos) return true;
  return false;
}

std::vector<std::pair<std::string, std::string>> live_environment() {
  std::vector<std::pair<std::string, std::string>> out;
  for (char** e = environ; e && *e; ++e) {
    std::string entry = *e;
    size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    out.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> process_environment() {
  std::lock_guard lock(sealed_mutex);
  return sealed ? *sealed : live_environment();
}

std::string env(const char* name) {
  return service_env(name).value_or("");
}

// The bytes /proc/self/environ shows: [env_start, env_end) of this process,
// fields 50 and 51 of /proc/self/stat.
std::pair<char*, char*> environment_block() {
  std::ifstream in("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return {nullptr, nullptr};
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  unsigned long long start = 0, end = 0;
  for (int i = 3; i <= 51 && fields >> field; ++i) {
    if (i == 50) start = std::strtoull(field.c_str(), nullptr, 10);
    if (i == 51) end = std::strtoull(field.c_str(), nullptr, 10);
  }
  if (!start || end <= start) return {nullptr, nullptr};
  return {reinterpret_cast<char*>(start), reinterpret_cast<char*>(end)};
}

}  // namespace

bool passes_to_jobs(const std::string& name, const std::vector<std::string>& extra_names) {
  // The operator's own choice (--job-env), for jobs that run no pull-request code.
  if (std::find(extra_names.begin(), extra_names.end(), name) != extra_names.end()) return true;
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (const char* word : kCredentialWords)
    if (upper.find(word) != std::string::npos) return false;
  for (const char* allowed : kAllowed)
    if (name == allowed) return true;
  for (const char* prefix : kAllowedPrefixes)
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

std::map<std::string, std::string> job_environment(
    const std::vector<std::string>& extra_names,
    const std::function<std::vector<std::pair<std::string, std::string>>()>& environment) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : environment ? environment() : process_environment())
    if (passes_to_jobs(name, extra_names)) out[name] = value;
  return out;
}

std::vector<std::filesystem::path> secret_files(const std::vector<std::filesystem::path>& extra) {
  std::vector<std::filesystem::path> out;
  for (const char* name : {"KGATE_WEBHOOK_SECRET_FILE", "KGATE_APP_PRIVATE_KEY_FILE",
                           "GITHUB_TOKEN_FILE", "CREDENTIALS_DIRECTORY"}) {
    std::string value = env(name);
    if (!value.empty()) out.emplace_back(value);
  }
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

void register_service_secrets(const std::vector<std::string>& webhook_secrets) {
  auto register_text = [](const std::string& text) {
    register_secret(text);
    // A key printed line by line is still found line by line.
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
      if (line.size() >= 16 && line.rfind("-----", 0) != 0) register_secret(line);
    }
  };
  for (const std::string& s : webhook_secrets) register_secret(s);
  for (const auto& [name, value] : process_environment())
    if (!passes_to_jobs(name) && names_a_credential(name)) register_text(value);
  auto register_file = [&](const std::filesystem::path& file) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec) ||
        std::filesystem::file_size(file, ec) > (1 << 20))
      return;
    if (auto text = read_file(file); text.ok()) register_text(*text);
  };
  for (const auto& path : secret_files({})) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) {
      register_file(path);
      continue;
    }
    for (std::filesystem::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
      register_file(it->path());
  }
}

std::optional<std::string> service_env(const std::string& name) {
  {
    std::lock_guard lock(sealed_mutex);
    if (sealed) {
      for (const auto& [n, v] : *sealed)
        if (n == name) return v;
      return std::nullopt;
    }
  }
  const char* v = std::getenv(name.c_str());
  return v ? std::optional<std::string>(v) : std::nullopt;
}

void seal_service_environment(const std::vector<std::string>& webhook_secrets) {
  {
    std::lock_guard lock(sealed_mutex);
    if (!sealed) sealed = live_environment();
  }
  register_service_secrets(webhook_secrets);
  std::vector<std::string> erased;
  for (const auto& [name, value] : process_environment())
    if (names_a_credential(name)) erased.push_back(name);
  // The strings the process started with, which /proc/PID/environ reads.
  auto [begin, end] = environment_block();
  for (char* p = begin; p && p < end;) {
    size_t length = strnlen(p, static_cast<size_t>(end - p));
    std::string entry(p, length);
    size_t eq = entry.find('=');
    if (eq != std::string::npos && names_a_credential(entry.substr(0, eq)))
      std::memset(p + eq + 1, 0, length - eq - 1);
    p += length + 1;
  }
  for (const std::string& name : erased) unsetenv(name.c_str());
}

}  // namespace kgate::webhooks
