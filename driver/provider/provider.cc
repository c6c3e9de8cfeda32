// Registration with libibverbs: the only code that runs when the library is
// loaded. libibverbs dlopen()s librocenic-rdmav34.so (RDMAV_DRIVERS) and the
// constructor below hands it the device operations; nothing is exported.
#include "provider.h"

namespace rocenic::driver {
namespace {

// Matched by IB device name: for a device without a modalias file,
// libibverbs tries "rdma_device:N<ibdev>" against each modalias pattern, so
// this takes rocenic0, rocenic1, ...
const verbs_match_ent kMatchTable[] = {
    {nullptr, {"rdma_device:*Nrocenic*"}, 0, 0, VERBS_MATCH_MODALIAS},
    {},
};

const verbs_device_ops kDeviceOps = {
    "rocenic",
    kUverbsAbiVersion,  // match_min_abi_version: uverbsN/abi_version
    kUverbsAbiVersion,  // match_max_abi_version
    kMatchTable,
    nullptr,  // static_providers
    nullptr,  // match_device: the table decides
    alloc_context,
    nullptr,  // import_context: no shared contexts without a kernel
    alloc_device,      uninit_device,
};

__attribute__((constructor)) void register_rocenic() { verbs_register_driver_34(&kDeviceOps); }

}  // namespace
}  // namespace rocenic::driver
