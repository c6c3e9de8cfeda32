#include "wire/faults.h"

#include <cerrno>
#include <cstdlib>

namespace rocenic::wire {
namespace {
constexpr size_t kEthHeader = 14;
constexpr unsigned kMaxReorder = 3;  // a held frame goes after at most this many later ones
}  // namespace

std::string parse_probability(const std::string& text, double* p) {
  bool ok = !text.empty() && text.size() <= 32;
  for (char ch : text)  // a decimal number, perhaps with an exponent (no inf, nan, hex)
    ok = ok && ((ch >= '0' && ch <= '9') || ch == '.' || ch == 'e' || ch == 'E' || ch == '-' || ch == '+');
  if (ok) {
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    ok = errno == 0 && end && *end == '\0' && v >= 0.0 && v <= 1.0;
    if (ok) *p = v;
  }
  return ok ? "" : "'" + text + "': a probability between 0 and 1 (for example 0.02)";
}

std::string parse_seed(const std::string& text, uint64_t* seed) {
  bool ok = !text.empty() && text.size() <= 20;
  for (char ch : text) ok = ok && ch >= '0' && ch <= '9';
  if (ok) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    ok = errno == 0 && end && *end == '\0';
    if (ok) *seed = v;
  }
  return ok ? "" : "'" + text + "': an unsigned decimal number";
}

FaultInjector::FaultInjector(const FaultConfig& c) : cfg_(c), rng_(c.seed) {}

bool FaultInjector::chance(double p) {
  // always draw, so that one fault's probability does not shift the others' sequence
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
  return u < p;
}

void FaultInjector::pass(const uint8_t* frame, size_t len, const Emit& emit) {
  ++stats_.passed;
  const bool lose = chance(cfg_.loss), flip = chance(cfg_.corrupt), twice = chance(cfg_.dup),
             hold = chance(cfg_.reorder);
  const uint64_t where = rng_(), after = rng_();
  if (lose) {
    ++stats_.dropped;
    return;
  }
  std::vector<uint8_t> f(frame, frame + len);
  if (flip && len > kEthHeader) {
    const uint64_t bit = where % ((len - kEthHeader) * 8);
    f[kEthHeader + bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    ++stats_.corrupted;
  }
  if (hold) {
    ++stats_.reordered;
    step_held(emit);  // it counts as a frame gone past those held before it
    if (flip) ++stats_.corrupted_out;
    held_.push_back({std::move(f), static_cast<unsigned>(1 + after % kMaxReorder)});
    return;
  }
  emit(f.data(), f.size());
  if (twice) {
    ++stats_.duplicated;
    emit(f.data(), f.size());
  }
  if (flip) stats_.corrupted_out += twice ? 2 : 1;
  step_held(emit);
}

// One more frame went out after each held frame: those due go now, in the order they were held.
void FaultInjector::step_held(const Emit& emit) {
  for (auto it = held_.begin(); it != held_.end();) {
    if (--it->after > 0) {
      ++it;
      continue;
    }
    emit(it->frame.data(), it->frame.size());
    it = held_.erase(it);
  }
}

void FaultInjector::release_held(const Emit& emit) {
  for (const Held& h : held_) emit(h.frame.data(), h.frame.size());
  held_.clear();
}

}  // namespace rocenic::wire
