// The tuner's moves for kernels that declare no tunables
// (agent/tuner_moves.h): the block size only where nothing hard-codes it,
// the grid rescaled with it, __launch_bounds__ and register caps, unroll
// pragmas on loops the compiler leaves rolled, cache hints; the order the
// profile gives them; and the tuner's answer carrying the new launch or
// source. The edited sources are compiled with NVRTC (no GPU needed).
#include <gtest/gtest.h>

#include <algorithm>

#include "agent/agent_answer.h"
#include "agent/agent_request.h"
#include "agent/candidate_compiler.h"
#include "agent/tuner_moves.h"
#include "agent/tuner_provider.h"
#include "core/file_util.h"
#include "core/manifest_loader.h"
#include "runner/cuda/cuda_backend.h"
#include "support/test_support.h"

namespace kgate {
namespace {

// A kernel nobody prepared for kgate: one element per thread, the block size
// read from blockDim, a grid-stride loop whose bound is a runtime value.
const char* kScale = R"(// y = a * x, summed over `reps` passes
extern "C" __global__ void scale(const float* x, float* y, int n, int reps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.f;
  for (int r = 0; r < reps; ++r) acc += 2.f * x[i];
  y[i] = acc;
}
)";

MoveInput scale_input(const std::string& grid = "ceil_div(n, 256)") {
  MoveInput in;
  in.backend = "cuda";
  in.source = kScale;
  in.entry = "scale";
  in.launch.grid = {grid};
  in.launch.block = {"256"};
  in.arg_expressions = {"n", "n", "n", "reps"};
  return in;
}

const SourceMove* find(const std::vector<SourceMove>& moves, const std::string& name) {
  for (const SourceMove& m : moves)
    if (m.name == name) return &m;
  return nullptr;
}

TEST(TunerMoves, TheBlockMovesWithItsGridWhereNothingHardCodesIt) {
  MoveInput in = scale_input();
  EXPECT_EQ(block_size_blocker(in), "");
  auto moves = untuned_moves(in);
  const SourceMove* m = find(moves, "block 512");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(m->launch.has_value());
  EXPECT_EQ(m->launch->block, std::vector<std::string>{"512"});
  EXPECT_EQ(m->launch->grid, std::vector<std::string>{"ceil_div(n, 512)"});
  EXPECT_FALSE(m->source.has_value()) << "the source is not touched";
  EXPECT_NE(find(moves, "block 128"), nullptr);

  // A grid that does not depend on the block stays.
  MoveInput fixed = scale_input("132");
  auto f = untuned_moves(fixed);
  ASSERT_NE(find(f, "block 512"), nullptr);
  EXPECT_EQ(find(f, "block 512")->launch->grid, std::vector<std::string>{"132"});
}

TEST(TunerMoves, WhatHardCodesTheBlockSizeHoldsIt) {
  auto blocked = [](const std::string& from, const std::string& to) {
    MoveInput in = scale_input();
    in.source.replace(in.source.find(from), from.size(), to);
    return block_size_blocker(in);
  };
  EXPECT_NE(blocked("if (i >= n)", "if (i >= n || blockDim.x != 256)").find("literal 256"),
            std::string::npos);
  MoveInput tiled = scale_input();
  tiled.source = "#define TILE 256\n" + std::string(kScale);
  tiled.source.replace(tiled.source.find("  float acc"), 11,
                       "  __shared__ float tile[TILE];\n  float acc");
  EXPECT_NE(block_size_blocker(tiled).find("__shared__ array is sized by TILE"), std::string::npos)
      << block_size_blocker(tiled);
  EXPECT_NE(blocked("extern \"C\" __global__", "extern \"C\" __global__ __launch_bounds__(256)")
                .find("__launch_bounds__"),
            std::string::npos);
  EXPECT_NE(blocked("blockIdx.x * blockDim.x", "blockIdx.x * 64").find("does not read blockDim"),
            std::string::npos);
  // A comment that mentions 256 is not code.
  EXPECT_EQ(blocked("// y = a * x", "// y = a * x, 256 threads a block"), "");

  MoveInput args = scale_input();
  args.arg_expressions = {"n", "ceil_div(n, 256)", "n", "reps"};
  EXPECT_NE(block_size_blocker(args).find("argument size"), std::string::npos);
  MoveInput expr = scale_input();
  expr.launch.block = {"BLOCK"};
  EXPECT_NE(block_size_blocker(expr).find("not one literal"), std::string::npos);
  EXPECT_EQ(find(untuned_moves(args), "block 512"), nullptr);
}

TEST(TunerMoves, TheGridIsRescaledOnlyWhereItIsACeilDivOverTheBlock) {
  EXPECT_EQ(rescale_over_block("ceil_div(n, 256)", 256, 128), "ceil_div(n, 128)");
  EXPECT_EQ(rescale_over_block("(n + 255) / 256", 256, 512), "(n + 512 - 1) / 512");
  EXPECT_EQ(rescale_over_block("rows", 256, 512), "rows");
  EXPECT_EQ(rescale_over_block("n / 256", 256, 512), std::nullopt) << "a floor is not sure";
  EXPECT_EQ(rescale_over_block("256 * 4", 256, 512), std::nullopt);
}

TEST(TunerMoves, LaunchBoundsAndUnrollPragmasEditTheEntryOnly) {
  auto bounded = with_launch_bounds(kScale, "scale", "256, 8");
  ASSERT_TRUE(bounded.has_value());
  EXPECT_NE(bounded->find("__global__ __launch_bounds__(256, 8) void scale("), std::string::npos)
      << *bounded;
  EXPECT_FALSE(with_launch_bounds(*bounded, "scale", "128").has_value()) << "already bounded";
  EXPECT_FALSE(with_launch_bounds(kScale, "other", "128").has_value());

  auto unrolled = with_unroll_pragmas(kScale, "scale", 4);
  ASSERT_TRUE(unrolled.has_value());
  EXPECT_NE(unrolled->find("  #pragma unroll 4\n  for (int r = 0; r < reps; ++r)"),
            std::string::npos)
      << *unrolled;
  EXPECT_FALSE(with_unroll_pragmas(*unrolled, "scale", 8).has_value()) << "a pragma is there";
  std::string constant = kScale;
  constant.replace(constant.find("r < reps"), 8, "r < 4");
  EXPECT_FALSE(with_unroll_pragmas(constant, "scale", 4).has_value())
      << "the compiler unrolls a constant bound itself";
}

TEST(TunerMoves, TheProfileOrdersTheMoves) {
  auto first = [](const ProfileGuidance& g) {
    MoveInput in = scale_input();
    in.guidance = g;
    auto moves = untuned_moves(in);
    auto best = std::min_element(moves.begin(), moves.end(), [](const auto& a, const auto& b) {
      return a.priority < b.priority;
    });
    return best == moves.end() ? std::string() : best->name;
  };
  ProfileGuidance registers;
  registers.bottleneck = "latency-bound";
  registers.registers_limit_occupancy = true;
  registers.registers = 96;
  EXPECT_EQ(first(registers).rfind("__launch_bounds__", 0), 0u) << first(registers);
  ProfileGuidance low;
  low.bottleneck = "latency-low-occupancy";
  EXPECT_EQ(first(low), "block 512");

  const nlohmann::json ctx = {{"bottleneck", "memory-bound"},
                              {"data",
                               {{"bottleneck", "memory_poor_coalescing"},
                                {"derived", {{"ld_sectors_per_request", 2.0}}},
                                {"theoretical_occupancy", {{"limiter", "registers"}, {"pct", 50}}},
                                {"resources", {{"registers", 72}}},
                                {"evidence", "DRAM at 80% of the ceiling."}}}};
  ProfileGuidance g = ProfileGuidance::from_context(ctx);
  EXPECT_EQ(g.bottleneck, "memory-bound");
  EXPECT_TRUE(g.narrow_accesses);
  EXPECT_TRUE(g.poor_coalescing);
  EXPECT_TRUE(g.registers_limit_occupancy);
  EXPECT_EQ(g.registers, 72);
  EXPECT_EQ(ProfileGuidance::from_context(nlohmann::json::object()).bottleneck, "unknown");
  // A latency-bound kernel waiting on 2-sector loads has narrow accesses too
  // (the widest access first); with full 4-sector requests it does not.
  const nlohmann::json latency = {
      {"data", {{"bottleneck", "latency_bound"}, {"derived", {{"ld_sectors_per_request", 2.0}}}}}};
  EXPECT_EQ(ProfileGuidance::from_context(latency).bottleneck, "latency-bound");
  EXPECT_TRUE(ProfileGuidance::from_context(latency).narrow_accesses);
  nlohmann::json full = latency;
  full["data"]["derived"]["ld_sectors_per_request"] = 4.0;
  EXPECT_FALSE(ProfileGuidance::from_context(full).narrow_accesses);

  MoveInput host;
  host.backend = "host";
  host.source = "void f() {}";
  auto h = untuned_moves(host);
  ASSERT_NE(find(h, "-march=native"), nullptr);
  EXPECT_EQ(find(h, "-march=native")->add_flags,
            (std::vector<std::string>{"-march=native", "-ffp-contract=off"}));
}

TEST(TunerMoves, TheTunersAnswerCarriesTheLaunchOrTheEditedSource) {
  nlohmann::json ctx = {{"kernel", "scale"},
                        {"backend", "cuda"},
                        {"entry", "scale"},
                        {"tunables", nlohmann::json::object()},
                        {"launch", {{"grid", {"ceil_div(n, 256)"}}, {"block", {256}}}},
                        {"arg_expressions", {"n", "n", "n", "reps"}},
                        {"best", {{"tunables", nlohmann::json::object()}, {"source", kScale}}},
                        {"profile", {{"bottleneck", "latency-low-occupancy"}}},
                        {"tried", nlohmann::json::array()},
                        {"lessons", nlohmann::json::array()}};
  auto tuner = make_tuner_provider(1);
  AgentRequest r;
  r.task = AgentTask::kPropose;
  r.context = ctx;
  auto text = tuner->ask(r);
  ASSERT_TRUE(text.ok());
  AgentAnswer a = parse_agent_answer(*text);
  ASSERT_FALSE(a.launch.is_null()) << *text;
  EXPECT_EQ(a.launch["block"][0], 512) << *text;
  EXPECT_EQ(a.launch["grid"][0], "ceil_div(n, 512)") << *text;

  // Once that launch is tried, another move comes; never the same one twice.
  ctx["tried"].push_back({{"iteration", 1},
                          {"tunables", nlohmann::json::object()},
                          {"flags", nlohmann::json::array()},
                          {"launch", a.launch},
                          {"outcome", "no-gain"},
                          {"accepted", false}});
  r.context = ctx;
  auto next = tuner->ask(r);
  ASSERT_TRUE(next.ok());
  AgentAnswer b = parse_agent_answer(*next);
  EXPECT_NE(b.launch, a.launch) << *next;
}

// Every edited source the moves produce compiles with NVRTC, with the
// move's flags (the register cap and the cache hints reach ptxas).
TEST(TunerMoves, EveryMoveCompilesWithNvrtc) {
  testing::use_private_compile_cache();
  testing::TempDir dir;
  testing::write(dir.path() / "scale.cu", kScale);
  testing::write(dir.path() / "scale_ref.cpp", R"(
extern "C" void scale_ref(const double* x, double* y, int n, int reps) {
  for (int i = 0; i < n; ++i) y[i] = 2.0 * x[i] * reps;
})");
  testing::write(dir.path() / "kgate.json",
                 R"J({"version": 1, "kernels": [{
    "name": "scale",
    "impl": {"cuda": {"source": "scale.cu", "entry": "scale",
                      "launch": {"grid": ["ceil_div(n, 256)"], "block": [256]}}},
    "args": [{"name": "x", "type": "float*", "count": "n"},
             {"name": "y", "type": "float*", "count": "n", "role": "output"},
             {"name": "n", "type": "int32", "value": "n"},
             {"name": "reps", "type": "int32", "value": 3}],
    "shapes": [{"name": "s", "n": 1000}],
    "reference": {"source": "scale_ref.cpp", "entry": "scale_ref"}}]})J");
  auto m = load_manifest(dir.path());
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Kernel& k = *m->kernel("scale");
  auto backend = make_cuda_backend("sm_90");
  CandidateCompiler compiler(*m, k, *backend);
  auto moves = untuned_moves(scale_input());
  ASSERT_GE(moves.size(), 6u);
  for (const SourceMove& mv : moves) {
    Candidate c;
    c.source_text = mv.source.value_or(kScale);
    c.flags = mv.add_flags;
    auto out = compiler.compile(c);
    ASSERT_TRUE(out.ok()) << mv.name << ": " << out.error().message;
    EXPECT_TRUE(out->ok) << mv.name << ": " << out->digest;
    EXPECT_EQ(out->undeclared, "") << mv.name;
  }
}

