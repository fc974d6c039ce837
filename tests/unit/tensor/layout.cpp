// tensor: the size of all-static tensors, and the state a move leaves behind.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace dg = dimgraph;

namespace {
struct A8 : dg::dim<"a", 8> {};
struct B3 : dg::dim<"b", 3> {};
struct C16 : dg::dim<"c", 16> {};
struct Time : dg::dim<"time"> {};
struct Beam : dg::dim<"beam", dg::range{2, 8}> {};

// An all-static tensor is its elements: no extents, no strides, no pointer.
static_assert(sizeof(dg::tensor<float, A8>) == 8 * sizeof(float));
static_assert(alignof(dg::tensor<float, A8>) == 32);
static_assert(sizeof(dg::tensor<float, A8, C16>) == 8 * 16 * sizeof(float));
static_assert(alignof(dg::tensor<float, A8, C16>) == 64);
static_assert(sizeof(dg::tensor<double, A8>) == 64);
static_assert(sizeof(dg::tensor<double>) == sizeof(double));
static_assert(sizeof(dg::tensor<std::int8_t, B3>) == 4);  // 3 bytes, aligned to 4
static_assert(sizeof(dg::tensor<float, A8, B3>) == 128);  // 96 bytes, aligned to 64
static_assert(std::is_trivially_copyable_v<dg::tensor<float, A8>>);
static_assert(std::is_nothrow_move_constructible_v<dg::tensor<float, A8>>);

// Moving a tensor whose dims may be empty cannot throw; otherwise the moved-from tensor
// needs its smallest extents' elements.
static_assert(std::is_nothrow_move_constructible_v<dg::tensor<float, Time, A8>>);
static_assert(std::is_nothrow_move_assignable_v<dg::tensor<float, Time, A8>>);
static_assert(!std::is_nothrow_move_constructible_v<dg::tensor<float, Beam, A8>>);

// Above DIMGRAPH_CONFIG_INLINE_LIMIT (16 KiB) an all-static tensor keeps its elements on the
// heap: [64, 64] floats are 16 KiB (inline), [64, 65] one row more (not).
struct R64 : dg::dim<"r", 64> {};
struct C64 : dg::dim<"c", 64> {};
struct C65 : dg::dim<"c65", 65> {};
struct Rows : dg::dim<"rows", 1024> {};
struct Cols : dg::dim<"cols", 768> {};
static_assert(dg::tensor<float, R64, C64>::is_inline);
static_assert(sizeof(dg::tensor<float, R64, C64>) == 64 * 64 * sizeof(float));
static_assert(!dg::tensor<float, R64, C65>::is_inline);
static_assert(!dg::tensor<float, Rows, Cols>::is_inline);
static_assert(sizeof(dg::tensor<float, Rows, Cols>) <= 4 * sizeof(void*));
static_assert(!dg::tensor<float, Time, A8>::is_inline);
}  // namespace

TEST_CASE("tensor: a large all-static tensor holds a 64-byte aligned heap copy of its elements") {
  using big = dg::tensor<float, Rows, Cols>;
  const big x = dg::iota<float, Rows, Cols>();
  CHECK(reinterpret_cast<std::uintptr_t>(x.data()) % 64 == 0);
  CHECK(x.stride<Rows>() == 768);
  CHECK(x(1023, 767) == 1023.0f * 768.0f + 767.0f);
  big y = x;  // a deep copy
  y(0, 1) = -1.0f;
  CHECK(x(0, 1) == 1.0f);
  CHECK(y.data() != x.data());
}

TEST_CASE("tensor: moving a large all-static tensor moves its memory and leaves zeros") {
  using big = dg::tensor<float, R64, C65>;
  big x = dg::full<float, R64, C65>(2.5f);
  const float* memory = x.data();
  big y = std::move(x);
  CHECK(y.data() == memory);
  CHECK(y(63, 64) == 2.5f);
  // NOLINTBEGIN(bugprone-use-after-move): the moved-from state is what is tested.
  REQUIRE(x.data() != nullptr);
  for (std::size_t i = 0; i < x.size(); ++i) REQUIRE(x.data()[i] == 0.0f);
  x = y + 1.0f;
  CHECK(x(10, 10) == 3.5f);
  big z = std::move(y);
  y = std::move(x);  // move-assignment: the same
  CHECK(y(10, 10) == 3.5f);
  CHECK(x.size() == 64 * 65);
  CHECK(x(10, 10) == 0.0f);
  CHECK(z(10, 10) == 2.5f);
  // NOLINTEND(bugprone-use-after-move)
}

TEST_CASE("tensor: all-static strides are the row-major constants") {
  dg::tensor<float, A8, B3, C16> x;
  CHECK(x.stride<A8>() == 48);
  CHECK(x.stride<B3>() == 16);
  CHECK(x.stride<C16>() == 1);
  // Writing through position and through the row-major offset reach the same element.
  x(5, 2, 7) = 3.5f;
  CHECK(x.data()[5 * 48 + 2 * 16 + 7] == 3.5f);
  const auto v = x.view();
  CHECK(v.stride<A8>() == 48);
  CHECK(v(5, 2, 7) == 3.5f);
}

TEST_CASE("tensor: a moved-from dynamic tensor is empty, valid and can be assigned again") {
  dg::tensor<float, Time, A8> x(dg::extent<Time>(4));
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(i);
  const float* memory = x.data();

  dg::tensor<float, Time, A8> y = std::move(x);
  CHECK(y.data() == memory);
  CHECK(y.extent<Time>() == 4);
  // NOLINTBEGIN(bugprone-use-after-move): the moved-from state is what is tested.
  CHECK(x.size() == 0);
  CHECK(x.extent<Time>() == 0);
  CHECK(x.extent<A8>() == 8);
  CHECK(x.stride<Time>() == 8);
  CHECK(x == dg::tensor<float, Time, A8>(dg::extent<Time>(0)));

  // Assigned again: from an expression, then by copy.
  x = y * 2.0f;
  REQUIRE(x.extent<Time>() == 4);
  for (std::size_t i = 0; i < 32; ++i) CHECK(x.data()[i] == 2.0f * static_cast<float>(i));
  dg::tensor<float, Time, A8> z = std::move(x);
  x = y;
  CHECK(x.data() != y.data());
  for (std::size_t i = 0; i < 32; ++i) CHECK(x.data()[i] == static_cast<float>(i));

  // Move-assignment empties the source the same way.
  z = std::move(x);
  CHECK(x.size() == 0);
  CHECK(z.extent<Time>() == 4);
  CHECK(z.data()[31] == 31.0f);
  // NOLINTEND(bugprone-use-after-move)
}

TEST_CASE("tensor: a moved-from tensor with an interval dim keeps the smallest extent") {
  dg::tensor<int, Beam, B3> x(dg::extent<Beam>(5));
  x(4, 2) = 7;
  dg::tensor<int, Beam, B3> y = std::move(x);
  CHECK(y(4, 2) == 7);
  // NOLINTBEGIN(bugprone-use-after-move)
  REQUIRE(x.extent<Beam>() == 2);
  CHECK(x.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) CHECK(x.data()[i] == 0);
  x = y + 1;
  CHECK(x.extent<Beam>() == 5);
  CHECK(x(4, 2) == 8);
  // NOLINTEND(bugprone-use-after-move)
}

TEST_CASE("tensor: a self-move leaves the tensor as it was") {
  dg::tensor<int, Time> x(dg::extent<Time>(3));
  x(2) = 5;
  auto& alias = x;
  x = std::move(alias);
  CHECK(x.extent<Time>() == 3);
  CHECK(x(2) == 5);
}
