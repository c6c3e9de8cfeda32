// The provider side of libibverbs' private ABI, IBVERBS_PRIVATE_34 (rdma-core 44).
//
// Debian ships neither rdma-core's libibverbs/driver.h nor its source package,
// so these declarations were written here from reading the public rdma-core
// source at tag v44.0 (libibverbs/driver.h, device.c, init.c, dummy_ops.c).
// Only the layouts libibverbs and the provider exchange are declared; every
// layout this provider relies on has a size/offset check below, written for
// LP64 (x86_64, aarch64). If libibverbs' private ABI number changes, the
// symbol verbs_register_driver_34 no longer exists and the provider fails to
// load: these declarations must then be re-read from the matching tag.
#pragma once

#include <infiniband/verbs.h>
#include <sys/types.h>
#include <time.h>

#include <cstddef>
#include <cstdint>

extern "C" {

// ccan/list.h's struct list_node: libibverbs links devices into lists.
struct verbs_list_node {
  verbs_list_node* next;
  verbs_list_node* prev;
};

// ---- device matching (driver.h: struct verbs_match_ent, VERBS_MATCH_*)
enum {
  VERBS_MATCH_SENTINEL = 0,
  VERBS_MATCH_PCI = 1,
  VERBS_MATCH_MODALIAS = 2,
  VERBS_MATCH_DRIVER_ID = 3,
};

struct verbs_match_ent {
  void* driver_data;
  union {
    const char* modalias;  // an fnmatch(3) pattern
    uint64_t driver_id;
  } u;
  uint16_t vendor;
  uint16_t device;
  uint8_t kind;  // VERBS_MATCH_*; a zeroed entry ends the table
};

// A device libibverbs found under $SYSFS_PATH/class/infiniband_verbs.
struct verbs_sysfs_dev {
  verbs_list_node entry;
  void* provider_data;
  const verbs_match_ent* match;
  unsigned int flags;
  char sysfs_name[IBV_SYSFS_NAME_MAX];  // "uverbs0"
  dev_t sysfs_cdev;
  char ibdev_name[IBV_SYSFS_NAME_MAX];  // "rocenic0"
  char ibdev_path[IBV_SYSFS_PATH_MAX];
  char modalias[512];
  uint64_t node_guid;
  uint32_t driver_id;
  enum ibv_node_type node_type;
  int ibdev_idx;
  uint32_t num_ports;
  uint32_t abi_ver;  // uverbsN/abi_version
  struct timespec time_created;
};

struct verbs_device;

// What a provider registers (verbs_register_driver_34).
struct verbs_device_ops {
  const char* name;
  uint32_t match_min_abi_version;
  uint32_t match_max_abi_version;
  const verbs_match_ent* match_table;
  const verbs_device_ops** static_providers;
  bool (*match_device)(verbs_sysfs_dev* sysfs_dev);
  // Owns cmd_fd: must close it (verbs_uninit_context does) on failure.
  verbs_context* (*alloc_context)(ibv_device* device, int cmd_fd, void* private_data);
  verbs_context* (*import_context)(ibv_device* device, int cmd_fd);
  verbs_device* (*alloc_device)(verbs_sysfs_dev* sysfs_dev);
  void (*uninit_device)(verbs_device* device);
};

// Allocated by the provider's alloc_device, freed by its uninit_device when
// libibverbs drops the last reference. libibverbs fills every field after
// alloc_device returns; the provider only needs `device` zeroed.
struct verbs_device {
  ibv_device device;  // libibverbs reaches the wrapper with container_of
  const verbs_device_ops* ops;
  int refcount;  // atomic_int in libibverbs; never touched by the provider
  verbs_list_node entry;
  verbs_sysfs_dev* sysfs;
  uint64_t core_support;
};

// ---- wrappers of public objects (driver.h), for the verbs of later steps
enum ibv_mr_type {
  IBV_MR_TYPE_MR,
  IBV_MR_TYPE_NULL_MR,
  IBV_MR_TYPE_IMPORTED_MR,
  IBV_MR_TYPE_DMABUF_MR,
};

struct verbs_mr {
  ibv_mr ibv_mr;
  enum ibv_mr_type mr_type;
  int access;
};

struct verbs_xrcd {
  ibv_xrcd xrcd;
  uint32_t comp_mask;
  uint32_t handle;
};

// verbs_qp::comp_mask bits (driver.h): VERBS_QP_EX makes ibv_qp_to_qp_ex()
// return the qp_ex of a QP created with send_ops_flags.
enum {
  VERBS_QP_XRCD = 1 << 0,
  VERBS_QP_EX = 1 << 1,
};

struct verbs_qp {
  union {
    ibv_qp qp;
    ibv_qp_ex qp_ex;
  };
  uint32_t comp_mask;
  verbs_xrcd* xrcd;
};

struct verbs_cq {
  union {
    ibv_cq cq;
    ibv_cq_ex cq_ex;
  };
};

// ---- the context operations: 76 entry points, sorted by name, order is ABI.
// libibverbs copies the non-NULL ones over its EOPNOTSUPP defaults.
struct verbs_context_ops {
  int (*advise_mr)(ibv_pd* pd, enum ibv_advise_mr_advice advice, uint32_t flags, ibv_sge* sg_list, uint32_t num_sges);
  ibv_dm* (*alloc_dm)(ibv_context* context, ibv_alloc_dm_attr* attr);
  ibv_mw* (*alloc_mw)(ibv_pd* pd, enum ibv_mw_type type);
  ibv_mr* (*alloc_null_mr)(ibv_pd* pd);
  ibv_pd* (*alloc_parent_domain)(ibv_context* context, ibv_parent_domain_init_attr* attr);
  ibv_pd* (*alloc_pd)(ibv_context* context);
  ibv_td* (*alloc_td)(ibv_context* context, ibv_td_init_attr* init_attr);
  void (*async_event)(ibv_context* context, ibv_async_event* event);
  int (*attach_counters_point_flow)(ibv_counters* counters, ibv_counter_attach_attr* attr, ibv_flow* flow);
  int (*attach_mcast)(ibv_qp* qp, const ibv_gid* gid, uint16_t lid);
  int (*bind_mw)(ibv_qp* qp, ibv_mw* mw, ibv_mw_bind* mw_bind);
  int (*close_xrcd)(ibv_xrcd* xrcd);
  void (*cq_event)(ibv_cq* cq);
  ibv_ah* (*create_ah)(ibv_pd* pd, ibv_ah_attr* attr);
  ibv_counters* (*create_counters)(ibv_context* context, ibv_counters_init_attr* init_attr);
  ibv_cq* (*create_cq)(ibv_context* context, int cqe, ibv_comp_channel* channel, int comp_vector);
  ibv_cq_ex* (*create_cq_ex)(ibv_context* context, ibv_cq_init_attr_ex* init_attr);
  ibv_flow* (*create_flow)(ibv_qp* qp, ibv_flow_attr* flow_attr);
  ibv_flow_action* (*create_flow_action_esp)(ibv_context* context, ibv_flow_action_esp_attr* attr);
  ibv_qp* (*create_qp)(ibv_pd* pd, ibv_qp_init_attr* attr);
  ibv_qp* (*create_qp_ex)(ibv_context* context, ibv_qp_init_attr_ex* qp_init_attr_ex);
  ibv_rwq_ind_table* (*create_rwq_ind_table)(ibv_context* context, ibv_rwq_ind_table_init_attr* init_attr);
  ibv_srq* (*create_srq)(ibv_pd* pd, ibv_srq_init_attr* srq_init_attr);
  ibv_srq* (*create_srq_ex)(ibv_context* context, ibv_srq_init_attr_ex* srq_init_attr_ex);
  ibv_wq* (*create_wq)(ibv_context* context, ibv_wq_init_attr* wq_init_attr);
  int (*dealloc_mw)(ibv_mw* mw);
  int (*dealloc_pd)(ibv_pd* pd);
  int (*dealloc_td)(ibv_td* td);
  int (*dereg_mr)(verbs_mr* vmr);
  int (*destroy_ah)(ibv_ah* ah);
  int (*destroy_counters)(ibv_counters* counters);
  int (*destroy_cq)(ibv_cq* cq);
  int (*destroy_flow)(ibv_flow* flow);
  int (*destroy_flow_action)(ibv_flow_action* action);
  int (*destroy_qp)(ibv_qp* qp);
  int (*destroy_rwq_ind_table)(ibv_rwq_ind_table* rwq_ind_table);
  int (*destroy_srq)(ibv_srq* srq);
  int (*destroy_wq)(ibv_wq* wq);
  int (*detach_mcast)(ibv_qp* qp, const ibv_gid* gid, uint16_t lid);
  void (*free_context)(ibv_context* context);
  int (*free_dm)(ibv_dm* dm);
  int (*get_srq_num)(ibv_srq* srq, uint32_t* srq_num);
  ibv_dm* (*import_dm)(ibv_context* context, uint32_t dm_handle);
  ibv_mr* (*import_mr)(ibv_pd* pd, uint32_t mr_handle);
  ibv_pd* (*import_pd)(ibv_context* context, uint32_t pd_handle);
  int (*modify_cq)(ibv_cq* cq, ibv_modify_cq_attr* attr);
  int (*modify_flow_action_esp)(ibv_flow_action* action, ibv_flow_action_esp_attr* attr);
  int (*modify_qp)(ibv_qp* qp, ibv_qp_attr* attr, int attr_mask);
  int (*modify_qp_rate_limit)(ibv_qp* qp, ibv_qp_rate_limit_attr* attr);
  int (*modify_srq)(ibv_srq* srq, ibv_srq_attr* srq_attr, int srq_attr_mask);
  int (*modify_wq)(ibv_wq* wq, ibv_wq_attr* wq_attr);
  ibv_qp* (*open_qp)(ibv_context* context, ibv_qp_open_attr* attr);
  ibv_xrcd* (*open_xrcd)(ibv_context* context, ibv_xrcd_init_attr* xrcd_init_attr);
  int (*poll_cq)(ibv_cq* cq, int num_entries, ibv_wc* wc);
  int (*post_recv)(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr);
  int (*post_send)(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr);
  int (*post_srq_ops)(ibv_srq* srq, ibv_ops_wr* op, ibv_ops_wr** bad_op);
  int (*post_srq_recv)(ibv_srq* srq, ibv_recv_wr* recv_wr, ibv_recv_wr** bad_recv_wr);
  // ibv_query_device() lands here too, with input NULL and attr_size =
  // sizeof(ibv_device_attr): write no more than attr_size bytes.
  int (*query_device_ex)(ibv_context* context, const ibv_query_device_ex_input* input, ibv_device_attr_ex* attr,
                         size_t attr_size);
  int (*query_ece)(ibv_qp* qp, ibv_ece* ece);
  int (*query_port)(ibv_context* context, uint8_t port_num, ibv_port_attr* port_attr);
  int (*query_qp)(ibv_qp* qp, ibv_qp_attr* attr, int attr_mask, ibv_qp_init_attr* init_attr);
  int (*query_qp_data_in_order)(ibv_qp* qp, enum ibv_wr_opcode op, uint32_t flags);
  int (*query_rt_values)(ibv_context* context, ibv_values_ex* values);
  int (*query_srq)(ibv_srq* srq, ibv_srq_attr* srq_attr);
  int (*read_counters)(ibv_counters* counters, uint64_t* counters_value, uint32_t ncounters, uint32_t flags);
  ibv_mr* (*reg_dm_mr)(ibv_pd* pd, ibv_dm* dm, uint64_t dm_offset, size_t length, unsigned int access);
  ibv_mr* (*reg_dmabuf_mr)(ibv_pd* pd, uint64_t offset, size_t length, uint64_t iova, int fd, int access);
  ibv_mr* (*reg_mr)(ibv_pd* pd, void* addr, size_t length, uint64_t hca_va, int access);
  int (*req_notify_cq)(ibv_cq* cq, int solicited_only);
  int (*rereg_mr)(verbs_mr* vmr, int flags, ibv_pd* pd, void* addr, size_t length, int access);
  int (*resize_cq)(ibv_cq* cq, int cqe);
  int (*set_ece)(ibv_qp* qp, ibv_ece* ece);
  void (*unimport_dm)(ibv_dm* dm);
  void (*unimport_mr)(ibv_mr* mr);
  void (*unimport_pd)(ibv_pd* pd);
};

// ---- entry points exported by libibverbs.so.1 under IBVERBS_PRIVATE_34
void verbs_register_driver_34(const verbs_device_ops* ops);
// calloc(alloc_size) and initialise the verbs_context at byte offset
// (uintptr_t)context_offset inside it (cmd_fd, async_fd = -1, default ops).
// On failure it closes cmd_fd, sets errno and returns NULL.
void* _verbs_init_and_alloc_context(ibv_device* device, int cmd_fd, size_t alloc_size, verbs_context* context_offset,
                                    uint32_t driver_id);
// Frees libibverbs' private part, closes cmd_fd and async_fd (if not -1),
// drops the device reference. The provider frees its own allocation.
void verbs_uninit_context(verbs_context* context);
void verbs_set_ops(verbs_context* vctx, const verbs_context_ops* ops);
// Fills the public part of a provider-created CQ (for create_cq_ex paths).
void verbs_init_cq(ibv_cq* cq, ibv_context* context, ibv_comp_channel* channel, void* cq_context);

}  // extern "C"

