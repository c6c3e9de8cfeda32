// Model of rtl/common/stream_slice.sv: cut lane-0-aligned packets into pieces
// of given byte lengths, each re-aligned to lane 0 with its own last.
//
// One descriptor per piece: len (1..4096), last (the packet's final piece:
// what is left of the packet, up to its last beat, is discarded), drop
// (consume without output). One output beat per step; a new descriptor is
// taken in the step the previous piece finishes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/block.h"

namespace rocenic::model {

class StreamSlice {
 public:
  struct Desc {
    uint32_t len = 0;
    bool last = false, drop = false;
  };

  explicit StreamSlice(unsigned bytes) : bytes_(bytes), buf_(bytes, 0) {}

  void reset() {
    buf_v_ = buf_last_ = pc_v_ = skip_ = out_v_ = false;
    off_ = rem_ = 0;
  }
  bool idle() const { return !pc_v_ && !out_v_ && !buf_v_ && !skip_; }
  bool out_valid() const { return out_v_; }
  const Flit& out() const { return out_; }
  bool out_end() const { return out_end_; }  // the beat ends a packet's last (kept) piece

  // One clock edge. `in` is the offered input beat (nullptr: none), `out_ready`
  // the consumer's ready, `desc` the offered descriptor (nullptr: none).
  // Returns what was taken; peek() says the same without the edge.
  struct Taken {
    bool in = false, desc = false;
  };
  Taken peek(const Flit* in, bool out_ready, const Desc* desc) const {
    const unsigned avail = buf_v_ ? bytes_ - off_ : 0;
    const unsigned n = std::min<unsigned>(rem_, bytes_);
    const bool step = pc_v_ && !skip_ && (pc_drop_ || !out_v_ || out_ready) && (n <= avail || in);
    const bool fin = step && n == rem_;
    Taken t;
    t.in = in && (skip_ || (step && n > avail));
    t.desc = desc && !skip_ && (!pc_v_ || fin);
    return t;
  }
  Taken clock(const Flit* in, bool out_ready, const Desc* desc) {
    Taken t;
    const bool out_free = !out_v_ || out_ready;
    const unsigned avail = buf_v_ ? bytes_ - off_ : 0;
    const unsigned n = std::min<unsigned>(rem_, bytes_);
    const bool from_buf = n <= avail;
    const bool step = pc_v_ && !skip_ && (pc_drop_ || out_free) && (from_buf || in);
    const bool fin = step && n == rem_;
    const bool desc_ready = !skip_ && (!pc_v_ || fin);
    if (out_v_ && out_ready) out_v_ = false;
    if (skip_) {
      if (in) {
        t.in = true;
        if (in->last) skip_ = false;
      }
    }
    if (step) {
      Flit o;
      o.data.assign(bytes_, 0);
      for (unsigned i = 0; i < n; ++i) o.data[i] = i < avail ? buf_[off_ + i] : in->data[i - avail];
      o.keep = n >= 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1);
      o.last = fin;
      const bool ended_in_last = from_buf ? buf_last_ : in->last;
      rem_ -= n;
      if (from_buf) {
        off_ += n;
        if (off_ == bytes_) buf_v_ = false;
      } else {
        t.in = true;
        buf_ = in->data;
        buf_.resize(bytes_, 0);
        buf_last_ = in->last;
        off_ = n - avail;
        buf_v_ = off_ != bytes_;
      }
      if (!pc_drop_) {
        out_ = std::move(o);
        out_end_ = fin && pc_last_;
        out_v_ = true;
      }
      if (fin) {
        pc_v_ = false;
        if (pc_last_) {
          buf_v_ = false;
          off_ = 0;
          skip_ = !ended_in_last;
        }
      }
    }
    if (desc && desc_ready) {
      t.desc = true;
      pc_v_ = true;
      rem_ = desc->len;
      pc_last_ = desc->last;
      pc_drop_ = desc->drop;
    }
    return t;
  }

 private:
  unsigned bytes_;
  std::vector<uint8_t> buf_;
  bool buf_v_ = false, buf_last_ = false;
  unsigned off_ = 0;
  bool pc_v_ = false, pc_last_ = false, pc_drop_ = false;
  uint32_t rem_ = 0;
  bool skip_ = false;
  Flit out_;
  bool out_v_ = false, out_end_ = false;
};

}  // namespace rocenic::model
