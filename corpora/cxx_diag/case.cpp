// telemetry.cpp - in-process metrics registry with a compact binary wire format.
//
// Layout:
//   util::   small helpers (string formatting, checked arithmetic, a Result type)
//   metrics:: value types (Timestamp, Duration, Counter, Gauge, Histogram) and the Registry
//   wire::    the encoder: to_wire() overloads + record/field framing
//   export::  exporters that snapshot the registry and push encoded frames to a sink
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace util {

template <typename T>
class Result {
 public:
  static Result ok(T v) { return Result(std::move(v), std::string()); }
  static Result error(std::string msg) { return Result(std::nullopt, std::move(msg)); }

  bool has_value() const { return value_.has_value(); }
  explicit operator bool() const { return has_value(); }
  const T& value() const { return *value_; }
  T& value() { return *value_; }
  const std::string& message() const { return message_; }

  template <typename F>
  auto map(F&& f) const -> Result<std::invoke_result_t<F, const T&>> {
    using U = std::invoke_result_t<F, const T&>;
    if (!value_) return Result<U>::error(message_);
    return Result<U>::ok(f(*value_));
  }

 private:
  Result(std::optional<T> v, std::string m) : value_(std::move(v)), message_(std::move(m)) {}
  std::optional<T> value_;
  std::string message_;
};

inline std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out.append(sep);
    out.append(parts[i]);
  }
  return out;
}

inline bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

template <typename T>
bool checked_add(T a, T b, T* out) {
  static_assert(std::is_integral_v<T>, "checked_add needs an integral type");
  return !__builtin_add_overflow(a, b, out);
}

inline std::string escape_label(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') {
      out.append("\\n");
      continue;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace util

namespace metrics {

struct Duration {
  std::int64_t nanos = 0;
  static Duration from_chrono(std::chrono::nanoseconds d) { return Duration{d.count()}; }
  double seconds() const { return double(nanos) * 1e-9; }
};

struct Timestamp {
  std::int64_t unix_nanos = 0;
  static Timestamp now() {
    auto t = std::chrono::system_clock::now().time_since_epoch();
    return Timestamp{std::chrono::duration_cast<std::chrono::nanoseconds>(t).count()};
  }
  Duration operator-(const Timestamp& o) const { return Duration{unix_nanos - o.unix_nanos}; }
  bool operator<(const Timestamp& o) const { return unix_nanos < o.unix_nanos; }
};

using Labels = std::map<std::string, std::string>;

inline std::string render_labels(const Labels& labels) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : labels) parts.push_back(k + "=\"" + util::escape_label(v) + "\"");
  return "{" + util::join(parts, ",") + "}";
}

class Counter {
 public:
  void inc(std::uint64_t by = 1) { value_ += by; }
  std::uint64_t value() const { return value_; }
  void reset() { value_ = 0; }

 private:
  std::uint64_t value_ = 0;
};

class Gauge {
 public:
  void set(double v) { value_ = v; }
  void add(double v) { value_ += v; }
  double value() const { return value_; }

 private:
  double value_ = 0.0;
};

template <std::size_t N>
class Histogram {
 public:
  explicit Histogram(std::array<double, N> bounds) : bounds_(bounds) {}

  void observe(double v) {
    auto it = std::upper_bound(bounds_.begin(), bounds_.end(), v);
    ++counts_[std::size_t(it - bounds_.begin())];
    sum_ += v;
    ++total_;
  }

  const std::array<double, N>& bounds() const { return bounds_; }
  const std::array<std::uint64_t, N + 1>& counts() const { return counts_; }
  double sum() const { return sum_; }
  std::uint64_t total() const { return total_; }

 private:
  std::array<double, N> bounds_;
  std::array<std::uint64_t, N + 1> counts_{};
  double sum_ = 0.0;
  std::uint64_t total_ = 0;
};

using LatencyHistogram = Histogram<8>;

inline LatencyHistogram make_latency_histogram() {
  return LatencyHistogram({0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0});
}

enum class Kind : std::uint8_t { counter = 1, gauge = 2, histogram = 3 };

struct Sample {
  std::string name;
  Labels labels;
  Kind kind;
  std::variant<std::uint64_t, double> value;
  Timestamp at;
};

}  // namespace metrics

namespace wire {

using Buffer = std::vector<std::uint8_t>;

// Varint (LEB128) for unsigned integers.
inline void put_varint(Buffer& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(std::uint8_t(v | 0x80));
    v >>= 7;
  }
  out.push_back(std::uint8_t(v));
}