// ---- layout checks (LP64), against the installed <infiniband/verbs.h>
static_assert(sizeof(void*) == 8, "these layouts are written for LP64");
static_assert(sizeof(ibv_device) == 16 + 4 + 4 + 2 * IBV_SYSFS_NAME_MAX + 2 * IBV_SYSFS_PATH_MAX,
              "struct ibv_device changed");
static_assert(sizeof(ibv_context_ops) == 32 * sizeof(void*), "struct ibv_context_ops changed");
static_assert(offsetof(ibv_context, cmd_fd) == 8 + sizeof(ibv_context_ops) &&
                  offsetof(ibv_context, async_fd) == offsetof(ibv_context, cmd_fd) + 4 && sizeof(ibv_context) == 328,
              "struct ibv_context changed");
// verbs_context: the public ibv_context is the LAST member, right after sz.
static_assert(offsetof(verbs_context, context) + sizeof(ibv_context) == sizeof(verbs_context),
              "ibv_context must be the last member of verbs_context");
static_assert(offsetof(verbs_context, sz) + sizeof(size_t) == offsetof(verbs_context, context),
              "verbs_context::sz must precede the context");
static_assert(sizeof(verbs_match_ent) == 24 && offsetof(verbs_match_ent, kind) == 20, "verbs_match_ent");
static_assert(offsetof(verbs_sysfs_dev, sysfs_name) == 36 && offsetof(verbs_sysfs_dev, sysfs_cdev) == 104 &&
                  offsetof(verbs_sysfs_dev, ibdev_name) == 112 && offsetof(verbs_sysfs_dev, ibdev_path) == 176 &&
                  offsetof(verbs_sysfs_dev, modalias) == 432 && offsetof(verbs_sysfs_dev, node_guid) == 944 &&
                  offsetof(verbs_sysfs_dev, abi_ver) == 968 && sizeof(verbs_sysfs_dev) == 992,
              "verbs_sysfs_dev");
