#include "request_board.h"

#include <cstdio>

#include "xcheck.h"

namespace rocenic {
namespace {

constexpr uint32_t kPsnMask = 0xFFFFFF;

std::string name(uint64_t conn, uint32_t psn) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "request to QP %u (UDP source port 0x%04x) PSN 0x%06x",
                static_cast<unsigned>(conn >> 16), static_cast<unsigned>(conn & 0xFFFF), psn);
  return buf;
}

// The same request: equal but for the AckReq bit (BTH byte 8, bit 7) and,
// with it, the ICRC (the last 4 bytes) of a packet sent again.
bool same_request(const RequestBoard::Frame& a, const RequestBoard::Frame& b, size_t bth, bool again) {
  if (a.size() != b.size()) return false;
  if (!again || bth == 0 || a.size() < bth + 12 + 4) return a == b;
  for (size_t i = 0; i < a.size() - 4; ++i) {
    const uint8_t mask = i == bth + 8 ? 0x7F : 0xFF;
    if ((a[i] & mask) != (b[i] & mask)) return false;
  }
  return true;
}

}  // namespace

std::string RequestBoard::sent(bool rtl, uint64_t connection, uint32_t psn, const Frame& f, bool read, size_t bth) {
  Conn& c = conns_[connection];
  Side& me = c.side[rtl ? 1 : 0];
  const uint32_t d = (psn - me.hw) & kPsnMask;
  const bool is_new = !me.any || (d != 0 && d < (1u << 23));  // ahead of the newest (a jump: a new start)
  auto it = c.frames.find(psn);
  if (is_new) {
    me.any = true;
    me.hw = psn;
    ++first_[rtl ? 1 : 0];
  }
  if (it == c.frames.end()) {
    if (!is_new && !read)
      return name(connection, psn) + ": sent again by the " + (rtl ? "RTL" : "model") +
             " but never sent before (or long ago)";
    c.frames.emplace(psn, f);
    c.order.push_back(psn);
    prune(c);
    return "";
  }
  ++compared_;
  if (same_request(f, it->second, bth, !is_new)) return "";
  return name(connection, psn) + (is_new ? " (first transmission)" : " (sent again)") + ":\n  " +
         (rtl ? "rtl   " : "model ") + hex_bytes(f, 400) + "\n  first " + hex_bytes(it->second, 400);
}

void RequestBoard::prune(Conn& c) {
  if (!c.side[0].any || !c.side[1].any) {
    if (c.order.size() > 4 * kKeep) {  // one side only (the other is far behind): bounded anyway
      c.frames.erase(c.order.front());
      c.order.pop_front();
    }
    return;
  }
  // behind both sides' newest by more than kKeep: nobody sends it again
  const uint32_t oldest = ((c.side[0].hw - c.side[1].hw) & kPsnMask) < (1u << 23) ? c.side[1].hw : c.side[0].hw;
  while (!c.order.empty() && ((oldest - c.order.front()) & kPsnMask) > kKeep &&
         ((oldest - c.order.front()) & kPsnMask) < (1u << 23)) {
    c.frames.erase(c.order.front());
    c.order.pop_front();
  }
}

std::string RequestBoard::drained() const {
  for (const auto& [conn, c] : conns_) {
    const Side &m = c.side[0], &r = c.side[1];
    if (m.any == r.any && m.hw == r.hw) continue;
    char buf[128];
    std::snprintf(buf, sizeof buf, ": the RTL's requests went up to PSN 0x%06x, the model's to 0x%06x",
                  r.any ? r.hw : 0, m.any ? m.hw : 0);
    return name(conn, r.any ? r.hw : m.hw) + buf;
  }
  return "";
}

}  // namespace rocenic
