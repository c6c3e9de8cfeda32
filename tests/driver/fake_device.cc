#include "fake_device.h"

#include <cstring>

#include "gen/roce_spec.h"

namespace rocenic::test {
namespace {

namespace s = rocenic::spec;

constexpr uint32_t kSt(s::CmdStatus x) { return static_cast<uint32_t>(x); }
constexpr uint32_t kOk = kSt(s::CmdStatus::kOk), kBadOp = kSt(s::CmdStatus::kBadOp),
                   kBadParam = kSt(s::CmdStatus::kBadParam), kNoRes = kSt(s::CmdStatus::kNoResources),
                   kBadState = kSt(s::CmdStatus::kBadState), kBusy = kSt(s::CmdStatus::kBusy),
                   kNotFound = kSt(s::CmdStatus::kNotFound);

// IBV_QP_* attribute mask bits (docs/engine.md).
enum : uint32_t {
  STATE = 1, ACCESS = 8, PKEY = 16, PORT = 32, AV = 128, MTU = 256, TIMEOUT = 512, RETRY = 1024, RNR_RETRY = 2048,
  RQ_PSN = 4096, RD_ATOMIC = 8192, MIN_RNR = 32768, SQ_PSN = 65536, DEST_RD_ATOMIC = 131072, DEST_QPN = 1048576
};

enum : uint8_t { RESET = 0, INIT = 1, RTR = 2, RTS = 3, ERR = 6 };

uint32_t le32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | uint32_t{p[3]} << 24; }

unsigned log2_floor(uint32_t v) {
  unsigned n = 0;
  while ((2u << n) <= v) ++n;
  return n;
}

}  // namespace

FakeDevice::FakeDevice(const Limits& l)
    : lim_(l), pds_(l.max_pd), cqs_(l.max_cq), mrs_(l.max_mr), qps_(l.max_qp + 1), mtt_(l.mtt_depth) {
  regs_[s::kCsrId / 4] = s::kCsrIdReset;
  regs_[s::kCsrVersion / 4] = s::kCsrVersionReset;
  regs_[s::kCsrCtrl / 4] = 1;
  regs_[s::kCsrCapMaxQp / 4] = l.max_qp;
  regs_[s::kCsrCapMaxCq / 4] = l.max_cq;
  regs_[s::kCsrCapMaxMr / 4] = l.max_mr;
  regs_[s::kCsrCapMaxPd / 4] = l.max_pd;
  regs_[s::kCsrCapMaxQpWr / 4] = l.max_qp_wr;
  regs_[s::kCsrCapMaxSge / 4] = l.max_sge;
  regs_[s::kCsrCapMaxCqe / 4] = l.max_cqe;
  regs_[s::kCsrCapMaxInline / 4] = l.max_inline;
  regs_[s::kCsrCapGidTbl / 4] = l.gid_tbl_len;
  regs_[s::kCsrCapDataW / 4] = 512;
  regs_[s::kCsrPortMtu / 4] = 3;
  regs_[s::kCsrPortState / 4] = 1;
}

bool FakeDevice::csr_read(uint32_t addr, uint32_t* v) {
  *v = 0;
  if (addr % 4 || addr >= sizeof regs_) return false;
  *v = regs_[addr / 4];
  return true;
}

bool FakeDevice::csr_write(uint32_t addr, uint32_t v) {
  ++cycles_;
  if (addr % 4 || addr >= sizeof regs_) return false;
  switch (addr) {
    case s::kCsrId: case s::kCsrVersion: case s::kCsrCapMaxQp: case s::kCsrCapMaxCq: case s::kCsrCapMaxMr:
    case s::kCsrCapMaxPd: case s::kCsrCapMaxQpWr: case s::kCsrCapMaxSge: case s::kCsrCapMaxCqe:
    case s::kCsrCapMaxInline: case s::kCsrCapGidTbl: case s::kCsrCapDataW: case s::kCsrPortState:
    case s::kCsrCmdStatus:
      return false;  // read-only
    case s::kCsrPortMtu:
      if (v < 1 || v > 5) return false;
      break;
    case s::kCsrPortCtrl:
      regs_[s::kCsrPortState / 4] = v & 1 ? 4 : 1;
      break;
    case s::kCsrCmdOp:
      if (regs_[s::kCsrCmdStatus / 4] >> 31) return false;
      regs_[addr / 4] = v;
      regs_[s::kCsrCmdStatus / 4] = execute(v);
      ++commands;
      return true;
    case s::kCsrSqDb:
    case s::kCsrRqDb: {
      const uint32_t qpn = v & 0xffff;
      if (qpn < qps_.size() && qps_[qpn].valid) {
        Qp& q = qps_[qpn];
        (addr == s::kCsrSqDb ? q.sq_pi : q.rq_pi) = static_cast<uint16_t>(v >> 16);
        work_.emplace_back(addr == s::kCsrSqDb ? 'S' : 'R', qpn);
      }
      break;
    }
    case s::kCsrCqDb: {
      const uint32_t cqn = v & 0xffff;
      if (cqn < cqs_.size()) {
        cqs_[cqn].ci = regs_[s::kCsrCqDbCi / 4] & 0xffffff;
        if (cqn < 256) last_cq_ci[cqn] = cqs_[cqn].ci;
        if ((v >> 16) & 3) cqs_[cqn].arm = (v >> 16) & 3;
      }
      break;
    }
    default:
      if (addr >= s::kCsrCmdRes && addr < s::kCsrCmdRes + 16) return false;
      break;
  }
  regs_[addr / 4] = v;
  return true;
}

