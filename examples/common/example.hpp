#pragma once
// What every example shares, so that each main() shows only its physics:
//   - flags: values checked where they are read, a refusal names the flag, the value and the rule
//     (exit code 2, with the usage line);
//   - progress: one line at most every few seconds with the simulated time, the rate and an
//     estimate of the time left (from the recent rate: a bed slows down as it densifies);
//   - frame_schedule: output frames evenly spaced in time, exactly as many as asked for;
//   - guarded_main: the library's exceptions end the program with their message and exit code 1,
//     not with std::terminate.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace example {

// A number as people write it in flags: 20000, 0.5, 2e+08.
inline std::string show(double v) {
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

class flags {
 public:
  flags(std::string program, std::string usage, int argc, char** argv) : program_(std::move(program)), usage_(std::move(usage)) {
    for (int i = 1; i < argc; ++i) args_.emplace_back(argv[i]);
    for (const std::string& a : args_)
      if (a == "--help" || a == "-h") {
        std::printf("usage: %s %s\n", program_.c_str(), usage_.c_str());
        std::exit(0);
      }
  }

  [[noreturn]] void refuse(const std::string& why) const {
    std::cerr << program_ << ": " << why << "\nusage: " << program_ << " " << usage_ << "\n";
    std::exit(2);
  }

  // A flag without a value.
  bool option(const std::string& flag) {
    for (std::size_t i = 0; i < args_.size(); ++i)
      if (args_[i] == flag) {
        used_.push_back(i);
        return true;
      }
    return false;
  }

  std::string text(const std::string& flag, std::string fallback) {
    const char* v = value(flag);
    return v ? std::string(v) : fallback;
  }

  // One of `choices`; `fallback` when absent.
  std::string choice(const std::string& flag, std::string fallback, const std::vector<std::string>& choices) {
    const char* v = value(flag);
    if (!v) return fallback;
    if (std::find(choices.begin(), choices.end(), v) != choices.end()) return v;
    std::string list;
    for (std::size_t k = 0; k < choices.size(); ++k) list += (k ? (k + 1 == choices.size() ? " or " : ", ") : "") + choices[k];
    refuse(flag + " must be " + list + ", got '" + v + "'");
  }

  // A finite number in [lo, hi].
  double number(const std::string& flag, double fallback, double lo, double hi) {
    const char* v = value(flag);
    if (!v) return fallback;
    const double x = parse(flag, v);
    if (!(x >= lo && x <= hi)) refuse(flag + " must be in [" + show(lo) + ", " + show(hi) + "], got " + v);
    return x;
  }

  // A comma-separated list of at least `min_count` numbers, each in [lo, hi].
  std::vector<double> numbers(const std::string& flag, const std::string& fallback, double lo, double hi, std::size_t min_count = 1) {
    const char* v = value(flag);
    const std::string text = v ? v : fallback;
    std::vector<double> out;
    std::size_t begin = 0;
    for (;;) {
      const std::size_t end = text.find(',', begin);
      const std::string item = text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
      char* stop = nullptr;
      const double x = std::strtod(item.c_str(), &stop);
      if (item.empty() || *stop != '\0' || !(x >= lo && x <= hi))
        refuse(flag + " must be a comma-separated list of numbers in [" + show(lo) + ", " + show(hi) + "], got '" + text + "'");
      out.push_back(x);
      if (end == std::string::npos) break;
      begin = end + 1;
    }
    if (out.size() < min_count) refuse(flag + " needs at least " + std::to_string(min_count) + " numbers, got '" + text + "'");
    return out;
  }

  // A whole number in [lo, hi].
  std::size_t count(const std::string& flag, std::size_t fallback, std::size_t lo, std::size_t hi) {
    const char* v = value(flag);
    if (!v) return fallback;
    const double x = parse(flag, v);
    if (!(x >= double(lo) && x <= double(hi)) || x != std::floor(x))
      refuse(flag + " must be a whole number in [" + show(double(lo)) + ", " + show(double(hi)) + "], got " + v);
    return static_cast<std::size_t>(x);
  }

  // Call after reading every flag: anything left is refused.
  void done() const {
    for (std::size_t i = 0; i < args_.size(); ++i)
      if (std::find(used_.begin(), used_.end(), i) == used_.end()) refuse("unknown argument '" + args_[i] + "'");
  }

 private:
  const char* value(const std::string& flag) {
    for (std::size_t i = 0; i < args_.size(); ++i)
      if (args_[i] == flag) {
        if (i + 1 >= args_.size()) refuse(flag + " needs a value");
        used_.push_back(i);
        used_.push_back(i + 1);
        return args_[i + 1].c_str();
      }
    return nullptr;
  }
  double parse(const std::string& flag, const char* text) const {
    char* end = nullptr;
    const double x = std::strtod(text, &end);
    if (end == text || *end != '\0' || !std::isfinite(x)) refuse(flag + " expects a number, got '" + text + "'");
    return x;
  }

  std::string program_, usage_;
  std::vector<std::string> args_;
  std::vector<std::size_t> used_;
};

// Steps after which frame k of `frames` is written: evenly spaced from the start (step 0) to the
// end (step `total`), rounded to whole steps; one frame is the final state.
inline std::vector<std::uint64_t> frame_schedule(std::uint64_t total, int frames) {
  std::vector<std::uint64_t> at;
  if (frames <= 0) return at;
  if (frames == 1) return {total};
  for (int k = 0; k < frames; ++k)
    at.push_back(static_cast<std::uint64_t>(std::llround(static_cast<double>(total) * k / (frames - 1))));
  return at;
}

// One progress line at most every `interval` seconds (and whenever asked for):
//   [ 42%] t = 0.2100 s  step 21000/50000  985 steps/s  1.97e+07 particle-steps/s  elapsed 21 s  left ~29 s
// The time left comes from the rate since the previous line. Steps are counted as they are
// reported, so one progress can span several simulations (an example that runs two).
class progress {
 public:
  using clock = std::chrono::steady_clock;
  explicit progress(std::uint64_t total_steps, double interval_s = 3.0)
      : total_(std::max<std::uint64_t>(total_steps, 1)), interval_(interval_s), start_(clock::now()), last_(start_) {}

  // `steps` more steps done on `particles` particles; prints when the interval has passed or
  // `force` is set, followed by `extra`. Returns whether it printed.
  bool add(std::uint64_t steps, std::size_t particles, double sim_time, const std::string& extra = "", bool force = false) {
    done_ += steps;
    particle_steps_ += static_cast<double>(steps) * static_cast<double>(particles);
    const auto now = clock::now();
    const double since = std::chrono::duration<double>(now - last_).count();
    if (!force && since < interval_) return false;
    const double steps_since = static_cast<double>(done_ - done_at_last_);
    const double rate = since > 0 ? steps_since / since : 0.0;
    const double prate = since > 0 ? (particle_steps_ - particle_steps_at_last_) / since : 0.0;
    const std::uint64_t left_steps = total_ > done_ ? total_ - done_ : 0;
    std::printf("[%3d%%] t = %.4f s  step %llu/%llu  %.0f steps/s  %.3g particle-steps/s  elapsed %s", percent(), sim_time,
                static_cast<unsigned long long>(done_), static_cast<unsigned long long>(total_), rate, prate,
                duration(elapsed()).c_str());
    if (left_steps && rate > 0) std::printf("  left ~%s", duration(static_cast<double>(left_steps) / rate).c_str());
    if (!extra.empty()) std::printf("  %s", extra.c_str());
    std::printf("\n");
    std::fflush(stdout);
    last_ = now;
    done_at_last_ = done_;
    particle_steps_at_last_ = particle_steps_;
    return true;
  }

  // Chunk size for the next call of sim.step(): about a tenth of the interval at the current rate,
  // so that lines come on time without stepping in tiny pieces.
  std::uint64_t chunk(std::uint64_t remaining) const {
    const double t = elapsed();
    const double rate = t > 0 && done_ > 0 ? static_cast<double>(done_) / t : 1000.0;
    const auto c = static_cast<std::uint64_t>(std::max(1.0, rate * interval_ / 10));
    return std::min(remaining, c);
  }

  double elapsed() const { return std::chrono::duration<double>(clock::now() - start_).count(); }
  std::uint64_t steps_done() const { return done_; }

 private:
  int percent() const { return static_cast<int>(std::min<std::uint64_t>(100, done_ * 100 / total_)); }
  static std::string duration(double s) {
    char b[32];
    if (s < 100) std::snprintf(b, sizeof b, "%.0f s", s);
    else if (s < 6000) std::snprintf(b, sizeof b, "%.0f min %02.0f s", std::floor(s / 60), std::fmod(s, 60));
    else std::snprintf(b, sizeof b, "%.0f h %02.0f min", std::floor(s / 3600), std::fmod(std::floor(s / 60), 60));
    return b;
  }

  std::uint64_t total_, done_ = 0, done_at_last_ = 0;
  double particle_steps_ = 0, particle_steps_at_last_ = 0;
  double interval_;
  clock::time_point start_, last_;
};

// Writes the simulation's next ParaView frame: the particles and, as part 1 of the same time step,
// the boundaries where they are now (io::vtk_series).
template <class Series, class Sim>
void write_frame(Series& series, Sim& sim) {
  const auto walls = sim.boundary_output();
  series.write(sim.snapshot(), &walls);
}

// Advances `sim` by `duration` simulated seconds (whole steps, as Simulator::advance) in chunks,
// reporting to `p`. Returns the number of steps run.
template <class Sim>
std::uint64_t advance(Sim& sim, double duration, progress& p) {
  const auto steps = static_cast<std::uint64_t>(std::ceil(duration / sim.dt() - 1e-9));
  for (std::uint64_t done = 0; done < steps;) {
    const std::uint64_t k = p.chunk(steps - done);
    sim.step(k);
    done += k;
    p.add(k, sim.num_active(), sim.time());
  }
  return steps;
}

inline std::uint64_t steps_for(double duration, double dt) { return static_cast<std::uint64_t>(std::ceil(duration / dt - 1e-9)); }

// Runs body(); an exception ends the program with its message on stderr and exit code 1.
template <class Body>
int guarded_main(const char* program, Body&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace example