static_assert(sizeof(verbs_device_ops) == 72 && offsetof(verbs_device_ops, alloc_context) == 40 &&
                  offsetof(verbs_device_ops, uninit_device) == 64,
              "verbs_device_ops");
static_assert(offsetof(verbs_device, device) == 0 && offsetof(verbs_device, ops) == 664 &&
                  offsetof(verbs_device, sysfs) == 696 && sizeof(verbs_device) == 712,
              "verbs_device");
static_assert(sizeof(verbs_context_ops) == 76 * sizeof(void*), "verbs_context_ops has 76 entries in v44");
static_assert(offsetof(verbs_context_ops, alloc_pd) == 5 * 8 && offsetof(verbs_context_ops, free_context) == 39 * 8 &&
                  offsetof(verbs_context_ops, query_device_ex) == 58 * 8 &&
                  offsetof(verbs_context_ops, query_port) == 60 * 8 &&
                  offsetof(verbs_context_ops, unimport_pd) == 75 * 8,
              "verbs_context_ops order");
static_assert(offsetof(verbs_mr, mr_type) == sizeof(ibv_mr), "verbs_mr");
static_assert(offsetof(ibv_qp_ex, qp_base) == 0, "ibv_qp_ex must start with its ibv_qp");
static_assert(offsetof(verbs_qp, comp_mask) == sizeof(ibv_qp_ex), "verbs_qp");
