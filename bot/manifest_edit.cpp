#include "bot/manifest_edit.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>

namespace kgate::bot {
namespace {

struct Span {
  size_t begin = 0, end = 0;  // [begin, end) of a value in the text
};

// A minimal scanner over JSON with comments that finds where values are.
// Invariant: positions are byte offsets into `text`, which it never copies.
class JsoncScanner {
 public:
  explicit JsoncScanner(const std::string& text) : t_(text) {}

  size_t skip_space(size_t i) const {
    while (i < t_.size()) {
      if (std::isspace(static_cast<unsigned char>(t_[i]))) {
        ++i;
      } else if (t_.compare(i, 2, "//") == 0) {
        i = t_.find('\n', i);
        if (i == std::string::npos) return t_.size();
      } else if (t_.compare(i, 2, "/*") == 0) {
        size_t e = t_.find("*/", i + 2);
        i = e == std::string::npos ? t_.size() : e + 2;
      } else {
        break;
      }
    }
    return i;
  }

  // The end of the value starting at `i` (which is not whitespace).
  Result<size_t> skip_value(size_t i) const {
    if (i >= t_.size()) return bad("unexpected end");
    char c = t_[i];
    if (c == '"') return skip_string(i);
    if (c == '{' || c == '[') {
      char close = c == '{' ? '}' : ']';
      i = skip_space(i + 1);
      if (i < t_.size() && t_[i] == close) return i + 1;
      while (true) {
        if (c == '{') {
          auto key_end = skip_string(i);
          if (!key_end.ok()) return key_end;
          i = skip_space(*key_end);
          if (i >= t_.size() || t_[i] != ':') return bad("expected ':'");
          i = skip_space(i + 1);
        }
        auto end = skip_value(i);
        if (!end.ok()) return end;
        i = skip_space(*end);
        if (i < t_.size() && t_[i] == ',') {
          i = skip_space(i + 1);
          if (i < t_.size() && t_[i] == close) return i + 1;  // trailing comma
          continue;
        }
        if (i < t_.size() && t_[i] == close) return i + 1;
        return bad("expected ',' or a closing bracket");
      }
    }
    size_t e = i;
    while (e < t_.size() && !std::isspace(static_cast<unsigned char>(t_[e])) &&
           std::string_view(",]}/").find(t_[e]) == std::string_view::npos)
      ++e;
    if (e == i) return bad("expected a value");
    return e;
  }

  // The member `key` of the object whose value starts at `object`: the span
  // of its value, and where its key starts.
  struct Member {
    Span value;
    size_t key_begin = 0;
  };
  Result<std::optional<Member>> member(size_t object, const std::string& key) const {
    if (object >= t_.size() || t_[object] != '{') return bad("expected an object");
    size_t i = skip_space(object + 1);
    while (i < t_.size() && t_[i] != '}') {
      auto key_end = skip_string(i);
      if (!key_end.ok()) return key_end.error();
      std::string name;
      try {
        name = nlohmann::json::parse(t_.substr(i, *key_end - i)).get<std::string>();
      } catch (const std::exception&) {
        return bad("a key that is not a string");
      }
      size_t key_begin = i;
      i = skip_space(*key_end);
      if (i >= t_.size() || t_[i] != ':') return bad("expected ':'");
      i = skip_space(i + 1);
      auto end = skip_value(i);
      if (!end.ok()) return end.error();
      if (name == key) return std::optional<Member>(Member{{i, *end}, key_begin});
      i = skip_space(*end);
      if (i < t_.size() && t_[i] == ',') i = skip_space(i + 1);
    }
    return std::optional<Member>();
  }

  Result<Span> element(size_t array, size_t index) const {
    if (array >= t_.size() || t_[array] != '[') return bad("expected an array");
    size_t i = skip_space(array + 1);
    for (size_t n = 0; i < t_.size() && t_[i] != ']'; ++n) {
      auto end = skip_value(i);
      if (!end.ok()) return end.error();
      if (n == index) return Span{i, *end};
      i = skip_space(*end);
      if (i < t_.size() && t_[i] == ',') i = skip_space(i + 1);
    }
    return bad("array index " + std::to_string(index) + " out of range");
  }

  // Indentation (spaces and tabs) of the line holding `pos`.
  std::string indent_at(size_t pos) const {
    size_t line = t_.rfind('\n', pos);
    line = line == std::string::npos ? 0 : line + 1;
    size_t e = line;
    while (e < pos && (t_[e] == ' ' || t_[e] == '\t')) ++e;
    return t_.substr(line, e - line);
  }

