// Inputs kept on the device: a run's buffers restored from the staged copies
// hold exactly the host inputs, and a changed input is found on the device
// and described as the host path describes it, with the backend's own
// comparison and with Device's download-based default.
#include "runner/staged_inputs.h"

#include <gtest/gtest.h>

#include <cstring>

#include "runner/host/host_backend.h"
#include "runner/input_integrity.h"
#include "support/every_draw.h"

namespace kgate {
namespace {

// Forwards to the host device but keeps Device's default equal() (downloads).
class DownloadComparingDevice : public Device {
 public:
  explicit DownloadComparingDevice(Device& inner) : inner_(inner) {}
  DeviceInfo info() const override { return inner_.info(); }
  Result<DeviceAddress> allocate(size_t bytes) override { return inner_.allocate(bytes); }
  void release(DeviceAddress a) override { inner_.release(a); }
  Status upload(DeviceAddress d, const void* s, size_t n) override {
    return inner_.upload(d, s, n);
  }
  Status download(void* d, DeviceAddress s, size_t n) override {
    ++downloads;
    return inner_.download(d, s, n);
  }
  Status fill(DeviceAddress d, uint8_t b, size_t n) override { return inner_.fill(d, b, n); }
  Status copy(DeviceAddress d, DeviceAddress s, size_t n) override { return inner_.copy(d, s, n); }
  Result<std::unique_ptr<LoadedKernel>> load(const Program& p) override { return inner_.load(p); }
  Status launch(LoadedKernel& k, const LaunchDims& d, const std::vector<ArgSlot>& a) override {
    return inner_.launch(k, d, a);
  }
  Result<TimedSample> time_launch(LoadedKernel& k, const LaunchDims& d,
                                  const std::vector<ArgSlot>& a) override {
    return inner_.time_launch(k, d, a);
  }
  int downloads = 0;

 private:
  Device& inner_;
};

class StagedInputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    x_.name = "x";
    x_.dtype = DType::kFloat32;
    x_.is_buffer = true;
    x_.role = ArgRole::kInput;
    out_ = x_;
    out_.name = "out";
    out_.role = ArgRole::kOutput;
    // 40 MB + 3 floats: more than one of the default comparison's pieces.
    const int64_t count = (int64_t{10} << 20) + 3;
    plan_.args = {ArgPlan{&x_, count, size_t(count) * 4}, ArgPlan{&out_, count, size_t(count) * 4}};
    inputs_.resize(2);
    inputs_[0].resize(plan_.args[0].bytes);
    for (size_t i = 0; i < inputs_[0].size(); ++i)
      inputs_[0][i] = static_cast<unsigned char>(i * 7);
    auto device = make_host_backend()->open_device(0);
    ASSERT_TRUE(device.ok()) << device.error().message;
    device_ = std::move(device.value());
  }

  Arg x_, out_;
  LaunchPlan plan_;
  HostData inputs_;
  std::unique_ptr<Device> device_;
};

TEST_F(StagedInputsTest, RestoredBuffersHoldTheHostInputs) {
  Allocations owned(*device_);
  auto buffers = allocate_buffers(*device_, plan_, owned, true);
  ASSERT_TRUE(buffers.ok()) << buffers.error().message;
  auto staged = stage_inputs(*device_, plan_, inputs_, owned);
  ASSERT_TRUE(staged.ok()) << staged.error().message;
  EXPECT_NE(staged->copies[0], 0u);
  EXPECT_EQ(staged->copies[1], 0u);  // an output: nothing to stage
  ASSERT_TRUE(prepare_buffers(*device_, plan_, *buffers, inputs_, 0xFF, &*staged).ok());
  std::vector<unsigned char> back(plan_.args[0].bytes);
  ASSERT_TRUE(device_->download(back.data(), buffers->addresses[0], back.size()).ok());
  EXPECT_EQ(std::memcmp(back.data(), inputs_[0].data(), back.size()), 0);
  // A plan whose buffer differs in size is served from the host bytes.
  EXPECT_EQ(staged->copy_of(0, plan_.args[0].bytes - 4), 0u);
}

