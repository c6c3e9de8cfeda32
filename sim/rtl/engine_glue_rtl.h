// Block adapters around the Verilated engine glue primitives (rtl/common/:
// desc_arb2, tx_arb, frame_arb2, loopback_split, rx_dispatch, dma_rd_arb,
// dma_wr_arb, mr_arb). Ports and flits as their models in model/engine/.
#pragma once

#include "Vdesc_arb2.h"
#include "Vdma_rd_arb.h"
#include "Vdma_wr_arb.h"
#include "Vframe_arb2.h"
#include "Vloopback_split.h"
#include "Vmr_arb.h"
#include "Vrx_dispatch.h"
#include "Vtx_arb.h"
#include "common/block.h"
#include "gen/roce_spec.h"
#include "rtl/vl_ports.h"
#include "rtl/vl_top.h"

namespace rocenic {

// desc_arb2 (WIDTH = 64 as verilated): in 0/1 descriptors, out 0 the granted one; sel() = m_sel.
class DescArb2Rtl : public VlBlock<Vdesc_arb2> {
 public:
  static constexpr unsigned kBytes = 8;
  DescArb2Rtl() {
    in_info_ = {{"s0", false, true, kBytes}, {"s1", false, true, kBytes}};
    out_info_ = {{"m", false, true, kBytes}};
    reset();
  }
  void reset() override {
    top_->s0_valid = top_->s1_valid = 0;
    top_->m_ready = 0;
    restart();
  }
  void set_input(unsigned p, bool valid, const Flit& f) override {
    if (p == 0) {
      top_->s0_valid = valid;
      vl::put_bytes(top_->s0, f.data);
    } else {
      top_->s1_valid = valid;
      vl::put_bytes(top_->s1, f.data);
    }
  }
  void set_output_ready(unsigned, bool ready) override { top_->m_ready = ready; }
  bool input_ready(unsigned p) override { return p == 0 ? top_->s0_ready : top_->s1_ready; }
  bool output_valid(unsigned) override { return top_->m_valid; }
  Flit output(unsigned) override {
    Flit f;
    f.data = vl::get_bytes(top_->m, kBytes);
    return f;
  }
  unsigned sel() const { return top_->m_sel; }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }
  bool idle() const override { return top_->idle; }
};

// tx_arb: in 0 ack_hdr, 1 req_hdr, 2 req_payload beats, 3 ack_payload beats; out 0 tx_hdr, 1 tx_payload beats.
class TxArbRtl : public VlBlock<Vtx_arb> {
 public:
  explicit TxArbRtl(unsigned data_bytes = 64) : bytes_(data_bytes) {
    const unsigned hdr = (spec::RoceTxHdr::kBits + 7) / 8;
    in_info_ = {{"ack_hdr", false, true, hdr},
                {"req_hdr", false, true, hdr},
                {"req_payload", false, true, bytes_},
                {"ack_payload", false, true, bytes_}};
    out_info_ = {{"tx_hdr", false, true, hdr}, {"tx_payload", false, true, bytes_}};
    reset();
  }
  void reset() override {
    top_->s_ack_hdr_valid = top_->s_req_hdr_valid = top_->s_axis_req_payload_tvalid = 0;
    top_->s_axis_ack_payload_tvalid = 0;
    top_->m_tx_hdr_ready = top_->m_axis_tx_payload_tready = 0;
    restart();
  }
  void set_input(unsigned p, bool valid, const Flit& f) override {
    if (p == 0) {
      top_->s_ack_hdr_valid = valid;
      vl::put_bytes(top_->s_ack_hdr, f.data);
    } else if (p == 1) {
      top_->s_req_hdr_valid = valid;
      vl::put_bytes(top_->s_req_hdr, f.data);
    } else if (p == 2) {
      top_->s_axis_req_payload_tvalid = valid;
      vl::put_bytes(top_->s_axis_req_payload_tdata, f.data);
      top_->s_axis_req_payload_tkeep = f.keep;
      top_->s_axis_req_payload_tlast = f.last;
    } else {
      top_->s_axis_ack_payload_tvalid = valid;
      vl::put_bytes(top_->s_axis_ack_payload_tdata, f.data);
      top_->s_axis_ack_payload_tkeep = f.keep;
      top_->s_axis_ack_payload_tlast = f.last;
    }
  }
  void set_output_ready(unsigned p, bool ready) override {
    if (p == 0) top_->m_tx_hdr_ready = ready;
    else top_->m_axis_tx_payload_tready = ready;
  }
  bool input_ready(unsigned p) override {
    return p == 0   ? top_->s_ack_hdr_ready
           : p == 1 ? top_->s_req_hdr_ready
           : p == 2 ? top_->s_axis_req_payload_tready
                    : top_->s_axis_ack_payload_tready;
  }
  bool output_valid(unsigned p) override { return p == 0 ? top_->m_tx_hdr_valid : top_->m_axis_tx_payload_tvalid; }
  Flit output(unsigned p) override {
    Flit f;
    if (p == 0) f.data = vl::get_bytes(top_->m_tx_hdr, (spec::RoceTxHdr::kBits + 7) / 8);
    else f.data = vl::get_bytes(top_->m_axis_tx_payload_tdata, bytes_);
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }
  bool idle() const override { return top_->idle; }

