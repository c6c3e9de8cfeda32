// The Soft-RoCE golden captures (tests/data/golden, with their README: real
// Linux rxe traffic, part of the repository so that a plain clone tests with
// them; ROCENIC_GOLDEN_DIR points elsewhere). Each pcap comes with a
// listing, one line per frame; RoCE lines carry the decoded fields, e.g.
//   21 3.738 A->B RC_WRITE_ONLY_IMM dqp=0x000011 psn=16777210 A=1 SE=0 pad=0 pay=64
//      len=142 sport=49492 id=0x8378 tos=0x00 ttl=64 icrc=ok
//      RETH(va=0x5597a0464000,rkey=0x2f0,len=64) Imm=0x11223344
#pragma once

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace rocenic::test {

struct GoldenLine {
  unsigned number = 0;  // 1-based frame number in the pcap
  bool a_to_b = true;
  std::string opcode;   // e.g. RC_SEND_ONLY
  std::map<std::string, std::string> f;  // "dqp", "RETH.va", "ACK.msn", "Imm", ...
  bool has(const std::string& k) const { return f.count(k) != 0; }
  uint64_t u(const std::string& k) const { return std::strtoull(f.at(k).c_str(), nullptr, 0); }
};

inline std::string golden_dir() {
  const char* d = std::getenv("ROCENIC_GOLDEN_DIR");
  return d ? d : ROCENIC_SOURCE_DIR "/tests/data/golden";
}

// The RoCE lines of a listing (other frames are skipped).
inline std::vector<GoldenLine> golden_listing(const std::string& path) {
  std::vector<GoldenLine> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    GoldenLine g;
    std::string ts, dir;
    if (!(s >> g.number >> ts >> dir >> g.opcode)) continue;
    if (g.opcode.rfind("RC_", 0) && g.opcode.rfind("UC_", 0) && g.opcode.rfind("UD_", 0)) continue;
    g.a_to_b = dir == "A->B";
    std::string tok;
    while (s >> tok) {
      const size_t paren = tok.find('(');
      if (paren != std::string::npos && tok.back() == ')') {  // HDR(k=v,k=v)
        const std::string hdr = tok.substr(0, paren);
        std::istringstream kv(tok.substr(paren + 1, tok.size() - paren - 2));
        std::string item;
        while (std::getline(kv, item, ',')) {
          const size_t eq = item.find('=');
          if (eq != std::string::npos) g.f[hdr + "." + item.substr(0, eq)] = item.substr(eq + 1);
        }
      } else if (const size_t eq = tok.find('='); eq != std::string::npos) {
        g.f[tok.substr(0, eq)] = tok.substr(eq + 1);
      }
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace rocenic::test
