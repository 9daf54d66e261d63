#include "core/tolerance_loader.h"

namespace kgate {

Result<Tolerance> load_tolerance(const ManifestReader& reader, const nlohmann::json& value,
                                 const std::string& path, const Tolerance& defaults) {
  if (!value.is_object()) return reader.fail(path, "expected an object");
  KGATE_RETURN_IF_ERROR(reader.check_keys(value, path, {"atol", "rtol", "ulp", "scale_rel"}));
  Tolerance out = defaults;
  struct Field {
    const char* key;
    double Tolerance::*member;
  };
  for (const Field& f :
       {Field{"atol", &Tolerance::atol}, Field{"rtol", &Tolerance::rtol},
        Field{"ulp", &Tolerance::ulp}, Field{"scale_rel", &Tolerance::scale_rel}}) {
    if (!value.contains(f.key)) continue;
    auto number = reader.get_number(value, path, f.key, 0);
    if (!number.ok()) return number.error();
    if (*number < 0) return reader.fail(path + "." + f.key, "expected a number >= 0");
    out.*f.member = *number;
  }
  return out;
}

}  // namespace kgate