 private:
  unsigned bytes_;
};

// frame_arb2: in 0/1 streams, out 0 stream (tuser passed).
class FrameArb2Rtl : public VlBlock<Vframe_arb2> {
 public:
  explicit FrameArb2Rtl(unsigned data_bytes = 64) : bytes_(data_bytes) {
    in_info_ = {{"s0_axis", true, true, bytes_}, {"s1_axis", true, true, bytes_}};
    out_info_ = {{"m_axis", true, true, bytes_}};
    reset();
  }
  void reset() override {
    top_->s0_axis_tvalid = top_->s1_axis_tvalid = 0;
    top_->m_axis_tready = 0;
    restart();
  }
  void set_input(unsigned p, bool valid, const Flit& f) override {
    if (p == 0) {
      top_->s0_axis_tvalid = valid;
      vl::put_bytes(top_->s0_axis_tdata, f.data);
      top_->s0_axis_tkeep = f.keep;
      top_->s0_axis_tlast = f.last;
      top_->s0_axis_tuser = f.user;
    } else {
      top_->s1_axis_tvalid = valid;
      vl::put_bytes(top_->s1_axis_tdata, f.data);
      top_->s1_axis_tkeep = f.keep;
      top_->s1_axis_tlast = f.last;
      top_->s1_axis_tuser = f.user;
    }
  }
  void set_output_ready(unsigned, bool ready) override { top_->m_axis_tready = ready; }
  bool input_ready(unsigned p) override { return p == 0 ? top_->s0_axis_tready : top_->s1_axis_tready; }
  bool output_valid(unsigned) override { return top_->m_axis_tvalid; }
  Flit output(unsigned) override {
    Flit f;
    f.data = vl::get_bytes(top_->m_axis_tdata, bytes_);
    f.keep = static_cast<uint64_t>(top_->m_axis_tkeep);
    f.last = top_->m_axis_tlast;
    f.user = top_->m_axis_tuser;
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }
  bool idle() const override { return top_->idle; }

 private:
  unsigned bytes_;
};

// loopback_split: in 0 frames; out 0 toward the MAC, out 1 loopback.
class LoopbackSplitRtl : public VlBlock<Vloopback_split> {
 public:
  explicit LoopbackSplitRtl(unsigned data_bytes = 64) : bytes_(data_bytes) {
    in_info_ = {{"s_axis", true, true, bytes_}};
    out_info_ = {{"m0_axis", true, true, bytes_}, {"m1_axis", true, true, bytes_}};
    reset();
  }
  void set_port_mac(uint64_t mac) { top_->port_mac = mac & 0xFFFFFFFFFFFFull; }
  void reset() override {
    top_->s_axis_tvalid = 0;
    top_->m0_axis_tready = top_->m1_axis_tready = 0;
    restart();
  }
  void set_input(unsigned, bool valid, const Flit& f) override {
    top_->s_axis_tvalid = valid;
    vl::put_bytes(top_->s_axis_tdata, f.data);
    top_->s_axis_tkeep = f.keep;
    top_->s_axis_tlast = f.last;
  }
  void set_output_ready(unsigned p, bool ready) override {
    if (p == 0) top_->m0_axis_tready = ready;
    else top_->m1_axis_tready = ready;
  }
  bool input_ready(unsigned) override { return top_->s_axis_tready; }
  bool output_valid(unsigned p) override { return p == 0 ? top_->m0_axis_tvalid : top_->m1_axis_tvalid; }
  Flit output(unsigned p) override {
    Flit f;
    f.data = vl::get_bytes(p == 0 ? top_->m0_axis_tdata : top_->m1_axis_tdata, bytes_);
    f.keep = static_cast<uint64_t>(p == 0 ? top_->m0_axis_tkeep : top_->m1_axis_tkeep);
    f.last = p == 0 ? top_->m0_axis_tlast : top_->m1_axis_tlast;
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {{"loopback", top_->cnt_loopback}}; }
  bool idle() const override { return top_->idle; }

