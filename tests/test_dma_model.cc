// Host memory and DMA timing: reads come back after the configured round
// trip, bulk transfers run at the configured bandwidth, data lands where it
// should, and nothing outside the allowed regions is read or written.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "dma/dma_model.h"

namespace rocenic {
namespace {

constexpr unsigned kBytes = 64;

spec::DmaRdReq rd(uint8_t tag, uint64_t addr, uint16_t len) {
  spec::DmaRdReq r;
  r.tag = tag;
  r.addr = addr;
  r.len = len;
  return r;
}

TEST(DmaModel, FirstReadBeatArrivesAfterTheRoundTrip) {
  SparseMemory mem;
  mem.allow(0x1000, 4096);
  DmaModel dma(mem, DmaTiming{}, kBytes);
  EXPECT_EQ(dma.read_latency_cycles(), 125u);  // 500 ns at 250 MHz
  dma.push_rd_req(rd(1, 0x1000, 64));
  uint64_t first = 0;
  while (!dma.rd_data_valid() && dma.cycle() < 1000) dma.clock();
  first = dma.cycle();
  EXPECT_EQ(first, 125u);
  EXPECT_TRUE(dma.rd_data().last);
  EXPECT_EQ(dma.rd_data_tag(), 1u);
}

TEST(DmaModel, BulkReadsAndWritesRunAtTheConfiguredBandwidth) {
  SparseMemory mem;
  mem.allow(0, 1 << 24);
  DmaTiming t;
  DmaModel dma(mem, t, kBytes);
  const unsigned n = 256, len = 4096;
  unsigned issued = 0, beats = 0;
  uint64_t first = 0, last = 0;
  while (beats < n * len / kBytes && dma.cycle() < 1'000'000) {
    if (issued < n && dma.rd_req_ready()) {
      dma.push_rd_req(rd(static_cast<uint8_t>(issued), uint64_t{issued} * len, len));
      ++issued;
    }
    if (dma.rd_data_valid()) {
      if (!beats++) first = dma.cycle();
      last = dma.cycle();
      dma.pop_rd_data();
    }
    dma.clock();
  }
  const double rd_bpc = double(n) * len / double(last - first + 1);
  // writes: 256 x 4 KiB
  unsigned wreqs = 0, wbeats = 0, dones = 0;
  const uint64_t w0 = dma.cycle();
  Flit beat;
  beat.data.assign(kBytes, 0xAB);
  while (dones < n && dma.cycle() < 2'000'000) {
    if (wreqs < n && dma.wr_req_ready()) {
      spec::DmaWrReq w;
      w.tag = static_cast<uint8_t>(wreqs);
      w.addr = uint64_t{wreqs++} * len;
      w.len = len;
      dma.push_wr_req(w);
    }
    if (wbeats < n * len / kBytes && dma.wr_data_ready()) {
      dma.push_wr_data(beat);
      ++wbeats;
    }
    if (dma.wr_done_valid()) {
      EXPECT_EQ(dma.wr_done_tag(), static_cast<uint8_t>(dones)) << "writes complete in order";
      EXPECT_FALSE(dma.wr_done_error());
      ++dones;
      dma.pop_wr_done();
    }
    dma.clock();
  }
  const double wr_bpc = double(n) * len / double(dma.cycle() - w0);
  std::printf("DMA model (DATA_W=512, 250 MHz, 13 GB/s): read %.2f B/cycle, write %.2f B/cycle, configured %.2f\n",
              rd_bpc, wr_bpc, dma.bytes_per_cycle());
  EXPECT_NEAR(rd_bpc, dma.bytes_per_cycle(), 0.02 * dma.bytes_per_cycle());
  EXPECT_NEAR(wr_bpc, dma.bytes_per_cycle(), 0.03 * dma.bytes_per_cycle());  // includes the final write latency
  EXPECT_EQ(dma.stats().bytes_read, uint64_t{n} * len);
  EXPECT_EQ(dma.stats().bytes_written, uint64_t{n} * len);
}

TEST(DmaModel, UnalignedReadsAndWritesMoveExactlyTheirBytes) {
  SparseMemory mem;
  mem.allow(0x10000, 0x10000);
  DmaModel dma(mem, DmaTiming{}, kBytes);
  std::mt19937_64 rng(1);
  for (int iter = 0; iter < 50; ++iter) {
    const uint64_t addr = 0x10000 + rng() % 0x8000;
    const uint16_t len = static_cast<uint16_t>(1 + rng() % 4096);
    std::vector<uint8_t> src(len);
    for (auto& b : src) b = static_cast<uint8_t>(rng());
    spec::DmaWrReq w;
    w.tag = static_cast<uint8_t>(iter);
    w.addr = addr;
    w.len = len;
    dma.push_wr_req(w);
    for (size_t off = 0; off < len;) {
      if (dma.wr_data_ready()) {
        Flit b;
        b.data.assign(kBytes, 0xEE);  // lanes past len must not be written
        for (size_t i = 0; i < kBytes && off + i < len; ++i) b.data[i] = src[off + i];
        dma.push_wr_data(b);
        off += kBytes;
      }
      dma.clock();
    }
    while (!dma.wr_done_valid()) dma.clock();
    dma.pop_wr_done();
    uint8_t after = 0;
    ASSERT_TRUE(mem.read(addr + len, &after, 1));
    dma.push_rd_req(rd(7, addr, len));
    std::vector<uint8_t> got;
    while (got.size() < len) {
      if (dma.rd_data_valid()) {
        const Flit& f = dma.rd_data();
        for (size_t i = 0; i < kBytes; ++i)
          if ((f.keep >> i) & 1u) got.push_back(f.data[i]);
        dma.pop_rd_data();
      }
      dma.clock();
    }
    ASSERT_EQ(got, src) << "iteration " << iter;
  }
}

TEST(DmaModel, NothingOutsideTheAllowedRegionsIsTouched) {
  std::vector<uint8_t> buf(8192, 0x11), guard(4096, 0x22);
  ProcessMemory mem;  // the process's own memory, IOVA = VA
  const uint64_t base = reinterpret_cast<uintptr_t>(buf.data());
  mem.allow(base, buf.size());
  DmaModel dma(mem, DmaTiming{}, kBytes);
  auto write = [&](uint64_t addr, uint16_t len) {
    spec::DmaWrReq w;
    w.addr = addr;
    w.len = len;
    dma.push_wr_req(w);
    Flit b;
    b.data.assign(kBytes, 0x99);
    for (unsigned sent = 0; sent < len;) {
      if (dma.wr_data_ready()) {
        dma.push_wr_data(b);
        sent += kBytes;
      }
      dma.clock();
    }
    while (!dma.wr_done_valid()) dma.clock();
    const bool err = dma.wr_done_error();
    dma.pop_wr_done();
    return !err;
  };
  EXPECT_TRUE(write(base + 100, 64));
  EXPECT_EQ(buf[100], 0x99);
  EXPECT_FALSE(write(base + buf.size() - 32, 64)) << "runs past the region";
  EXPECT_EQ(buf[buf.size() - 32], 0x11) << "a refused write changes nothing";
  EXPECT_FALSE(write(reinterpret_cast<uintptr_t>(guard.data()), 64));
  EXPECT_EQ(guard[0], 0x22);
  mem.revoke(base, 4096);
  EXPECT_FALSE(write(base + 100, 64)) << "revoked";
  EXPECT_TRUE(write(base + 4096, 64));
  EXPECT_EQ(dma.stats().refused_writes, 3u);
  // a refused read returns poisoned zero data
  dma.push_rd_req(rd(3, reinterpret_cast<uintptr_t>(guard.data()), 16));
  while (!dma.rd_data_valid()) dma.clock();
  EXPECT_TRUE(dma.rd_data().user);
  EXPECT_EQ(dma.rd_data().data[0], 0);
  EXPECT_EQ(mem.refused(), 4u);
}

}  // namespace
}  // namespace rocenic
