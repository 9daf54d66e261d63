#pragma once
// What a job's process may see of the service. Jobs run pull-request code
// (gates) or generated kernels (optimize): they get an environment built
// from an allow-list, never the service's own, and the service's secret
// files are hidden from them (core/file_shield.h). docs/webhooks.md lists
// the variables.
//
// Invariant: job_environment() holds no variable outside the allow-list and
// the extra names given, and, but for those extra names (the operator's
// explicit choice), none whose name says it is a credential (TOKEN, SECRET,
// KEY, PASSWORD, PASSWD, CREDENTIAL).
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kgate::webhooks {

// Whether `name` passes from the service's environment to its jobs.
bool passes_to_jobs(const std::string& name, const std::vector<std::string>& extra_names = {});

// The variables of `environment` (the service's, by default) that pass.
std::map<std::string, std::string> job_environment(
    const std::vector<std::string>& extra_names = {},
    const std::function<std::vector<std::pair<std::string, std::string>>()>& environment = nullptr);

// The files a job must not read: the service's secret files named in its
// environment (KGATE_WEBHOOK_SECRET_FILE, KGATE_APP_PRIVATE_KEY_FILE,
// GITHUB_TOKEN_FILE, systemd's CREDENTIALS_DIRECTORY) plus `extra`.
std::vector<std::filesystem::path> secret_files(const std::vector<std::filesystem::path>& extra);

// Registers every secret value the service's environment holds (tokens, the
// App key and each line of it, webhook secrets, the contents of the secret
// files) with core/redact.h, so no log line, queue row or job output kgate
// writes contains one.
void register_service_secrets(const std::vector<std::string>& webhook_secrets);

// Called once by `kgate serve` at start, before any thread: keeps a copy of
// the environment for the service's own lookups (service_env(),
// job_environment()), registers its secrets (above), and then erases every
// credential's value from the process: from the environment, and from the
// memory /proc/PID/environ shows (the kernel lets a job running as the same
// user, or as root, read it however the service is marked).
void seal_service_environment(const std::vector<std::string>& webhook_secrets);

// A variable of the environment as it was when sealed (the live one before).
std::optional<std::string> service_env(const std::string& name);

}  // namespace kgate::webhooks