// Zig-zag for signed integers.
inline std::uint64_t zigzag(std::int64_t v) { return (std::uint64_t(v) << 1) ^ std::uint64_t(v >> 63); }

template <typename T, typename = std::enable_if_t<std::is_unsigned_v<T>>>
void to_wire(Buffer& out, T v) {
  put_varint(out, std::uint64_t(v));
}

template <typename T, typename = std::enable_if_t<std::is_signed_v<T> && std::is_integral_v<T>>, typename = void>
void to_wire(Buffer& out, T v) {
  put_varint(out, zigzag(std::int64_t(v)));
}

inline void to_wire(Buffer& out, double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  for (int i = 0; i < 8; ++i) out.push_back(std::uint8_t(bits >> (8 * i)));
}

inline void to_wire(Buffer& out, std::string_view s) {
  put_varint(out, s.size());
  out.insert(out.end(), s.begin(), s.end());
}

inline void to_wire(Buffer& out, const std::string& s) { to_wire(out, std::string_view(s)); }

inline void to_wire(Buffer& out, metrics::Kind k) { out.push_back(std::uint8_t(k)); }

inline void to_wire(Buffer& out, const metrics::Duration& d) { to_wire(out, d.nanos); }

template <typename T>
void to_wire(Buffer& out, const std::optional<T>& v) {
  out.push_back(v ? 1 : 0);
  if (v) to_wire(out, *v);
}

template <typename T>
void to_wire(Buffer& out, const std::vector<T>& v) {
  put_varint(out, v.size());
  for (const auto& e : v) to_wire(out, e);
}

inline void to_wire(Buffer& out, const metrics::Labels& labels) {
  put_varint(out, labels.size());
  for (const auto& [k, v] : labels) {
    to_wire(out, k);
    to_wire(out, v);
  }
}

template <typename... Ts>
void to_wire(Buffer& out, const std::variant<Ts...>& v) {
  out.push_back(std::uint8_t(v.index()));
  std::visit([&out](const auto& x) { to_wire(out, x); }, v);
}

// A record is a field count followed by (tag, value) pairs.
template <typename... Fields>
class Record {
 public:
  explicit Record(Fields... f) : fields_(std::move(f)...) {}

  void encode(Buffer& out) const {
    put_varint(out, sizeof...(Fields));
    encode_fields(out, std::index_sequence_for<Fields...>{});
  }

 private:
  template <std::size_t... I>
  void encode_fields(Buffer& out, std::index_sequence<I...>) const {
    (encode_one(out, std::uint8_t(I + 1), std::get<I>(fields_)), ...);
  }

  template <typename F>
  static void encode_one(Buffer& out, std::uint8_t tag, const F& f) {
    out.push_back(tag);
    to_wire(out, f);
  }

  std::tuple<Fields...> fields_;
};

template <typename... Fields>
Record<Fields...> make_record(Fields... f) {
  return Record<Fields...>(std::move(f)...);
}

// Frame: magic, version, length-prefixed payload.
inline Buffer frame(const Buffer& payload, std::uint8_t version = 2) {
  Buffer out = {0xC5, 0x7E, version};
  put_varint(out, payload.size());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

}  // namespace wire

namespace metrics {

class Registry {
 public:
  Counter& counter(const std::string& name, Labels labels = {}) {
    std::lock_guard<std::mutex> lock(mu_);
    return counters_[key(name, labels)].second;
  }

  Gauge& gauge(const std::string& name, Labels labels = {}) {
    std::lock_guard<std::mutex> lock(mu_);
    return gauges_[key(name, labels)].second;
  }

  LatencyHistogram& latency(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = histograms_.find(name);
    if (it == histograms_.end()) it = histograms_.emplace(name, make_latency_histogram()).first;
    return it->second;
  }

  std::vector<Sample> collect() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Sample> out;
    const Timestamp at = Timestamp::now();
    for (const auto& [k, v] : counters_) out.push_back({v.first.name, v.first.labels, Kind::counter, v.second.value(), at});
    for (const auto& [k, v] : gauges_) out.push_back({v.first.name, v.first.labels, Kind::gauge, v.second.value(), at});
    for (const auto& [k, h] : histograms_) out.push_back({k, {}, Kind::histogram, h.sum(), at});
    return out;
  }

