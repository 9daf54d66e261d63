#pragma once
// A kernel's entry as kgate.json names it: a function name, possibly
// qualified (`rmsnorm`, `lib::rmsnorm`), or a template-id whose arguments are
// C++ constant expressions over the implementation's tunables
// (`reduce6<float, BLOCK, true>`, `sgemm_2d<BM, BN, BK, TM, TN>`). Backends
// compile the instantiation that the tunables' values select: the tunables
// named in the arguments are replaced by their values (instantiate()).
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/expression.h"
#include "core/status.h"

namespace kgate {

// Invariant: a parsed EntryName is well formed: name() is identifiers joined
// by "::"; when is_template(), the arguments are non-empty, their brackets are
// balanced and they hold only C++ tokens a constant expression or a type can
// be written with (no quotes, braces, semicolons or preprocessor directives).
class EntryName {
 public:
  // Parses `text`; an error says what is wrong with it, for a message that
  // names the manifest's field.
  static Result<EntryName> parse(std::string_view text);

  const std::string& text() const { return text_; }
  // "lib::reduce6": the qualified name without the template arguments.
  const std::string& name() const { return name_; }
  // "reduce6": the last component of name(), as the source's definition spells it.
  std::string unqualified() const;
  bool is_template() const { return is_template_; }
  const std::vector<std::string>& template_args() const { return args_; }
  // The identifiers the template arguments use (tunables, types, true/false).
  std::set<std::string> argument_names() const;
  // The C++ name of the instantiation: text() with every identifier of the
  // template arguments that is a key of `values` replaced by its value
  // ("reduce6<float, 256, true>"). A plain name comes back as written.
  std::string instantiate(const Variables& values) const;

 private:
  std::string text_;
  std::string name_;
  bool is_template_ = false;
  size_t args_begin_ = 0;  // offset in text_ just after the outer '<'
  size_t args_end_ = 0;    // offset of the outer '>'
  std::vector<std::string> args_;
};

}  // namespace kgate
