#include "core/reference_loader.h"

#include "core/implementation_loader.h"

namespace kgate {

Result<Reference> load_reference(const ManifestReader& reader, const nlohmann::json& reference,
                                 const std::string& path) {
  if (!reference.is_object()) return reader.fail(path, "expected an object");
  KGATE_RETURN_IF_ERROR(reader.check_keys(reference, path, {"source", "entry", "cuda"}));
  auto source = reader.get_string(reference, path, "source", true);
  if (!source.ok()) return source.error();
  auto entry = reader.get_string(reference, path, "entry", true);
  if (!entry.ok()) return entry.error();
  KGATE_RETURN_IF_ERROR(reader.check_file(path + ".source", *source));
  Reference out{*source, *entry, std::nullopt};
  if (auto cuda = reference.find("cuda"); cuda != reference.end()) {
    auto impl =
        load_implementation(reader, *cuda, path + ".cuda", "cuda", ImplementationUse::kReference);
    if (!impl.ok()) return impl.error();
    out.cuda = std::move(impl.value());
  }
  return out;
}

}  // namespace kgate
