// Model of rtl/top/roce_engine.sv: the same blocks, wired the same way
// (docs/engine.md), each a cycle-level model of its RTL block. Ports as
// sim/engine_harness.h lists them:
//   in  0 s_axil_aw, 1 s_axil_w, 2 s_axil_ar, 3 s_axis_rx, 4 s_axis_dma_rd (id = tag), 5 s_dma_wr_done
//   out 0 s_axil_b, 1 s_axil_r, 2 m_axis_tx, 3 m_axis_byp, 4 m_dma_rd_req, 5 m_dma_wr_req,
//       6 m_axis_dma_wr, 7 m_event
#pragma once

#include <vector>

#include "common/block.h"
#include "engine/netlist.h"

namespace rocenic::model {

class RoceCsr;
class RoceCmd;
class RoceParser;
class RoceDeparser;
class LoopbackSplit;

class RoceEngine : public Block {
 public:
  static constexpr unsigned kInAr = 2;  // s_axil_ar
  explicit RoceEngine(unsigned data_bytes = 64);

  const std::vector<PortInfo>& inputs() const override { return in_info_; }
  const std::vector<PortInfo>& outputs() const override { return out_info_; }
  void reset() override;
  void set_input(unsigned port, bool valid, const Flit& flit) override;
  void set_output_ready(unsigned port, bool ready) override;
  void eval() override;
  bool input_ready(unsigned port) override;
  bool output_valid(unsigned port) override;
  Flit output(unsigned port) override;
  void clock() override;
  uint64_t cycle() const override { return cycle_; }
  bool idle() const override { return net_.idle(); }
  std::vector<std::pair<std::string, uint32_t>> counters() override;

 private:
  struct Ext {  // an external port: which block and which of its ports
    Block* block;
    unsigned port;
  };
  void apply_static_inputs();
  void gather_counters();

  unsigned bytes_;
  Netlist net_;
  std::vector<PortInfo> in_info_, out_info_;
  std::vector<Ext> ext_in_, ext_out_;
  Block* csr_ = nullptr;  // a FlitAdapter around RoceCsr
  RoceCsr& csr() const;
  Block* cmd_ = nullptr;  // a FlitAdapter around RoceCmd
  RoceCmd& cmd() const;
  Block* parser_ = nullptr;
  Block* deparser_ = nullptr;
  Block* cq_ = nullptr;
  LoopbackSplit* loopback_ = nullptr;
  Block* req_ = nullptr;
  Block* resp_ = nullptr;
  Block* compl_ = nullptr;
  Block* compl_arb_ = nullptr;
  std::vector<std::vector<unsigned>> xport_map_;  // per counter-owning block: xport_cnt index of each counter (0 = none)
  uint32_t cqe_err_ = 0;
  bool csr_ar_valid_ = false;  // s_axil_ar offers a read this cycle: the counters must be current
  uint64_t cycle_ = 0;
};

}  // namespace rocenic::model
