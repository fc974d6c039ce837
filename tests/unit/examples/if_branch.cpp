// examples/if_branch: the traced If graph gives x + z or x + w exactly, with a run-time and a
// compile-time condition.
#include "if_branch.hpp"

#include <doctest/doctest.h>

#include <cstddef>

using namespace if_example;

namespace {

struct operands {
  value_t x = dg::uniform<float, Rows, Cols>(21, -10.0f, 10.0f);
  value_t y = dg::uniform<float, Rows, Cols>(22, -10.0f, 10.0f);
  value_t z = dg::uniform<float, Rows, Cols>(23, -10.0f, 10.0f);
  value_t w = dg::uniform<float, Rows, Cols>(24, -10.0f, 10.0f);
};

}  // namespace

TEST_CASE("example if_branch: a run-time condition gives x + z or x + w exactly") {
  const operands o;
  const auto g = graph();
  for (bool c : {true, false}) {
    const value_t r = g(dg::full<bool>(c), o.x, o.y, o.z, o.w);
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t j = 0; j < 4; ++j) CHECK(r(i, j) == o.x(i, j) + (c ? o.z(i, j) : o.w(i, j)));
  }
}

TEST_CASE("example if_branch: a compile-time condition gives its branch's values exactly") {
  const operands o;
  const value_t t = static_graph<true>()(o.x, o.y, o.z, o.w);
  const value_t f = static_graph<false>()(o.x, o.y, o.z, o.w);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      CHECK(t(i, j) == o.x(i, j) + o.z(i, j));
      CHECK(f(i, j) == o.x(i, j) + o.w(i, j));
    }
}
