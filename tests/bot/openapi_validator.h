#pragma once
// Validates request bodies against GitHub's OpenAPI description from the
// npm package @octokit/openapi. Implements the JSON Schema subset that
// description uses for request bodies: $ref, type (with nullable), enum,
// properties, required, additionalProperties, items, min/maxItems,
// min/maxLength, minimum/maximum, oneOf/anyOf/allOf.
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kgate::testing {

class OpenApiValidator {
 public:
  // Empty when the package is not installed (tests skip then).
  static std::shared_ptr<OpenApiValidator> load(const std::filesystem::path& node_modules) {
    auto path = node_modules / "@octokit/openapi/generated/api.github.com.json";
    std::ifstream in(path);
    if (!in) return nullptr;
    auto v = std::make_shared<OpenApiValidator>();
    v->spec_ = nlohmann::json::parse(in);
    return v;
  }

  // Errors for `body` sent as `method` to `url` (query ignored; anything
  // before "/repos/" or "/app/" is the API prefix). Empty: valid.
  std::vector<std::string> validate(const std::string& method, const std::string& url,
                                    const nlohmann::json& body) const {
    std::string path = url.substr(0, url.find('?'));
    for (const char* root : {"/repos/", "/app/", "/repositories/"}) {
      size_t at = path.find(root);
      if (at != std::string::npos) {
        path = path.substr(at);
        break;
      }
    }
    std::string lower = method;
    for (auto& c : lower) c = static_cast<char>(std::tolower(c));
    for (bool greedy : {false, true})
      for (auto it = spec_["paths"].begin(); it != spec_["paths"].end(); ++it) {
        if (!matches(it.key(), path, greedy) || !it.value().contains(lower)) continue;
        const auto& op = it.value()[lower];
        if (!op.contains("requestBody"))
          return {"operation " + op.value("operationId", it.key()) + " takes no body"};
        const auto& schema = resolve(op["requestBody"])["content"]["application/json"]["schema"];
        std::vector<std::string> errors;
        check(schema, body, op.value("operationId", it.key()), errors);
        return errors;
      }
    return {"no OpenAPI operation for " + method + " " + path};
  }

  // The operation id for a request, for messages ("pulls/create").
  std::string operation(const std::string& method, const std::string& url) const {
    std::string path = url.substr(0, url.find('?'));
    size_t at = path.find("/repos/");
    if (at != std::string::npos) path = path.substr(at);
    std::string lower = method;
    for (auto& c : lower) c = static_cast<char>(std::tolower(c));
    for (bool greedy : {false, true})
      for (auto it = spec_["paths"].begin(); it != spec_["paths"].end(); ++it)
        if (matches(it.key(), path, greedy) && it.value().contains(lower))
          return it.value()[lower].value("operationId", "");
    return "";
  }

 private:
  // `greedy_last`: the last parameter may hold slashes ({ref} = "heads/x").
  static bool matches(const std::string& templ, const std::string& path, bool greedy_last) {
    std::string re;
    for (size_t i = 0; i < templ.size(); ++i) {
      if (templ[i] == '{') {
        i = templ.find('}', i);
        bool slashes = greedy_last && i + 1 == templ.size() &&
                       (templ.ends_with("{ref}") || templ.ends_with("{path}"));
        re += slashes ? ".+" : "[^/]+";
      } else if (std::string("\\^$.|?*+()[]").find(templ[i]) != std::string::npos) {
        re += '\\';
        re += templ[i];
      } else {
        re += templ[i];
      }
    }
    return std::regex_match(path, std::regex(re));
  }

  const nlohmann::json& resolve(const nlohmann::json& schema) const {
    if (!schema.is_object() || !schema.contains("$ref")) return schema;
    std::string ref = schema["$ref"];  // "#/components/schemas/x"
    return resolve(spec_.at(nlohmann::json::json_pointer(ref.substr(1))));
  }

  static bool has_type(const nlohmann::json& v, const std::string& t) {
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_array();
    if (t == "string") return v.is_string();
    if (t == "integer") return v.is_number_integer();
    if (t == "number") return v.is_number();
    if (t == "boolean") return v.is_boolean();
    if (t == "null") return v.is_null();
    return false;
  }

  void check(const nlohmann::json& raw_schema, const nlohmann::json& v, const std::string& at,
             std::vector<std::string>& errors) const {
    const nlohmann::json& s = resolve(raw_schema);
    if (!s.is_object()) return;
    if (v.is_null() && s.value("nullable", false)) return;
    if (s.contains("type")) {
      bool ok = false;
      if (s["type"].is_array()) {
        for (const auto& t : s["type"]) ok = ok || has_type(v, t);
      } else {
        ok = has_type(v, s["type"]);
      }
      if (!ok) {
        errors.push_back(at + ": expected " + s["type"].dump() + ", got " + v.dump());
        return;
      }
    }
    if (s.contains("enum")) {
      bool ok = false;
      for (const auto& e : s["enum"]) ok = ok || e == v;
      if (!ok) errors.push_back(at + ": " + v.dump() + " is not one of " + s["enum"].dump());
    }
    if (v.is_string()) {
      size_t n = v.get<std::string>().size();
      if (s.contains("maxLength") && n > s["maxLength"].get<size_t>())
        errors.push_back(at + ": longer than " + s["maxLength"].dump());
      if (s.contains("minLength") && n < s["minLength"].get<size_t>())
        errors.push_back(at + ": shorter than " + s["minLength"].dump());
    }
    if (v.is_number()) {
      if (s.contains("minimum") && v.get<double>() < s["minimum"].get<double>())
        errors.push_back(at + ": below minimum");
      if (s.contains("maximum") && v.get<double>() > s["maximum"].get<double>())
        errors.push_back(at + ": above maximum");
    }
    if (v.is_object()) {
      if (s.contains("required"))
        for (const auto& r : s["required"])
          if (!v.contains(r.get<std::string>()))
            errors.push_back(at + ": missing required property " + r.dump());
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (s.contains("properties") && s["properties"].contains(it.key())) {
          check(s["properties"][it.key()], it.value(), at + "." + it.key(), errors);
        } else if (s.contains("additionalProperties")) {
          const auto& ap = s["additionalProperties"];
          if (ap.is_boolean() && !ap.get<bool>())
            errors.push_back(at + ": property '" + it.key() + "' is not allowed");
          else if (ap.is_object())
            check(ap, it.value(), at + "." + it.key(), errors);
        } else if (s.contains("properties")) {
          // GitHub ignores unknown properties, but a name the API does not
          // know is a bug in kgate: report it.
          errors.push_back(at + ": unknown property '" + it.key() + "'");
        }
      }
    }
    if (v.is_array()) {
      if (s.contains("maxItems") && v.size() > s["maxItems"].get<size_t>())
        errors.push_back(at + ": more than " + s["maxItems"].dump() + " items");
      if (s.contains("minItems") && v.size() < s["minItems"].get<size_t>())
        errors.push_back(at + ": fewer than " + s["minItems"].dump() + " items");
      if (s.contains("items"))
        for (size_t i = 0; i < v.size(); ++i)
          check(s["items"], v[i], at + "[" + std::to_string(i) + "]", errors);
    }
    if (s.contains("allOf"))
      for (const auto& sub : s["allOf"]) check(sub, v, at, errors);
    for (const char* key : {"oneOf", "anyOf"}) {
      if (!s.contains(key)) continue;
      int passing = 0;
      std::vector<std::string> all;
      for (const auto& sub : s[key]) {
        std::vector<std::string> e;
        check(sub, v, at, e);
        if (e.empty()) ++passing;
        all.insert(all.end(), e.begin(), e.end());
      }
      if (passing == 0 || (std::string(key) == "oneOf" && passing > 1))
        errors.push_back(at + ": matches " + std::to_string(passing) + " of the " + key +
                         " alternatives (" + (all.empty() ? "" : all.front()) + ")");
    }
  }

  nlohmann::json spec_;
};

}  // namespace kgate::testing