  // Encodes every sample as one record: name, labels, kind, value, timestamp.
  wire::Buffer snapshot() const {
    wire::Buffer payload;
    for (const Sample& s : collect()) {
      auto rec = wire::make_record(s.name, s.labels, s.kind, s.value, s.at);
      rec.encode(payload);
    }
    return wire::frame(payload);
  }

  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return counters_.size() + gauges_.size() + histograms_.size();
  }

 private:
  struct Key {
    std::string name;
    Labels labels;
  };

  static std::string key(const std::string& name, const Labels& labels) { return name + render_labels(labels); }

  mutable std::mutex mu_;
  std::map<std::string, std::pair<Key, Counter>> counters_;
  std::map<std::string, std::pair<Key, Gauge>> gauges_;
  std::map<std::string, LatencyHistogram> histograms_;
};

// RAII timer feeding a latency histogram.
class ScopedTimer {
 public:
  explicit ScopedTimer(LatencyHistogram& h) : h_(h), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() {
    auto d = std::chrono::steady_clock::now() - start_;
    h_.observe(std::chrono::duration<double>(d).count());
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  LatencyHistogram& h_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace metrics

namespace exporters {

class Sink {
 public:
  virtual ~Sink() = default;
  virtual bool write(const wire::Buffer& frame) = 0;
  virtual std::string describe() const = 0;
};

class MemorySink final : public Sink {
 public:
  bool write(const wire::Buffer& frame) override {
    frames_.push_back(frame);
    bytes_ += frame.size();
    return true;
  }
  std::string describe() const override { return "memory(" + std::to_string(frames_.size()) + " frames)"; }
  std::size_t bytes() const { return bytes_; }

 private:
  std::vector<wire::Buffer> frames_;
  std::size_t bytes_ = 0;
};

class RateLimitedSink final : public Sink {
 public:
  RateLimitedSink(std::unique_ptr<Sink> inner, metrics::Duration min_interval)
      : inner_(std::move(inner)), min_interval_(min_interval) {}

  bool write(const wire::Buffer& frame) override {
    const auto now = metrics::Timestamp::now();
    if (last_ && (now - *last_).nanos < min_interval_.nanos) {
      ++dropped_;
      return false;
    }
    last_ = now;
    return inner_->write(frame);
  }

  std::string describe() const override {
    return "ratelimited(" + inner_->describe() + ", dropped=" + std::to_string(dropped_) + ")";
  }

 private:
  std::unique_ptr<Sink> inner_;
  metrics::Duration min_interval_;
  std::optional<metrics::Timestamp> last_;
  std::uint64_t dropped_ = 0;
};

class Exporter {
 public:
  Exporter(const metrics::Registry& reg, Sink& sink) : reg_(reg), sink_(sink) {}

  util::Result<std::size_t> push() {
    wire::Buffer f = reg_.snapshot();
    if (!sink_.write(f)) return util::Result<std::size_t>::error("sink rejected frame: " + sink_.describe());
    ++pushes_;
    return util::Result<std::size_t>::ok(f.size());
  }

  std::uint64_t pushes() const { return pushes_; }

 private:
  const metrics::Registry& reg_;
  Sink& sink_;
  std::uint64_t pushes_ = 0;
};

}  // namespace exporters

namespace {

struct Options {
  int iterations = 100;
  bool verbose = false;
  std::string prefix = "app";
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "-v") o.verbose = true;
    else if (util::starts_with(a, "--iterations=")) o.iterations = std::stoi(std::string(a.substr(13)));
    else if (util::starts_with(a, "--prefix=")) o.prefix = std::string(a.substr(9));
  }
  return o;
}

void simulate(metrics::Registry& reg, const Options& o) {
  auto& requests = reg.counter(o.prefix + "_requests_total", {{"method", "GET"}});
  auto& errors = reg.counter(o.prefix + "_errors_total");
  auto& inflight = reg.gauge(o.prefix + "_inflight");
  auto& lat = reg.latency(o.prefix + "_latency_seconds");
  for (int i = 0; i < o.iterations; ++i) {
    metrics::ScopedTimer t(lat);
    requests.inc();
    inflight.add(1.0);
    if (i % 17 == 0) errors.inc();
    inflight.add(-1.0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options opts = parse_options(argc, argv);
  metrics::Registry registry;
  simulate(registry, opts);

  exporters::MemorySink memory;
  exporters::Exporter exporter(registry, memory);
  auto r = exporter.push();
  if (!r) return 1;
  if (opts.verbose) {
    std::string line = memory.describe() + ": " + std::to_string(r.value()) + " bytes, " +
                       std::to_string(registry.size()) + " series";
    std::fwrite(line.data(), 1, line.size(), stdout);
  }
  return 0;
}
