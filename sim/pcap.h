// Minimal pcap (libpcap classic format, linktype Ethernet) reader and writer.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace rocenic {

struct PcapRecord {
  uint64_t ts_us = 0;
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
  void write(const std::vector<uint8_t>& frame, uint64_t ts_us);

 private:
  FILE* f_ = nullptr;
};

}  // namespace rocenic
