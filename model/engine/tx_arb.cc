#include "engine/tx_arb.h"

#include "gen/roce_spec.h"

namespace rocenic::model {

TxArb::TxArb(unsigned data_bytes) : bytes_(data_bytes) {
  const unsigned hdr = (spec::RoceTxHdr::kBits + 7) / 8;
  // payload beats carry no tlast: each beat is its own transaction
  in_info_ = {{"ack_hdr", false, true, hdr}, {"req_hdr", false, true, hdr}, {"req_payload", false, true, bytes_}};
  out_info_ = {{"tx_hdr", false, true, hdr}, {"tx_payload", false, true, bytes_}};
}

Flit TxArb::output(unsigned port) {
  if (port == 0) return in_[sel()];
  Flit f;
  f.data = in_[2].data;
  f.data.resize(bytes_);
  return f;
}

}  // namespace rocenic::model
