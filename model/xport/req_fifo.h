// Cycle model of rtl/common/fifo_fwft.sv (first-word-fall-through FIFO whose
// head is a register): a push reaches m_valid two cycles later, capacity is
// DEPTH + 1. Used by the requester model for its payload, piece and packet
// FIFOs so that its timing follows the RTL's.
#pragma once

#include <cstddef>
#include <vector>

namespace rocenic::model {

template <typename T>
class FifoFwftModel {
 public:
  explicit FifoFwftModel(size_t depth) : mem_(depth) {}
  void reset() {
    wr_ = rd_ = 0;
    m_valid_ = false;
  }
  bool s_ready() const { return wr_ - rd_ != mem_.size(); }
  bool m_valid() const { return m_valid_; }
  const T& m_data() const { return m_data_; }
  // One rising edge: the head refills from memory (old contents) before the push lands.
  void clock(bool push, const T& data, bool m_ready) {
    const bool load = wr_ != rd_ && (!m_valid_ || m_ready);
    if (load) m_data_ = mem_[rd_ % mem_.size()];
    if (push) mem_[wr_ % mem_.size()] = data;
    if (push) ++wr_;
    if (load) ++rd_;
    m_valid_ = load || (m_valid_ && !m_ready);
  }

 private:
  std::vector<T> mem_;
  size_t wr_ = 0, rd_ = 0;  // wr_ - rd_ = entries in memory (the head register excluded)
  bool m_valid_ = false;
  T m_data_{};
};

}  // namespace rocenic::model
