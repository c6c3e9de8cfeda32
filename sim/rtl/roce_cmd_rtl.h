// Block adapter around the Verilated rtl/ctrl/roce_cmd.sv. Ports and flits as
// model::RoceCmd; the port MAC and GID table are static inputs set directly.
// RoceCmdRtl: its default parameters; RoceCmdRtlOf<V> for another
// Verilation (V: its top class), such as one with more QPs.
#pragma once

#include "Vroce_cmd.h"
#include "common/block.h"
#include "gen/roce_spec.h"
#include "rtl/vl_ports.h"
#include "rtl/vl_top.h"

namespace rocenic {

template <class V>
class RoceCmdRtlOf : public VlBlock<V> {
  using VlBlock<V>::top_;
  using VlBlock<V>::in_info_;
  using VlBlock<V>::out_info_;

 public:
  static constexpr unsigned kGidTblLen = vl::kGidTblLen;

  RoceCmdRtlOf() {
    in_info_ = {{"cmd", false, true, (spec::CmdReq::kBits + 7) / 8},
                {"qp_err", false, true, (spec::QpErr::kBits + 7) / 8}};
    out_info_ = {{"resp", false, true, (spec::CmdResp::kBits + 7) / 8},
                 {"qp_cfg", false, true, (spec::QpCfg::kBits + 7) / 8},
                 {"cq_cfg", false, true, (spec::CqCfg::kBits + 7) / 8},
                 {"mr_wr", false, true, 2 + kMrBytes},
                 {"mtt_wr", false, true, 10}};
    reset();
  }
  void set_port_mac(uint64_t mac) {
    top_->port_mac = mac & 0xFFFFFFFFFFFFull;
    top_->eval();
  }
  void set_gid(unsigned i, const Ip128& gid, uint8_t type, uint16_t vlan = 0) {
    if (i >= kGidTblLen) return;
    vl::put_gid_entry(top_->gid_table, i, gid, type, vlan);
    top_->eval();
  }
  void reset() override {
    top_->s_cmd_valid = top_->s_qp_err_valid = 0;
    top_->m_resp_ready = top_->m_qp_cfg_ready = top_->m_cq_cfg_ready = 0;
    top_->m_mr_wr_ready = top_->m_mtt_wr_ready = 0;
    this->restart();
  }
  void set_input(unsigned port, bool valid, const Flit& f) override {
    if (port == 1) {
      top_->s_qp_err_valid = valid;
      vl::put_bytes(top_->s_qp_err, f.data);
      return;
    }
    top_->s_cmd_valid = valid;
    vl::put_bytes(top_->s_cmd, f.data);
  }
  void set_output_ready(unsigned port, bool ready) override {
    switch (port) {
      case 0: top_->m_resp_ready = ready; break;
      case 1: top_->m_qp_cfg_ready = ready; break;
      case 2: top_->m_cq_cfg_ready = ready; break;
      case 3: top_->m_mr_wr_ready = ready; break;
      default: top_->m_mtt_wr_ready = ready; break;
    }
  }
  bool input_ready(unsigned port) override { return port == 1 ? top_->s_qp_err_ready : top_->s_cmd_ready; }
  bool output_valid(unsigned port) override {
    switch (port) {
      case 0: return top_->m_resp_valid;
      case 1: return top_->m_qp_cfg_valid;
      case 2: return top_->m_cq_cfg_valid;
      case 3: return top_->m_mr_wr_valid;
      default: return top_->m_mtt_wr_valid;
    }
  }
  Flit output(unsigned port) override {
    Flit f;
    switch (port) {
      case 0: f.data = vl::get_bytes(top_->m_resp, out_info_[0].bytes); break;
      case 1: f.data = vl::get_bytes(top_->m_qp_cfg, out_info_[1].bytes); break;
      case 2: f.data = vl::get_bytes(top_->m_cq_cfg, out_info_[2].bytes); break;
      case 3: {
        f.data = {static_cast<uint8_t>(top_->m_mr_wr_index), static_cast<uint8_t>(top_->m_mr_wr_index >> 8)};
        const auto ctx = vl::get_bytes(top_->m_mr_wr_ctx, kMrBytes);
        f.data.insert(f.data.end(), ctx.begin(), ctx.end());
        break;
      }
      default: {
        f.data = {static_cast<uint8_t>(top_->m_mtt_wr_index), static_cast<uint8_t>(top_->m_mtt_wr_index >> 8)};
        for (unsigned k = 0; k < 8; ++k) f.data.push_back(static_cast<uint8_t>(top_->m_mtt_wr_pa >> (8 * k)));
        break;
      }
    }
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }
  bool idle() const override { return top_->idle; }

 private:
  static constexpr unsigned kMrBytes = (spec::MrCtx::kBits + 7) / 8;
};

using RoceCmdRtl = RoceCmdRtlOf<Vroce_cmd>;

}  // namespace rocenic
