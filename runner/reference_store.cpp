#include "runner/reference_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/hash.h"
#include "core/parallel.h"
#include "runner/compile_cache.h"
#include "runner/inputs.h"

namespace kgate {
namespace {

constexpr char kMagic[8] = {'K', 'G', 'R', 'E', 'F', '0', '0', '1'};
constexpr char kEnd[8] = {'K', 'G', 'R', 'E', 'F', 'E', 'N', 'D'};
constexpr size_t kKeyChars = 64;  // sha256 in hex

struct Header {
  char magic[8];
  uint32_t outputs = 0;  // entries of the table that follows
  uint32_t reserved = 0;
  char key[kKeyChars];
};
struct TableEntry {
  uint32_t arg = 0;  // position in the plan
  uint32_t reserved = 0;
  uint64_t count = 0;  // doubles
};

// A checksum over 1 MiB chunks hashed in parallel and combined in order, so
// it does not depend on the thread count and costs little beside the read.
constexpr int64_t kChunkWords = int64_t{1} << 17;

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t chunk_hash(const uint64_t* w, int64_t n) {
  uint64_t h[4] = {1, 2, 3, 4};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int l = 0; l < 4; ++l) h[l] = (h[l] ^ w[i + l]) * 0x9E3779B97F4A7C15ull + (h[l] >> 29);
  for (; i < n; ++i) h[0] = (h[0] ^ w[i]) * 0x9E3779B97F4A7C15ull + (h[0] >> 29);
  return mix(h[0] ^ mix(h[1] ^ mix(h[2] ^ mix(h[3] ^ static_cast<uint64_t>(n)))));
}

uint64_t checksum(const std::vector<const Doubles*>& outputs) {
  uint64_t total = 0x243F6A8885A308D3ull;
  for (const Doubles* v : outputs) {
    const auto* words = reinterpret_cast<const uint64_t*>(v->data());
    const int64_t n = static_cast<int64_t>(v->size());
    const int64_t chunks = (n + kChunkWords - 1) / kChunkWords;
    std::vector<uint64_t> hashes(chunks);
    parallel_for(chunks, 1, [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c)
        hashes[c] = chunk_hash(words + c * kChunkWords, std::min(kChunkWords, n - c * kChunkWords));
    });
    for (uint64_t h : hashes) total = mix(total ^ h);
    total = mix(total ^ static_cast<uint64_t>(n));
  }
  return total;
}

bool read_all(int fd, void* data, size_t bytes) {
  auto* p = static_cast<char*>(data);
  while (bytes > 0) {
    ssize_t got = ::read(fd, p, std::min<size_t>(bytes, size_t{1} << 30));
    if (got <= 0) return false;
    p += got;
    bytes -= static_cast<size_t>(got);
  }
  return true;
}

bool write_all(int fd, const void* data, size_t bytes) {
  const auto* p = static_cast<const char*>(data);
  while (bytes > 0) {
    ssize_t put = ::write(fd, p, std::min<size_t>(bytes, size_t{1} << 30));
    if (put <= 0) return false;
    p += put;
    bytes -= static_cast<size_t>(put);
  }
  return true;
}

bool is_output(const ArgPlan& a) {
  return a.compared();
}

}  // namespace

std::filesystem::path ReferenceStore::default_dir() {
  return CompileCache::default_dir() / "references";
}

size_t ReferenceStore::default_capacity() {
  if (const char* env = std::getenv("KGATE_REFERENCE_CACHE_BYTES"); env && *env) {
    char* end = nullptr;
    unsigned long long v = std::strtoull(env, &end, 10);
    if (end && *end == '\0') return static_cast<size_t>(v);
  }
  return size_t{4} << 30;
}

std::string ReferenceStore::key(const std::string& program_key, const LaunchPlan& plan,
                                uint64_t seed) {
  std::string m = "kgate reference outputs\ngenerator " + std::to_string(kInputGeneratorVersion) +
                  "\nprogram " + program_key + "\nseed " + std::to_string(seed) + "\n";
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    m += std::to_string(i) + " " + (a.used ? "" : "unused ");
    if (!a.arg->is_buffer) {
      char hex[3];
      m += std::string(dtype_name(a.arg->dtype)) + " scalar ";
      for (size_t b = 0; b < a.scalar.size; ++b) {
        std::snprintf(hex, sizeof hex, "%02x", a.scalar.bytes[b]);
        m += hex;
      }
    } else {
      m += "buffer " + describe_contents(a);
    }
    m += "\n";
  }
  // Given contents may read any variable (a formula of the index).
  for (const auto& [name, value] : plan.variables) m += name + "=" + std::to_string(value) + "\n";
  return sha256_hex(m);
}

std::filesystem::path ReferenceStore::path_of(const std::string& key) const {
  return dir_ / (key + ".kref");
}

bool ReferenceStore::worth_storing(double compute_seconds, size_t bytes) {
  return compute_seconds >= 0.02 && compute_seconds >= 2 * (static_cast<double>(bytes) / 1e9);
}

