#include "engine.h"

#include <cerrno>
#include <cstdio>
#include <stdexcept>

#include "gen/roce_spec.h"

namespace rocenic::driver {
namespace {

constexpr uint32_t kGidEntryBytes = 32;  // GID[i] at CSR_GID + 32*i (docs/spec/csr.md)
constexpr uint32_t kGidTypeWord = 4;

std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", v);
  return b;
}

}  // namespace

std::unique_ptr<Engine> Engine::open(const std::string& backend, const Config& cfg, std::string* err, int* errnum) {
  std::unique_ptr<Device> dev;
  try {
    dev = make_device(backend);
  } catch (const std::invalid_argument& e) {
    *err = e.what();
    *errnum = EINVAL;
    return nullptr;
  } catch (const std::exception& e) {
    *err = std::string("cannot start the '") + backend + "' backend: " + e.what();
    *errnum = EIO;
    return nullptr;
  }
  std::unique_ptr<Engine> eng(new Engine(std::move(dev), cfg));
  try {
    if (!eng->program(err, errnum)) return nullptr;
  } catch (const std::exception& e) {  // e.g. a CSR access the backend never answered
    *err = e.what();
    *errnum = EIO;
    return nullptr;
  }
  *errnum = 0;
  return eng;
}

bool Engine::program(std::string* err, int* errnum) {
  std::lock_guard<std::mutex> lock(mu_);
  *errnum = EIO;  // the engine refused an access, unless the configuration is at fault
  auto rd = [&](uint32_t addr, uint32_t* v) {
    if (dev_->csr_read(addr, v)) return true;
    *err = "the engine refused a read of CSR " + hex32(addr);
    return false;
  };
  auto wr = [&](uint32_t addr, uint32_t v) {
    if (dev_->csr_write(addr, v)) return true;
    *err = "the engine refused writing " + hex32(v) + " to CSR " + hex32(addr);
    return false;
  };
  uint32_t id = 0, max_pd = 0;
  if (!rd(spec::kCsrId, &id)) return false;
  if (id != spec::kCsrIdReset) {
    *err = "the '" + std::string(dev_->backend()) + "' backend is not a rocenic engine (ID " + hex32(id) + ")";
    return false;
  }
  if (!rd(spec::kCsrCapGidTbl, &gid_tbl_len_) || !rd(spec::kCsrCapMaxPd, &max_pd)) return false;
  pd_used_.assign(max_pd, false);

  const Mac& m = cfg_.mac;
  const uint32_t mac_lo = uint32_t{m[2]} << 24 | uint32_t{m[3]} << 16 | uint32_t{m[4]} << 8 | m[5];
  const uint32_t mac_hi = uint32_t{m[0]} << 8 | m[1];
  if (!wr(spec::kCsrPortMacLo, mac_lo) || !wr(spec::kCsrPortMacHi, mac_hi)) return false;
  if (!mtu_enum(cfg_.mtu)) {
    *errnum = EINVAL;
    *err = "configured MTU " + std::to_string(cfg_.mtu) + " is not 256, 512, 1024, 2048 or 4096";
    return false;
  }
  if (!wr(spec::kCsrPortMtu, mtu_enum(cfg_.mtu))) return false;

  // The whole table: an entry the configuration does not list is cleared, so
  // the engine and the sysfs tree agree on every index.
  std::vector<const GidEntry*> by_index(gid_tbl_len_, nullptr);
  for (const GidEntry& g : cfg_.gids) {
    if (g.index >= gid_tbl_len_) {
      *errnum = EINVAL;
      *err = "configured GID index " + std::to_string(g.index) + " is beyond the engine's table of " +
             std::to_string(gid_tbl_len_) + " entries";
      return false;
    }
    by_index[g.index] = &g;
  }
  for (uint32_t i = 0; i < gid_tbl_len_; ++i) {
    const uint32_t base = spec::kCsrGid + kGidEntryBytes * i;
    const GidEntry* g = by_index[i];
    for (uint32_t w = 0; w < 4; ++w) {
      uint32_t word = 0;  // big-endian: word 0 = GID bytes 0..3
      if (g)
        for (uint32_t b = 0; b < 4; ++b) word = word << 8 | g->gid[4 * w + b];
      if (!wr(base + 4 * w, word)) return false;
    }
    if (!wr(base + 4 * kGidTypeWord, g ? static_cast<uint32_t>(g->type) : 0)) return false;
  }
  return wr(spec::kCsrPortCtrl, 1);  // link_up: the MAC's link is up
}

bool Engine::read_caps(Caps* c) {
  std::lock_guard<std::mutex> lock(mu_);
  return read(spec::kCsrVersion, &c->version) && read(spec::kCsrCapMaxQp, &c->max_qp) &&
         read(spec::kCsrCapMaxCq, &c->max_cq) && read(spec::kCsrCapMaxMr, &c->max_mr) &&
         read(spec::kCsrCapMaxPd, &c->max_pd) && read(spec::kCsrCapMaxQpWr, &c->max_qp_wr) &&
         read(spec::kCsrCapMaxSge, &c->max_sge) && read(spec::kCsrCapMaxCqe, &c->max_cqe) &&
         read(spec::kCsrCapMaxInline, &c->max_inline) && read(spec::kCsrCapGidTbl, &c->gid_tbl_len);
}

bool Engine::read_port(PortStatus* p) {
  std::lock_guard<std::mutex> lock(mu_);
  return read(spec::kCsrPortState, &p->state) && read(spec::kCsrPortMtu, &p->mtu);
}

bool Engine::alloc_pdn(uint32_t* pdn) {
  std::lock_guard<std::mutex> lock(mu_);
  for (uint32_t i = 0; i < pd_used_.size(); ++i)
    if (!pd_used_[i]) {
      pd_used_[i] = true;
      *pdn = i;
      return true;
    }
  return false;
}

void Engine::free_pdn(uint32_t pdn) {
  std::lock_guard<std::mutex> lock(mu_);
  if (pdn < pd_used_.size()) pd_used_[pdn] = false;
}

uint32_t Engine::pds_in_use() {
  std::lock_guard<std::mutex> lock(mu_);
  uint32_t n = 0;
  for (bool used : pd_used_) n += used;
  return n;
}

std::string Engine::dump_gid_table() {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  for (uint32_t i = 0; i < gid_tbl_len_; ++i) {
    const uint32_t base = spec::kCsrGid + kGidEntryBytes * i;
    Gid gid{};
    uint32_t type = 0, word = 0;
    bool ok = true;
    for (uint32_t w = 0; w < 4; ++w) {
      ok = ok && read(base + 4 * w, &word);
      for (uint32_t b = 0; b < 4; ++b) gid[4 * w + b] = static_cast<uint8_t>(word >> (24 - 8 * b));
    }
    ok = ok && read(base + 4 * kGidTypeWord, &type);
    char line[128];
    if (ok)
      std::snprintf(line, sizeof line, "rocenic: engine GID[%u] type %u %s\n", i, type, format_gid(gid).c_str());
    else
      std::snprintf(line, sizeof line, "rocenic: engine GID[%u] unreadable (SLVERR)\n", i);
    out += line;
  }
  return out;
}

}  // namespace rocenic::driver
