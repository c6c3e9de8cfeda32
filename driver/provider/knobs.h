// The administrators' knobs of the simulated port, as files in rocenic-run's
// tree, where Linux (mlx5 with MLNX_OFED, the rdma_cm configfs) has them:
//
//   class/infiniband/rocenic0/tc/1/traffic_class
//       read:  "Global tclass=N" (-1: none), then one line per rule
//              "src_ip=A,dst_ip=B/BITS,tclass=N" (IPv6: src_ip6=, dst_ip6=)
//       write: "N" or "tclass=N" sets the global value (-1 clears it); a
//              line with src_ip/dst_ip (optionally /BITS) and tclass=N adds
//              or replaces that rule, tclass=-1 removes it.
//       The global value wins over the rules, a matching rule over the QP's
//       own traffic class (the first matching rule in file order).
//   class/infiniband/rocenic0/tc/1/ttl
//       0 (none: each QP's hop limit) or 1..255: the TTL / hop limit of
//       every RoCE frame the port sends.
//   class/infiniband/rocenic0/device/roce_enable
//       1 or 0 (MLNX_OFED's PCI attribute; class/infiniband/<dev>/device is
//       the PCI device): 0 passes UDP 4791 to the host (the engine's bypass
//       port) and empties the GID table.
//   kernel/config/rdma_cm/rocenic0/ports/1/default_roce_mode
//       "RoCE v2" or "IB/RoCE v1": what rdma_cm connections use.
//   kernel/config/rdma_cm/rocenic0/ports/1/default_roce_tos
//       0..255: the TOS of rdma_cm connections that set none.
//
// Files are plain files: a write replaces their text, and whoever applies it
// (rocenic-ctl at once, the provider when it notices) rewrites the file in
// the read form. Text in the read form is a whole state; anything else is a
// command applied to the state held.
#pragma once

#include <string>
#include <vector>

#include "config.h"

namespace rocenic::driver {

struct TcRule {
  bool v6 = false;
  bool has_src = false, has_dst = false;
  Gid src{}, dst{};  // IPv4 held IPv4-mapped (::ffff:a.b.c.d), as GIDs are
  unsigned src_bits = 0, dst_bits = 0;  // prefix lengths (of the IPv4 or IPv6 address)
  int tclass = 0;
};

struct Knobs {
  int global_tclass = -1;  // -1: none
  std::vector<TcRule> rules;
  unsigned ttl = 0;  // 0: none
  bool roce_enable = true;
  bool roce_mode_v2 = true;  // default_roce_mode
  unsigned roce_tos = 0;     // default_roce_tos
};

// Paths below the tree's root ($SYSFS_PATH).
std::string traffic_class_path();
std::string ttl_path();
std::string roce_enable_path();
std::string roce_mode_path();
std::string roce_tos_path();

// The read forms.
std::string format_traffic_class(const Knobs& k);
std::string format_roce_mode(bool v2);  // "RoCE v2" / "IB/RoCE v1"

// Writes: false with *err saying what is wrong (k unchanged then).
bool write_traffic_class(const std::string& text, Knobs* k, std::string* err);
bool write_ttl(const std::string& text, Knobs* k, std::string* err);
bool write_roce_enable(const std::string& text, Knobs* k, std::string* err);
bool write_roce_mode(const std::string& text, Knobs* k, std::string* err);
bool write_roce_tos(const std::string& text, Knobs* k, std::string* err);

// The traffic class the port's rules give a QP from sgid to dgid: the first
// matching rule's, else -1 (the QP's own). The global value is not looked at
// here: the engine applies it to every frame (CSR TX_TCLASS) while it is
// set, so that clearing it gives every QP its own back.
int rule_tclass(const Knobs& k, const Gid& sgid, const Gid& dgid);

// The whole tree's knobs, each file read and applied in turn (a file that is
// missing or bad leaves its default); false with *err naming each bad file.
bool read_knobs(const std::string& root, Knobs* k, std::string* err);
// Writes every knob file in its read form, and the GID files as roce_enable
// says (empty when 0): what the launcher does first, and rocenic-ctl and the
// provider after each change. Files are replaced whole (written beside,
// then renamed). gid_tbl_len: the engine's table length.
bool write_knob_files(const std::string& root, const Knobs& k, std::string* err);
bool write_gid_files(const std::string& root, const Config& cfg, unsigned gid_tbl_len, bool enabled, std::string* err);
// Replaces root/rel with text + "\n" (written beside, then renamed).
bool replace_file(const std::string& root, const std::string& rel, const std::string& text, std::string* err);
// The text of root/rel (false: missing or unreadable).
bool read_file_text(const std::string& root, const std::string& rel, std::string* text);

}  // namespace rocenic::driver