 private:
  unsigned bytes_;
};

// rx_dispatch: in 0 rx_hdr, 1 rx_payload beats; out 0 ack_hdr (responses, to the
// completer), 1 req_hdr (requests, to the responder), 2 req_payload beats (a
// request's payload), 3 rsp_payload beats (a READ response's payload, to
// read_place). The rsp_payload port has no tkeep (lanes from 0, the length is
// in read_place's command): as AXI-Stream reads a missing tkeep, its flits
// keep every lane, so the whole tdata of each beat is seen.
class RxDispatchRtl : public VlBlock<Vrx_dispatch> {
 public:
  explicit RxDispatchRtl(unsigned data_bytes = 64) : bytes_(data_bytes) {
    const unsigned hdr = (spec::RoceRxHdr::kBits + 7) / 8;
    in_info_ = {{"rx_hdr", false, true, hdr}, {"rx_payload", true, true, bytes_}};
    out_info_ = {{"ack_hdr", false, true, hdr},
                 {"req_hdr", false, true, hdr},
                 {"req_payload", true, true, bytes_},
                 {"rsp_payload", true, true, bytes_}};
    reset();
  }
  void reset() override {
    top_->s_rx_hdr_valid = top_->s_axis_rx_payload_tvalid = 0;
    top_->m_ack_hdr_ready = top_->m_req_hdr_ready = top_->m_axis_req_payload_tready = 0;
    top_->m_axis_rsp_payload_tready = 0;
    restart();
  }
  void set_input(unsigned p, bool valid, const Flit& f) override {
    if (p == 0) {
      top_->s_rx_hdr_valid = valid;
      vl::put_bytes(top_->s_rx_hdr, f.data);
    } else {
      top_->s_axis_rx_payload_tvalid = valid;
      vl::put_bytes(top_->s_axis_rx_payload_tdata, f.data);
      top_->s_axis_rx_payload_tkeep = f.keep;
      top_->s_axis_rx_payload_tlast = f.last;
    }
  }
  void set_output_ready(unsigned p, bool ready) override {
    switch (p) {
      case 0: top_->m_ack_hdr_ready = ready; break;
      case 1: top_->m_req_hdr_ready = ready; break;
      case 2: top_->m_axis_req_payload_tready = ready; break;
      default: top_->m_axis_rsp_payload_tready = ready; break;
    }
  }
  bool input_ready(unsigned p) override { return p == 0 ? top_->s_rx_hdr_ready : top_->s_axis_rx_payload_tready; }
  bool output_valid(unsigned p) override {
    switch (p) {
      case 0: return top_->m_ack_hdr_valid;
      case 1: return top_->m_req_hdr_valid;
      case 2: return top_->m_axis_req_payload_tvalid;
      default: return top_->m_axis_rsp_payload_tvalid;
    }
  }
  Flit output(unsigned p) override {
    Flit f;
    if (p < 2) {
      f.data = vl::get_bytes(p == 0 ? top_->m_ack_hdr : top_->m_req_hdr, (spec::RoceRxHdr::kBits + 7) / 8);
    } else if (p == 2) {
      f.data = vl::get_bytes(top_->m_axis_req_payload_tdata, bytes_);
      f.keep = static_cast<uint64_t>(top_->m_axis_req_payload_tkeep);
      f.last = top_->m_axis_req_payload_tlast;
    } else {
      f.data = vl::get_bytes(top_->m_axis_rsp_payload_tdata, bytes_);
      f.keep = bytes_ >= 64 ? ~uint64_t{0} : (uint64_t{1} << bytes_) - 1;  // no tkeep: every lane
      f.last = top_->m_axis_rsp_payload_tlast;
    }
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }
  bool idle() const override { return top_->idle; }

 private:
  unsigned bytes_;
};

