// dg::if_: run-time and compile-time conditions, only the chosen branch runs, outputs matched,
// errors thrown in a branch name it.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <tuple>
#include <type_traits>

#include "never_instantiated.hpp"

namespace dg = dimgraph;

namespace {

struct A : dg::dim<"a", 2> {};
struct B : dg::dim<"b", 4> {};
struct N : dg::dim<"n"> {};

using support::never_instantiated;

struct operands {
  dg::tensor<float, A, B> x = dg::uniform<float, A, B>(1, -1.0f, 1.0f);
  dg::tensor<float, A, B> y = dg::uniform<float, A, B>(2, -1.0f, 1.0f);
  dg::tensor<float, A, B> z = dg::uniform<float, A, B>(3, -1.0f, 1.0f);
  dg::tensor<float, A, B> w = dg::uniform<float, A, B>(4, -1.0f, 1.0f);
};

// The opset's If example: then x + z, else x + w.
auto then_branch = [](const auto& x, const auto&, const auto& z, const auto&) { return x + z; };
auto else_branch = [](const auto& x, const auto&, const auto&, const auto& w) { return x + w; };

}  // namespace

TEST_CASE("if_: a run-time bool gives x + z or x + w exactly") {
  const operands o;
  for (bool cond : {true, false}) {
    auto r = dg::if_(cond, then_branch, else_branch)(o.x, o.y, o.z, o.w);
    static_assert(std::is_same_v<decltype(r), dg::tensor<float, A, B>>);
    for (std::size_t a = 0; a < 2; ++a)
      for (std::size_t b = 0; b < 4; ++b)
        CHECK(r(a, b) == o.x(a, b) + (cond ? o.z(a, b) : o.w(a, b)));
  }
}

TEST_CASE("if_: a one-element boolean tensor is a condition, a larger one a shape_error") {
  const operands o;
  auto yes = dg::full<bool, dg::dim<"one", 1>>(true);
  auto r = dg::if_(yes, then_branch, else_branch)(o.x, o.y, o.z, o.w);
  CHECK(r(1, 3) == o.x(1, 3) + o.z(1, 3));
  auto no = dg::full<bool, N>(false, dg::extent<N>(1));
  auto s = dg::if_(no, then_branch, else_branch)(o.x, o.y, o.z, o.w);
  CHECK(s(1, 3) == o.x(1, 3) + o.w(1, 3));
  auto two = dg::full<bool, N>(true, dg::extent<N>(2));
  CHECK_THROWS_WITH_AS(dg::if_(two, then_branch, else_branch),
                       doctest::Contains("dimgraph: if_: the condition must have one element"),
                       dg::shape_error);
}

TEST_CASE("if_: only the chosen branch runs") {
  const operands o;
  int then_runs = 0, else_runs = 0;
  auto then_fn = [&](const auto& x) {
    ++then_runs;
    return x * 2.0f;
  };
  auto else_fn = [&](const auto& x) {
    ++else_runs;
    return x * 3.0f;
  };
  auto r = dg::if_(false, then_fn, else_fn)(o.x);
  CHECK(then_runs == 0);
  CHECK(else_runs == 1);
  CHECK(r(0, 0) == o.x(0, 0) * 3.0f);
  (void)dg::if_(true, then_fn, else_fn)(o.x);
  CHECK(then_runs == 1);
  CHECK(else_runs == 1);
}

TEST_CASE("if_: a compile-time condition never instantiates the other branch") {
  const operands o;
  auto good = [](const auto& x, const auto& y) { return x - y; };
  auto bad = [](const auto& x, const auto&) { return never_instantiated(x); };
  auto r1 = dg::if_(std::true_type{}, good, bad)(o.x, o.y);
  auto r2 = dg::if_(std::false_type{}, bad, good)(o.x, o.y);
  auto r3 = dg::if_(dg::c<true>, good, bad)(o.x, o.y);
  auto r4 = dg::if_(dg::c<false>, bad, good)(o.x, o.y);
  auto r5 = dg::if_(std::bool_constant<(2 > 1)>{}, good, bad)(o.x, o.y);
  for (std::size_t a = 0; a < 2; ++a)
    for (std::size_t b = 0; b < 4; ++b) {
      const float d = o.x(a, b) - o.y(a, b);
      CHECK(r1(a, b) == d);
      CHECK(r2(a, b) == d);
      CHECK(r3(a, b) == d);
      CHECK(r4(a, b) == d);
      CHECK(r5(a, b) == d);
    }
}

TEST_CASE("if_: the else outputs are permuted into the then-branch's dim order") {
  const operands o;
  const auto wt = dg::eval(dg::permute<B, A>(o.w));  // [B, A]
  auto then_fn = [](const auto& x, const auto&) { return x; };
  auto else_fn = [](const auto&, const auto& t) { return t * 1.0f; };  // [B, A]
  auto r = dg::if_(false, then_fn, else_fn)(o.x, wt);
  static_assert(std::is_same_v<decltype(r), dg::tensor<float, A, B>>);
  for (std::size_t a = 0; a < 2; ++a)
    for (std::size_t b = 0; b < 4; ++b) CHECK(r(a, b) == o.w(a, b));
}

TEST_CASE("if_: several outputs come back as a tuple") {
  const operands o;
  auto then_fn = [](const auto& x, const auto& y) { return std::tuple{x + y, dg::sum<B>(x)}; };
  auto else_fn = [](const auto& x, const auto& y) { return std::pair{x - y, dg::sum<B>(y)}; };
  for (bool cond : {true, false}) {
    auto [d, s] = dg::if_(cond, then_fn, else_fn)(o.x, o.y);
    static_assert(std::is_same_v<decltype(s), dg::tensor<float, A>>);
    for (std::size_t a = 0; a < 2; ++a) {
      float total = 0;
      for (std::size_t b = 0; b < 4; ++b) {
        CHECK(d(a, b) == (cond ? o.x(a, b) + o.y(a, b) : o.x(a, b) - o.y(a, b)));
        total += cond ? o.x(a, b) : o.y(a, b);
      }
      CHECK(s(a) == doctest::Approx(total));
    }
  }
}

