#include "engine/roce_engine.h"

#include <cctype>
#include <string>

namespace rocenic::model {

namespace {
Cycle beats_of(const Packet& p, unsigned bytes) { return (p.data.size() + bytes - 1) / bytes; }
constexpr Cycle kArbLatency = 0;  // rtl/common/{mr,dma_rd}_arb.sv are combinational (desc_arb2)
// the engine's MAX_QP (spec ENGINE_MAX_QP, roce_engine.sv's default); the other limits are the blocks' defaults
CsrParams csr_params() {
  CsrParams p;
  p.max_qp = spec::kEngineMaxQp;
  return p;
}
RoceCmdParams cmd_params() {
  RoceCmdParams p;
  p.max_qp = spec::kEngineMaxQp;
  return p;
}
}  // namespace

RoceEngine::RoceEngine(Scheduler& s, unsigned data_bytes)
    : csr(s, csr_params()),
      cmd(s, cmd_params()),
      mr(s),
      mr_pair(s, kArbLatency),
      mr_arb(s, kArbLatency),
      mr_quad(s, 0),
      mr_route(s, kArbLatency, [](const spec::MrResp& r) { return (r.tag >> 6) != 0; }, 2),
      mr_route2(s, 0, [](const spec::MrResp& r) { return (r.tag >> 6) >= 2; }, 2),
      mr_route3(s, 0, [](const spec::MrResp& r) { return (r.tag >> 6) == 3; }, 2),
      req(s, data_bytes, spec::kEngineMaxQp),
      resp(s, data_bytes, spec::kEngineMaxQp, spec::kRspRqHeads, spec::kRspRqAhead),
      completer(s, spec::kEngineMaxQp),
      trk_q(s, spec::kTrkQueue),
      rdp(s, data_bytes, spec::kEngineMaxQp),
      compl_merge(s, 1),
      cq(s),
      tx_arb(s),
      deparser(s, data_bytes),
      loopback(s, 1, [this](const Packet& f) {
        // the frame's destination MAC (its first 6 bytes) is the port's own
        uint64_t dst = 0;
        for (unsigned i = 0; i < 6 && i < f.data.size(); ++i) dst = dst << 8 | f.data[i];
        return dst == csr.port_mac();
      }),
      rx_merge(s, 0, [data_bytes](const Packet& p) { return beats_of(p, data_bytes); }, 2),
      parser(s, data_bytes),
      dispatch(s),
      ud_grh(s, data_bytes),
      dma_rd_pair(s, kArbLatency, nullptr, 1, 2),  // (the responder's: see make_responder_block)
      dma_rd_trio(s, kArbLatency),
      dma_rd_arb(s, kArbLatency),
      dma_rd_route(s, kArbLatency, [](const Packet& p) { return p.id != 0; }, 4),
      dma_rd_route2(s, 0, [](const Packet& p) { return p.id >= 2; }, 4),
      dma_rd_route3(s, 0, [](const Packet& p) { return p.id == 3; }, 4),
      dma_wr_arb(s, data_bytes) {
  // control: CSR -> command processor -> the table owners
  csr.cmd.bind(cmd.cmd);
  cmd.resp.bind(csr.cmd_resp);
  cmd.qp_cfg.bind(req.qp_cfg);
  cmd.qp_cfg.bind(resp.qp_cfg);
  cmd.qp_cfg.bind(completer.qp_cfg);
  cmd.qp_cfg.bind(rdp.qp_cfg);
  cmd.cq_cfg.bind(cq.cfg);
  cmd.mr_wr.bind(mr.mr_wr);
  cmd.mtt_wr.bind(mr.mtt_wr);
  csr.sq_db.bind(req.sq_db);
  csr.rq_db.bind(resp.rq_db);
  csr.cq_db.bind(cq.db);
  csr.counters_from([this] { return counters(); });
  csr.on_write = [this] { follow_csr(); };
  follow_csr();
  // MR checks: tag bits 7:6 name the client
  req.mr_req.bind(mr_pair.in0);
  resp.mr_req.bind(mr_pair.in1);
  mr_pair.on_pass = [](spec::MrReq& r, int client) { r.tag = static_cast<uint8_t>((r.tag & 0x3F) | client << 6); };
  mr_pair.out.bind(mr_arb.in0);
  rdp.mr_req.bind(mr_arb.in1);
  mr_arb.on_pass = [](spec::MrReq& r, int from) {
    if (from == 1) r.tag = static_cast<uint8_t>((r.tag & 0x3F) | 2 << 6);
  };
  mr_arb.out.bind(mr_quad.in0);
  resp.read_mr_req.bind(mr_quad.in1);
  mr_quad.on_pass = [](spec::MrReq& r, int from) {
    if (from == 1) r.tag = static_cast<uint8_t>((r.tag & 0x3F) | 3 << 6);
  };
  mr_quad.out.bind(mr.req);
  mr.resp.bind(mr_route.in);
  mr_route.out0.bind(req.mr_resp);
  mr_route.out1.bind(mr_route2.in);
  mr_route2.on_pass = [](spec::MrResp& r, bool to_rest) {
    if (!to_rest) r.tag &= 0x3F;
  };
  mr_route3.on_pass = [](spec::MrResp& r, bool) { r.tag &= 0x3F; };
  mr_route.on_pass = [](spec::MrResp& r, bool to_rest) {
    if (!to_rest) r.tag &= 0x3F;
  };
  mr_route2.out0.bind(resp.mr_resp);
  mr_route2.out1.bind(mr_route3.in);
  mr_route3.out0.bind(rdp.mr_resp);
  mr_route3.out1.bind(resp.read_mr_resp);
  // DMA: the tag names the client
  req.dma_rd_req.bind(dma_rd_pair.in0);
  resp.dma_rd_req.bind(dma_rd_pair.in1);
  dma_rd_pair.on_pass = [](spec::DmaRdReq& r, int client) { r.tag = static_cast<uint8_t>(client); };
  dma_rd_pair.out.bind(dma_rd_trio.in0);
  resp.read_dma_req.bind(dma_rd_trio.in1);
  dma_rd_trio.on_pass = [](spec::DmaRdReq& r, int from) {
    if (from == 1) r.tag = 2;
  };
  dma_rd_trio.out.bind(dma_rd_arb.in0);
  rdp.dma_rd_req.bind(dma_rd_arb.in1);
  dma_rd_arb.on_pass = [](spec::DmaRdReq& r, int from) {
    if (from == 1) r.tag = 3;
  };
  dma_rd_route.out0.bind(req.dma_rd);
  dma_rd_route.out1.bind(dma_rd_route2.in);
  dma_rd_route2.out0.bind(resp.dma_rd_data);
  dma_rd_route2.out1.bind(dma_rd_route3.in);
  dma_rd_route3.out0.bind(resp.read_dma);
  dma_rd_route3.out1.bind(rdp.dma_rd);
  resp.dma_wr_req.bind(dma_wr_arb.req0);
  resp.dma_wr_data.bind(dma_wr_arb.data0);
  cq.dma_wr.bind(dma_wr_arb.req1);
  cq.dma_wr_data.bind(dma_wr_arb.data1);
  rdp.dma_wr_req.bind(dma_wr_arb.req2);
  rdp.dma_wr_data.bind(dma_wr_arb.data2);
  // requester <-> completer
  req.sq_track.bind(trk_q.in);
  trk_q.out.bind(completer.sq_track);
  completer.sq_retire.bind(req.sq_retire);
  // completer <-> read_place: where READ response data lands, and when it has
  completer.rd_place.bind(rdp.cmd);
  rdp.done.bind(completer.rd_done);
  // requester -> read_place: a READ's SGE as its request leaves (no WQE fetch for its responses)
  req.rd_hint.bind(rdp.hint);
  // completions
  resp.cq_compl.bind(compl_merge.in0);
  completer.cq_compl.bind(compl_merge.in1);
  compl_merge.out.bind(cq.completion);
  // statuses by side (input 0: responder, 1: completer), as mlx5's hw_counters split them
  compl_merge.on_pass = [this](spec::CqCompl& c, int from) {
    using S = spec::WcStatus;
    const bool req = from == 1, flush = c.status == static_cast<uint8_t>(S::kWrFlushErr);
    if (req && c.status != 0 && !flush) cmd.report_failure(c.qp_num);  // the completer failed the QP
    cqe_err_ += c.status != 0;
    ++status_[req][c.status & 0xF];
    (req ? req_cqe_err_ : resp_cqe_err_) += c.status != 0 && !flush;
    (req ? req_flush_ : resp_flush_) += flush;
  };
  // TX: the responder's headers (ACKs, READ responses) and the requester's, each with its payload
  resp.tx_hdr.bind(tx_arb.hdr0);
  resp.tx_payload.bind(tx_arb.pay0);
  // a fatal NAK (invalid request, remote access, remote operational error):
  // the responder put its QP in ERR
  tx_arb.on_pass = [this](spec::RoceTxHdr& h, int from) {
    if (from == 0 && h.opcode == spec::kRcAck && h.aeth_syndrome >= static_cast<uint8_t>(spec::Aeth::kNakInvReq) &&
        h.aeth_syndrome <= static_cast<uint8_t>(spec::Aeth::kNakRemOp))
      cmd.report_failure(h.src_qpn);
  };
  req.tx_hdr.bind(tx_arb.hdr1);
  req.tx_payload.bind(tx_arb.pay1);
  tx_arb.hdr.bind(deparser.hdr);
  tx_arb.pay.bind(deparser.pay);
  deparser.tx.bind(loopback.in);
  loopback.out1.bind(rx_merge.in1);
  loopback.on_pass = [this](Packet&, bool looped) { loopback_ += looped; };
  // RX
  rx_merge.out.bind(parser.rx);
  parser.hdr.bind(dispatch.hdr);
  parser.pay.bind(dispatch.pay);
  dispatch.ack.bind(completer.rx_ack);
  dispatch.req.bind(ud_grh.hdr);
  dispatch.req_pay.bind(ud_grh.pay);
  ud_grh.hdr_out.bind(resp.rx_hdr);
  ud_grh.pay_out.bind(resp.rx_payload);
  dispatch.rsp_pay.bind(rdp.payload);
}

void RoceEngine::follow_csr() {
  req.set_ack_req_log2(csr.ack_req_log2());
  cmd.set_port_mac(csr.port_mac());
  req.set_port(csr.port_mac(), csr.port_mtu());
  for (unsigned i = 0; i < 16; ++i) {
    cmd.set_gid(i, csr.gid(i), csr.gid_type(i), csr.gid_vlan(i));
    req.set_gid(i, GidEntry{csr.gid(i), static_cast<uint8_t>(csr.gid_type(i) & 3u), static_cast<uint16_t>(csr.gid_vlan(i) & 0x1FFFu)});
  }
  deparser.set_override(csr.tx_tclass(), csr.tx_ttl());
  parser.set_roce_enable(csr.roce_enable());
}

CsrCounters RoceEngine::counters() const {
  CsrCounters c;
  const auto lower = [](const char* s) {
    std::string r(s);
    for (char& ch : r) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return r;
  };
  for (auto& [name, v] : parser.counters()) {
    if (name == "rx_frames") c.rx_frames = v;
    else if (name == "rx_roce") c.rx_roce = v;
    else if (name == "rx_bypass") c.rx_bypass = v;
    else
      for (unsigned r = 1; r < spec::kDropCount; ++r)
        if (name == std::string("rx_drop_") + spec::to_string(static_cast<spec::Drop>(r))) c.rx_drop[r] = v;
  }
  c.tx_frames = deparser.tx_frames();
  using X = spec::XportCnt;
  c.xport[static_cast<unsigned>(X::kTxPkts)] = req.tx_pkts();
  for (auto& [name, v] : resp.counters())
    for (unsigned i = 1; i < spec::kXportCntCount; ++i)
      if (name == lower(spec::to_string(static_cast<X>(i)))) c.xport[i] = v;
  c.xport[static_cast<unsigned>(X::kRxAcks)] = completer.rx_acks();
  c.xport[static_cast<unsigned>(X::kNakReceived)] = completer.naks_received();
  c.xport[static_cast<unsigned>(X::kPacketSeqErr)] = completer.packet_seq_errs();
  c.xport[static_cast<unsigned>(X::kUnmatchedResponse)] = completer.unmatched();
  c.xport[static_cast<unsigned>(X::kRetransmits)] = completer.retransmits();
  c.xport[static_cast<unsigned>(X::kRetryExceeded)] = completer.retry_exceeded();
  c.xport[static_cast<unsigned>(X::kLocalAckTimeoutErr)] = completer.ack_timeouts();
  c.xport[static_cast<unsigned>(X::kRnrNakRetryErr)] = completer.rnr_naks();
  c.xport[static_cast<unsigned>(X::kRnrRetryExceeded)] = completer.rnr_exceeded();
  c.xport[static_cast<unsigned>(X::kImpliedNakSeqErr)] = completer.implied_naks();
  c.xport[static_cast<unsigned>(X::kCqeErr)] = cqe_err_;
  c.xport[static_cast<unsigned>(X::kLoopback)] = loopback_;
  using S = spec::WcStatus;
  c.xport[static_cast<unsigned>(X::kReqRemoteAccessErr)] = status_[1][static_cast<unsigned>(S::kRemAccessErr)];
  c.xport[static_cast<unsigned>(X::kReqRemoteInvReq)] = status_[1][static_cast<unsigned>(S::kRemInvReqErr)];
  c.xport[static_cast<unsigned>(X::kRespLocalLengthErr)] = status_[0][static_cast<unsigned>(S::kLocLenErr)];
  c.xport[static_cast<unsigned>(X::kReqCqeErr)] = req_cqe_err_;
  c.xport[static_cast<unsigned>(X::kRespCqeErr)] = resp_cqe_err_;
  c.xport[static_cast<unsigned>(X::kReqCqeFlushErr)] = req_flush_;
  c.xport[static_cast<unsigned>(X::kRespCqeFlushErr)] = resp_flush_;
  return c;
}

}  // namespace rocenic::model
