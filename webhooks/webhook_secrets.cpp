#include "webhooks/webhook_secrets.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kgate::webhooks {

std::vector<std::string> split_secrets(const std::string& text) {
  std::vector<std::string> secrets;
  std::string current;
  auto flush = [&] {
    size_t begin = current.find_first_not_of(" \t\r");
    size_t end = current.find_last_not_of(" \t\r");
    if (begin != std::string::npos) secrets.push_back(current.substr(begin, end - begin + 1));
    current.clear();
  };
  for (char c : text) {
    if (c == ',' || c == '\n') {
      flush();
    } else {
      current += c;
    }
  }
  flush();
  return secrets;
}

Result<std::vector<std::string>> load_webhook_secrets() {
  std::vector<std::string> secrets;
  if (const char* value = std::getenv("KGATE_WEBHOOK_SECRET"); value && *value) {
    secrets = split_secrets(value);
  } else if (const char* file = std::getenv("KGATE_WEBHOOK_SECRET_FILE"); file && *file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return Error::bad_input(std::string("KGATE_WEBHOOK_SECRET_FILE: cannot read ") + file);
    std::stringstream text;
    text << in.rdbuf();
    secrets = split_secrets(text.str());
  } else {
    return Error::bad_input(
        "no webhook secret: set KGATE_WEBHOOK_SECRET (comma-separated for rotation) or "
        "KGATE_WEBHOOK_SECRET_FILE to the secret configured on the GitHub webhook");
  }
  if (secrets.empty()) return Error::bad_input("the webhook secret is empty");
  return secrets;
}

}  // namespace kgate::webhooks
