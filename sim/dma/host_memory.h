// Host memory as the engine's DMA reaches it. Only allowed regions (those
// the driver registered) can be touched: an access outside them is refused
// and counted, never carried out -- the simulated NIC cannot scribble over
// the process it runs in, whatever a packet or a bug asks for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace rocenic {

class HostMemory {
 public:
  virtual ~HostMemory() = default;
  // Allow / stop allowing DMA to [addr, addr + len) (the driver, on reg/dereg MR and ring setup).
  void allow(uint64_t addr, uint64_t len);
  void revoke(uint64_t addr, uint64_t len);
  // false (and nothing moved) unless every byte lies in allowed regions.
  bool read(uint64_t addr, uint8_t* out, size_t n);
  bool write(uint64_t addr, const uint8_t* in, size_t n);
  uint64_t refused() const { return refused_; }

 protected:
  virtual void do_read(uint64_t addr, uint8_t* out, size_t n) = 0;
  virtual void do_write(uint64_t addr, const uint8_t* in, size_t n) = 0;

 private:
  bool allowed(uint64_t addr, size_t n) const;
  mutable std::mutex mu_;                 // the driver thread registers while the simulation thread DMAs
  std::map<uint64_t, uint64_t> regions_;  // start -> end (exclusive), non-overlapping, merged
  uint64_t refused_ = 0;
};

// The process's own memory: IOVA = virtual address (one valid MTT mapping).
class ProcessMemory : public HostMemory {
 protected:
  void do_read(uint64_t addr, uint8_t* out, size_t n) override;
  void do_write(uint64_t addr, const uint8_t* in, size_t n) override;
};

// A sparse private address space for tests and benches (unwritten bytes read 0).
class SparseMemory : public HostMemory {
 protected:
  void do_read(uint64_t addr, uint8_t* out, size_t n) override;
  void do_write(uint64_t addr, const uint8_t* in, size_t n) override;

 private:
  static constexpr uint64_t kPage = 4096;
  std::map<uint64_t, std::vector<uint8_t>> pages_;
};

}  // namespace rocenic
