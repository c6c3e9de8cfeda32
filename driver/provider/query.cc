// query_device(_ex) and query_port: the engine's capability and port
// registers, read with csr_read on every call.
#include <endian.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "gen/roce_spec.h"
#include "engine_limits.h"
#include "provider.h"

namespace rocenic::driver {
namespace {

// Attributes with no CSR yet: documented in docs/driver.md.
constexpr uint64_t kMaxMrSize = uint64_t{1} << 48;   // a 48-bit user virtual address space
constexpr int kMaxQpRdAtom = static_cast<int>(spec::kMaxQpRdAtom);  // outstanding RDMA READ/atomic per QP (the engine enforces it)
constexpr uint8_t kLocalCaAckDelay = 15;             // 4.096 us * 2^15 ~ 134 ms

// IBV_MTU_* of the largest payload the engine carries (spec: MAX_PAYLOAD).
constexpr unsigned max_mtu_enum() {
  unsigned e = 1;
  for (uint32_t b = 256; b < spec::kMaxPayload; b *= 2) ++e;
  return e;
}
static_assert(max_mtu_enum() == IBV_MTU_4096, "MAX_PAYLOAD 4096 is IBV_MTU_4096");

}  // namespace

int query_device_ex(ibv_context* context, const ibv_query_device_ex_input* input, ibv_device_attr_ex* attr,
                    size_t attr_size) {
  if (input && input->comp_mask) return EINVAL;
  if (attr_size < sizeof(ibv_device_attr)) return EINVAL;
  Engine* eng = engine_of(context);
  Caps caps;
  if (!eng->read_caps(&caps)) return EIO;

  ibv_device_attr_ex full{};
  ibv_device_attr& a = full.orig_attr;
  std::snprintf(a.fw_ver, sizeof a.fw_ver, "%u.%u", (caps.version >> 8) & 0xff, caps.version & 0xff);
  a.node_guid = htobe64(eng->config().node_guid);
  a.sys_image_guid = a.node_guid;
  a.max_mr_size = kMaxMrSize;
  a.page_size_cap = kPageSize;  // MTT pages
  a.vendor_id = kVendorId;
  a.vendor_part_id = kVendorPartId;
  a.hw_ver = caps.version;
  a.max_qp = static_cast<int>(caps.max_qp);
  a.max_qp_wr = static_cast<int>(caps.max_qp_wr);
  // Memory windows, type 1 and type 2B (bound to one QP, as rxe reports);
  // nothing else optional yet (no SRQ resize, no AH).
  a.device_cap_flags = IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2B;
  a.max_sge = static_cast<int>(caps.max_sge);
  a.max_sge_rd = static_cast<int>(caps.max_sge);
  a.max_cq = static_cast<int>(caps.max_cq);
  a.max_cqe = static_cast<int>(caps.max_cqe);
  a.max_mr = static_cast<int>(caps.max_mr);
  a.max_mw = static_cast<int>(caps.max_mr);  // windows are entries of the same MR table
  a.max_pd = static_cast<int>(caps.max_pd);
  a.max_ah = kMaxAh;
  a.max_qp_rd_atom = kMaxQpRdAtom;
  a.max_qp_init_rd_atom = kMaxQpRdAtom;
  a.max_res_rd_atom = kMaxQpRdAtom * static_cast<int>(caps.max_qp);
  // CMP_AND_SWP and FETCH_AND_ADD, atomic against each other (the responder
  // executes them one at a time), not against the host CPU: HCA, not GLOB.
  // No masked atomics (no verb asks for them) and no PCIe AtomicOps
  // (pci_atomic_caps stays 0, as rxe reports).
  a.atomic_cap = IBV_ATOMIC_HCA;
  a.max_pkeys = 1;
  a.local_ca_ack_delay = kLocalCaAckDelay;
  a.phys_port_cnt = 1;
  // SRQ, AH, multicast: 0 until those verbs exist (see docs/driver.md).
  full.phys_port_cnt_ex = 1;
  full.device_cap_flags_ex = a.device_cap_flags;  // the same flags, 64 bits wide (as the kernel fills it)

  // ibv_query_device passes only sizeof(ibv_device_attr): never write past attr_size.
  std::memcpy(attr, &full, std::min(attr_size, sizeof full));
  return 0;
}

int query_port(ibv_context* context, uint8_t port_num, ibv_port_attr* p) {
  if (port_num != 1) return EINVAL;
  Engine* eng = engine_of(context);
  Caps caps;
  PortStatus port;
  if (!eng->read_caps(&caps) || !eng->read_port(&port)) return EIO;
  *p = ibv_port_attr{};
  p->state = static_cast<ibv_port_state>(port.state);
  p->max_mtu = static_cast<ibv_mtu>(max_mtu_enum());
  p->active_mtu = static_cast<ibv_mtu>(port.mtu);
  p->gid_tbl_len = static_cast<int>(caps.gid_tbl_len);
  p->port_cap_flags = IBV_PORT_IP_BASED_GIDS;  // RoCE: GIDs come from the port's addresses
  p->max_msg_sz = static_cast<uint32_t>(kMaxMsgSize);
  p->pkey_tbl_len = 1;
  p->lid = 0;  // Ethernet: no LID, no subnet manager
  p->sm_lid = 0;
  p->max_vl_num = 1;
  // 100GbE reported the way RoCE NICs do: 4 lanes x 25 Gb/s (EDR rate).
  p->active_width = 2;                                    // 4X
  p->active_speed = 32;                                   // EDR, 25 Gb/s per lane
  p->phys_state = port.state == IBV_PORT_ACTIVE ? 5 : 3;  // LinkUp : Disabled
  p->link_layer = IBV_LINK_LAYER_ETHERNET;
  // UD datagrams dropped for a wrong Q_Key (IBTA's Q_Key violation counter, 16 bits, saturating)
  uint32_t qkey_viol = 0;
  if (eng->csr_read(spec::kCsrXportCnt + 4 * static_cast<uint32_t>(spec::XportCnt::kQkeyViolations), &qkey_viol))
    p->qkey_viol_cntr = static_cast<uint32_t>(std::min<uint32_t>(qkey_viol, 0xFFFF));
  return 0;
}

}  // namespace rocenic::driver
