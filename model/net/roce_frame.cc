#include "net/roce_frame.h"

#include "net/icrc.h"

namespace rocenic {
namespace {

using namespace spec;

class Writer {
 public:
  explicit Writer(std::vector<uint8_t>& out) : out_(out) {}
  void u8(uint64_t v) { out_.push_back(static_cast<uint8_t>(v)); }
  void be(uint64_t v, unsigned bytes) {
    for (unsigned i = bytes; i-- > 0;) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void ip(const Ip128& a, unsigned bytes) { out_.insert(out_.end(), a.end() - bytes, a.end()); }
  void zeros(unsigned n) { out_.insert(out_.end(), n, 0); }
  size_t size() const { return out_.size(); }
  void put_be16_at(size_t off, uint16_t v) {
    out_[off] = static_cast<uint8_t>(v >> 8);
    out_[off + 1] = static_cast<uint8_t>(v);
  }

 private:
  std::vector<uint8_t>& out_;
};

}  // namespace

uint16_t ipv4_checksum(const uint8_t* p) {
  uint32_t s = 0;
  for (unsigned i = 0; i < kIpv4Size; i += 2) s += (p[i] << 8) | p[i + 1];
  while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
  return static_cast<uint16_t>(~s);
}

uint16_t roce_udp_sport(uint32_t src_qpn, uint32_t dst_qpn, uint8_t opcode) {
  if ((opcode >> 5) == 3) {  // UD
    const uint32_t h = static_cast<uint32_t>(src_qpn * 0x61C88647u) >> 18;
    return static_cast<uint16_t>(kRoceSportBase | h);
  }
  uint64_t v = static_cast<uint64_t>(src_qpn) * dst_qpn;
  v ^= v >> 20;
  v ^= v >> 40;
  const uint32_t fl = static_cast<uint32_t>(v & 0xFFFFF);
  return static_cast<uint16_t>(kRoceSportBase | ((fl & 0x3FFF) ^ (fl >> 14)));
}

unsigned roce_pad(uint8_t opcode, unsigned len) { return kOpcodes[opcode].payload ? (-len) & 3u : 0u; }

std::vector<uint8_t> roce_header(const RoceTxHdr& h) {
  const OpInfo& op = kOpcodes[h.opcode];
  const unsigned pad = roce_pad(h.opcode, h.pay_len);
  const unsigned trailer = kBthSize + op.ext_bytes + h.pay_len + pad + kIcrcSize;
  const L3 l3 = static_cast<L3>(h.l3);

  std::vector<uint8_t> out;
  Writer w(out);
  w.be(h.dst_mac, 6);
  w.be(h.src_mac, 6);
  if (h.vlan_valid) {
    w.be(kEthertypeVlan, 2);
    w.be((h.vlan_pcp << 13) | h.vlan_vid, 2);
  }
  const uint16_t sport = roce_udp_sport(h.src_qpn, h.dst_qpn, h.opcode);
  if (l3 == L3::kIpv4) {
    w.be(kEthertypeIpv4, 2);
    const size_t ip = w.size();
    const unsigned ip_len = kIpv4Size + kUdpSize + trailer;
    w.u8(0x45);
    w.u8(h.tclass);
    w.be(ip_len, 2);
    w.be(h.ip_id, 2);
    w.be(kIpv4FlagsDf, 2);
    w.u8(h.ttl);
    w.u8(kIpProtoUdp);
    w.be(0, 2);
    w.ip(h.src_ip, 4);
    w.ip(h.dst_ip, 4);
    w.put_be16_at(ip + kIpv4CsumOff, ipv4_checksum(out.data() + ip));
    w.be(sport, 2);
    w.be(kUdpPortRocev2, 2);
    w.be(kUdpSize + trailer, 2);
    w.be(0, 2);
  } else {
    const bool v2 = l3 == L3::kIpv6;
    w.be(v2 ? kEthertypeIpv6 : kEthertypeRocev1, 2);
    const unsigned plen = (v2 ? kUdpSize : 0) + trailer;
    w.be((6u << 28) | (static_cast<uint32_t>(h.tclass) << 20) | h.flow_label, 4);
    w.be(plen, 2);
    w.u8(v2 ? kIpProtoUdp : kGrhNxthdrIba);
    w.u8(h.ttl);
    w.ip(h.src_ip, 16);
    w.ip(h.dst_ip, 16);
    if (v2) {
      w.be(sport, 2);
      w.be(kUdpPortRocev2, 2);
      w.be(plen, 2);
      w.be(0, 2);
    }
  }
  // BTH
  w.u8(h.opcode);
  w.u8((h.se << 7) | (h.mig << 6) | (pad << 4) | kBthTver);
  w.be(h.pkey, 2);
  w.u8((h.fecn << 7) | (h.becn << 6));
  w.be(h.dst_qpn, 3);
  w.u8(h.ack_req << 7);
  w.be(h.psn, 3);
  // extended headers, in wire order
  if (op.ext & kExtDeth) {
    w.be(h.qkey, 4);
    w.u8(0);
    w.be(h.src_qpn, 3);
  }
  if (op.ext & kExtReth) {
    w.be(h.reth_va, 8);
    w.be(h.reth_rkey, 4);
    w.be(h.reth_len, 4);
  }
  if (op.ext & kExtAtomiceth) {
    w.be(h.reth_va, 8);
    w.be(h.reth_rkey, 4);
    w.be(h.swap_add, 8);
    w.be(h.compare, 8);
  }
  if (op.ext & kExtAeth) {
    w.u8(h.aeth_syndrome);
    w.be(h.aeth_msn, 3);
  }
  if (op.ext & kExtAtomicacketh) w.be(h.atomic_orig, 8);
  if (op.ext & (kExtImmdt | kExtIeth)) w.be(h.imm, 4);
  if (op.ext & kExtCnpRsvd) w.zeros(kCnpRsvdSize);
  return out;
}

std::vector<uint8_t> roce_frame(const RoceTxHdr& h, const uint8_t* payload) {
  std::vector<uint8_t> f = roce_header(h);
  f.insert(f.end(), payload, payload + h.pay_len);
  f.insert(f.end(), roce_pad(h.opcode, h.pay_len), 0);
  const unsigned l3 = roce_l3_offset(h);
  const uint32_t icrc = roce_icrc(f.data() + l3, f.size() - l3 + kIcrcSize, static_cast<L3>(h.l3));
  for (int i = 0; i < 4; ++i) f.push_back(static_cast<uint8_t>(icrc >> (8 * i)));
  if (f.size() < kMinFrame) f.resize(kMinFrame, 0);
  return f;
}

}  // namespace rocenic