std::vector<DeviceEvent> FakeDevice::take_events() {
  std::vector<DeviceEvent> out;
  out.swap(events_);
  return out;
}

uint64_t FakeDevice::run(uint64_t) {
  if (work_.empty()) return 0;
  while (!work_.empty()) {
    const auto [q, qpn] = work_.front();
    work_.pop_front();
    if (q == 'S')
      service_sq(qpn);
    else if (qps_[qpn].valid && qps_[qpn].state == ERR)
      flush_rq(qpn);
  }
  cycles_ += 10;
  return 10;
}

// ---- command mailbox

uint32_t FakeDevice::execute(uint32_t op) {
  uint8_t a[64];
  for (int w = 0; w < 16; ++w)
    for (int b = 0; b < 4; ++b) a[4 * w + b] = static_cast<uint8_t>(regs_[(s::kCsrCmdArg / 4) + w] >> (8 * b));
  uint32_t* res = &regs_[s::kCsrCmdRes / 4];
  const uint32_t arg0 = le32(a);
  switch (static_cast<s::CmdOp>(op)) {
    case s::CmdOp::kNop:
      return kOk;
    case s::CmdOp::kAllocPd:
      for (uint32_t i = 0; i < pds_.size(); ++i)
        if (!pds_[i].used) {
          pds_[i] = Pd{true, 0};
          res[0] = i;
          return kOk;
        }
      return kNoRes;
    case s::CmdOp::kDeallocPd:
      if (arg0 >= pds_.size() || !pds_[arg0].used) return kNotFound;
      if (pds_[arg0].users) return kBusy;
      pds_[arg0].used = false;
      return kOk;
    case s::CmdOp::kCreateCq: {
      s::CmdCreateCq c;
      c.load(a);
      if (c.log_size > log2_floor(lim_.max_cqe) || c.base % 32) return kBadParam;
      for (uint32_t i = 0; i < cqs_.size(); ++i)
        if (!cqs_[i].valid) {
          cqs_[i] = Cq{true, c.base, c.log_size, 0, 0, 0, 0};
          res[0] = i;
          return kOk;
        }
      return kNoRes;
    }
    case s::CmdOp::kDestroyCq:
      if (arg0 >= cqs_.size() || !cqs_[arg0].valid) return kNotFound;
      if (cqs_[arg0].users) return kBusy;
      cqs_[arg0].valid = false;
      return kOk;
    case s::CmdOp::kWriteMtt: {
      s::CmdWriteMtt w;
      w.load(a);
      if (w.count < 1 || w.count > 6 || uint64_t{w.index} + w.count > mtt_.size()) return kBadParam;
      for (uint32_t i = 0; i < w.count; ++i) {
        uint64_t pa = 0;
        for (int b = 0; b < 8; ++b) pa |= uint64_t{a[8 + 8 * i + b]} << (8 * b);
        mtt_[w.index + i] = pa;
      }
      return kOk;
    }
    case s::CmdOp::kRegMr: {
      s::CmdRegMr r;
      r.load(a);
      if (r.pd >= pds_.size() || !pds_[r.pd].used) return kNotFound;
      const uint64_t page = uint64_t{1} << r.page_shift;
      if ((r.access & ~0xfu) || ((r.access & 0xa) && !(r.access & 1)) || r.length == 0 || r.page_shift < 12 ||
          r.page_shift > 30 || (r.iova + r.length - 1) / page - r.iova / page + 1 > r.npages ||
          uint64_t{r.mtt_base} + r.npages > mtt_.size())
        return kBadParam;
      for (uint32_t i = 0; i < mrs_.size(); ++i)
        if (!mrs_[i].valid) {
          Mr& m = mrs_[i];
          m = Mr{true, static_cast<uint8_t>(m.keybyte + 1), r.pd, r.access, r.mtt_base, r.npages, r.iova, r.length};
          ++pds_[r.pd].users;
          res[0] = i << 8 | m.keybyte;
          return kOk;
        }
      return kNoRes;
    }
    case s::CmdOp::kDeregMr: {
      const uint32_t i = arg0 >> 8;
      if (i >= mrs_.size() || !mrs_[i].valid || mrs_[i].keybyte != (arg0 & 0xff)) return kNotFound;
      mrs_[i].valid = false;
      --pds_[mrs_[i].pd].users;
      return kOk;
    }
    case s::CmdOp::kCreateQp: {
      s::CmdCreateQp c;
      c.load(a);
      if (c.qp_type != static_cast<uint8_t>(s::QpType::kRc)) return kBadParam;
      if (c.pd >= pds_.size() || !pds_[c.pd].used || c.send_cq >= cqs_.size() || !cqs_[c.send_cq].valid ||
          c.recv_cq >= cqs_.size() || !cqs_[c.recv_cq].valid)
        return kNotFound;
      if (c.sq_lsz > log2_floor(lim_.max_qp_wr) || c.rq_lsz > log2_floor(lim_.max_qp_wr) || c.sq_base % 128 ||
          c.rq_base % 128)
        return kBadParam;
      for (uint32_t i = 1; i < qps_.size(); ++i)
        if (!qps_[i].valid) {
          Qp& q = qps_[i];
          q = Qp{};
          q.valid = true;
          q.pd = c.pd, q.scq = c.send_cq, q.rcq = c.recv_cq;
          q.sq_base = c.sq_base, q.rq_base = c.rq_base, q.sq_lsz = c.sq_lsz, q.rq_lsz = c.rq_lsz;
          ++pds_[c.pd].users, ++cqs_[c.send_cq].users, ++cqs_[c.recv_cq].users;
          res[0] = i;
          return kOk;
        }
      return kNoRes;
    }
    case s::CmdOp::kModifyQp:
      return modify(a);
    case s::CmdOp::kQueryQp:
      if (arg0 >= qps_.size() || !qps_[arg0].valid) return kNotFound;
      res[0] = qps_[arg0].state;
      res[3] = qps_[arg0].dest_qpn;
      return kOk;
    case s::CmdOp::kDestroyQp: {
      if (arg0 >= qps_.size() || !qps_[arg0].valid) return kNotFound;
      Qp& q = qps_[arg0];
      q.valid = false;
      --pds_[q.pd].users, --cqs_[q.scq].users, --cqs_[q.rcq].users;
      return kOk;
    }
  }
  return kBadOp;
}

