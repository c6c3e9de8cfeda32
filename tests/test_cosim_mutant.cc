// cosim catches an RTL bug: the build makes a mutant engine whose CQ writer
// writes wqe_counter + 1 into every CQE (tests/CMakeLists.txt). Run in cosim
// against the model, the first CQE write diverges, the report names it, and
// the run says so instead of passing.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>

#include "Vroce_engine_mutant.h"
#include "device.h"
#include "engine/roce_engine.h"
#include "host/engine_host.h"
#include "rtl/roce_engine_rtl.h"

namespace rocenic {
namespace {

using namespace spec;

TEST(CosimMutant, WrongWqeCounterInTheRtlIsCaughtAtTheFirstCqe) {
  DeviceOptions opt;
  opt.fst_path = "cosim_mutant.fst";
  opt.divergence_pcap = "cosim_mutant.pcap";
  std::remove(opt.fst_path.c_str());
  std::remove(opt.divergence_pcap.c_str());
  auto dev = make_cosim_device(std::make_unique<RoceEngineRtl<Vroce_engine_mutant>>(), opt);
  dev->set_tx_sink([](const uint8_t*, size_t) {});
  host::EngineHost h(*dev);
  h.configure_port(0x02000a000001, 0x0a000001);
  const uint32_t pd = h.alloc_pd();
  auto scq = h.create_cq(4), rcq = h.create_cq(4);
  auto a = h.create_qp(pd, *scq, *rcq, 4, 4), b = h.create_qp(pd, *scq, *rcq, 4, 4);
  host::Buffer buf(8192);
  const host::Mr mr = h.reg_mr(pd, buf.data(), 8192, 0xF);
  host::Path pa, pb;
  pa.dest_qpn = b->qpn;
  pb.dest_qpn = a->qpn;
  pa.dmac = pb.dmac = 0x02000a000001;
  pa.dgid = pb.dgid = host::ipv4_gid(0x0a000001);
  h.connect(*a, pa);
  h.connect(*b, pb);
  EXPECT_EQ(dev->divergence(), "") << "configuration alone must not diverge";
  h.post_recv(*b, 1, {{buf.addr() + 4096, 4096, mr.key}});
  SendWqe w;
  w.wr_id = 5;
  w.opcode = static_cast<uint8_t>(WrOpcode::kSend);
  w.flags = 1;
  w.length = 100;
  h.post_send(*a, w, {{buf.addr(), 100, mr.key}});
  dev->run(1'000'000);
  const std::string d = dev->divergence();
  ASSERT_NE(d, "") << "the mutant was not caught";
  EXPECT_NE(d.find("DMA write"), std::string::npos) << d;
  std::printf("caught after %llu matching transactions:\n%s\n", static_cast<unsigned long long>(dev->compared()),
              d.c_str());
  dev.reset();  // closes the waveform
  struct stat st {};
  EXPECT_EQ(stat("cosim_mutant.fst", &st), 0) << "waveform of the window";
  EXPECT_GT(st.st_size, 1000);
  EXPECT_EQ(stat("cosim_mutant.pcap", &st), 0) << "frames of the window";
}

}  // namespace
}  // namespace rocenic
