// Block adapter around the Verilated rtl/xport/requester.sv. Ports and flits as
// model::Requester.
#pragma once

#include "Vrequester.h"
#include "common/block.h"
#include "common/sq_doorbell.h"
#include "ctrl/gid_entry.h"
#include "gen/roce_spec.h"
#include "rtl/vl_ports.h"
#include "rtl/vl_top.h"

namespace rocenic {

class RequesterRtl : public VlBlock<Vrequester> {
 public:
  explicit RequesterRtl(unsigned data_bytes = 64) : bytes_(data_bytes) {
    const auto desc = [](const char* n, unsigned bits) { return PortInfo{n, false, true, (bits + 7) / 8}; };
    in_info_ = {desc("qp_cfg", spec::QpCfg::kBits), {"sq_db", false, true, SqDoorbell::kFlitBytes},
                desc("sq_retire", spec::SqRetire::kBits), {"dma_rd", true, true, bytes_},
                desc("mr_resp", spec::MrResp::kBits)};
    out_info_ = {desc("dma_rd_req", spec::DmaRdReq::kBits), desc("mr_req", spec::MrReq::kBits),
                 desc("tx_hdr", spec::RoceTxHdr::kBits), {"tx_payload", true, true, bytes_},
                 desc("sq_track", spec::SqTrack::kBits),
                 {"rd_hint", false, false, (spec::RdHint::kBits + 7) / 8}};  // an event: no ready
    top_->port_mtu = spec::kCsrPortMtuReset;  // (set_port changes it; a reset keeps it, as the CSR's wires)
    reset();
  }
  void reset() override {
    top_->s_qp_cfg_valid = top_->s_sq_db_valid = top_->s_sq_retire_valid = 0;
    top_->ack_req_log2 = spec::kCsrAckReqReset;  // the CSR's reset value, as the model's
    top_->s_axis_dma_rd_tvalid = top_->s_mr_resp_valid = 0;
    top_->m_dma_rd_req_ready = top_->m_mr_req_ready = top_->m_tx_hdr_ready = 0;
    top_->m_axis_tx_payload_tready = top_->m_sq_track_ready = 0;
    restart();
  }
  void set_input(unsigned port, bool valid, const Flit& f) override {
    switch (port) {
      case 0: top_->s_qp_cfg_valid = valid; vl::put_bytes(top_->s_qp_cfg, f.data); break;
      case 1: {  // (SqDoorbell's flit: wq_db_t, bf, the SQ_BF words)
        const SqDoorbell d = sq_doorbell_from_flit(f);
        top_->s_sq_db_valid = valid;
        vl::put_bytes(top_->s_sq_db, desc_to_flit(d.db).data);
        top_->s_sq_db_bf = d.bf;
        vl::put_bytes(top_->s_sq_bf_wqe, std::vector<uint8_t>(d.wqe.begin(), d.wqe.end()));
        break;
      }
      case 2: top_->s_sq_retire_valid = valid; vl::put_bytes(top_->s_sq_retire, f.data); break;
      case 3:
        top_->s_axis_dma_rd_tvalid = valid;
        vl::put_bytes(top_->s_axis_dma_rd_tdata, f.data);
        top_->s_axis_dma_rd_tkeep = f.keep;
        top_->s_axis_dma_rd_tlast = f.last;
        top_->s_axis_dma_rd_tuser = f.user;
        break;
      default: top_->s_mr_resp_valid = valid; vl::put_bytes(top_->s_mr_resp, f.data); break;
    }
  }
  void set_output_ready(unsigned port, bool ready) override {
    switch (port) {
      case 0: top_->m_dma_rd_req_ready = ready; break;
      case 1: top_->m_mr_req_ready = ready; break;
      case 2: top_->m_tx_hdr_ready = ready; break;
      case 3: top_->m_axis_tx_payload_tready = ready; break;
      case 4: top_->m_sq_track_ready = ready; break;
      default: break;  // rd_hint has no ready
    }
  }
  bool input_ready(unsigned port) override {
    switch (port) {
      case 0: return top_->s_qp_cfg_ready;
      case 1: return top_->s_sq_db_ready;
      case 2: return top_->s_sq_retire_ready;
      case 3: return top_->s_axis_dma_rd_tready;
      default: return top_->s_mr_resp_ready;
    }
  }
  bool output_valid(unsigned port) override {
    switch (port) {
      case 0: return top_->m_dma_rd_req_valid;
      case 1: return top_->m_mr_req_valid;
      case 2: return top_->m_tx_hdr_valid;
      case 3: return top_->m_axis_tx_payload_tvalid;
      case 4: return top_->m_sq_track_valid;
      default: return top_->m_rd_hint_valid;
    }
  }
  Flit output(unsigned port) override {
    Flit f;
    switch (port) {
      case 0: f.data = vl::get_bytes(top_->m_dma_rd_req, out_info_[0].bytes); break;
      case 1: f.data = vl::get_bytes(top_->m_mr_req, out_info_[1].bytes); break;
      case 2: f.data = vl::get_bytes(top_->m_tx_hdr, out_info_[2].bytes); break;
      case 3:
        f.data = vl::get_bytes(top_->m_axis_tx_payload_tdata, bytes_);
        f.keep = top_->m_axis_tx_payload_tkeep;
        f.last = top_->m_axis_tx_payload_tlast;
        break;
      case 4: f.data = vl::get_bytes(top_->m_sq_track, out_info_[4].bytes); break;
      default: f.data = vl::get_bytes(top_->m_rd_hint, out_info_[5].bytes); break;
    }
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {{"tx_pkts", top_->cnt_tx_pkts}}; }
  // UD: as model::Requester::set_port / set_gid
  void set_port(uint64_t mac, unsigned mtu) {
    top_->port_mac = mac & 0xFFFFFFFFFFFFull;
    top_->port_mtu = mtu & 7u;
    top_->eval();
  }
  void set_gid(unsigned i, const model::GidEntry& g) {
    if (i >= vl::kGidTblLen) return;
    vl::put_gid_entry(top_->gid_table, i, g.gid, g.type, g.vlan);
    top_->eval();
  }

  bool idle() const { return top_->idle; }

 private:
  unsigned bytes_;
};

}  // namespace rocenic