 private:
  Result<size_t> skip_string(size_t i) const {
    if (i >= t_.size() || t_[i] != '"') return bad("expected a string");
    for (++i; i < t_.size(); ++i) {
      if (t_[i] == '\\')
        ++i;
      else if (t_[i] == '"')
        return i + 1;
    }
    return bad("unterminated string");
  }
  Error bad(const std::string& what) const {
    return Error::bad_input("kgate.json cannot be edited: " + what);
  }
  const std::string& t_;
};

std::string compact(const nlohmann::json& array) {
  std::string out = "[";
  for (size_t i = 0; i < array.size(); ++i) out += (i ? ", " : "") + array[i].dump();
  return out + "]";
}

struct Replacement {
  size_t begin, end;
  std::string text;
};

}  // namespace

Result<std::string> edit_manifest_text(const std::string& text, const ManifestEdit& edit) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text, nullptr, true, /*ignore_comments=*/true);
  } catch (const std::exception& e) {
    return Error::bad_input(std::string("kgate.json does not parse: ") + e.what());
  }
  if (!doc.contains("kernels") || !doc["kernels"].is_array())
    return Error::bad_input("kgate.json has no \"kernels\" array");
  std::optional<size_t> index;
  for (size_t i = 0; i < doc["kernels"].size(); ++i)
    if (doc["kernels"][i].value("name", "") == edit.kernel) index = i;
  if (!index) return Error::bad_input("kgate.json has no kernel named '" + edit.kernel + "'");
  const nlohmann::json& kernel = doc["kernels"][*index];
  const bool nested = kernel.contains("impl");
  if (nested && !kernel["impl"].contains(edit.backend))
    return Error::bad_input("kernel '" + edit.kernel + "' has no \"" + edit.backend +
                            "\" implementation in kgate.json");
  const nlohmann::json& impl = nested ? kernel["impl"][edit.backend] : kernel;

  JsoncScanner scan(text);
  size_t root = scan.skip_space(0);
  auto kernels = scan.member(root, "kernels");
  if (!kernels.ok()) return kernels.error();
  auto kernel_span = scan.element((*kernels)->value.begin, *index);
  if (!kernel_span.ok()) return kernel_span.error();
  size_t impl_at = kernel_span->begin;
  if (nested) {
    auto impls = scan.member(impl_at, "impl");
    if (!impls.ok()) return impls.error();
    auto one = scan.member((*impls)->value.begin, edit.backend);
    if (!one.ok()) return one.error();
    impl_at = (*one)->value.begin;
  }

  std::vector<Replacement> edits;
  if (!edit.tunable_defaults.empty()) {
    auto tunables = scan.member(impl_at, "tunables");
    if (!tunables.ok()) return tunables.error();
    if (!*tunables || !impl.contains("tunables"))
      return Error::bad_input("kernel '" + edit.kernel + "' declares no tunables");
    for (const auto& [name, value] : edit.tunable_defaults) {
      auto list = scan.member((*tunables)->value.begin, name);
      if (!list.ok()) return list.error();
      if (!*list || !impl["tunables"].contains(name))
        return Error::bad_input("kernel '" + edit.kernel + "' has no tunable '" + name + "'");
      nlohmann::json values = impl["tunables"][name];
      auto at = std::find(values.begin(), values.end(), value);
      if (at == values.end())
        return Error::bad_input("tunable '" + name + "' of '" + edit.kernel + "' has no value " +
                                value.dump());
      values.erase(at);
      values.insert(values.begin(), value);
      edits.push_back({(*list)->value.begin, (*list)->value.end, compact(values)});
    }
  }
  if (!edit.extra_flags.empty()) {
    nlohmann::json flags = impl.contains("compile")
                               ? impl["compile"].value("flags", nlohmann::json::array())
                               : nlohmann::json::array();
    nlohmann::json added = nlohmann::json::array();
    for (const std::string& f : edit.extra_flags)
      if (std::find(flags.begin(), flags.end(), f) == flags.end()) added.push_back(f);
    if (!added.empty()) {
      for (const auto& f : added) flags.push_back(f);
      auto compile = scan.member(impl_at, "compile");
      if (!compile.ok()) return compile.error();
      if (*compile) {
        auto list = scan.member((*compile)->value.begin, "flags");
        if (!list.ok()) return list.error();
        if (*list) {
          edits.push_back({(*list)->value.begin, (*list)->value.end, compact(flags)});
        } else {
          size_t at = scan.skip_space((*compile)->value.begin + 1);
          bool empty = text[at] == '}';
          edits.push_back({at, at, "\"flags\": " + compact(flags) + (empty ? "" : ", ")});
        }
      } else {
        // Before the implementation's first member, on a line of its own.
        size_t first = scan.skip_space(impl_at + 1);
        std::string member = "\"compile\": {\"flags\": " + compact(flags) + "}";
        if (text[first] == '}')
          edits.push_back({first, first, member});
        else if (text.find('\n', impl_at) < first)
          edits.push_back({first, first, member + ",\n" + scan.indent_at(first)});
        else
          edits.push_back({first, first, member + ", "});
      }
    }
  }
  if (!edit.launch.is_null()) {
    if (!edit.launch.is_object() || !edit.launch.contains("grid") || !edit.launch.contains("block"))
      return Error::bad_input("the new launch of '" + edit.kernel + "' has no grid or block");
    auto launch = scan.member(impl_at, "launch");
    if (!launch.ok()) return launch.error();
    if (!*launch)
      return Error::bad_input("kernel '" + edit.kernel +
                              "' has no \"launch\" in kgate.json to change");
    std::string text_launch = "{\"grid\": " + compact(edit.launch["grid"]) +
                              ", \"block\": " + compact(edit.launch["block"]);
    const nlohmann::json shared = edit.launch.value("shared_bytes", nlohmann::json(0));
    if (!(shared.is_number_integer() && shared.get<int64_t>() == 0))
      text_launch += ", \"shared_bytes\": " + shared.dump();
    edits.push_back({(*launch)->value.begin, (*launch)->value.end, text_launch + "}"});
  }
  // Apply from the end so earlier offsets stay valid.
  std::sort(edits.begin(), edits.end(),
            [](const Replacement& a, const Replacement& b) { return a.begin > b.begin; });
  std::string out = text;
  for (const Replacement& r : edits) out.replace(r.begin, r.end - r.begin, r.text);
  try {
    if (nlohmann::json::parse(out, nullptr, true, true).is_discarded())
      return Error::infrastructure("editing kgate.json broke it (a kgate bug)");
  } catch (const std::exception& e) {
    return Error::infrastructure(std::string("editing kgate.json broke it (a kgate bug): ") +
                                 e.what());
  }
  return out;
}

}  // namespace kgate::bot
