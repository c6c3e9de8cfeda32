// Device objects and contexts: the engine is created and programmed by the
// first context opened on the device, and shared by every later one.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "provider.h"

namespace rocenic::driver {
namespace {

void report(const std::string& what) { std::fprintf(stderr, "rocenic: %s\n", what.c_str()); }

// The engine of this device, created by its first context; nullptr with
// *errnum set (and a message on stderr) when it cannot be created.
Engine* acquire_engine(RocenicDevice* d, int* errnum) {
  std::lock_guard<std::mutex> lock(d->state->mu);
  if (!d->state->engine) {
    const char* backend = std::getenv("ROCENIC_BACKEND");
    const char* config_path = std::getenv("ROCENIC_CONFIG");
    if (!config_path || !*config_path) {
      report("ROCENIC_CONFIG is not set: run the program under rocenic-run");
      *errnum = EINVAL;
      return nullptr;
    }
    Config cfg;
    std::string err;
    if (!read_config_file(config_path, &cfg, &err)) {
      report(err);
      *errnum = EINVAL;
      return nullptr;
    }
    d->state->engine = Engine::open(backend && *backend ? backend : "model", cfg, &err, errnum);
    if (!d->state->engine) {
      report(err);
      return nullptr;
    }
  }
  ++d->state->contexts;
  return d->state->engine.get();
}

// The last context closed: the NIC goes away with it (simulation thread
// stopped, wire left, cosim summary printed).
void release_engine(RocenicDevice* d) {
  std::unique_ptr<Engine> last;
  {
    std::lock_guard<std::mutex> lock(d->state->mu);
    if (d->state->contexts && --d->state->contexts == 0) last = std::move(d->state->engine);
  }
}

}  // namespace

verbs_device* alloc_device(verbs_sysfs_dev*) {
  RocenicDevice* d = new (std::nothrow) RocenicDevice{};  // zeroed: libibverbs asserts _ops is NULL
  if (!d) return nullptr;
  d->state = new (std::nothrow) DeviceState;
  if (!d->state) {
    delete d;
    return nullptr;
  }
  return &d->vdev;
}

void uninit_device(verbs_device* vdev) {
  RocenicDevice* d = to_device(&vdev->device);
  delete d->state;
  delete d;
}

verbs_context* alloc_context(ibv_device* ibdev, int cmd_fd, void*) {
  // Owns cmd_fd from here: on failure it is closed (by libibverbs' init or uninit).
  auto* ctx = static_cast<RocenicContext*>(_verbs_init_and_alloc_context(
      ibdev, cmd_fd, sizeof(RocenicContext), reinterpret_cast<verbs_context*>(offsetof(RocenicContext, vctx)), 0));
  if (!ctx) return nullptr;

  int errnum = 0;
  int pipe_fds[2] = {-1, -1};
  Engine* engine = acquire_engine(to_device(ibdev), &errnum);
  if (engine && pipe2(pipe_fds, O_CLOEXEC) != 0) errnum = errno;
  if (engine && !errnum) fcntl(pipe_fds[1], F_SETFL, O_NONBLOCK);  // events never block the simulation
  if (engine && !errnum) ctx->state = new (std::nothrow) ContextState;
  if (!engine || errnum || !ctx->state) {
    if (!errnum) errnum = ENOMEM;
    if (pipe_fds[0] >= 0) close(pipe_fds[0]);
    if (pipe_fds[1] >= 0) close(pipe_fds[1]);
    if (engine) release_engine(to_device(ibdev));
    delete ctx->state;
    verbs_uninit_context(&ctx->vctx);
    std::free(ctx);
    errno = errnum;
    return nullptr;
  }
  ctx->state->engine = engine;
  // Async events reach the application through async_fd, which libibverbs
  // reads as struct ib_uverbs_async_event_desc records; left at -1,
  // libibverbs would ask the (absent) kernel for one and fail. The provider
  // owns a pipe: the read end is async_fd (closed by verbs_uninit_context),
  // the write end stays here for the engine's events.
  ctx->vctx.context.async_fd = pipe_fds[0];
  ctx->state->async_event_wr = pipe_fds[1];
  ctx->vctx.context.num_comp_vectors = 1;
  verbs_set_ops(&ctx->vctx, &context_ops());

  // Test hook: the GID table as the engine holds it, read back over CSR.
  if (const char* dump = std::getenv("ROCENIC_GID_DUMP"); dump && *dump && *dump != '0')
    std::fputs(engine->dump_gid_table().c_str(), stderr);
  return &ctx->vctx;
}

void free_context(ibv_context* context) {
  RocenicContext* ctx = to_context(context);
  RocenicDevice* dev = to_device(context->device);
  if (ctx->state->async_event_wr >= 0) close(ctx->state->async_event_wr);
  delete ctx->state;
  release_engine(dev);
  verbs_uninit_context(&ctx->vctx);
  std::free(ctx);  // allocated by _verbs_init_and_alloc_context (calloc)
}

}  // namespace rocenic::driver