std::optional<DoubleData> ReferenceStore::load(const std::string& key,
                                               const LaunchPlan& plan) const {
  if (key.size() != kKeyChars) return std::nullopt;
  const std::filesystem::path path = path_of(key);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  auto corrupt = [&]() -> std::optional<DoubleData> {
    std::error_code ec;
    std::filesystem::remove(path, ec);  // rewritten by the next store
    return std::nullopt;
  };
  struct stat st;
  if (::fstat(fd, &st) != 0) return std::nullopt;
  Header header;
  if (!read_all(fd, &header, sizeof header)) return corrupt();
  if (std::memcmp(header.magic, kMagic, sizeof kMagic) != 0 ||
      std::memcmp(header.key, key.data(), kKeyChars) != 0)
    return corrupt();
  DoubleData outputs(plan.args.size());
  std::vector<TableEntry> table(header.outputs);
  size_t expected_size = sizeof header + table.size() * sizeof(TableEntry) + 8 + sizeof kEnd;
  size_t wanted = 0;
  for (const ArgPlan& a : plan.args) wanted += is_output(a);
  if (table.size() != wanted || !read_all(fd, table.data(), table.size() * sizeof(TableEntry)))
    return corrupt();
  for (const TableEntry& t : table) {
    if (t.arg >= plan.args.size() || !is_output(plan.args[t.arg]) ||
        t.count != static_cast<uint64_t>(plan.args[t.arg].count))
      return corrupt();
    expected_size += t.count * sizeof(double);
  }
  if (static_cast<size_t>(st.st_size) != expected_size) return corrupt();
  std::vector<const Doubles*> order;
  for (const TableEntry& t : table) {
    // Fresh pages, written once by the read: no zero fill first.
    Doubles& v = outputs[t.arg];
    v.resize(t.count);
    if (!read_all(fd, v.data(), t.count * sizeof(double))) return corrupt();
    order.push_back(&v);
  }
  uint64_t stored_sum = 0;
  char end[sizeof kEnd];
  if (!read_all(fd, &stored_sum, 8) || !read_all(fd, end, sizeof end) ||
      std::memcmp(end, kEnd, sizeof kEnd) != 0 || stored_sum != checksum(order))
    return corrupt();
  ::futimens(fd, nullptr);  // recently used: trimmed last
  return outputs;
}

Status ReferenceStore::store(const std::string& key, const LaunchPlan& plan,
                             const DoubleData& outputs) const {
  if (key.size() != kKeyChars) return Error::infrastructure("reference store: bad key");
  Header header;
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  std::memcpy(header.key, key.data(), kKeyChars);
  std::vector<TableEntry> table;
  std::vector<const Doubles*> order;
  size_t bytes = 0;
  for (size_t i = 0; i < plan.args.size(); ++i) {
    if (!is_output(plan.args[i])) continue;
    if (i >= outputs.size() || outputs[i].size() != static_cast<size_t>(plan.args[i].count))
      return Error::infrastructure("reference store: outputs do not match the launch plan");
    table.push_back({static_cast<uint32_t>(i), 0, static_cast<uint64_t>(outputs[i].size())});
    order.push_back(&outputs[i]);
    bytes += outputs[i].size() * sizeof(double);
  }
  if (bytes > capacity_ / 2) return {};  // would push out everything else
  header.outputs = static_cast<uint32_t>(table.size());
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec)
    return Error::infrastructure("cannot create the reference cache folder " + dir_.string() +
                                 ": " + ec.message());
  // A name no other writer uses: this process, and a counter within it.
  static std::atomic<uint64_t> writes{0};
  const std::filesystem::path temporary =
      dir_ / (key + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(writes++));
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Error::infrastructure("cannot write to the reference cache " + dir_.string());
  const uint64_t sum = checksum(order);
  bool ok = write_all(fd, &header, sizeof header) &&
            write_all(fd, table.data(), table.size() * sizeof(TableEntry));
  for (const Doubles* v : order) ok = ok && write_all(fd, v->data(), v->size() * sizeof(double));
  ok = ok && write_all(fd, &sum, 8) && write_all(fd, kEnd, sizeof kEnd);
  ok = (::close(fd) == 0) && ok;
  if (!ok || std::rename(temporary.c_str(), path_of(key).c_str()) != 0) {
    std::filesystem::remove(temporary, ec);
    return Error::infrastructure("cannot write to the reference cache " + dir_.string() +
                                 " (disk full?)");
  }
  trim();
  return {};
}

size_t ReferenceStore::bytes() const {
  size_t total = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir_, ec))
    if (e.path().extension() == ".kref") total += e.file_size(ec);
  return total;
}

void ReferenceStore::trim() const {
  struct Entry {
    std::filesystem::path path;
    std::filesystem::file_time_type time;
    size_t size;
  };
  std::vector<Entry> entries;
  size_t total = 0;
  std::error_code ec;
  const auto now = std::filesystem::file_time_type::clock::now();
  for (const auto& e : std::filesystem::directory_iterator(dir_, ec)) {
    std::error_code fec;
    auto time = e.last_write_time(fec);
    if (fec) continue;
    // A temporary file an hour old belongs to a writer that died.
    if (e.path().extension() != ".kref") {
      if (e.path().filename().string().find(".tmp.") != std::string::npos &&
          now - time > std::chrono::hours(1))
        std::filesystem::remove(e.path(), fec);
      continue;
    }
    size_t size = e.file_size(fec);
    if (fec) continue;
    entries.push_back({e.path(), time, size});
    total += size;
  }
  if (total <= capacity_) return;
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.time < b.time; });
  for (const Entry& e : entries) {
    if (total <= capacity_) break;
    std::error_code rec;
    if (std::filesystem::remove(e.path, rec)) total -= e.size;
  }
}

}  // namespace kgate
