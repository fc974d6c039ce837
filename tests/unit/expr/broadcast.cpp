// dg::broadcast_to: the extents given for the operand's own dims must be its extents.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <string>

namespace dg = dimgraph;

namespace {
struct B : dg::dim<"b"> {};
struct F : dg::dim<"f", 3> {};
}  // namespace

TEST_CASE("broadcast_to: an extent given for a dim the operand has must be its extent") {
  const auto x = dg::iota<float, B>(dg::extent<B>(2));
  auto longer = [&] { return dg::broadcast_to<B, F>(x, dg::extent<B>(5)); };
  CHECK_THROWS_WITH_AS(
      (void)longer(), "dimgraph: broadcast_to: dim 'b' has extent 2 in the operand, but 5 is given",
      dg::shape_error);
  auto wider = [] {
    return dg::broadcast_to<F, B>(dg::full<float, F>(1.0f), dg::extent<F>(4), dg::extent<B>(1));
  };
  CHECK_THROWS_WITH_AS(
      (void)wider(), "dimgraph: broadcast_to: dim 'f' has extent 3 in the operand, but 4 is given",
      dg::shape_error);
  // No extent is needed for a new static dim.
  const dg::tensor<float, B, F> z = dg::broadcast_to<B, F>(x);
  REQUIRE(z.extent<B>() == 2);
  CHECK(z(1, 2) == 1.0f);
  // The same extent is accepted, and the result repeats x along the new dim.
  const dg::tensor<float, F, B> y = dg::broadcast_to<F, B>(x, dg::extent<B>(2));
  REQUIRE(y.extent<B>() == 2);
  for (std::size_t f = 0; f < 3; ++f)
    for (std::size_t b = 0; b < 2; ++b) CHECK(y(f, b) == static_cast<float>(b));
}
