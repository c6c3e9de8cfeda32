#include "host/engine_host.h"

#include "common/sq_doorbell.h"

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <stdexcept>

namespace rocenic::host {

using namespace spec;

Buffer::Buffer(size_t bytes, size_t align) : n_(bytes) {
  const size_t rounded = (bytes + align - 1) / align * align;
  p_ = static_cast<uint8_t*>(std::aligned_alloc(align, rounded ? rounded : align));
  if (!p_) throw std::bad_alloc();
  std::memset(p_, 0, rounded ? rounded : align);
}

Buffer::~Buffer() { std::free(p_); }

Ip128 ipv4_gid(uint32_t ipv4) {
  Ip128 g{};
  g[10] = g[11] = 0xFF;
  for (int i = 0; i < 4; ++i) g[12 + i] = static_cast<uint8_t>(ipv4 >> (24 - 8 * i));
  return g;
}

Ip128 link_local_gid(uint64_t mac) {
  Ip128 g{};
  g[0] = 0xFE;
  g[1] = 0x80;
  const uint8_t m[6] = {static_cast<uint8_t>(mac >> 40), static_cast<uint8_t>(mac >> 32), static_cast<uint8_t>(mac >> 24),
                        static_cast<uint8_t>(mac >> 16), static_cast<uint8_t>(mac >> 8),  static_cast<uint8_t>(mac)};
  g[8] = m[0] ^ 0x02;  // EUI-64: universal/local bit flipped, ff:fe in the middle
  g[9] = m[1];
  g[10] = m[2];
  g[11] = 0xFF;
  g[12] = 0xFE;
  g[13] = m[3];
  g[14] = m[4];
  g[15] = m[5];
  return g;
}

uint32_t EngineHost::csr(uint32_t addr) {
  uint32_t v = 0;
  if (!dev_.csr_read(addr, &v)) throw std::runtime_error("engine_host: CSR read refused at " + std::to_string(addr));
  return v;
}

static void must_write(Device& d, uint32_t addr, uint32_t v) {
  if (!d.csr_write(addr, v)) throw std::runtime_error("engine_host: CSR write refused at " + std::to_string(addr));
}

void EngineHost::configure_port(uint64_t mac, uint32_t ipv4, unsigned mtu) {
  must_write(dev_, kCsrPortMacLo, static_cast<uint32_t>(mac));
  must_write(dev_, kCsrPortMacHi, static_cast<uint32_t>(mac >> 32));
  must_write(dev_, kCsrPortMtu, mtu);
  const Ip128 gids[4] = {link_local_gid(mac), link_local_gid(mac), ipv4_gid(ipv4), ipv4_gid(ipv4)};
  for (unsigned i = 0; i < 4; ++i) {
    for (unsigned w = 0; w < 4; ++w) {
      const uint32_t v = uint32_t{gids[i][4 * w]} << 24 | uint32_t{gids[i][4 * w + 1]} << 16 |
                         uint32_t{gids[i][4 * w + 2]} << 8 | gids[i][4 * w + 3];
      must_write(dev_, kCsrGid + 32 * i + 4 * w, v);
    }
    must_write(dev_, kCsrGid + 32 * i + 16, i % 2 ? 2 : 1);  // v1, v2, v1, v2
  }
  must_write(dev_, kCsrPortCtrl, 1);
}

CmdResult EngineHost::command(CmdOp op, const uint8_t args[64]) {
  for (unsigned w = 0; w < 16; ++w) {
    uint32_t v = 0;
    for (unsigned b = 0; b < 4; ++b) v |= uint32_t{args[4 * w + b]} << (8 * b);
    must_write(dev_, kCsrCmdArg + 4 * w, v);
  }
  must_write(dev_, kCsrCmdOp, static_cast<uint32_t>(op));
  uint32_t st = 0;
  for (int i = 0; i < 100000; ++i) {
    st = csr(kCsrCmdStatus);
    if (!(st >> 31)) break;
    dev_.run(64);
  }
  if (st >> 31) throw std::runtime_error("engine_host: command never finished");
  CmdResult r;
  r.status = static_cast<CmdStatus>(st & 0xFF);
  for (unsigned i = 0; i < 4; ++i) r.res[i] = csr(kCsrCmdRes + 4 * i);
  return r;
}

CmdResult EngineHost::command(CmdOp op, uint32_t arg0) {
  uint8_t a[64] = {};
  for (int b = 0; b < 4; ++b) a[b] = static_cast<uint8_t>(arg0 >> (8 * b));
  return command(op, a);
}

uint32_t EngineHost::alloc_pd() {
  const CmdResult r = command(CmdOp::kAllocPd);
  if (!r.ok()) throw std::runtime_error("engine_host: ALLOC_PD failed");
  return r.res[0];
}

std::unique_ptr<Cq> EngineHost::create_cq(unsigned log_size) {
  auto cq = std::make_unique<Cq>();
  cq->log_size = log_size;
  cq->ring = std::make_unique<Buffer>(Cqe::kSize << log_size);
  dev_.dma_allow(cq->ring->addr(), cq->ring->size());
  CmdCreateCq c;
  c.base = cq->ring->addr();
  c.log_size = static_cast<uint8_t>(log_size);
  uint8_t a[64];
  c.store(a);
  const CmdResult r = command(CmdOp::kCreateCq, a);
  if (!r.ok()) throw std::runtime_error("engine_host: CREATE_CQ failed");
  cq->cqn = r.res[0];
  return cq;
}

CmdResult EngineHost::try_reg_mr(uint32_t pd, const void* addr, uint64_t len, uint8_t access, Mr* out) {
  const uint64_t va = reinterpret_cast<uint64_t>(addr);
  const uint64_t first = va & ~uint64_t{4095}, end = (va + len + 4095) & ~uint64_t{4095};
  const uint32_t npages = static_cast<uint32_t>((end - first) / 4096);
  const uint32_t base = next_mtt_;
  for (uint32_t p = 0; p < npages; p += 6) {
    CmdWriteMtt w;
    w.index = base + p;
    w.count = std::min<uint32_t>(6, npages - p);
    uint8_t a[64];
    w.store(a);
    for (uint32_t i = 0; i < w.count; ++i) {
      const uint64_t pa = first + 4096ull * (p + i);
      for (unsigned b = 0; b < kCmdWriteMttPa0Bytes; ++b)
        a[kCmdWriteMttPa0Off + kCmdWriteMttPa0Bytes * i + b] = static_cast<uint8_t>(pa >> (8 * b));
    }
    const CmdResult r = command(CmdOp::kWriteMtt, a);
    if (!r.ok()) return r;
  }
  CmdRegMr m;
  m.iova = va;
  m.length = len;
  m.pd = pd;
  m.access = access;
  m.mtt_base = base;
  m.npages = npages;
  m.page_shift = 12;
  uint8_t a[64];
  m.store(a);
  const CmdResult r = command(CmdOp::kRegMr, a);
  if (r.ok()) {
    next_mtt_ += npages;
    dev_.dma_allow(va, len);
    if (out) *out = {r.res[0], va, len};
  }
  return r;
}

Mr EngineHost::reg_mr(uint32_t pd, const void* addr, uint64_t len, uint8_t access) {
  Mr mr;
  const CmdResult r = try_reg_mr(pd, addr, len, access, &mr);
  if (!r.ok()) throw std::runtime_error(std::string("engine_host: REG_MR failed: ") + to_string(r.status));
  return mr;
}

std::unique_ptr<Qp> EngineHost::create_qp(uint32_t pd, const Cq& scq, const Cq& rcq, unsigned sq_lsz,
                                          unsigned rq_lsz, QpType type) {
  auto qp = std::make_unique<Qp>();
  qp->type = type;
  qp->sq_lsz = sq_lsz;
  qp->rq_lsz = rq_lsz;
  qp->sq = std::make_unique<Buffer>(size_t{1} << (sq_lsz + kWqeSlotLog2));  // slots of 512 bytes
  qp->rq = std::make_unique<Buffer>(size_t{1} << (rq_lsz + kWqeSlotLog2));
  dev_.dma_allow(qp->sq->addr(), qp->sq->size());
  dev_.dma_allow(qp->rq->addr(), qp->rq->size());
  CmdCreateQp c;
  c.sq_base = qp->sq->addr();
  c.rq_base = qp->rq->addr();
  c.pd = pd;
  c.send_cq = scq.cqn;
  c.recv_cq = rcq.cqn;
  c.qp_type = static_cast<uint8_t>(type);
  c.sq_lsz = static_cast<uint8_t>(sq_lsz);
  c.rq_lsz = static_cast<uint8_t>(rq_lsz);
  uint8_t a[64];
  c.store(a);
  const CmdResult r = command(CmdOp::kCreateQp, a);
  if (!r.ok()) throw std::runtime_error(std::string("engine_host: CREATE_QP failed: ") + to_string(r.status));
  qp->qpn = r.res[0];
  return qp;
}

CmdResult EngineHost::modify_qp(const CmdModifyQp& m) {
  uint8_t a[64];
  m.store(a);
  return command(CmdOp::kModifyQp, a);
}

void EngineHost::connect_ud(const Qp& qp, uint32_t qkey, uint32_t sq_psn) {
  const auto step = [&](QpState to, uint32_t mask) {
    CmdModifyQp m;
    m.qpn = qp.qpn;
    m.attr_mask = mask | static_cast<uint32_t>(QpAttr::kState);
    m.qp_state = static_cast<uint8_t>(to);
    m.port_num = 1;
    m.qkey = qkey;
    m.sq_psn = sq_psn;
    const CmdResult r = modify_qp(m);
    if (!r.ok()) throw std::runtime_error(std::string("engine_host: UD to ") + to_string(to) + " failed: " + to_string(r.status));
  };
  step(QpState::kInit, static_cast<uint32_t>(QpAttr::kPkeyIndex) | static_cast<uint32_t>(QpAttr::kPort) |
                           static_cast<uint32_t>(QpAttr::kQkey));
  step(QpState::kRtr, 0);
  step(QpState::kRts, static_cast<uint32_t>(QpAttr::kSqPsn));
}

void EngineHost::connect(const Qp& qp, const Path& p) {
  const auto attrs = [](std::initializer_list<QpAttr> l) {
    uint32_t m = 0;
    for (QpAttr a : l) m |= static_cast<uint32_t>(a);
    return m;
  };
  CmdModifyQp m;
  m.qpn = qp.qpn;
  m.attr_mask = attrs({QpAttr::kState, QpAttr::kPkeyIndex, QpAttr::kPort, QpAttr::kAccessFlags});
  m.qp_state = static_cast<uint8_t>(QpState::kInit);
  m.port_num = 1;
  m.access = p.access;
  CmdResult r = modify_qp(m);
  if (!r.ok()) throw std::runtime_error(std::string("engine_host: to INIT failed: ") + to_string(r.status));
  m = {};
  m.qpn = qp.qpn;
  // (UC: no READ resources, no RNR timer, no retries: spec/qp_rules.toml)
  const bool uc = qp.type == QpType::kUc;
  m.attr_mask = uc ? attrs({QpAttr::kState, QpAttr::kAv, QpAttr::kPathMtu, QpAttr::kDestQpn, QpAttr::kRqPsn})
                   : attrs({QpAttr::kState, QpAttr::kAv, QpAttr::kPathMtu, QpAttr::kDestQpn, QpAttr::kRqPsn,
                            QpAttr::kMaxDestRdAtomic, QpAttr::kMinRnrTimer});
  m.qp_state = static_cast<uint8_t>(QpState::kRtr);
  m.path_mtu = static_cast<uint8_t>(p.mtu);
  m.dest_qpn = p.dest_qpn;
  m.rq_psn = p.rq_psn;
  m.max_dest_rd_atomic = p.max_dest_rd_atomic;
  m.min_rnr_timer = p.min_rnr_timer;
  m.sgid_index = static_cast<uint8_t>(p.sgid_index);
  m.hop_limit = p.hop_limit;
  m.traffic_class = p.traffic_class;
  m.sl = p.sl;
  for (int i = 0; i < 6; ++i) m.dmac[i] = static_cast<uint8_t>(p.dmac >> (40 - 8 * i));
  m.dgid = p.dgid;
  r = modify_qp(m);
  if (!r.ok()) throw std::runtime_error(std::string("engine_host: to RTR failed: ") + to_string(r.status));
  m = {};
  m.qpn = qp.qpn;
  m.attr_mask = uc ? attrs({QpAttr::kState, QpAttr::kSqPsn})
                   : attrs({QpAttr::kState, QpAttr::kTimeout, QpAttr::kRetryCnt, QpAttr::kRnrRetry, QpAttr::kSqPsn,
                            QpAttr::kMaxQpRdAtomic});
  m.qp_state = static_cast<uint8_t>(QpState::kRts);
  m.sq_psn = p.sq_psn;
  m.timeout = p.timeout;
  m.retry_cnt = p.retry_cnt;
  m.rnr_retry = p.rnr_retry;
  m.max_rd_atomic = p.max_rd_atomic;
  r = modify_qp(m);
  if (!r.ok()) throw std::runtime_error(std::string("engine_host: to RTS failed: ") + to_string(r.status));
}

void EngineHost::post_send(Qp& qp, const SendWqe& wqe, const std::vector<Sge>& sges,
                           const std::vector<uint8_t>& inline_data, bool bf) {
  uint8_t* slot = qp.sq->data() + (size_t{qp.sq_pi % (1u << qp.sq_lsz)} << kWqeSlotLog2);
  SendWqe w = wqe;
  w.num_sge = static_cast<uint8_t>(sges.size());
  w.store(slot);
  for (size_t i = 0; i < sges.size(); ++i) sges[i].store(slot + kSendWqeSge0AddrOff + Sge::kSize * i);
  if (!inline_data.empty()) std::memcpy(slot + kSendWqeSge0AddrOff, inline_data.data(), inline_data.size());
  ++qp.sq_pi;
  if (bf) {  // the words the engine reads of it, then the doorbell that carries them
    const unsigned n = sq_bf_bytes(w, qp.type == QpType::kUd);
    for (unsigned i = 0; i < n; i += 4) {
      uint32_t v;
      std::memcpy(&v, slot + i, 4);
      must_write(dev_, kCsrSqBf + i, v);
    }
    must_write(dev_, kCsrSqBfDb, (qp.sq_pi & 0xFFFF) << 16 | qp.qpn);
    return;
  }
  must_write(dev_, kCsrSqDb, (qp.sq_pi & 0xFFFF) << 16 | qp.qpn);
}

void EngineHost::post_recv(Qp& qp, uint64_t wr_id, const std::vector<Sge>& sges) {
  uint8_t* slot = qp.rq->data() + (size_t{qp.rq_pi % (1u << qp.rq_lsz)} << kWqeSlotLog2);
  RecvWqe w;
  w.wr_id = wr_id;
  w.num_sge = static_cast<uint8_t>(sges.size());
  w.store(slot);
  for (size_t i = 0; i < sges.size(); ++i) sges[i].store(slot + kRecvWqeSge0AddrOff + Sge::kSize * i);
  ++qp.rq_pi;
  must_write(dev_, kCsrRqDb, (qp.rq_pi & 0xFFFF) << 16 | qp.qpn);
}

std::vector<Cqe> EngineHost::poll(Cq& cq, unsigned max) {
  std::vector<Cqe> out;
  const uint32_t size = 1u << cq.log_size;
  while (out.size() < max) {
    const uint8_t* e = cq.ring->data() + Cqe::kSize * (cq.ci % size);
    const uint8_t phase = ((cq.ci / size) % 2) == 0 ? 1 : 0;  // 1 on the first pass
    if ((e[kCqeOwnerOff] & 1u) != phase) break;
    Cqe c;
    c.load(e);
    out.push_back(c);
    ++cq.ci;
  }
  if (!out.empty()) {
    must_write(dev_, kCsrCqDbCi, cq.ci & 0xFFFFFF);
    must_write(dev_, kCsrCqDb, cq.cqn);
  }
  return out;
}

uint32_t EngineHost::counter(XportCnt c) { return csr(kCsrXportCnt + 4 * static_cast<uint32_t>(c)); }

}  // namespace rocenic::host
