// The cosim scoreboard for request packets (sim/device.cc).
//
// Which request packets a requester sends again, and when, depends on when
// a NAK or a timeout reached it relative to its own progress: timing, which
// the model does not copy cycle for cycle. What the packets are does not:
// a packet is a function of its connection and PSN. So requests are
// compared by (connection, PSN), not as a sequence:
//   - the first transmission of every PSN must equal the other side's;
//   - every packet sent again must equal the first transmission of its PSN,
//     but for the BTH AckReq bit (the first packet of a WQE sent again asks
//     for an ACK) and so the ICRC;
//     a READ request may be sent again from any of the PSNs its responses
//     take (a rewind into the READ asks for the rest: PSN first + k, va +
//     k * mtu): the first such re-request at a PSN is stored, later ones
//     from either side must equal it;
//   - each side's new PSNs follow one another (a jump starts a new
//     connection, as after a QP was re-created);
//   - once both sides are idle, each connection's requests went up to the
//     same PSN on both (drained()).
// A connection is the destination QP and the UDP source port (RoCEv2: the
// flow hash of the sending QP), or the destination QP alone for RoCEv1.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace rocenic {

class RequestBoard {
 public:
  using Frame = std::vector<uint8_t>;
  // A request frame side `rtl` (true) or the model (false) sent (`read`: an
  // RDMA READ request; `bth`: where its BTH starts): "" when it agrees, else
  // what diverged.
  std::string sent(bool rtl, uint64_t connection, uint32_t psn, const Frame& f, bool read = false, size_t bth = 0);
  // Both sides idle: "" when every connection's requests reached the same PSN.
  std::string drained() const;
  uint64_t compared() const { return compared_; }
  // Requests side `rtl` sent for the first time (new PSNs), all connections.
  uint64_t first_sent(bool rtl) const { return first_[rtl ? 1 : 0]; }

 private:
  static constexpr uint32_t kKeep = 1u << 16;  // PSNs kept behind both sides' newest
  struct Side {
    bool any = false;
    uint32_t hw = 0;  // newest PSN sent
  };
  struct Conn {
    Side side[2];  // [0] model, [1] rtl
    std::map<uint32_t, Frame> frames;  // first transmission by PSN
    std::deque<uint32_t> order;        // PSNs in the order they were stored
  };
  void prune(Conn& c);

  std::map<uint64_t, Conn> conns_;
  uint64_t compared_ = 0;
  uint64_t first_[2] = {0, 0};
};

}  // namespace rocenic
