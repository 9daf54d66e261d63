#pragma once
// A fixture for the loader's tests: one manifest text, its source files as
// empty stand-ins in a temporary folder, and the manifest parsed after one
// textual edit, so each test changes one thing and looks at what it does.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "core/manifest_loader.h"
#include "support/test_support.h"

namespace kgate::testing {

class ManifestEditTest : public ::testing::Test {
 protected:
  ManifestEditTest(std::string manifest, std::initializer_list<const char*> sources)
      : manifest_(std::move(manifest)) {
    for (const char* f : sources) write(dir_ / f, "// source\n");
  }

  // The manifest with the first `from` replaced by `to` ("" and "": as it is).
  Result<Manifest> parse_after(const std::string& from, const std::string& to) {
    std::string text = manifest_;
    auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << "test bug: '" << from << "' not in the manifest";
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return parse_manifest(text, "kgate.json", dir_.path());
  }
  // The loader's message after the edit; a test failure when it loads.
  std::string error_after(const std::string& from, const std::string& to) {
    auto result = parse_after(from, to);
    EXPECT_FALSE(result.ok()) << "expected an error after replacing '" << from << "'";
    return result.ok() ? "" : result.error().message;
  }

  TempDir dir_;

 private:
  std::string manifest_;
};

}  // namespace kgate::testing