uint32_t FakeDevice::modify(const uint8_t* a) {
  s::CmdModifyQp m;
  m.load(a);
  if (m.qpn >= qps_.size() || !qps_[m.qpn].valid) return kNotFound;
  Qp& q = qps_[m.qpn];
  if (!(m.attr_mask & STATE)) return kBadState;
  struct Rule {
    uint8_t from, to;
    uint32_t req, opt;
  };
  static const Rule rules[] = {
      {RESET, INIT, PKEY | PORT | ACCESS, 0},
      {INIT, INIT, 0, PKEY | PORT | ACCESS},
      {INIT, RTR, AV | MTU | DEST_QPN | RQ_PSN | DEST_RD_ATOMIC | MIN_RNR, PKEY | ACCESS},
      {RTR, RTS, SQ_PSN | TIMEOUT | RETRY | RNR_RETRY | RD_ATOMIC, ACCESS | MIN_RNR},
      {RTS, RTS, 0, ACCESS | MIN_RNR},
  };
  const uint32_t mask = m.attr_mask & ~uint32_t{STATE};
  bool ok = m.qp_state == RESET || m.qp_state == ERR ? mask == 0 : false;
  for (const Rule& r : rules)
    if (r.from == q.state && r.to == m.qp_state) ok = (mask & r.req) == r.req && !(mask & ~(r.req | r.opt));
  if (!ok) return kBadState;
  if (((mask & MTU) && (m.path_mtu < 1 || m.path_mtu > 5)) || ((mask & PORT) && m.port_num != 1) ||
      ((mask & PKEY) && m.pkey_index != 0) || ((mask & ACCESS) && (m.access & ~0xf)))
    return kBadParam;
  if (mask & AV) {
    if (m.sgid_index >= lim_.gid_tbl_len || regs_[(s::kCsrGid + 32 * m.sgid_index) / 4 + 4] == 0) return kBadParam;
    q.dmac = m.dmac;
  }
  if (mask & ACCESS) q.access = m.access;
  if (mask & DEST_QPN) q.dest_qpn = m.dest_qpn;
  const uint8_t from = q.state;
  q.state = m.qp_state;
  if (q.state == RESET) q.sq_pi = q.sq_ci = q.rq_pi = q.rq_ci = 0;
  if (q.state == ERR && from != ERR) {
    work_.emplace_back('S', m.qpn);
    work_.emplace_back('R', m.qpn);
  }
  return kOk;
}

