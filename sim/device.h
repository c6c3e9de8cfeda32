// The simulated NIC as software sees it: one interface, three backends.
//   model  the C++ reference model
//   rtl    the Verilated RTL
//   cosim  both in lockstep: the RTL answers, the model is compared with it,
//          and the first difference is reported (divergence()).
// Today the engine behind it is the control-and-status block (roce_csr);
// the data path joins it as the verbs issue grows.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace rocenic {

class Device {
 public:
  virtual ~Device() = default;
  virtual const char* backend() const = 0;
  // One AXI4-Lite transaction each; simulated time runs until the response.
  // false when the engine answers SLVERR (unmapped address, write to a
  // read-only register, value it refuses); *value is then 0.
  virtual bool csr_read(uint32_t addr, uint32_t* value) = 0;
  virtual bool csr_write(uint32_t addr, uint32_t value) = 0;
  // Simulated clock cycles so far.
  virtual uint64_t cycles() const = 0;
  // cosim: transactions compared so far and the first divergence ("" = none).
  virtual uint64_t compared() const { return 0; }
  virtual std::string divergence() const { return ""; }
};

// backend is "model", "rtl" or "cosim"; anything else throws
// std::invalid_argument with a message naming the three.
std::unique_ptr<Device> make_device(const std::string& backend);

}  // namespace rocenic