// dma_rd_arb: in 0/1/2 requests of clients 0..2, 3 read data (id = tid), 4
// requests of client 3 (appended when read_place became the fourth client);
// out 0 request (tag = client), 1..4 the read data of clients 0..3.
class DmaRdArbRtl : public VlBlock<Vdma_rd_arb> {
 public:
  static constexpr unsigned kClients = 4;
  explicit DmaRdArbRtl(unsigned data_bytes = 64) : bytes_(data_bytes) {
    const unsigned req = (spec::DmaRdReq::kBits + 7) / 8;
    in_info_ = {{"req0", false, true, req},
                {"req1", false, true, req},
                {"req2", false, true, req},
                {"rd", true, true, bytes_},
                {"req3", false, true, req}};
    out_info_ = {{"m_req", false, true, req},
                 {"rd0", true, true, bytes_},
                 {"rd1", true, true, bytes_},
                 {"rd2", true, true, bytes_},
                 {"rd3", true, true, bytes_}};
    reset();
  }
  // The input port of client c's requests.
  static unsigned req_port(unsigned c) { return c == 3 ? 4 : c; }
  void reset() override {
    top_->s_req0_valid = top_->s_req1_valid = top_->s_req2_valid = top_->s_req3_valid = 0;
    top_->s_axis_rd_tvalid = 0;
    top_->m_req_ready = 0;
    top_->m_axis_rd0_tready = top_->m_axis_rd1_tready = top_->m_axis_rd2_tready = top_->m_axis_rd3_tready = 0;
    restart();
  }
  void set_input(unsigned p, bool valid, const Flit& f) override {
    switch (p) {
      case 0: top_->s_req0_valid = valid; vl::put_bytes(top_->s_req0, f.data); break;
      case 1: top_->s_req1_valid = valid; vl::put_bytes(top_->s_req1, f.data); break;
      case 2: top_->s_req2_valid = valid; vl::put_bytes(top_->s_req2, f.data); break;
      case 3:
        top_->s_axis_rd_tvalid = valid;
        vl::put_bytes(top_->s_axis_rd_tdata, f.data);
        top_->s_axis_rd_tkeep = f.keep;
        top_->s_axis_rd_tlast = f.last;
        top_->s_axis_rd_tuser = f.user;
        top_->s_axis_rd_tid = f.id;
        break;
      default: top_->s_req3_valid = valid; vl::put_bytes(top_->s_req3, f.data); break;
    }
  }
  void set_output_ready(unsigned p, bool ready) override {
    switch (p) {
      case 0: top_->m_req_ready = ready; break;
      case 1: top_->m_axis_rd0_tready = ready; break;
      case 2: top_->m_axis_rd1_tready = ready; break;
      case 3: top_->m_axis_rd2_tready = ready; break;
      default: top_->m_axis_rd3_tready = ready; break;
    }
  }
  bool input_ready(unsigned p) override {
    switch (p) {
      case 0: return top_->s_req0_ready;
      case 1: return top_->s_req1_ready;
      case 2: return top_->s_req2_ready;
      case 3: return top_->s_axis_rd_tready;
      default: return top_->s_req3_ready;
    }
  }
  bool output_valid(unsigned p) override {
    switch (p) {
      case 0: return top_->m_req_valid;
      case 1: return top_->m_axis_rd0_tvalid;
      case 2: return top_->m_axis_rd1_tvalid;
      case 3: return top_->m_axis_rd2_tvalid;
      default: return top_->m_axis_rd3_tvalid;
    }
  }
  Flit output(unsigned p) override {
    Flit f;
    switch (p) {
      case 0: f.data = vl::get_bytes(top_->m_req, (spec::DmaRdReq::kBits + 7) / 8); break;
      case 1:
        data(f, top_->m_axis_rd0_tdata, top_->m_axis_rd0_tkeep, top_->m_axis_rd0_tlast, top_->m_axis_rd0_tuser);
        break;
      case 2:
        data(f, top_->m_axis_rd1_tdata, top_->m_axis_rd1_tkeep, top_->m_axis_rd1_tlast, top_->m_axis_rd1_tuser);
        break;
      case 3:
        data(f, top_->m_axis_rd2_tdata, top_->m_axis_rd2_tkeep, top_->m_axis_rd2_tlast, top_->m_axis_rd2_tuser);
        break;
      default:
        data(f, top_->m_axis_rd3_tdata, top_->m_axis_rd3_tkeep, top_->m_axis_rd3_tlast, top_->m_axis_rd3_tuser);
        break;
    }
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }
  bool idle() const override { return top_->idle; }

