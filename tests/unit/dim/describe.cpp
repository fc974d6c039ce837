// describe<D>(): the dim algebra's notation, with parentheses exactly where needed.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

namespace dg = dimgraph;

namespace {
struct A : dg::dim<"a"> {};
struct B : dg::dim<"b"> {};
struct C : dg::dim<"c"> {};
struct KeyTotal : dg::dim<"key_total", 6> {};
struct Heads : dg::dim<"heads", 2> {};
constexpr A a;
constexpr B b;
constexpr C c;
}  // namespace

TEST_CASE("describe: tags by name, constants by value") {
  CHECK(dg::describe<A>() == "a");
  CHECK(dg::describe<dg::const_dim<7>>() == "7");
  CHECK(dg::describe<dg::batch>() == "batch");
}

TEST_CASE("describe: sums and products bind as in arithmetic") {
  CHECK(dg::describe<decltype((a + b) * c)>() == "a*c+b*c");
  CHECK(dg::describe<decltype(c * (a + b))>() == "c*(a+b)");
  CHECK(dg::describe<decltype(dg::c<2> + a + dg::c<2>)>() == "2+a+2");
  CHECK(dg::describe<decltype(dg::c<2> * a + b)>() == "2*a+b");
  CHECK(dg::describe<decltype(a * dg::c<2>)>() == "a*2");
}

TEST_CASE("describe: splits and removals parenthesise compound operands") {
  CHECK(dg::describe<decltype(KeyTotal{} / Heads{})>() == "key_total/heads");
  CHECK(dg::describe<decltype((a * b) / c)>() == "(a*b)/c");
  CHECK(dg::describe<decltype(a * (b / c))>() == "a*b/c");
  CHECK(dg::describe<decltype((dg::c<2> + a) - dg::c<2>)>() == "(2+a)-2");
  CHECK(dg::describe<decltype(c * (a - dg::c<1>))>() == "c*(a-1)");
  CHECK(dg::describe<decltype(dg::div_left(b, a))>() == "div_left(b,a)");
  CHECK(dg::describe<decltype(dg::sub_left(b, a))>() == "sub_left(b,a)");
  CHECK(dg::describe<decltype(dg::ceildiv(a + b, dg::c<2>))>() == "ceildiv(a+b,2)");
  CHECK(dg::describe<decltype(dg::floordiv(a, dg::c<3>))>() == "floordiv(a,3)");
}
