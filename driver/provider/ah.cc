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
  if (const int e = eng->resolve_dmac(ah->av.dgid, &ah->av.dmac, &err)) {
    std::fprintf(stderr, "rocenic: create_ah: %s\n", err.c_str());
    delete ah;
    live_ahs.fetch_sub(1);
    errno = e;
    return nullptr;
  }
  ah->av.sgid_index = grh.sgid_index;
  ah->av.sl = attr->sl;
  // a traffic_class rule matching the addresses wins over the AH's own, as
  // for a connected QP's path (the global value, when set, wins in the engine)
  Gid sgid{};
  for (const GidEntry& g : eng->config().gids)
    if (g.index == grh.sgid_index) sgid = g.gid;
  const int knob = eng->knob_tclass(sgid, ah->av.dgid);
  ah->av.traffic_class = knob >= 0 ? static_cast<uint8_t>(knob) : grh.traffic_class;
  ah->av.hop_limit = kRouteHopLimit;  // the route's, as the kernel resolves it (engine_limits.h)
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
