// A send-queue doorbell as the CSR block hands it to the requester: the
// producer index (CSR SQ_DB), and for an SQ_BF_DB also the first WQE_HEAD
// bytes of WQE pi - 1, written through the SQ_BF window with it (the
// low-latency post path, ConnectX's BlueFlame; rtl/csr/roce_csr.sv's
// m_sq_db + m_sq_db_bf + sq_bf_wqe).
//
// As a flit (block cross-checks): the wq_db_t bytes (4), one byte bf, then
// the WQE_HEAD WQE bytes (zeros when bf is 0).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "common/desc_flit.h"
#include "gen/roce_spec.h"

namespace rocenic {

// SGEs in a send WQE's first WQE_HEAD bytes (0..5): the rest lie in its tail.
inline constexpr unsigned kWqeHeadSges = (spec::kWqeHead - spec::kSendWqeSge0AddrOff) / spec::Sge::kSize;

struct SqDoorbell {
  static constexpr unsigned kDbBytes = (spec::WqDb::kBits + 7) / 8;
  static constexpr unsigned kFlitBytes = kDbBytes + 1 + spec::kWqeHead;

  spec::WqDb db;
  bool bf = false;
  std::array<uint8_t, spec::kWqeHead> wqe{};  // bf: WQE db.pi - 1, byte i of the WQE at i
};

// How many bytes of a send WQE an SQ_BF write carries (whole words, at most
// WQE_HEAD): what the engine reads of it -- its first 32 bytes, then its
// inline data or SGEs 0..5, an atomic's operands, a bind's MR and rights, a
// UD address vector. The window's other words may hold an older WQE's bytes.
inline unsigned sq_bf_bytes(const spec::SendWqe& w, bool ud) {
  using Op = spec::WrOpcode;
  const auto op = static_cast<Op>(w.opcode);
  const bool inl = (w.flags >> 2) & 1u;
  unsigned n = spec::kSendWqeSge0AddrOff +
               (inl ? std::min<unsigned>(w.length, spec::kWqeHead)
                    : spec::Sge::kSize * std::min<unsigned>(w.num_sge, kWqeHeadSges));
  if (op == Op::kAtomicCmpAndSwp || op == Op::kAtomicFetchAndAdd) n = std::max(n, spec::kSendWqeAtomicSwapOff + 8);
  if (op == Op::kBindMw) n = std::max(n, spec::kSendWqeBindAccessOff + 4);
  if (ud) n = std::max(n, spec::kSendWqeUdSlOff + 1);
  return std::min<unsigned>((n + 3) & ~3u, spec::kWqeHead);
}

inline Flit sq_doorbell_to_flit(const SqDoorbell& d) {
  Flit f = desc_to_flit(d.db);
  f.data.resize(SqDoorbell::kFlitBytes, 0);
  f.data[SqDoorbell::kDbBytes] = d.bf ? 1 : 0;
  if (d.bf) std::copy(d.wqe.begin(), d.wqe.end(), f.data.begin() + SqDoorbell::kDbBytes + 1);
  return f;
}

inline SqDoorbell sq_doorbell_from_flit(const Flit& f) {
  SqDoorbell d;
  d.db = desc_from_flit<spec::WqDb>(f);
  d.bf = f.data.size() > SqDoorbell::kDbBytes && (f.data[SqDoorbell::kDbBytes] & 1u);
  for (unsigned i = 0; i < spec::kWqeHead && SqDoorbell::kDbBytes + 1 + i < f.data.size(); ++i)
    d.wqe[i] = f.data[SqDoorbell::kDbBytes + 1 + i];
  return d;
}

}  // namespace rocenic
