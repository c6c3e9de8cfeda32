// Just enough JSON for the oracle files: flat objects, one per line, whose
// values are numbers or strings without escapes.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>

namespace rocenic::test {

// The raw text of key's value in a flat JSON object ("" if absent); strings
// come back without their quotes.
inline std::string json_raw(const std::string& line, const std::string& key) {
  const std::string k = "\"" + key + "\"";
  size_t p = line.find(k);
  if (p == std::string::npos) return "";
  p = line.find(':', p + k.size());
  if (p == std::string::npos) return "";
  ++p;
  while (p < line.size() && line[p] == ' ') ++p;
  if (p < line.size() && line[p] == '"') {
    const size_t e = line.find('"', p + 1);
    return line.substr(p + 1, e - p - 1);
  }
  size_t e = p;
  while (e < line.size() && line[e] != ',' && line[e] != '}') ++e;
  return line.substr(p, e - p);
}

inline uint64_t json_u64(const std::string& line, const std::string& key) {
  return std::strtoull(json_raw(line, key).c_str(), nullptr, 0);
}

}  // namespace rocenic::test
