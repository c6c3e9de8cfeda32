// The context operations table: the verbs implemented so far, and a "not
// supported yet" answer for every other one, following each verb's own error
// convention (pointer verbs: NULL with errno EOPNOTSUPP; int verbs: the
// positive error EOPNOTSUPP, errno set too). Nothing pretends to succeed.
#include <cerrno>
#include <type_traits>

#include "provider.h"

namespace rocenic::driver {
namespace {

template <typename Fn>
struct Unsupported;

template <typename R, typename... Args>
struct Unsupported<R (*)(Args...)> {
  static R call(Args...) {
    errno = EOPNOTSUPP;
    if constexpr (std::is_pointer_v<R>) {
      return nullptr;
    } else if constexpr (std::is_same_v<R, int>) {
      return EOPNOTSUPP;
    }
  }
};

int post_srq_recv_unsupported(ibv_srq*, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) {
  *bad_wr = wr;
  return EOPNOTSUPP;
}
int post_srq_ops_unsupported(ibv_srq*, ibv_ops_wr* op, ibv_ops_wr** bad_op) {
  *bad_op = op;
  return EOPNOTSUPP;
}
int query_qp_data_in_order_unsupported(ibv_qp*, ibv_wr_opcode, uint32_t) {
  return 0;  // a capability mask: 0 = no in-order guarantee is claimed
}
int rereg_mr_unsupported(verbs_mr*, int, ibv_pd*, void*, size_t, int) {
  errno = EOPNOTSUPP;
  return IBV_REREG_MR_ERR_INPUT;
}
// libibverbs calls this after reading an async event (CQ errors): the
// engine needs no acknowledgement.
void async_event_none(ibv_context*, ibv_async_event*) {}

verbs_context_ops make_ops() {
  verbs_context_ops o{};
#define ROCENIC_UNSUPPORTED(name) o.name = Unsupported<decltype(o.name)>::call
  ROCENIC_UNSUPPORTED(advise_mr);
  ROCENIC_UNSUPPORTED(alloc_dm);
  o.alloc_mw = alloc_mw;
  ROCENIC_UNSUPPORTED(alloc_null_mr);
  ROCENIC_UNSUPPORTED(alloc_parent_domain);
  o.alloc_pd = alloc_pd;
  ROCENIC_UNSUPPORTED(alloc_td);
  o.async_event = async_event_none;
  ROCENIC_UNSUPPORTED(attach_counters_point_flow);
  ROCENIC_UNSUPPORTED(attach_mcast);
  o.bind_mw = bind_mw;
  ROCENIC_UNSUPPORTED(close_xrcd);
  o.cq_event = cq_event;
  o.create_ah = create_ah;
  ROCENIC_UNSUPPORTED(create_counters);
  o.create_cq = create_cq;
  ROCENIC_UNSUPPORTED(create_cq_ex);
  ROCENIC_UNSUPPORTED(create_flow);
  ROCENIC_UNSUPPORTED(create_flow_action_esp);
  o.create_qp = create_qp;
  o.create_qp_ex = create_qp_ex;
  ROCENIC_UNSUPPORTED(create_rwq_ind_table);
  ROCENIC_UNSUPPORTED(create_srq);
  ROCENIC_UNSUPPORTED(create_srq_ex);
  ROCENIC_UNSUPPORTED(create_wq);
  o.dealloc_mw = dealloc_mw;
  o.dealloc_pd = dealloc_pd;
  ROCENIC_UNSUPPORTED(dealloc_td);
  o.dereg_mr = dereg_mr;
  o.destroy_ah = destroy_ah;
  ROCENIC_UNSUPPORTED(destroy_counters);
  o.destroy_cq = destroy_cq;
  ROCENIC_UNSUPPORTED(destroy_flow);
  ROCENIC_UNSUPPORTED(destroy_flow_action);
  o.destroy_qp = destroy_qp;
  ROCENIC_UNSUPPORTED(destroy_rwq_ind_table);
  ROCENIC_UNSUPPORTED(destroy_srq);
  ROCENIC_UNSUPPORTED(destroy_wq);
  ROCENIC_UNSUPPORTED(detach_mcast);
  o.free_context = free_context;
  ROCENIC_UNSUPPORTED(free_dm);
  ROCENIC_UNSUPPORTED(get_srq_num);
  ROCENIC_UNSUPPORTED(import_dm);
  ROCENIC_UNSUPPORTED(import_mr);
  ROCENIC_UNSUPPORTED(import_pd);
  ROCENIC_UNSUPPORTED(modify_cq);
  ROCENIC_UNSUPPORTED(modify_flow_action_esp);
  o.modify_qp = modify_qp;
  ROCENIC_UNSUPPORTED(modify_qp_rate_limit);
  ROCENIC_UNSUPPORTED(modify_srq);
  ROCENIC_UNSUPPORTED(modify_wq);
  ROCENIC_UNSUPPORTED(open_qp);
  ROCENIC_UNSUPPORTED(open_xrcd);
  o.poll_cq = poll_cq;
  o.post_recv = post_recv;
  o.post_send = post_send;
  o.post_srq_ops = post_srq_ops_unsupported;
  o.post_srq_recv = post_srq_recv_unsupported;
  o.query_device_ex = query_device_ex;
  ROCENIC_UNSUPPORTED(query_ece);
  o.query_port = query_port;
  o.query_qp = query_qp;
  o.query_qp_data_in_order = query_qp_data_in_order_unsupported;
  ROCENIC_UNSUPPORTED(query_rt_values);
  ROCENIC_UNSUPPORTED(query_srq);
  ROCENIC_UNSUPPORTED(read_counters);
  ROCENIC_UNSUPPORTED(reg_dm_mr);
  ROCENIC_UNSUPPORTED(reg_dmabuf_mr);
  o.reg_mr = reg_mr;
  o.req_notify_cq = req_notify_cq;
  o.rereg_mr = rereg_mr_unsupported;
  ROCENIC_UNSUPPORTED(resize_cq);
  ROCENIC_UNSUPPORTED(set_ece);
  ROCENIC_UNSUPPORTED(unimport_dm);
  ROCENIC_UNSUPPORTED(unimport_mr);
  ROCENIC_UNSUPPORTED(unimport_pd);
#undef ROCENIC_UNSUPPORTED
  return o;
}

}  // namespace

const verbs_context_ops& context_ops() {
  static const verbs_context_ops ops = make_ops();
  return ops;
}

}  // namespace rocenic::driver
