// The memory a hoisting scan's run leases (detail::stage_lease): the run after it on the same
// thread takes the same store and arena again; a run inside a run takes its own; a store over
// DIMGRAPH_CONFIG_SCAN_KEEP_BYTES is freed at the end; an exception leaves the store free for
// the next run. A stage_arena reuses its slots and counts their bytes.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <stdexcept>

namespace dg = dimgraph;

namespace {
// A store that counts the calls a lease makes on it, and holds `held` bytes.
template <int Tag>
struct counting_store {
  int renewed = 0, finished = 0, released = 0;
  std::size_t held = 0;
  void renew() { ++renewed; }
  void finish() { ++finished; }
  std::size_t bytes() const { return held; }
  void release() {
    ++released;
    held = 0;
  }
};

struct F : dg::dim<"f"> {};
}  // namespace

TEST_CASE("stage_lease: the next run on the thread takes the same store again") {
  using store = counting_store<0>;
  const store* first = nullptr;
  {
    dg::detail::stage_lease<store> lease;
    first = &lease.store();
    CHECK(lease.store().renewed == 1);
  }
  {
    dg::detail::stage_lease<store> lease;
    CHECK(&lease.store() == first);
    CHECK(lease.store().renewed == 2);
    CHECK(lease.store().finished == 1);
  }
}

TEST_CASE("stage_lease: a run inside a run of the same scan takes a store of its own") {
  using store = counting_store<1>;
  dg::detail::stage_lease<store> outer;
  {
    dg::detail::stage_lease<store> inner;
    CHECK(&inner.store() != &outer.store());
    CHECK(&inner.arena() != &outer.arena());
  }
  // The outer run's store is still the thread's: the inner one did not take or free it.
  CHECK(outer.store().renewed == 1);
  CHECK(outer.store().released == 0);
}

TEST_CASE("stage_lease: a store holding more than the cap is freed at the end of its run") {
  using store = counting_store<2>;
  {
    dg::detail::stage_lease<store> lease;
    lease.store().held = std::size_t{DIMGRAPH_CONFIG_SCAN_KEEP_BYTES};
  }
  {
    dg::detail::stage_lease<store> lease;
    CHECK(lease.store().released == 0);  // at the cap: kept
    lease.store().held = std::size_t{DIMGRAPH_CONFIG_SCAN_KEEP_BYTES} + 1;
  }
  dg::detail::stage_lease<store> lease;
  CHECK(lease.store().released == 1);
  CHECK(lease.store().held == 0);
}

TEST_CASE("stage_lease: a run that throws leaves the store to the next run") {
  using store = counting_store<3>;
  const store* first = nullptr;
  try {
    dg::detail::stage_lease<store> lease;
    first = &lease.store();
    throw std::runtime_error("body failed");
  } catch (const std::runtime_error&) {
  }
  dg::detail::stage_lease<store> lease;
  CHECK(&lease.store() == first);
  CHECK(lease.store().finished == 1);
}

TEST_CASE("stage_arena: the k-th tensor of a pass takes the k-th slot again, at any extent") {
  dg::detail::stage_arena arena;
  const dg::tensor<float, F> a = dg::full<float, F>(2.0f, dg::extent<F>(3));
  const float* slot = nullptr;
  {
    const auto v = arena.materialise(a + 1.0f);
    slot = v.data();
    CHECK(v(std::size_t{2}) == 3.0f);
  }
  CHECK(arena.bytes() == 3 * sizeof(float));
  arena.reset();
  {
    const auto v = arena.materialise(a * 4.0f);
    CHECK(v.data() == slot);  // same extents: the same elements
    CHECK(v(std::size_t{0}) == 8.0f);
  }
  arena.reset();
  const dg::tensor<float, F> b = dg::full<float, F>(1.0f, dg::extent<F>(10));
  {
    const auto v = arena.materialise(b - 3.0f);
    CHECK(v.extent<F>() == 10);
    CHECK(v(std::size_t{9}) == -2.0f);
  }
  CHECK(arena.bytes() == 10 * sizeof(float));
  arena.release();
  CHECK(arena.bytes() == 0);
  CHECK(arena.slots.empty());
}
