#pragma once
// Text the service sends to GitHub (check runs, comments) is read by anyone
// who can read the pull request: it must not name where the service keeps
// its state, its checkout or its binary. A job's error, a read failure or a
// compiler's message often does ("cannot read /var/lib/kgate/state/jobs/1/
// result.json"), so every such text passes through here first.
#include <string>
#include <string_view>

namespace kgate::webhooks {

// `text` with every absolute path of two components or more ("/a/b...")
// replaced by ".../" and its last component: "cannot read .../result.json".
// URLs (https://host/path), repository-relative paths (csrc/a.cu) and
// single-component words such as "/kgate" are left as they are.
std::string without_local_paths(std::string_view text);

}  // namespace kgate::webhooks
