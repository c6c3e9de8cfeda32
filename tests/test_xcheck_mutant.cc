// The cross-check must catch a bug. The build made a mutant of the RTL
// deparser (FECN and BECN swapped in the BTH builder, tests/CMakeLists.txt);
// the harness, comparing it with the model, must fail at the first frame
// where the two bits differ, name that transaction, and leave a waveform.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "Vroce_deparser_mutant.h"
#include "net/roce_deparser.h"
#include "rtl/roce_deparser_rtl.h"
#include "support/random_hdr.h"
#include "xcheck.h"

namespace rocenic {
namespace {

constexpr unsigned kBytes = 64;

TEST(XcheckMutant, SwappedBthBitsAreCaughtAtTheFirstAffectedFrame) {
  std::mt19937_64 rng(5);
  std::vector<std::vector<Flit>> stim(2);
  size_t first_affected = SIZE_MAX;
  for (size_t i = 0; i < 40; ++i) {
    const uint8_t op = spec::kRcSendOnly;
    spec::RoceTxHdr h = test::random_tx_hdr(rng, op, 100);
    h.fecn = h.becn = static_cast<uint8_t>(i & 1);  // equal bits hide the mutation ...
    if (i >= 17) h.becn = !h.fecn;                  // ... until frame 17
    if (h.fecn != h.becn && first_affected == SIZE_MAX) first_affected = i;
    stim[0].push_back(desc_to_flit(h));
    for (Flit& b : test::payload_beats(test::random_bytes(rng, 100), kBytes)) stim[1].push_back(b);
  }
  const std::string fst = "mutant_divergence.fst";
  std::filesystem::remove(fst);
  XcheckConfig cfg;
  cfg.fst_path = fst;
  const XcheckResult r =
      xcheck_run([] { return std::make_unique<RoceDeparserRtl<Vroce_deparser_mutant>>(kBytes); },
                 [] { return model::make_roce_deparser_block(kBytes); }, stim, cfg);
  std::printf("%s", r.report.c_str());
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.report.find("DIVERGENCE on output port 0 (m_axis_tx), transaction #" + std::to_string(first_affected)),
            std::string::npos);
  EXPECT_EQ(r.compared, first_affected);  // everything before it matched
  ASSERT_TRUE(std::filesystem::exists(fst));
  EXPECT_GT(std::filesystem::file_size(fst), 1000u);
}

}  // namespace
}  // namespace rocenic