// ---- data path

bool FakeDevice::mr_ok(uint32_t key, uint32_t pd, uint64_t va, uint64_t len, uint32_t need) const {
  const uint32_t i = key >> 8;
  if (i >= mrs_.size() || !mrs_[i].valid || mrs_[i].keybyte != (key & 0xff)) return false;
  const Mr& m = mrs_[i];
  return m.pd == pd && (m.access & need) == need && va >= m.iova && va + len <= m.iova + m.length;
}

bool FakeDevice::gather(uint32_t pd, const uint8_t* w, std::vector<uint8_t>* out) {
  s::SendWqe sw;
  sw.load(w);
  if (sw.flags & 4) {  // inline
    if (sw.length > 96) return false;
    out->assign(w + s::kSendWqeSge0AddrOff, w + s::kSendWqeSge0AddrOff + sw.length);
    return true;
  }
  if (sw.num_sge > 6) return false;
  out->clear();
  for (unsigned i = 0; i < sw.num_sge; ++i) {
    s::Sge g;
    g.load(w + s::kSendWqeSge0AddrOff + s::Sge::kSize * i);
    if (!g.length) continue;
    if (!mr_ok(g.lkey, pd, g.addr, g.length, 0)) return false;
    std::vector<uint8_t> buf(g.length);
    // IOVA = VA in these tests; the bytes move by (allowed) DMA.
    if (!mem_.read(g.addr, buf.data(), buf.size())) return false;
    out->insert(out->end(), buf.begin(), buf.end());
  }
  return out->size() == sw.length;
}

bool FakeDevice::scatter(uint32_t pd, const uint8_t* w, const std::vector<uint8_t>& data, bool* too_long) {
  s::RecvWqe rw;
  rw.load(w);
  *too_long = false;
  size_t at = 0;
  for (unsigned i = 0; i < rw.num_sge && at < data.size(); ++i) {
    s::Sge g;
    g.load(w + s::kSendWqeSge0AddrOff + s::Sge::kSize * i);
    const size_t n = std::min<size_t>(g.length, data.size() - at);
    if (!n) continue;
    if (!mr_ok(g.lkey, pd, g.addr, n, 1) || !mem_.write(g.addr, data.data() + at, n)) return false;
    at += n;
  }
  *too_long = at < data.size();
  return true;
}

void FakeDevice::complete(uint32_t cqn, const uint8_t cqe[32], bool solicited) {
  Cq& c = cqs_[cqn];
  const uint32_t size = 1u << c.lsz;
  if (!c.valid || ((c.pi - c.ci) & 0xffffff) >= size) {
    ++overruns;
    events_.push_back({static_cast<uint16_t>(cqn), true});
    return;
  }
  uint8_t e[32];
  std::memcpy(e, cqe, 32);
  e[s::kCqeOwnerOff] = static_cast<uint8_t>(((c.pi >> c.lsz) & 1) ^ 1);
  mem_.write(c.base + 32ull * (c.pi & (size - 1)), e, 32);
  c.pi = (c.pi + 1) & 0xffffff;
  if (c.arm == 1 || (c.arm == 2 && solicited)) {
    c.arm = 0;
    events_.push_back({static_cast<uint16_t>(cqn), false});
  }
}

void FakeDevice::flush_rq(uint32_t qpn) {
  Qp& q = qps_[qpn];
  while (q.rq_ci != q.rq_pi) {
    uint8_t w[128];
    mem_.read(q.rq_base + 128ull * (q.rq_ci & ((1u << q.rq_lsz) - 1)), w, 128);
    s::Cqe e;
    std::memcpy(&e.wr_id, w, 8);
    e.qp_num = qpn;
    e.opcode = static_cast<uint8_t>(s::WcOpcode::kRecv);
    e.status = static_cast<uint8_t>(s::WcStatus::kWrFlushErr);
    e.wqe_counter = q.rq_ci;
    uint8_t b[32];
    e.store(b);
    complete(q.rcq, b, false);
    ++q.rq_ci;
  }
}

