#include "engine/roce_engine.h"

#include <cctype>
#include <string>

namespace rocenic::model {

namespace {
Cycle beats_of(const Packet& p, unsigned bytes) { return (p.data.size() + bytes - 1) / bytes; }
}  // namespace

RoceEngine::RoceEngine(Scheduler& s, unsigned data_bytes)
    : csr(s),
      cmd(s),
      mr(s),
      mr_arb(s),
      req(s, data_bytes),
      resp(s, data_bytes),
      completer(s),
      compl_merge(s, 1),
      cq(s),
      tx_merge(s, 1),
      deparser(s, data_bytes),
      loopback(s, 1, [this](const Packet& f) {
        // the frame's destination MAC (its first 6 bytes) is the port's own
        uint64_t dst = 0;
        for (unsigned i = 0; i < 6 && i < f.data.size(); ++i) dst = dst << 8 | f.data[i];
        return dst == csr.port_mac();
      }),
      rx_merge(s, 1, [data_bytes](const Packet& p) { return beats_of(p, data_bytes); }, 2),
      parser(s, data_bytes),
      dispatch(s),
      dma(s, data_bytes) {
  // control: CSR -> command processor -> the table owners
  csr.cmd.bind(cmd.cmd);
  cmd.resp.bind(csr.cmd_resp);
  cmd.qp_cfg.bind(req.qp_cfg);
  cmd.qp_cfg.bind(resp.qp_cfg);
  cmd.qp_cfg.bind(completer.qp_cfg);
  cmd.cq_cfg.bind(cq.cfg);
  cmd.mr_wr.bind(mr.mr_wr);
  cmd.mtt_wr.bind(mr.mtt_wr);
  csr.sq_db.bind(req.sq_db);
  csr.rq_db.bind(resp.rq_db);
  csr.cq_db.bind(cq.db);
  csr.counters_from([this] { return counters(); });
  csr.on_write = [this] { follow_csr(); };
  follow_csr();
  // MR checks
  req.mr_req.bind(mr_arb.req0);
  resp.mr_req.bind(mr_arb.req1);
  mr_arb.m_req.bind(mr.req);
  mr.resp.bind(mr_arb.resp);
  mr_arb.resp0.bind(req.mr_resp);
  mr_arb.resp1.bind(resp.mr_resp);
  // DMA
  req.dma_rd_req.bind(dma.rd_req0);
  resp.dma_rd_req.bind(dma.rd_req1);
  dma.rd_data0.bind(req.dma_rd);
  dma.rd_data1.bind(resp.dma_rd_data);
  resp.dma_wr_req.bind(dma.wr_req0);
  resp.dma_wr_data.bind(dma.wr_data0);
  cq.dma_wr.bind(dma.wr_req1);
  cq.dma_wr_data.bind(dma.wr_data1);
  // requester <-> completer
  req.sq_track.bind(completer.sq_track);
  completer.sq_retire.bind(req.sq_retire);
  // completions
  resp.cq_compl.bind(compl_merge.in0);
  completer.cq_compl.bind(compl_merge.in1);
  compl_merge.out.bind(cq.completion);
  compl_merge.on_pass = [this](const spec::CqCompl& c) { cqe_err_ += c.status != 0; };
  // TX: ACKs first, the requester's payload straight to the deparser
  resp.ack_hdr.bind(tx_merge.in0);
  req.tx_hdr.bind(tx_merge.in1);
  tx_merge.out.bind(deparser.hdr);
  req.tx_payload.bind(deparser.pay);
  deparser.tx.bind(loopback.in);
  loopback.out1.bind(rx_merge.in1);
  loopback.on_pass = [this](const Packet&, bool looped) { loopback_ += looped; };
  // RX
  rx_merge.out.bind(parser.rx);
  parser.hdr.bind(dispatch.hdr);
  parser.pay.bind(dispatch.pay);
  dispatch.ack.bind(completer.rx_ack);
  dispatch.req.bind(resp.rx_hdr);
  dispatch.req_pay.bind(resp.rx_payload);
}

void RoceEngine::follow_csr() {
  cmd.set_port_mac(csr.port_mac());
  for (unsigned i = 0; i < 16; ++i) cmd.set_gid(i, csr.gid(i), csr.gid_type(i));
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
  c.xport[static_cast<unsigned>(X::kCqeErr)] = cqe_err_;
  c.xport[static_cast<unsigned>(X::kLoopback)] = loopback_;
  return c;
}

}  // namespace rocenic::model
