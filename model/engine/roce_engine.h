// The engine (rtl/top/roce_engine.sv) in the event-driven model: the same
// blocks, wired as the RTL top wires them (docs/engine.md), by channels.
// It runs on a Scheduler its owner drives (sim/model_world.h: the host
// memory, DMA timing, wire and CSR master around it).
//
// Toward the world:
//   in   csr.aw / csr.w / csr.ar (AXI4-Lite), rx (frames from the MAC),
//        dma_rd_route.in (read data, id = tag), dma_wr_arb.done (bit 0 = error)
//   out  csr.b / csr.r, tx (frames toward the MAC), bypass (non-RoCE frames
//        toward the host), dma_rd_arb.out, dma_wr_arb.m_req + m_data, event
// The outputs are bound by the owner (Out<T>::bind) before anything runs.
#pragma once

#include <cstdint>

#include "cq/cq_writer.h"
#include "csr/roce_csr.h"
#include "ctrl/roce_cmd.h"
#include "engine/glue.h"
#include "mem/mr_table.h"
#include "net/roce_deparser.h"
#include "net/roce_parser.h"
#include "sched/port.h"
#include "xport/completer.h"
#include "xport/read_place.h"
#include "xport/requester.h"
#include "xport/responder.h"

namespace rocenic::model {

class RoceEngine {
 public:
  explicit RoceEngine(Scheduler& s, unsigned data_bytes = 64);
  RoceEngine(const RoceEngine&) = delete;
  RoceEngine& operator=(const RoceEngine&) = delete;

  In<Packet>& rx() { return rx_merge.in0; }  // MAC frames first (input 0), then looped-back ones
  Out<Packet>& tx() { return loopback.out0; }
  Out<Packet>& bypass() { return parser.byp; }
  Out<spec::CqEvent>& event() { return cq.event; }

  // The counters the CSR block shows, gathered from the blocks that own them.
  CsrCounters counters() const;

  // control
  RoceCsr csr;
  RoceCmd cmd;
  MrTable mr;
  Merge<spec::MrReq> mr_pair;     // requester (0), responder (1)
  Merge<spec::MrReq> mr_arb;      // the pair, read_place: tag bits 7:6 = client (0, 1, 2)
  Merge<spec::MrReq> mr_quad;     // mr_arb, the responder's READ walker (3)
  Split<spec::MrResp> mr_route;   // answers back by tag bits 7:6: 0 the requester, else mr_route2
  Split<spec::MrResp> mr_route2;  // 1 the responder, else mr_route3
  Split<spec::MrResp> mr_route3;  // 2 read_place, 3 the responder's READ walker
  // transport
  Requester req;
  Responder resp;
  Completer completer;
  Fwft<spec::SqTrack> trk_q;        // requester -> completer (u_trk_q): its tracks queued
  ReadPlace rdp;                    // READ response data -> the READ WQE's local SGEs
  Merge<spec::CqCompl> compl_merge;  // responder (0), completer (1) -> cq_writer
  CqWriter cq;
  // packets
  TxArb tx_arb;                     // responder (0: ACKs, READ responses), requester (1)
  RoceDeparser deparser;
  Split<Packet> loopback;           // to the own MAC: back into the receive path (out1)
  Merge<Packet> rx_merge;           // MAC frames (0), looped-back frames (1)
  RoceParser parser;
  RxDispatch dispatch;
  UdGrhInsert ud_grh;               // a UD datagram's GRH in front of its payload -> responder
  // host memory
  Merge<spec::DmaRdReq> dma_rd_pair; // requester (0), responder (1)
  Merge<spec::DmaRdReq> dma_rd_trio; // the pair (tag 0, 1), the responder's READ data (tag 2)
  Merge<spec::DmaRdReq> dma_rd_arb;  // the trio, read_place's WQE fetches (tag 3)
  Split<Packet> dma_rd_route;        // read data back by its tid: 0 the requester, else dma_rd_route2
  Split<Packet> dma_rd_route2;       // tid 1 the responder, else dma_rd_route3
  Split<Packet> dma_rd_route3;       // tid 2 the responder's READ data, 3 read_place
  DmaWriteArb dma_wr_arb;            // responder (0), CQ writer (1), read_place (2)

 private:
  void follow_csr();  // the wires from CSR registers: port MAC, GID table, RoCE enable

  uint32_t cqe_err_ = 0, loopback_ = 0;
  uint32_t status_[2][16] = {};  // completions by side (0 responder, 1 completer) and status
  uint32_t req_cqe_err_ = 0, resp_cqe_err_ = 0, req_flush_ = 0, resp_flush_ = 0;
};

}  // namespace rocenic::model
