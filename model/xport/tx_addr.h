// A packet to a QP's peer: the header fields that come from the QP's
// address vector (qp_cfg_t as roce_cmd resolved it: L3 type, MACs, IPs,
// traffic class, hop limit, flow label), shared by requests and ACKs.
#pragma once

#include "gen/roce_spec.h"

namespace rocenic::model {

inline spec::RoceTxHdr header_to_peer(const spec::QpCfg& a) {
  spec::RoceTxHdr h;
  h.l3 = a.l3;
  h.vlan_valid = a.vlan_valid;
  h.vlan_vid = a.vlan_vid;
  h.vlan_pcp = a.vlan_valid ? a.sl & 7u : 0u;  // PCP = SL & 7
  h.dst_mac = a.dst_mac;
  h.src_mac = a.src_mac;
  h.src_ip = a.src_ip;
  h.dst_ip = a.dst_ip;
  h.tclass = a.tclass;
  h.ttl = a.ttl;
  h.flow_label = a.flow_label;
  h.pkey = static_cast<uint16_t>(spec::kDefaultPkey);
  h.dst_qpn = a.dest_qpn;
  return h;
}

}  // namespace rocenic::model