void FakeDevice::service_sq(uint32_t qpn) {
  Qp& q = qps_[qpn];
  if (!q.valid) return;
  if (q.state == ERR) flush_rq(qpn);
  if (q.state != RTS && q.state != ERR) return;
  const uint64_t own_mac = uint64_t{regs_[s::kCsrPortMacHi / 4] & 0xffff} << 32 | regs_[s::kCsrPortMacLo / 4];
  while (q.sq_ci != q.sq_pi) {
    uint8_t w[128];
    const bool read = mem_.read(q.sq_base + 128ull * (q.sq_ci & ((1u << q.sq_lsz) - 1)), w, 128);
    s::SendWqe sw;
    sw.load(w);
    using St = s::WcStatus;
    St st = St::kSuccess;
    std::vector<uint8_t> data;
    if (!read || sw.opcode > 3)
      st = St::kLocQpOpErr;
    else if (q.state == ERR)
      st = St::kWrFlushErr;
    else if (!gather(q.pd, w, &data))
      st = St::kLocProtErr;
    const bool write = sw.opcode <= 1, imm = sw.opcode == 1 || sw.opcode == 3;
    const bool solicited = sw.flags & 2;
    uint64_t dmac = 0;
    for (uint8_t b : q.dmac) dmac = dmac << 8 | b;
    if (st == St::kSuccess && dmac != own_mac) {
      std::vector<uint8_t> f(q.dmac.begin(), q.dmac.end());
      for (int i = 5; i >= 0; --i) f.push_back(static_cast<uint8_t>(own_mac >> (8 * i)));
      f.push_back(0x88), f.push_back(0xb5);  // local experimental EtherType: not RoCE, a test frame
      f.insert(f.end(), data.begin(), data.end());
      if (f.size() < 60) f.resize(60);
      if (tx_) tx_(f.data(), f.size());
    } else if (st == St::kSuccess) {  // loopback to the destination QP
      Qp* d = q.dest_qpn < qps_.size() && qps_[q.dest_qpn].valid ? &qps_[q.dest_qpn] : nullptr;
      if (!d || (d->state != RTR && d->state != RTS)) {
        st = St::kRnrRetryExcErr;
      } else if (write && !(mr_ok(sw.rkey, d->pd, sw.remote_addr, sw.length, 2) && (d->access & 2) &&
                            mem_.write(sw.remote_addr, data.data(), data.size()))) {
        st = St::kRemAccessErr;
      } else if (!write || imm) {
        if (d->rq_ci == d->rq_pi) {
          st = St::kRnrRetryExcErr;
        } else {
          uint8_t rw[128];
          mem_.read(d->rq_base + 128ull * (d->rq_ci & ((1u << d->rq_lsz) - 1)), rw, 128);
          bool too_long = false;
          s::Cqe e;
          std::memcpy(&e.wr_id, rw, 8);
          e.qp_num = q.dest_qpn;
          e.src_qp = qpn;
          e.wqe_counter = d->rq_ci;
          e.opcode = static_cast<uint8_t>(write ? s::WcOpcode::kRecvRdmaWithImm : s::WcOpcode::kRecv);
          e.byte_len = sw.length;
          if (imm) e.imm = sw.imm, e.wc_flags = 2;
          if (!write && !scatter(d->pd, rw, data, &too_long)) {
            e.status = static_cast<uint8_t>(St::kLocProtErr);
            st = St::kRemOpErr;
          } else if (too_long) {
            e.status = static_cast<uint8_t>(St::kLocLenErr);
            st = St::kRemInvReqErr;
          }
          uint8_t b[32];
          e.store(b);
          complete(d->rcq, b, solicited);
          ++d->rq_ci;
        }
      }
    }
    if ((sw.flags & 1) || st != St::kSuccess) {
      s::Cqe e;
      e.wr_id = sw.wr_id;
      e.qp_num = qpn;
      e.opcode = static_cast<uint8_t>(write ? s::WcOpcode::kRdmaWrite : s::WcOpcode::kSend);
      e.status = static_cast<uint8_t>(st);
      e.byte_len = sw.length;
      e.wqe_counter = q.sq_ci;
      uint8_t b[32];
      e.store(b);
      complete(q.scq, b, false);
    }
    if (st != St::kSuccess) q.state = ERR;
    ++q.sq_ci;
  }
}

}  // namespace rocenic::test
