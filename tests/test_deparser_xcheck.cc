// The RTL deparser and its model, driven alike with random idle cycles and
// backpressure, must emit the same frames; and those frames must be the ones
// the C++ frame builder (an independent rendering of the spec) produces.
#include <gtest/gtest.h>

#include <random>

#include "Vroce_deparser.h"
#include "Vroce_deparser_w128.h"
#include "net/roce_deparser.h"
#include "net/roce_frame.h"
#include "rtl/roce_deparser_rtl.h"
#include "support/random_hdr.h"
#include "xcheck.h"

namespace rocenic {
namespace {

constexpr unsigned kBytes = 64;

struct Stim {
  std::vector<std::vector<Flit>> ports{2};
  std::vector<std::vector<uint8_t>> expected;
};

Stim make_stimulus(uint64_t seed, unsigned frames_per_opcode, unsigned bytes = kBytes) {
  std::mt19937_64 rng(seed);
  Stim s;
  for (unsigned k = 0; k < frames_per_opcode; ++k) {
    for (uint8_t op : test::all_opcodes()) {
      const unsigned len = test::random_pay_len(rng, op);
      const spec::RoceTxHdr h = test::random_tx_hdr(rng, op, len);
      const auto pay = test::random_bytes(rng, len);
      s.ports[0].push_back(desc_to_flit(h));
      for (Flit& b : test::payload_beats(pay, bytes)) s.ports[1].push_back(b);
      s.expected.push_back(roce_frame(h, pay.data()));
    }
  }
  return s;
}

XcheckResult run(const Stim& s, XcheckConfig cfg) {
  return xcheck_run([] { return std::make_unique<RoceDeparserRtl<Vroce_deparser>>(kBytes); },
                    [] { return model::make_roce_deparser_block(kBytes); }, s.ports, cfg);
}

TEST(DeparserXcheck, EveryOpcodeWithIdleAndBackpressureMatchesModel) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    const Stim s = make_stimulus(seed, 4);
    XcheckConfig cfg;
    cfg.seed = seed;
    cfg.fst_path = "deparser_divergence.fst";
    const XcheckResult r = run(s, cfg);
    ASSERT_TRUE(r.ok) << r.report;
    ASSERT_EQ(r.rtl_out[0].size(), s.expected.size());
    for (size_t i = 0; i < s.expected.size(); ++i)
      ASSERT_EQ(beats_to_bytes(r.rtl_out[0][i].flits), s.expected[i]) << "frame " << i;
    std::printf("seed %llu: %s", static_cast<unsigned long long>(seed), r.report.c_str());
  }
}

TEST(DeparserXcheck, FullRateWithoutIdleOrBackpressure) {
  const Stim s = make_stimulus(9, 2);
  XcheckConfig cfg;
  cfg.in_idle = 0;
  cfg.out_stall = 0;
  const XcheckResult r = run(s, cfg);
  ASSERT_TRUE(r.ok) << r.report;
  std::printf("no stalls: %s", r.report.c_str());
}

constexpr unsigned kNarrow = 16;  // DATA_W = 128: a header spans up to 7 beats

TEST(DeparserXcheck, NarrowDataWidthFeedsTheHeaderInSlices) {
  const Stim s = make_stimulus(21, 2, kNarrow);
  XcheckConfig cfg;
  cfg.seed = 21;
  const XcheckResult r = xcheck_run([] { return std::make_unique<RoceDeparserRtl<Vroce_deparser_w128>>(kNarrow); },
                                    [] { return model::make_roce_deparser_block(kNarrow); }, s.ports, cfg);
  ASSERT_TRUE(r.ok) << r.report;
  ASSERT_EQ(r.rtl_out[0].size(), s.expected.size());
  for (size_t i = 0; i < s.expected.size(); ++i)
    ASSERT_EQ(beats_to_bytes(r.rtl_out[0][i].flits), s.expected[i]) << "frame " << i;
  std::printf("DATA_W=128: %s", r.report.c_str());
}

}  // namespace
}  // namespace rocenic
