// Packet-path figures, printed, never judged: bytes per cycle of the TX
// deparser and the RX parser for RC WRITE packets with 64..4096-byte payloads,
// on the RTL and on the model, without idle cycles or backpressure; and how
// many simulated cycles each runs per wall-clock second.
//
//   packet_bench [frames_per_size]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "Vroce_deparser.h"
#include "Vroce_parser.h"
#include "net/roce_deparser.h"
#include "net/roce_frame.h"
#include "net/roce_parser.h"
#include "rtl/roce_deparser_rtl.h"
#include "rtl/roce_parser_rtl.h"
#include "support/random_hdr.h"
#include "xcheck.h"

using namespace rocenic;

namespace {

constexpr unsigned kBytes = 64;

struct Figure {
  double wire_bpc = 0, payload_bpc = 0, cycles_per_s = 0;
};

Figure measure(Block& b, const std::vector<std::vector<Flit>>& stim, size_t wire_bytes, size_t pay_bytes) {
  XcheckConfig cfg;
  cfg.in_idle = 0;
  cfg.out_stall = 0;
  cfg.quiet_cycles = 64;
  uint64_t last = 0;
  const auto t0 = std::chrono::steady_clock::now();
  drive_block(b, stim, cfg, &last);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Figure f;
  f.wire_bpc = double(wire_bytes) / double(last + 1);
  f.payload_bpc = double(pay_bytes) / double(last + 1);
  f.cycles_per_s = double(last + 1 + cfg.quiet_cycles) / s;
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned n = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 400;
  std::printf("packet path, DATA_W=512 (64 B/beat), RoCEv2/IPv4 RC_WRITE_MIDDLE, %u frames per size, no idle/backpressure\n", n);
  std::printf("%-6s %-8s %8s %12s %12s %14s\n", "block", "payload", "backend", "wire B/cyc", "payload B/cyc", "cycles/s");
  double rtl_cps[2] = {0, 0}, model_cps[2] = {0, 0};
  int samples = 0;
  for (unsigned pay : {64u, 256u, 1024u, 4096u}) {
    std::mt19937_64 rng(pay);
    std::vector<std::vector<Flit>> tx(2), rx(1);
    size_t wire = 0, payload = 0;
    for (unsigned i = 0; i < n; ++i) {
      spec::RoceTxHdr h = test::random_tx_hdr(rng, spec::kRcWriteMiddle, pay);
      h.l3 = 0;
      h.vlan_valid = 0;
      h.src_ip = ipv4_mapped(0x0A000001);
      h.dst_ip = ipv4_mapped(0x0A000002);
      h.fecn = h.becn = 0;
      const auto p = test::random_bytes(rng, pay);
      tx[0].push_back(desc_to_flit(h));
      for (Flit& b : test::payload_beats(p, kBytes)) tx[1].push_back(b);
      const auto frame = roce_frame(h, p.data());
      for (Flit& b : frame_to_beats(frame, kBytes)) rx[0].push_back(b);
      wire += frame.size();
      payload += pay;
    }
    RoceDeparserRtl<Vroce_deparser> drtl(kBytes);
    auto dmod_block = model::make_roce_deparser_block(kBytes);
    Block& dmod = *dmod_block;
    RoceParserRtl prtl;
    auto pmod_block = model::make_roce_parser_block(kBytes);
    Block& pmod = *pmod_block;
    const Figure f[4] = {measure(drtl, tx, wire, payload), measure(dmod, tx, wire, payload),
                         measure(prtl, rx, wire, payload), measure(pmod, rx, wire, payload)};
    const char* names[4][2] = {{"tx", "rtl"}, {"tx", "model"}, {"rx", "rtl"}, {"rx", "model"}};
    for (int k = 0; k < 4; ++k)
      std::printf("%-6s %-8u %8s %12.2f %12.2f %14.0f\n", names[k][0], pay, names[k][1], f[k].wire_bpc,
                  f[k].payload_bpc, f[k].cycles_per_s);
    std::printf("%-6s %-8u %8s %12.3f %12s  (model/rtl cycles for the same work: tx %.3f, rx %.3f)\n", "ratio", pay,
                "", f[1].wire_bpc / f[0].wire_bpc, "", f[0].wire_bpc / f[1].wire_bpc, f[2].wire_bpc / f[3].wire_bpc);
    rtl_cps[0] += f[0].cycles_per_s; model_cps[0] += f[1].cycles_per_s;
    rtl_cps[1] += f[2].cycles_per_s; model_cps[1] += f[3].cycles_per_s;
    ++samples;
  }
  std::printf("simulation speed (mean over sizes): tx rtl %.0f cycles/s, model %.0f cycles/s (%.1fx); "
              "rx rtl %.0f cycles/s, model %.0f cycles/s (%.1fx)\n",
              rtl_cps[0] / samples, model_cps[0] / samples, model_cps[0] / rtl_cps[0], rtl_cps[1] / samples,
              model_cps[1] / samples, model_cps[1] / rtl_cps[1]);
  return 0;
}
