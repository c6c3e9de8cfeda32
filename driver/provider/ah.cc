// Address handles (ibv_create_ah / ibv_destroy_ah): what the kernel checks
// for a RoCE port before a provider sees the AH, then the destination MAC
// resolved now, as the kernel's ib_resolve_eth_dmac does, so that a UD send
// needs no lookup. errno as Linux 6.1 answers:
//   port_num other than 1, no GRH (RoCE addresses are GIDs): EINVAL
//   sgid_index beyond the GID table: EINVAL; an unused entry: ENODATA
//   (rdma_get_gid_attr)
//   a destination nobody on the wire answers for: ETIMEDOUT (as modify_qp)
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "engine_limits.h"
#include "provider.h"

namespace rocenic::driver {
namespace {
std::atomic<int> live_ahs{0};  // of kMaxAh (engine_limits.h): AHs live in host memory only
}  // namespace

int resolve_av(Engine* eng, const ibv_global_route& grh, ResolvedAv* out, std::string* err) {
  Gid dgid;
  std::memcpy(dgid.data(), grh.dgid.raw, 16);
  if (const int e = eng->resolve_dmac(dgid, &out->dmac, err)) return e;
  const GidEntry* src = nullptr;
  for (const GidEntry& g : eng->config().gids)
    if (g.index == grh.sgid_index) src = &g;
  // Linux's ib_resolve_eth_dmac: a multicast destination keeps the
  // application's hop limit; so does a RoCE v1 source with a link-local one
  // (rdma_link_local_addr: fe80::/64 exactly; no IP stack involved); any
  // other goes through the IP route, whose hop limit replaces it
  static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  const bool multicast =
      dgid[0] == 0xFF || (std::memcmp(dgid.data(), kMapped, 12) == 0 && (dgid[12] & 0xF0) == 0xE0);
  static const uint8_t kLinkLocal[8] = {0xFE, 0x80, 0, 0, 0, 0, 0, 0};
  const bool link_local = std::memcmp(dgid.data(), kLinkLocal, 8) == 0;
  out->hop_limit = multicast || (src && src->type == GidType::kRoceV1 && link_local) ? grh.hop_limit : kRouteHopLimit;
  // a traffic_class rule matching the addresses gives the traffic class (the
  // global value, when set, wins over both in the engine)
  const int knob = eng->knob_tclass(src ? src->gid : Gid{}, dgid);
  out->traffic_class = knob >= 0 ? static_cast<uint8_t>(knob) : grh.traffic_class;
  return 0;
}

ibv_ah* create_ah(ibv_pd* pd, ibv_ah_attr* attr) {
  Engine* eng = engine_of(pd->context);
  if (!attr || attr->port_num != 1 || !attr->is_global) {
    errno = EINVAL;
    return nullptr;
  }
  const ibv_global_route& grh = attr->grh;
  if (grh.sgid_index >= eng->caps().gid_tbl_len) {
    errno = EINVAL;
    return nullptr;
  }
  bool used = false;
  for (const GidEntry& g : eng->config().gids) used = used || g.index == grh.sgid_index;
  if (!used) {
    errno = ENODATA;
    return nullptr;
  }
  RocenicAh* ah = live_ahs.fetch_add(1) < kMaxAh ? new (std::nothrow) RocenicAh{} : nullptr;
  if (!ah) {
    live_ahs.fetch_sub(1);
    errno = ENOMEM;
    return nullptr;
  }
  std::memcpy(ah->av.dgid.data(), grh.dgid.raw, 16);
  std::string err;
  ResolvedAv r;
  if (const int e = resolve_av(eng, grh, &r, &err)) {
    std::fprintf(stderr, "rocenic: create_ah: %s\n", err.c_str());
    delete ah;
    live_ahs.fetch_sub(1);
    errno = e;
    return nullptr;
  }
  ah->av.dmac = r.dmac;
  ah->av.sgid_index = grh.sgid_index;
  ah->av.sl = attr->sl;
  ah->av.traffic_class = r.traffic_class;
  ah->av.hop_limit = r.hop_limit;
  ah->av.flow_label = grh.flow_label & 0xFFFFFu;
  ah->ah.context = pd->context;
  ah->ah.pd = pd;
  return &ah->ah;
}

void put_ud_av(const AhState& av, uint32_t remote_qpn, uint32_t remote_qkey, spec::SendWqe* w) {
  w->ud_dest_qpn = remote_qpn & 0xFFFFFFu;
  w->ud_qkey = remote_qkey;  // (bit 31 set: the engine sends the QP's own, IBTA 10.2.5)
  w->ud_dgid = av.dgid;
  w->ud_dmac = av.dmac;
  w->ud_sgid_index = av.sgid_index;
  w->ud_hop_limit = av.hop_limit;
  w->ud_flow_label = av.flow_label;
  w->ud_traffic_class = av.traffic_class;
  w->ud_sl = av.sl;
}

int destroy_ah(ibv_ah* ibah) {
  delete to_ah(ibah);
  live_ahs.fetch_sub(1);
  return 0;
}

}  // namespace rocenic::driver
