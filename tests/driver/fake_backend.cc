// make_device() for the fake builds (tests/driver/CMakeLists.txt: the
// provider and launcher under <build>/fake/): every backend name is the fake
// engine, so the whole verbs path -- libibverbs, shim, launcher, provider,
// simulation thread -- runs before (and independently of) the real engine.
#include <stdexcept>

#include "fake_device.h"

namespace rocenic {

std::unique_ptr<Device> make_device(const std::string& backend, const DeviceOptions&) {
  if (backend != "model" && backend != "rtl" && backend != "cosim")
    throw std::invalid_argument("backend '" + backend + "': must be model, rtl or cosim");
  return std::make_unique<test::FakeDevice>();
}

}  // namespace rocenic