 private:
  template <typename D, typename K>
  void data(Flit& f, const D& tdata, const K& tkeep, bool tlast, bool tuser) const {
    f.data = vl::get_bytes(tdata, bytes_);
    f.keep = static_cast<uint64_t>(tkeep);
    f.last = tlast;
    f.user = tuser;
  }
  unsigned bytes_;
};

// dma_wr_arb: in 0 req0, 1 data0, 2 req1, 3 data1, 4 wr_done (tag, error), 5
// req2, 6 data2 (client 2 appended when read_place joined); out 0 request
// (tag = client), 1 data.
class DmaWrArbRtl : public VlBlock<Vdma_wr_arb> {
 public:
  static constexpr unsigned kClients = 3;
  explicit DmaWrArbRtl(unsigned data_bytes = 64) : bytes_(data_bytes) {
    const unsigned req = (spec::DmaWrReq::kBits + 7) / 8;
    in_info_ = {{"req0", false, true, req},
                {"data0", true, true, bytes_},
                {"req1", false, true, req},
                {"data1", true, true, bytes_},
                {"wr_done", false, true, 2},
                {"req2", false, true, req},
                {"data2", true, true, bytes_}};
    out_info_ = {{"m_req", false, true, req}, {"m_data", true, true, bytes_}};
    reset();
  }
  // The input ports of client c's requests and data.
  static unsigned req_port(unsigned c) { return c == 2 ? 5 : 2 * c; }
  static unsigned data_port(unsigned c) { return c == 2 ? 6 : 2 * c + 1; }
  static constexpr unsigned kWrDonePort = 4;
  void reset() override {
    top_->s_req0_valid = top_->s_req1_valid = top_->s_req2_valid = 0;
    top_->s_axis_wr0_tvalid = top_->s_axis_wr1_tvalid = top_->s_axis_wr2_tvalid = 0;
    top_->s_wr_done_valid = 0;
    top_->m_req_ready = top_->m_axis_wr_tready = 0;
    restart();
  }
  void set_input(unsigned p, bool valid, const Flit& f) override {
    switch (p) {
      case 0: top_->s_req0_valid = valid; vl::put_bytes(top_->s_req0, f.data); break;
      case 2: top_->s_req1_valid = valid; vl::put_bytes(top_->s_req1, f.data); break;
      case 5: top_->s_req2_valid = valid; vl::put_bytes(top_->s_req2, f.data); break;
      case 1:
        top_->s_axis_wr0_tvalid = valid;
        vl::put_bytes(top_->s_axis_wr0_tdata, f.data);
        top_->s_axis_wr0_tkeep = f.keep;
        top_->s_axis_wr0_tlast = f.last;
        break;
      case 3:
        top_->s_axis_wr1_tvalid = valid;
        vl::put_bytes(top_->s_axis_wr1_tdata, f.data);
        top_->s_axis_wr1_tkeep = f.keep;
        top_->s_axis_wr1_tlast = f.last;
        break;
      case 6:
        top_->s_axis_wr2_tvalid = valid;
        vl::put_bytes(top_->s_axis_wr2_tdata, f.data);
        top_->s_axis_wr2_tkeep = f.keep;
        top_->s_axis_wr2_tlast = f.last;
        break;
      default:
        top_->s_wr_done_valid = valid;
        top_->s_wr_done_tag = f.data.empty() ? 0 : f.data[0];
        top_->s_wr_done_error = f.data.size() > 1 && (f.data[1] & 1u);
        break;
    }
  }
  void set_output_ready(unsigned p, bool ready) override {
    if (p == 0) top_->m_req_ready = ready;
    else top_->m_axis_wr_tready = ready;
  }
  bool input_ready(unsigned p) override {
    switch (p) {
      case 0: return top_->s_req0_ready;
      case 1: return top_->s_axis_wr0_tready;
      case 2: return top_->s_req1_ready;
      case 3: return top_->s_axis_wr1_tready;
      case 5: return top_->s_req2_ready;
      case 6: return top_->s_axis_wr2_tready;
      default: return top_->s_wr_done_ready;
    }
  }
  bool output_valid(unsigned p) override { return p == 0 ? top_->m_req_valid : top_->m_axis_wr_tvalid; }
  Flit output(unsigned p) override {
    Flit f;
    if (p == 0) {
      f.data = vl::get_bytes(top_->m_req, (spec::DmaWrReq::kBits + 7) / 8);
    } else {
      f.data = vl::get_bytes(top_->m_axis_wr_tdata, bytes_);
      f.keep = static_cast<uint64_t>(top_->m_axis_wr_tkeep);
      f.last = top_->m_axis_wr_tlast;
    }
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {{"wr_err", top_->cnt_wr_err}}; }
  bool idle() const override { return top_->idle; }

