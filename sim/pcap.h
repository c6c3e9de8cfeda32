// Minimal pcap (libpcap classic format, linktype Ethernet) reader and writer.
// The writer stamps records with nanoseconds (magic 0xa1b23c4d): captures of
// the simulated NIC carry its simulated time, where 4 ns is one 250 MHz cycle
// and the gaps between frames at line rate are a few nanoseconds. The reader
// takes microsecond and nanosecond files alike.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace rocenic {

struct PcapRecord {
  uint64_t ts_ns = 0;
  std::vector<uint8_t> frame;
};

// Reads every record; throws std::runtime_error with the reason on a bad file.
std::vector<PcapRecord> pcap_read(const std::string& path);

class PcapWriter {
 public:
  explicit PcapWriter(const std::string& path);  // throws std::runtime_error
  ~PcapWriter();
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;
  void write(const std::vector<uint8_t>& frame, uint64_t ts_ns);

 private:
  FILE* f_ = nullptr;
};

}  // namespace rocenic
