#include "pcap.h"

#include <stdexcept>

namespace rocenic {

namespace {
uint32_t le32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t{p[3]} << 24); }
constexpr uint32_t kMagicUs = 0xA1B2C3D4u;  // sub-second field in microseconds
constexpr uint32_t kMagicNs = 0xA1B23C4Du;  // ... in nanoseconds
}  // namespace

std::vector<PcapRecord> pcap_read(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open pcap " + path);
  std::vector<uint8_t> d;
  uint8_t buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) d.insert(d.end(), buf, buf + n);
  std::fclose(f);
  if (d.size() < 24 || (le32(d.data()) != kMagicUs && le32(d.data()) != kMagicNs))
    throw std::runtime_error(path + ": not a little-endian pcap (microsecond or nanosecond)");
  const uint64_t frac_ns = le32(d.data()) == kMagicNs ? 1 : 1000;  // the sub-second field's unit
  if (le32(d.data() + 20) != 1) throw std::runtime_error(path + ": link type is not Ethernet");
  std::vector<PcapRecord> out;
  size_t off = 24;
  while (off + 16 <= d.size()) {
    const uint32_t incl = le32(d.data() + off + 8);
    if (off + 16 + incl > d.size()) throw std::runtime_error(path + ": truncated record");
    PcapRecord r;
    r.ts_ns = uint64_t{le32(d.data() + off)} * 1000000000u + le32(d.data() + off + 4) * frac_ns;
    r.frame.assign(d.begin() + off + 16, d.begin() + off + 16 + incl);
    out.push_back(std::move(r));
    off += 16 + incl;
  }
  return out;
}

PcapWriter::PcapWriter(const std::string& path) : f_(std::fopen(path.c_str(), "wb")) {
  if (!f_) throw std::runtime_error("cannot create pcap " + path);
  const uint32_t hdr[6] = {kMagicNs, 0x00040002u, 0, 0, 65535, 1};
  std::fwrite(hdr, sizeof hdr, 1, f_);
}

PcapWriter::~PcapWriter() {
  if (f_) std::fclose(f_);
}

void PcapWriter::write(const std::vector<uint8_t>& frame, uint64_t ts_ns) {
  const uint32_t rec[4] = {static_cast<uint32_t>(ts_ns / 1000000000u), static_cast<uint32_t>(ts_ns % 1000000000u),
                           static_cast<uint32_t>(frame.size()), static_cast<uint32_t>(frame.size())};
  std::fwrite(rec, sizeof rec, 1, f_);
  std::fwrite(frame.data(), 1, frame.size(), f_);
}

}  // namespace rocenic
