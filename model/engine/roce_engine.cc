#include "engine/roce_engine.h"

#include <cctype>
#include <string>

#include "common/desc_flit.h"
#include "cq/cq_writer.h"
#include "csr/roce_csr.h"
#include "ctrl/roce_cmd.h"
#include "engine/glue.h"
#include "mem/mr_table.h"
#include "net/roce_deparser.h"
#include "sched/flit_adapter.h"
#include "net/roce_parser.h"
#include "xport/completer.h"
#include "xport/requester.h"
#include "xport/responder.h"

namespace rocenic::model {

namespace {
std::string lower(const char* s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}
}  // namespace

RoceEngine::RoceEngine(unsigned data_bytes) : bytes_(data_bytes) {
  csr_ = net_.add(make_roce_csr_block());
  cmd_ = net_.add(make_roce_cmd_block());
  auto* mr = net_.add(make_mr_table_block());
  auto* mr_arb = net_.add(std::make_unique<MrArb>());
  auto* rd_arb = net_.add(std::make_unique<DmaRdArb>(data_bytes));
  auto* wr_arb = net_.add(std::make_unique<DmaWrArb>(data_bytes));
  req_ = net_.add(make_requester_block(data_bytes));
  resp_ = net_.add(make_responder_block(data_bytes));
  compl_ = net_.add(make_completer_block());
  compl_arb_ = net_.add(std::make_unique<DescArb2>((spec::CqCompl::kBits + 7) / 8));
  cq_ = net_.add(make_cq_writer_block(data_bytes));
  auto* tx_arb = net_.add(std::make_unique<TxArb>(data_bytes));
  deparser_ = net_.add(make_roce_deparser_block(data_bytes));
  loopback_ = net_.add(std::make_unique<LoopbackSplit>(data_bytes));
  auto* rx_merge = net_.add(std::make_unique<FrameArb2>(data_bytes));
  parser_ = net_.add(make_roce_parser_block(data_bytes));
  auto* dispatch = net_.add(std::make_unique<RxDispatch>(data_bytes));

  // control: CSR -> command processor -> table owners
  net_.connect(csr_, 2, cmd_, 0);
  net_.connect(cmd_, 0, csr_, 3);
  for (Block* owner : {req_, resp_, compl_})
    net_.connect(cmd_, 1, owner, 0);  // qp_cfg broadcast (Netlist: taken when every consumer is ready)
  net_.connect(cmd_, 2, cq_, 0);
  net_.connect(cmd_, 3, mr, 0);
  net_.connect(cmd_, 4, mr, 1);
  net_.connect(csr_, 3, req_, 1);  // SQ doorbell
  net_.connect(csr_, 4, resp_, 1); // RQ doorbell
  net_.connect(csr_, 5, cq_, 1);   // CQ doorbell
  // MR checks
  net_.connect(req_, 1, mr_arb, 0);
  net_.connect(resp_, 1, mr_arb, 1);
  net_.connect(mr_arb, 0, mr, 2);
  net_.connect(mr, 0, mr_arb, 2);
  net_.connect(mr_arb, 1, req_, 4);
  net_.connect(mr_arb, 2, resp_, 5);
  // DMA
  net_.connect(req_, 0, rd_arb, 0);
  net_.connect(resp_, 0, rd_arb, 1);
  net_.connect(rd_arb, 1, req_, 3);
  net_.connect(rd_arb, 2, resp_, 4);
  net_.connect(resp_, 2, wr_arb, 0);
  net_.connect(resp_, 3, wr_arb, 1);
  net_.connect(cq_, 0, wr_arb, 2);
  net_.connect(cq_, 1, wr_arb, 3);
  // requester <-> completer
  net_.connect(req_, 4, compl_, 1);
  net_.connect(compl_, 1, req_, 2);
  // completions
  net_.connect(resp_, 5, compl_arb_, 0);
  net_.connect(compl_, 0, compl_arb_, 1);
  net_.connect(compl_arb_, 0, cq_, 2);
  // TX
  net_.connect(resp_, 4, tx_arb, 0);
  net_.connect(req_, 2, tx_arb, 1);
  net_.connect(req_, 3, tx_arb, 2);
  net_.connect(tx_arb, 0, deparser_, 0);
  net_.connect(tx_arb, 1, deparser_, 1);
  net_.connect(deparser_, 0, loopback_, 0);
  net_.connect(loopback_, 1, rx_merge, 1);
  // RX
  net_.connect(rx_merge, 0, parser_, 0);
  net_.connect(parser_, 0, dispatch, 0);
  net_.connect(parser_, 1, dispatch, 1);
  net_.connect(dispatch, 0, compl_, 2);
  net_.connect(dispatch, 1, resp_, 2);
  net_.connect(dispatch, 2, resp_, 3);

  // external ports (sim/engine_harness.h order)
  ext_in_ = {{csr_, 0}, {csr_, 1}, {csr_, 2}, {rx_merge, 0}, {rd_arb, 2}, {wr_arb, 4}};
  ext_out_ = {{csr_, 0}, {csr_, 1}, {loopback_, 0}, {parser_, 2}, {rd_arb, 0}, {wr_arb, 0}, {wr_arb, 1}, {cq_, 2}};
  for (const Ext& e : ext_in_) in_info_.push_back(e.block->inputs()[e.port]);
  for (const Ext& e : ext_out_) out_info_.push_back(e.block->outputs()[e.port]);
  in_info_[4].name = "s_axis_dma_rd";
  in_info_[5] = {"s_dma_wr_done", false, true, 2};
  reset();
}

void RoceEngine::reset() {
  net_.reset();
  cqe_err_ = 0;
  cycle_ = 0;
}

RoceCmd& RoceEngine::cmd() const { return *static_cast<FlitAdapter*>(cmd_)->block<RoceCmd>(); }
RoceCsr& RoceEngine::csr() const { return *static_cast<FlitAdapter*>(csr_)->block<RoceCsr>(); }

// Wires the RTL top connects straight from CSR registers.
void RoceEngine::apply_static_inputs() {
  const RoceCsr& csr = this->csr();
  RoceCmd& cmd = this->cmd();
  cmd.set_port_mac(csr.port_mac());
  for (unsigned i = 0; i < 16; ++i) cmd.set_gid(i, csr.gid(i), csr.gid_type(i));
  static_cast<FlitAdapter*>(parser_)->block<RoceParser>()->set_roce_enable(csr.roce_enable());
  loopback_->set_port_mac(csr.port_mac());
  // The CSR block samples the counters only when it takes a read, in the
  // clock after this eval; gathering them (a few hundred named values) on
  // every other cycle would cost more than the rest of the engine.
  if (csr_ar_valid_) gather_counters();
}

void RoceEngine::gather_counters() {
  CsrCounters c;
  for (auto& [name, v] : parser_->counters()) {
    if (name == "rx_frames") c.rx_frames = v;
    else if (name == "rx_roce") c.rx_roce = v;
    else if (name == "rx_bypass") c.rx_bypass = v;
    else
      for (unsigned r = 1; r < spec::kDropCount; ++r)
        if (name == std::string("rx_drop_") + spec::to_string(static_cast<spec::Drop>(r))) c.rx_drop[r] = v;
  }
  for (auto& [name, v] : deparser_->counters())
    if (name == "tx_frames") c.tx_frames = v;
  // Transport counters: each block names its own after the xport_cnt enum.
  // The names are matched once (this runs every cycle); a block's counter
  // list keeps its order.
  const Block* owners[] = {req_, resp_, compl_, loopback_};
  if (xport_map_.empty()) {
    for (const Block* b : owners) {
      std::vector<unsigned> idx;
      for (auto& [name, v] : const_cast<Block*>(b)->counters()) {
        unsigned found = 0;
        for (unsigned i = 1; i < spec::kXportCntCount; ++i)
          if (name == lower(spec::to_string(static_cast<spec::XportCnt>(i)))) found = i;
        idx.push_back(found);
      }
      xport_map_.push_back(idx);
    }
  }
  for (size_t k = 0; k < xport_map_.size(); ++k) {
    const auto vals = const_cast<Block*>(owners[k])->counters();
    for (size_t j = 0; j < vals.size() && j < xport_map_[k].size(); ++j)
      if (xport_map_[k][j]) c.xport[xport_map_[k][j]] = vals[j].second;
  }
  c.xport[static_cast<unsigned>(spec::XportCnt::kCqeErr)] = cqe_err_;
  csr().set_counters(c);
}

void RoceEngine::set_input(unsigned port, bool valid, const Flit& f) {
  if (port == kInAr) csr_ar_valid_ = valid;
  const Ext& e = ext_in_[port];
  e.block->set_input(e.port, valid, f);
}

void RoceEngine::set_output_ready(unsigned port, bool ready) {
  const Ext& e = ext_out_[port];
  e.block->set_output_ready(e.port, ready);
}

void RoceEngine::eval() {
  apply_static_inputs();
  net_.settle();
}

bool RoceEngine::input_ready(unsigned port) { return ext_in_[port].block->input_ready(ext_in_[port].port); }
bool RoceEngine::output_valid(unsigned port) { return ext_out_[port].block->output_valid(ext_out_[port].port); }
Flit RoceEngine::output(unsigned port) { return ext_out_[port].block->output(ext_out_[port].port); }

void RoceEngine::clock() {
  // CQE_ERR: completions with an error status that the CQ writer takes this cycle
  if (compl_arb_->output_valid(0) && cq_->input_ready(2)) {
    const auto c = desc_from_flit<spec::CqCompl>(compl_arb_->output(0));
    if (c.status != 0) ++cqe_err_;
  }
  net_.clock();
  ++cycle_;
}

std::vector<std::pair<std::string, uint32_t>> RoceEngine::counters() {
  std::vector<std::pair<std::string, uint32_t>> all;
  for (Block* b : {parser_, deparser_, req_,
                   resp_, compl_, cq_})
    for (auto& c : b->counters()) all.push_back(c);
  return all;
}

}  // namespace rocenic::model