 private:
  unsigned bytes_;
};

// mr_arb: in 0/1 requests of clients 0/1, 2 response (from mr_table), 3
// requests of client 2 (appended when read_place joined), 4 of client 3 (the
// responder's READ walker); out 0 request (tag[7:6] = client), 1..4 the
// answers of clients 0..3 (tag[7:6] cleared).
class MrArbRtl : public VlBlock<Vmr_arb> {
 public:
  static constexpr unsigned kClients = 4;
  MrArbRtl() {
    const unsigned req = (spec::MrReq::kBits + 7) / 8, resp = (spec::MrResp::kBits + 7) / 8;
    in_info_ = {{"req0", false, true, req},
                {"req1", false, true, req},
                {"resp", false, true, resp},
                {"req2", false, true, req},
                {"req3", false, true, req}};
    out_info_ = {{"m_req", false, true, req},
                 {"resp0", false, true, resp},
                 {"resp1", false, true, resp},
                 {"resp2", false, true, resp},
                 {"resp3", false, true, resp}};
    reset();
  }
  // The input port of client c's requests.
  static unsigned req_port(unsigned c) { return c >= 2 ? c + 1 : c; }
  static constexpr unsigned kRespPort = 2;
  void reset() override {
    top_->s_req0_valid = top_->s_req1_valid = top_->s_req2_valid = top_->s_req3_valid = top_->s_resp_valid = 0;
    top_->m_req_ready = top_->m_resp0_ready = top_->m_resp1_ready = top_->m_resp2_ready = top_->m_resp3_ready = 0;
    restart();
  }
  void set_input(unsigned p, bool valid, const Flit& f) override {
    switch (p) {
      case 0: top_->s_req0_valid = valid; vl::put_bytes(top_->s_req0, f.data); break;
      case 1: top_->s_req1_valid = valid; vl::put_bytes(top_->s_req1, f.data); break;
      case 2: top_->s_resp_valid = valid; vl::put_bytes(top_->s_resp, f.data); break;
      case 3: top_->s_req2_valid = valid; vl::put_bytes(top_->s_req2, f.data); break;
      default: top_->s_req3_valid = valid; vl::put_bytes(top_->s_req3, f.data); break;
    }
  }
  void set_output_ready(unsigned p, bool ready) override {
    switch (p) {
      case 0: top_->m_req_ready = ready; break;
      case 1: top_->m_resp0_ready = ready; break;
      case 2: top_->m_resp1_ready = ready; break;
      case 3: top_->m_resp2_ready = ready; break;
      default: top_->m_resp3_ready = ready; break;
    }
  }
  bool input_ready(unsigned p) override {
    switch (p) {
      case 0: return top_->s_req0_ready;
      case 1: return top_->s_req1_ready;
      case 2: return top_->s_resp_ready;
      case 3: return top_->s_req2_ready;
      default: return top_->s_req3_ready;
    }
  }
  bool output_valid(unsigned p) override {
    switch (p) {
      case 0: return top_->m_req_valid;
      case 1: return top_->m_resp0_valid;
      case 2: return top_->m_resp1_valid;
      case 3: return top_->m_resp2_valid;
      default: return top_->m_resp3_valid;
    }
  }
  Flit output(unsigned p) override {
    Flit f;
    const unsigned resp = (spec::MrResp::kBits + 7) / 8;
    switch (p) {
      case 0: f.data = vl::get_bytes(top_->m_req, (spec::MrReq::kBits + 7) / 8); break;
      case 1: f.data = vl::get_bytes(top_->m_resp0, resp); break;
      case 2: f.data = vl::get_bytes(top_->m_resp1, resp); break;
      case 3: f.data = vl::get_bytes(top_->m_resp2, resp); break;
      default: f.data = vl::get_bytes(top_->m_resp3, resp); break;
    }
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }
  bool idle() const override { return top_->idle; }
};

}  // namespace rocenic
