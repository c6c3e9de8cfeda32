// Frames and payload in the event-driven model: one immutable buffer, shared
// by reference from the block that made it to every block that reads it (a
// frame goes from the deparser to the wire and to the cosim scoreboard
// without a copy per beat, or at all).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace rocenic::model {

class Bytes {
 public:
  Bytes() = default;
  explicit Bytes(std::vector<uint8_t> v) : p_(std::make_shared<const std::vector<uint8_t>>(std::move(v))) {}
  const uint8_t* data() const { return p_ ? p_->data() : nullptr; }
  size_t size() const { return p_ ? p_->size() : 0; }
  bool empty() const { return size() == 0; }
  const std::vector<uint8_t>& vec() const {
    static const std::vector<uint8_t> kNone;
    return p_ ? *p_ : kNone;
  }
  uint8_t operator[](size_t i) const { return (*p_)[i]; }

 private:
  std::shared_ptr<const std::vector<uint8_t>> p_;
};

}  // namespace rocenic::model