// The moves on kernels nobody prepared (bench/thirdparty: NVIDIA's CUDA
// samples, compiled with nvcc as upstream ships them): each one compiles,
// and what holds the reduction's block (its output count is per 1024) is said.
TEST(TunerMoves, EveryMoveCompilesOnTheThirdPartyKernels) {
  testing::use_private_compile_cache();
  auto m = load_manifest(testing::source_dir() / "bench" / "thirdparty" / "repo");
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto backend = make_cuda_backend("sm_90");
  for (const char* name : {"reduce", "vector_add"}) {
    const Kernel& k = *m->kernel(name);
    const Implementation& impl = *k.implementation("cuda");
    auto source = read_file(m->root / impl.source);
    ASSERT_TRUE(source.ok());
    MoveInput in;
    in.backend = "cuda";
    in.source = *source;
    in.entry = impl.entry;
    in.launch = launch_of(impl);
    for (const Arg& a : k.args)
      in.arg_expressions.push_back(a.is_buffer ? a.count.text() : a.int_value.text());
    if (std::string(name) == "reduce") {
      EXPECT_NE(block_size_blocker(in).find("ceil_div(n, 1024)"), std::string::npos)
          << block_size_blocker(in);
    }
    auto moves = untuned_moves(in);
    ASSERT_GE(moves.size(), 3u) << name;
    CandidateCompiler compiler(*m, k, *backend);
    for (const SourceMove& mv : moves) {
      if (!mv.source && mv.add_flags.empty()) continue;  // a launch only: nothing new to compile
      Candidate c;
      c.tunables = impl.default_tunables();
      c.source_text = mv.source.value_or(*source);
      c.flags = mv.add_flags;
      auto out = compiler.compile(c);
      ASSERT_TRUE(out.ok()) << name << " " << mv.name << ": " << out.error().message;
      EXPECT_TRUE(out->ok) << name << " " << mv.name << ": " << out->digest;
    }
  }
}

}  // namespace
}  // namespace kgate
