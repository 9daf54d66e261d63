// The symbol tables of real compiled modules, read without a GPU: a cubin
// from NVRTC (kernels are entries whatever their spelling: extern "C", a
// macro, a template; a `__global__` in a comment is nothing; device helpers
// are not entries) and a shared library from the host compiler (exported
// functions are entries; static and inline ones are not). Damaged files are
// Errors, never a crash.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/subprocess.h"
#include "runner/cuda/raw_compile.h"
#include "runner/module_symbols.h"
#include "support/test_support.h"

namespace kgate {
namespace {

const ModuleSymbol* find(const std::vector<ModuleSymbol>& symbols, const std::string& plain) {
  for (const ModuleSymbol& s : symbols)
    if (s.plain == plain || s.name == plain) return &s;
  return nullptr;
}

std::string cubin_of(const std::string& source) {
  cuda::RawCompileInput in;
  in.source = source;
  in.display_name = "candidate.cu";
  in.arch = "sm_90";
  auto out = cuda::compile_with_nvrtc(in);
  EXPECT_TRUE(out.ok()) << out.error().message;
  if (!out.ok()) return "";
  EXPECT_TRUE(out->ok) << out->log;
  return out->cubin;
}

constexpr const char* kCudaSource = R"(
// __global__ void only_in_a_comment(float* a) {}
#define KERNEL extern "C" __global__
__device__ __noinline__ float twice(float x) { return 2 * x; }
extern "C" __global__ void entry(float* a) { a[threadIdx.x] = twice(a[threadIdx.x]); }
KERNEL void hidden_by_a_macro(float* a, int n) { a[n] = 1; }
template <int N> __global__ void templated(float* a) { a[N] = 2; }
template __global__ void templated<3>(float*);
)";

TEST(ModuleSymbols, ReadsTheKernelsOfACubin) {
  std::string cubin = cubin_of(kCudaSource);
  ASSERT_FALSE(cubin.empty());
  auto symbols = parse_module_symbols(cubin, ModuleKind::kCubin);
  ASSERT_TRUE(symbols.ok()) << symbols.error().message;
  std::vector<std::string> entries;
  for (const ModuleSymbol& s : *symbols)
    if (s.entry) entries.push_back(s.plain);
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(entries, (std::vector<std::string>{"entry", "hidden_by_a_macro", "templated<3>"}));
  EXPECT_FALSE(find(*symbols, "only_in_a_comment"));
  const ModuleSymbol* t = find(*symbols, "templated<3>");
  ASSERT_TRUE(t);
  EXPECT_TRUE(symbol_matches(*t, "templated"));
  EXPECT_TRUE(symbol_matches(*t, t->name));
  EXPECT_FALSE(symbol_matches(*t, "entry"));
  // A helper that stays a function is listed, but is no entry point.
  if (const ModuleSymbol* h = find(*symbols, "twice")) {
    EXPECT_FALSE(h->entry);
  }
}

TEST(ModuleSymbols, ReadsTheExportedFunctionsOfASharedLibrary) {
  testing::TempDir dir;
  testing::write(dir / "k.cpp", R"(
#include <vector>
static float private_helper(float x) { return 2 * x; }
namespace { float also_private(float x) { return x; } }
inline float inline_helper(float x) { return x + 1; }
float exported_helper(float x) { return 3 * x; }
void entry(float* a, int n) {
  std::vector<float> v(a, a + n);
  v.push_back(private_helper(a[0]) + also_private(a[0]) + inline_helper(a[0]));
  a[0] = v.back() + exported_helper(a[0]);
}
extern "C" void kgate_call(void** p) { entry(static_cast<float*>(p[0]), 1); }
)");
  auto run = run_command({"c++", "-std=c++17", "-O2", "-fPIC", "-shared", "-fno-gnu-unique",
                          (dir / "k.cpp").string(), "-o", (dir / "k.so").string()},
                         {.timeout_s = 120});
  ASSERT_TRUE(run.ok() && run->succeeded()) << (run.ok() ? run->err : run.error().message);
  auto symbols = read_module_symbols(dir / "k.so", "host");
  ASSERT_TRUE(symbols.ok()) << symbols.error().message;
  std::vector<std::string> entries;
  for (const ModuleSymbol& s : *symbols)
    if (s.entry) entries.push_back(s.plain);
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(entries, (std::vector<std::string>{"entry", "exported_helper", "kgate_call"}));
  EXPECT_FALSE(find(*symbols, "private_helper"));
  // Undefined imports (operator new, memmove) are never listed.
  EXPECT_FALSE(find(*symbols, "memmove"));
  EXPECT_FALSE(find(*symbols, "operator new"));
}

TEST(ModuleSymbols, DamagedFilesAreErrorsNotCrashes) {
  EXPECT_FALSE(parse_module_symbols("", ModuleKind::kCubin).ok());
  EXPECT_FALSE(parse_module_symbols("not an elf file at all, long enough to have a header "
                                    "of sixty-four bytes or more.",
                                    ModuleKind::kCubin)
                   .ok());
  std::string cubin = cubin_of(kCudaSource);
  ASSERT_FALSE(cubin.empty());
  // Every prefix of a real cubin, and one with its header offsets scrambled.
  for (size_t n = 0; n < cubin.size(); n += 37) {
    auto r = parse_module_symbols(std::string_view(cubin).substr(0, n), ModuleKind::kCubin);
    (void)r;  // an Error or a partial table; never a read past the end
  }
  std::string scrambled = cubin;
  for (size_t i = 0x28; i < 0x40; ++i) scrambled[i] = static_cast<char>(0xff);
  EXPECT_FALSE(parse_module_symbols(scrambled, ModuleKind::kCubin).ok());
  EXPECT_EQ(plain_symbol_name("_Z6helperf"), "helper");
  EXPECT_EQ(plain_symbol_name("_Z2tkILi3EEvPf"), "tk<3>");
  EXPECT_EQ(plain_symbol_name("_ZN2ns5innerEv"), "ns::inner");
  EXPECT_EQ(plain_symbol_name("plain_c"), "plain_c");
}

}  // namespace
}  // namespace kgate
