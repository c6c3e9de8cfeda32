// Facts about the engine the provider needs and no CSR reports (yet), in one
// place. When the engine grows a capability register for one of them, read
// the register instead.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>

#include "gen/roce_spec.h"

namespace rocenic::driver {

// MTT entries in the engine's MR table (mr_table MTT_DEPTH, model/mem/mr_table.h).
constexpr uint32_t kMttDepth = 4096;
// Pages the provider registers: 4 KiB, IOVA = VA in simulation.
constexpr unsigned kPageShift = 12;
constexpr uint64_t kPageSize = uint64_t{1} << kPageShift;
// Page addresses per WRITE_MTT command (cmd_write_mtt: pa0..pa5).
constexpr uint32_t kMttPerCommand = 6;
static_assert(8 + 8 * kMttPerCommand <= spec::CmdWriteMtt::kSize, "WRITE_MTT holds 6 page addresses");

// WQE data area (layouts.md send_wqe / recv_wqe): SGE i at sge0 + 16*i, or
// the inline bytes from sge0 on; the generated structs name only SGE 0.
// Rings are slots of 2^WQE_SLOT_LOG2 bytes; the engine reads a WQE's first
// WQE_HEAD bytes (six SGEs, or the inline data) and the other SGEs after them.
constexpr size_t kWqeSlotBytes = size_t{1} << spec::kWqeSlotLog2;
constexpr unsigned kWqeDataOffset = spec::kSendWqeSge0AddrOff;
static_assert(spec::kRecvWqeSge0AddrOff == kWqeDataOffset, "send and receive WQEs share the data area");
constexpr unsigned kWqeDataBytes = spec::SendWqe::kSize - kWqeDataOffset;
static_assert(kWqeDataBytes == spec::kMaxSge * spec::Sge::kSize, "MAX_SGE SGEs");
static_assert(spec::RecvWqe::kSize == spec::SendWqe::kSize && spec::SendWqe::kSize <= kWqeSlotBytes, "WQEs fit a slot");
constexpr unsigned kWqeInlineBytes = spec::kWqeHead - kWqeDataOffset;  // inline data: the head's 96 bytes

// send_wqe flags: bit 0 signaled, 1 solicited, 2 inline, 3 fence.
constexpr uint8_t kWqeSignaled = 1, kWqeSolicited = 2, kWqeInline = 4, kWqeFence = 8;
inline uint8_t wqe_flags(unsigned send_flags) {
  return static_cast<uint8_t>((send_flags & IBV_SEND_SIGNALED ? kWqeSignaled : 0) |
                              (send_flags & IBV_SEND_SOLICITED ? kWqeSolicited : 0) |
                              (send_flags & IBV_SEND_INLINE ? kWqeInline : 0) |
                              (send_flags & IBV_SEND_FENCE ? kWqeFence : 0));
}
// send_wqe imm holds the immediate's bytes as on the wire: the field value
// whose little-endian store gives the bytes of the __be32 imm_data.
inline uint32_t wqe_imm(uint32_t be_imm) {
  uint8_t b[4];
  __builtin_memcpy(b, &be_imm, 4);
  return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}

// Atomics (docs/engine.md "Atomics"): the compare/add and swap values take
// SGE 1's place, so an atomic WQE has exactly one SGE, the 8 bytes where the
// original remote value lands.
constexpr uint32_t kAtomicBytes = 8;

// UD send WQEs carry their address vector (from the AH, layouts.md
// send_wqe ud_*) where SGE 2 would be: at most 2 SGEs or 32 inline bytes.
static_assert(spec::kSendWqeUdDestQpnOff >= kWqeDataOffset + spec::kUdMaxSge * spec::Sge::kSize &&
                  spec::kSendWqeUdDestQpnOff >= kWqeDataOffset + spec::kUdMaxInline,
              "a UD WQE's data ends before its address vector");
constexpr unsigned kUdDataBytes = spec::kUdMaxSge * spec::Sge::kSize;

// The hop limit of a unicast RoCE path through the IP route: Linux resolves
// an AH's and a QP path's address vector on a RoCE port
// (ib_resolve_unicast_gid_dmac) and replaces the application's hop_limit
// with the route's -- 64, the default IPv4 TTL and IPv6 hop limit -- unless
// the destination is multicast, or the source GID is RoCE v1 and the
// destination link-local (no IP stack);
// Soft-RoCE's frames carry it (tests/data/golden: TTL 64 from
// ibv_*_pingpong's hop_limit 1). (mlx5 builds UD AHs in user space and keeps
// the application's.) The port's ttl knob (tc/1/ttl) overrides it in the engine.
constexpr uint8_t kRouteHopLimit = 64;

// Address handles a device holds (ibv_create_ah): host memory only, the
// engine keeps no AH table; rxe's limit.
constexpr int kMaxAh = 0x3fff;
static_assert(spec::kSendWqeAtomicCmpAddOff == kWqeDataOffset + spec::Sge::kSize &&
                  spec::kSendWqeAtomicSwapOff == spec::kSendWqeAtomicCmpAddOff + kAtomicBytes,
              "atomic_cmp_add and atomic_swap sit where SGE 1 would");
inline bool is_atomic(unsigned opcode) {
  return opcode == IBV_WR_ATOMIC_CMP_AND_SWP || opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

// BIND_MW and LOCAL_INV act on the MR table alone (docs/engine.md "Memory
// windows"): no packet and no data, so no SGEs, no inline bytes, nothing
// to solicit. Their WQE keeps signaled and fence.
inline bool is_local_op(unsigned opcode) { return opcode == IBV_WR_BIND_MW || opcode == IBV_WR_LOCAL_INV; }
inline uint8_t wqe_flags_of(unsigned opcode, unsigned send_flags) {
  if (is_local_op(opcode)) send_flags &= IBV_SEND_SIGNALED | IBV_SEND_FENCE;
  return wqe_flags(send_flags);
}

// CSR command mailbox: CMD_STATUS polls before the provider gives up on a
// command (each poll is one AXI transaction of simulated time).
constexpr unsigned kCmdPolls = 100000;
constexpr uint32_t kCmdBusy = 1u << 31;

// Host-memory rings are page aligned (the engine needs 32 / 128 bytes).
constexpr size_t kRingAlign = 4096;

// Largest IBTA message (and ibv_port_attr::max_msg_sz).
constexpr uint64_t kMaxMsgSize = spec::kMaxMsg;

}  // namespace rocenic::driver
