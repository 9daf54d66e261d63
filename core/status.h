#pragma once
// Errors are values. An Error carries a message a user can act on and the
// kind of failure, which decides the process exit code (see exit_code.h).
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "core/exit_code.h"

namespace kgate {

struct Error {
  ExitCode kind = ExitCode::kBadInput;
  std::string message;

  static Error bad_input(std::string m) { return {ExitCode::kBadInput, std::move(m)}; }
  static Error infrastructure(std::string m) { return {ExitCode::kInfrastructure, std::move(m)}; }
  static Error check_failed(std::string m) { return {ExitCode::kCheckFailed, std::move(m)}; }

  // Prefixes context ("loading kgate.json: ...") while keeping the kind.
  Error with_context(const std::string& context) const { return {kind, context + ": " + message}; }
};

// Result<T> holds either a value or an Error. Invariant: exactly one is set.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

// Status is a Result with no value: success, or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}
  static Status ok_status() { return {}; }

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

}  // namespace kgate

// Returns the error of a Status/Result expression from the enclosing function.
#define KGATE_RETURN_IF_ERROR(expr)                        \
  do {                                                     \
    auto kgate_status_ = (expr);                           \
    if (!kgate_status_.ok()) return kgate_status_.error(); \
  } while (0)