TEST_CASE("if_: a branch may take its inputs by value when what it returns cannot refer to them") {
  const operands o;
  // Tensors (the copies themselves, or evaluated expressions over them) are safe to return.
  auto copy = [](auto p, auto) { return p; };
  auto sum = [](auto p, auto q) { return dg::eval(p + q); };
  auto scaled = [](dg::tensor<float, A, B> p, const dg::tensor<float, A, B>&) {
    return dg::eval(p * 2.0f);
  };
  // A view passed by value still shows the caller's elements.
  auto whole = [](auto v, const auto&) { return v; };
  for (bool cond : {true, false}) {
    const auto r = dg::if_(cond, copy, sum)(o.x, o.y);
    const auto s = dg::if_(cond, scaled, sum)(o.x, o.y);
    const auto t = dg::if_(cond, whole, copy)(o.x.view(), o.y.view());
    for (std::size_t a = 0; a < 2; ++a)
      for (std::size_t b = 0; b < 4; ++b) {
        CHECK(r(a, b) == (cond ? o.x(a, b) : o.x(a, b) + o.y(a, b)));
        CHECK(s(a, b) == (cond ? o.x(a, b) * 2.0f : o.x(a, b) + o.y(a, b)));
        CHECK(t(a, b) == o.x(a, b));
      }
  }
  // A compile-time condition checks the chosen branch alike.
  const auto u = dg::if_(std::true_type{}, sum, copy)(o.x, o.y);
  CHECK(u(1, 2) == o.x(1, 2) + o.y(1, 2));
}

TEST_CASE("if_: an error thrown in a branch names the branch first and keeps its class") {
  const auto two = dg::full<float, N>(1.0f, dg::extent<N>(2));
  const auto three = dg::full<float, N>(2.0f, dg::extent<N>(3));
  auto add = [](const auto& p, const auto& q) { return p + q; };
  auto at_five = [](const auto& p, const auto&) { return dg::eval(p * p[dg::at<N>(5)]); };
  // Run-time conditions: the chosen branch throws.
  CHECK_THROWS_WITH_AS(
      dg::if_(true, add, at_five)(two, three),
      "dimgraph: if_: then branch: add: dim 'n' has extent 2 in operand 1 and 3 in operand 2",
      dg::shape_error);
  CHECK_THROWS_WITH_AS(
      dg::if_(false, add, at_five)(two, three),
      "dimgraph: if_: else branch: at: index 5 is out of range for dim 'n' of extent 2",
      dg::index_error);
  // Compile-time conditions alike.
  CHECK_THROWS_WITH_AS(
      dg::if_(std::true_type{}, add, at_five)(two, three),
      "dimgraph: if_: then branch: add: dim 'n' has extent 2 in operand 1 and 3 in operand 2",
      dg::shape_error);
  CHECK_THROWS_WITH_AS(
      dg::if_(dg::c<false>, add, at_five)(two, three),
      "dimgraph: if_: else branch: at: index 5 is out of range for dim 'n' of extent 2",
      dg::index_error);
  // The other branch runs as before.
  const auto r =
      dg::if_(false, add, [](const auto& p, const auto&) { return p * 3.0f; })(two, three);
  CHECK(r(0) == 3.0f);
  CHECK(r(1) == 3.0f);
}

TEST_CASE("if_: a layer in a scan body in a branch gives the calls in order, then the op") {
  struct Time : dg::dim<"time"> {};
  struct In : dg::dim<"input", 3> {};
  struct Hid : dg::dim<"hidden", 2> {};
  using gate = decltype(dg::c<4> * Hid{});
  const auto x = dg::uniform<float, dg::batch, Time, In>(5, -1.0f, 1.0f, dg::extent<dg::batch>(2),
                                                         dg::extent<Time>(4));
  const auto w = dg::uniform<float, gate, In>(6, -0.5f, 0.5f);
  const auto r = dg::uniform<float, gate, Hid>(7, -0.5f, 0.5f);
  const auto b = dg::uniform<float, gate>(8, -0.5f, 0.5f);
  const auto h0 = dg::zeros<float, dg::batch, Hid>(dg::extent<dg::batch>(2));
  // A state of batch 3, which the body uses at iteration 2 in place of its carry.
  const auto h3 = dg::zeros<float, dg::batch, Hid>(dg::extent<dg::batch>(3));
  int calls = 0;
  auto lstm = [&](const auto& xs, const auto& h) {
    auto [ys, h_last, c_last] =
        dg::scan<Time>([&](const auto& x_t, const auto& h_t, const auto& c_t) {
          const auto& state = calls++ == 2 ? h3 : h_t;
          auto next = dg::nn::lstm_cell(x_t, state, c_t, w, r, b);
          return dg::step(dg::carry(next.h, next.c), dg::emit(next.h));
        })(dg::sliced<Time>(xs), h, h);
    return h_last;
  };
  auto keep = [](const auto&, const auto& h) { return dg::eval(h); };
  CHECK_THROWS_WITH_AS(dg::if_(false, keep, lstm)(x, h0),
                       "dimgraph: if_: else branch: scan: at iteration 2: nn::lstm_cell: add: dim "
                       "'batch' has extent 3 in operand 1 and 2 in operand 2",
                       dg::shape_error);
  CHECK(calls == 3);
}
