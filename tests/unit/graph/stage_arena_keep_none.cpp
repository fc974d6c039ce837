// DIMGRAPH_CONFIG_SCAN_KEEP_BYTES = 0: a hoisting scan keeps nothing for its next run; every
// lease takes a store of its own, and a scan still computes what it does with the default.
// (The knob is read only by stage_lease<Store>, instantiated here with this file's own store
// type, so this file may set it otherwise than the rest of the suite.)
#define DIMGRAPH_CONFIG_SCAN_KEEP_BYTES 0
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cstddef>

namespace dg = dimgraph;

namespace {
struct keep_none_store {
  int renewed = 0;
  std::size_t held = 0;
  void renew() { ++renewed; }
  void finish() {}
  std::size_t bytes() const { return held; }
  void release() { held = 0; }
};
}  // namespace

TEST_CASE("stage_lease with nothing kept: each run takes a store of its own") {
  {
    dg::detail::stage_lease<keep_none_store> lease;
    CHECK(lease.store().renewed == 1);
  }
  {
    dg::detail::stage_lease<keep_none_store> lease;
    CHECK(lease.store().renewed == 1);  // a new one, not the last run's
    // (Nothing was kept: the thread's pair for this store type is untouched.)
    CHECK(dg::detail::thread_kept_stage<keep_none_store>().store.renewed == 0);
  }
}