TEST_F(StagedInputsTest, AChangedInputIsFoundOnTheDeviceAndDescribedAsOnTheHost) {
  DownloadComparingDevice by_download(*device_);
  for (Device* device : {device_.get(), static_cast<Device*>(&by_download)}) {
    Allocations owned(*device);
    auto buffers = allocate_buffers(*device, plan_, owned, false);
    ASSERT_TRUE(buffers.ok());
    auto staged = stage_inputs(*device, plan_, inputs_, owned);
    ASSERT_TRUE(staged.ok());
    ASSERT_TRUE(prepare_buffers(*device, plan_, *buffers, inputs_, 0xFF, &*staged).ok());
    auto unchanged = check_inputs_unchanged(*device, plan_, *buffers, inputs_, &*staged);
    ASSERT_TRUE(unchanged.ok());
    EXPECT_EQ(*unchanged, "");

    // The last element only: the tail past the last whole word must count too.
    const size_t last = plan_.args[0].bytes - 1;
    unsigned char byte = inputs_[0][last] ^ 0x40;
    ASSERT_TRUE(device->upload(buffers->addresses[0] + last, &byte, 1).ok());
    auto staged_view = check_inputs_unchanged(*device, plan_, *buffers, inputs_, &*staged);
    auto host_view = check_inputs_unchanged(*device, plan_, *buffers, inputs_, nullptr);
    ASSERT_TRUE(staged_view.ok() && host_view.ok());
    EXPECT_EQ(*staged_view, *host_view);
    EXPECT_EQ(staged_view->rfind("changed its input 'x' (1 element, first at index " +
                                     std::to_string(plan_.args[0].count - 1) + ")",
                                 0),
              0u)
        << *staged_view;
  }
  EXPECT_GT(by_download.downloads, 0);  // the default comparison did run
}

TEST_F(StagedInputsTest, EqualComparesExactlyTheGivenBytes) {
  Allocations owned(*device_);
  auto a = device_->allocate(4099), b = device_->allocate(4099);
  ASSERT_TRUE(a.ok() && b.ok());
  owned.add(*a);
  owned.add(*b);
  ASSERT_TRUE(device_->fill(*a, 1, 4099).ok());
  ASSERT_TRUE(device_->fill(*b, 1, 4099).ok());
  unsigned char two = 2;
  ASSERT_TRUE(device_->upload(*b + 4098, &two, 1).ok());
  DownloadComparingDevice by_download(*device_);
  for (Device* device : {device_.get(), static_cast<Device*>(&by_download)}) {
    EXPECT_TRUE(*device->equal(*a, *b, 4098));
    EXPECT_FALSE(*device->equal(*a, *b, 4099));
    EXPECT_TRUE(*device->equal(*a, *b, 0));
  }
}

}  // namespace
}  // namespace kgate

namespace kgate {
namespace {

TEST(DrawInputs, TheDeviceDrawIsWhatMakeInputsDraws) {
  auto device = make_host_backend()->open_device(0);
  ASSERT_TRUE(device.ok()) << device.error().message;
  EveryDraw every(100'003);
  Allocations owned(**device);
  HostData host;
  auto staged = draw_inputs(**device, every.plan, 42, owned, host);
  ASSERT_TRUE(staged.ok()) << staged.error().message;
  const HostData expected = make_inputs(every.plan, 42);
  ASSERT_EQ(host.size(), every.plan.args.size());
  for (size_t i = 0; i < every.plan.args.size(); ++i) {
    const ArgPlan& a = every.plan.args[i];
    SCOPED_TRACE(a.arg->name);
    ASSERT_EQ(host[i].size(), a.bytes);
    EXPECT_EQ(std::memcmp(host[i].data(), expected[i].data(), a.bytes), 0);
    // The staged copy holds the same bytes as the host copy.
    ASSERT_NE(staged->copy_of(i, a.bytes), 0u);
    Bytes on_device(a.bytes);
    ASSERT_TRUE((*device)->download(on_device.data(), staged->copy_of(i, a.bytes), a.bytes).ok());
    EXPECT_EQ(std::memcmp(on_device.data(), expected[i].data(), a.bytes), 0);
  }
}

TEST(DrawInputs, AnotherSeedDrawsOtherBytes) {
  auto device = make_host_backend()->open_device(0);
  ASSERT_TRUE(device.ok()) << device.error().message;
  EveryDraw every(4096);
  Allocations owned(**device);
  HostData first, second;
  ASSERT_TRUE(draw_inputs(**device, every.plan, 1, owned, first).ok());
  ASSERT_TRUE(draw_inputs(**device, every.plan, 2, owned, second).ok());
  for (size_t i = 0; i < every.plan.args.size(); ++i) {
    // Given contents are the same under every seed: that is what they are;
    // a bool drawn normal or uniform is never 0 (drawn integers are not), so always true.
    const Arg& arg = *every.plan.args[i].arg;
    if (arg.init.distribution == InitSpec::Distribution::kFormula ||
        (arg.dtype == DType::kBool && arg.init.distribution != InitSpec::Distribution::kRandInt)) {
      EXPECT_EQ(std::memcmp(first[i].data(), second[i].data(), first[i].size()), 0);
      continue;
    }
    EXPECT_NE(std::memcmp(first[i].data(), second[i].data(), first[i].size()), 0)
        << every.plan.args[i].arg->name;
  }
}

}  // namespace
}  // namespace kgate
