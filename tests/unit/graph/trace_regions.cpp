// Traced dg::if_ and dg::scan: one region node holding its branches or body as sub-graphs,
// the listing and Graphviz of it, and running the traced graph against hand loops.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>

#include "never_instantiated.hpp"

namespace dg = dimgraph;

namespace {

struct A : dg::dim<"a", 2> {};
struct B : dg::dim<"b", 3> {};
struct Time : dg::dim<"time", 4> {};
struct Steps : dg::dim<"steps"> {};

template <class G>
std::string listing(const G& g) {
  std::ostringstream os;
  os << g;
  return os.str();
}

using support::never_instantiated;

}  // namespace

TEST_CASE("trace: if_ on a boolean input is one node with both branches as sub-graphs") {
  auto g = dg::trace(
      [](const auto& cond, const auto& x, const auto& y) {
        return dg::if_(
            cond, [](const auto& a, const auto& b) { return a * b; },
            [](const auto& a, const auto&) { return dg::exp(a); })(x, y);
      },
      dg::input<bool>{}, dg::input<float, A, B>{}, dg::input<float, A, B>{});
  static_assert(std::is_same_v<decltype(g)::output_t<0>, dg::tensor<float, A, B>>);
  CHECK(listing(g) ==
        "%0 = input 0 : bool []\n"
        "%1 = input 1 : float32 [a=2, b=3]\n"
        "%2 = input 2 : float32 [a=2, b=3]\n"
        "%3 = if(%0, %1, %2) : (float32 [a=2, b=3])\n"
        "  then:\n"
        "    %4 = arg 0 : float32 [a=2, b=3]\n"
        "    %5 = arg 1 : float32 [a=2, b=3]\n"
        "    %6 = mul(%4, %5) : float32 [a=2, b=3]\n"
        "    yield %6\n"
        "  else:\n"
        "    %7 = arg 0 : float32 [a=2, b=3]\n"
        "    %8 = arg 1 : float32 [a=2, b=3]\n"
        "    %9 = exp(%7) : float32 [a=2, b=3]\n"
        "    yield %9\n"
        "%10 = result 0(%3) : float32 [a=2, b=3]\n"
        "return %10\n");

  const auto x = dg::uniform<float, A, B>(1, -1.0f, 1.0f);
  const auto y = dg::uniform<float, A, B>(2, -1.0f, 1.0f);
  for (bool c : {true, false}) {
    const auto r = g(dg::full<bool>(c), x, y);
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t j = 0; j < 3; ++j)
        CHECK(r(i, j) == doctest::Approx(c ? x(i, j) * y(i, j) : std::exp(x(i, j))).epsilon(1e-6));
  }
}

TEST_CASE("trace: running a traced if_ runs only the chosen branch") {
  int then_runs = 0, else_runs = 0;
  auto then_fn = [&](const auto& x) {
    ++then_runs;
    return x + 1.0f;
  };
  auto else_fn = [&](const auto& x) {
    ++else_runs;
    return x - 1.0f;
  };
  auto g = dg::trace([&](const auto& c, const auto& x) { return dg::if_(c, then_fn, else_fn)(x); },
                     dg::input<bool, dg::dim<"one", 1>>{}, dg::input<float, B>{});
  // Tracing records both branches once each.
  CHECK(then_runs == 1);
  CHECK(else_runs == 1);
  const auto x = dg::iota<float, B>();
  const auto r = g(dg::full<bool, dg::dim<"one", 1>>(false), x);
  CHECK(then_runs == 1);
  CHECK(else_runs == 2);
  CHECK(r(2) == 1.0f);
  const auto s = g(dg::full<bool, dg::dim<"one", 1>>(true), x);
  CHECK(then_runs == 2);
  CHECK(else_runs == 2);
  CHECK(s(2) == 3.0f);
}

TEST_CASE("trace: a compile-time if_ records the chosen branch's nodes alone") {
  auto bad = [](const auto& x) { return never_instantiated(x); };
  auto g = dg::trace(
      [&](const auto& x) {
        return dg::if_(
            dg::c<true>, [](const auto& a) { return -a; }, bad)(x);
      },
      dg::input<float, A>{});
  CHECK(listing(g) ==
        "%0 = input 0 : float32 [a=2]\n"
        "%1 = neg(%0) : float32 [a=2]\n"
        "return %1\n");
  const auto x = dg::iota<float, A>();
  CHECK(g(x)(1) == -1.0f);
}

TEST_CASE("trace: if_ with several outputs and the else outputs in another dim order") {
  auto g = dg::trace(
      [](const auto& c, const auto& x, const auto& t) {
        return dg::if_(
            c,
            [](const auto& a, const auto& b) {
              return std::tuple{a + 1.0f, b};
            },
            [](const auto& a, const auto& b) {
              return std::pair{dg::permute<B, A>(a), b * 2.0f};
            })(x, t);
      },
      dg::input<bool>{}, dg::input<float, A, B>{}, dg::input<double, B>{});
  using G = decltype(g);
  static_assert(std::is_same_v<G::output_t<0>, dg::tensor<float, A, B>>);
  static_assert(std::is_same_v<G::output_t<1>, dg::tensor<double, B>>);
  CHECK(listing(g) ==
        "%0 = input 0 : bool []\n"
        "%1 = input 1 : float32 [a=2, b=3]\n"
        "%2 = input 2 : float64 [b=3]\n"
        "%3 = if(%0, %1, %2) : (float32 [a=2, b=3], float64 [b=3])\n"
        "  then:\n"
        "    %4 = arg 0 : float32 [a=2, b=3]\n"
        "    %5 = arg 1 : float64 [b=3]\n"
        "    %6 = scalar 1 : float32 []\n"
        "    %7 = add(%4, %6) : float32 [a=2, b=3]\n"
        "    yield %7, %5\n"
        "  else:\n"
        "    %8 = arg 0 : float32 [a=2, b=3]\n"
        "    %9 = arg 1 : float64 [b=3]\n"
        "    %10 = permute<b, a>(%8) : float32 [b=3, a=2]\n"
        "    %11 = scalar 2 : float32 []\n"
        "    %12 = mul(%9, %11) : float64 [b=3]\n"
        "    yield %10, %12\n"
        "%13 = result 0(%3) : float32 [a=2, b=3]\n"
        "%14 = result 1(%3) : float64 [b=3]\n"
        "return %13, %14\n");
  const auto x = dg::uniform<float, A, B>(5, -1.0f, 1.0f);
  const auto t = dg::uniform<double, B>(6, -1.0, 1.0);
  const auto [p, q] = g(dg::full<bool>(false), x, t);
  for (std::size_t j = 0; j < 3; ++j) {
    CHECK(q(j) == t(j) * 2.0);
    for (std::size_t i = 0; i < 2; ++i) CHECK(p(i, j) == x(i, j));
  }
}

TEST_CASE("trace: scan is one node with its body, its slicing and carries as attributes") {
  // A running sum over time, walked backwards two steps per loop pass; emits twice the sum.
  auto g = dg::trace(
      [](const auto& xs, const auto& h0) {
        return dg::scan<Time, dg::unroll<2>>([](const auto& x, const auto& h) {
          return dg::step(dg::carry(h + x), dg::emit((h + x) * 2.0f));
        })(dg::sliced<Time, dg::slicing{.start = -1, .end = 0, .stride = -1}>(xs), h0);
      },
      dg::input<float, Time, B>{}, dg::input<float, B>{});
  using G = decltype(g);
  static_assert(std::is_same_v<G::output_t<0>, dg::tensor<float, Time, B>>);
  static_assert(std::is_same_v<G::output_t<1>, dg::tensor<float, B>>);
  CHECK(listing(g) ==
        "%0 = input 0 : float32 [time=4, b=3]\n"
        "%1 = input 1 : float32 [b=3]\n"
        "%2 = scan<time>(%0, %1) {sliced 0 [start=-1, end=0, stride=-1, part_size=1], carried "
        "1, unroll=2} : (float32 [time=4, b=3], float32 [b=3])\n"
        "  body:\n"
        "    %3 = arg 0 : float32 [b=3]\n"
        "    %4 = arg 1 : float32 [b=3]\n"
        "    %5 = add(%4, %3) : float32 [b=3]\n"
        "    %6 = scalar 2 : float32 []\n"
        "    %7 = mul(%5, %6) : float32 [b=3]\n"
        "    yield %5, %7 {carry 1, emit 1}\n"
        "%8 = result 0(%2) : float32 [time=4, b=3]\n"
        "%9 = result 1(%2) : float32 [b=3]\n"
        "return %8, %9\n");

  const auto xs = dg::uniform<float, Time, B>(3, -1.0f, 1.0f);
  const auto h0 = dg::uniform<float, B>(4, -1.0f, 1.0f);
  const auto [ys, h] = g(xs, h0);
  for (std::size_t j = 0; j < 3; ++j) {
    float sum = h0(j);
    for (std::size_t t = 4; t-- > 0;) {
      sum += xs(t, j);
      CHECK(ys(t, j) == sum * 2.0f);
    }
    CHECK(h(j) == sum);
  }
}

TEST_CASE("trace: a scan body's captures keep their ids, a nested if_ is a sub-graph") {
  // scale is computed outside (and is the initial carry, so it is listed before the scan);
  // the body uses it as a capture. The nested if_ has a captured bool condition.
  auto g = dg::trace(
      [](const auto& xs, const auto& v) {
        auto scale = dg::eval(v * 2.0f);
        auto [ys, last] = dg::scan<Steps>([&](const auto& x, const auto& h) {
          auto next = dg::eval(h + x * scale);
          auto kept = dg::if_(
              true, [&](const auto& a) { return a - scale; },
              [](const auto& a) { return a; })(next);
          return dg::step(dg::carry(kept), dg::emit(next));
        })(dg::sliced<Steps>(xs), scale);
        return std::tuple{ys, last};
      },
      dg::input<float, Steps, B>{}, dg::input<float, B>{});
  CHECK(listing(g) ==
        "%0 = input 0 : float32 [steps[0, inf], b=3]\n"
        "%1 = input 1 : float32 [b=3]\n"
        "%2 = scalar 2 : float32 []\n"
        "%3 = mul(%1, %2) : float32 [b=3]\n"
        "%4 = scan<steps>(%0, %3) {sliced 0 [start=0, end=-1, stride=1, part_size=1], carried "
        "1} : (float32 [steps[0, inf], b=3], float32 [b=3])\n"
        "  body:\n"
        "    %5 = arg 0 : float32 [b=3]\n"
        "    %6 = arg 1 : float32 [b=3]\n"
        "    %7 = scalar true : bool []\n"
        "    %8 = mul(%5, %3) : float32 [b=3]\n"
        "    %9 = add(%6, %8) : float32 [b=3]\n"
        "    %10 = if(%7, %9) : (float32 [b=3])\n"
        "      then:\n"
        "        %11 = arg 0 : float32 [b=3]\n"
        "        %12 = sub(%11, %3) : float32 [b=3]\n"
        "        yield %12\n"
        "      else:\n"
        "        %13 = arg 0 : float32 [b=3]\n"
        "        yield %13\n"
        "    %14 = result 0(%10) : float32 [b=3]\n"
        "    yield %14, %9 {carry 1, emit 1}\n"
        "%15 = result 0(%4) : float32 [steps[0, inf], b=3]\n"
        "%16 = result 1(%4) : float32 [b=3]\n"
        "return %15, %16\n");

  const std::size_t n = 5;
  const auto xs = dg::uniform<float, Steps, B>(7, -1.0f, 1.0f, dg::extent<Steps>(n));
  const auto v = dg::uniform<float, B>(8, -1.0f, 1.0f);
  const auto [ys, h] = g(xs, v);
  REQUIRE(ys.extent<Steps>() == n);
  for (std::size_t j = 0; j < 3; ++j) {
    const float scale = v(j) * 2.0f;
    float carry = scale;
    for (std::size_t t = 0; t < n; ++t) {
      const float next = carry + xs(t, j) * scale;
      CHECK(ys(t, j) == doctest::Approx(next).epsilon(1e-6));
      carry = next - scale;
    }
    CHECK(h(j) == doctest::Approx(carry).epsilon(1e-6));
  }
}

TEST_CASE("to_dot: the values a sub-graph yields have dashed edges to its node") {
  auto g = dg::trace(
      [](const auto& c, const auto& x) {
        return dg::if_(
            c, [](const auto& a) { return -a; }, [](const auto& a) { return a; })(x);
      },
      dg::input<bool>{}, dg::input<float, A>{});
  CHECK(dg::to_dot(g) ==
        "digraph dimgraph {\n"
        "  node [shape=box, fontname=\"monospace\"];\n"
        "  n0 [label=\"%0 input 0\\nbool []\"];\n"
        "  n1 [label=\"%1 input 1\\nfloat32 [a=2]\"];\n"
        "  n2 [label=\"%2 if\\n(float32 [a=2])\"];\n"
        "  n0 -> n2;\n"
        "  n1 -> n2;\n"
        "  n3 [label=\"%3 arg 0\\nfloat32 [a=2]\"];\n"
        "  n4 [label=\"%4 neg\\nfloat32 [a=2]\"];\n"
        "  n3 -> n4;\n"
        "  n4 -> n2 [style=dashed];\n"
        "  n5 [label=\"%5 arg 0\\nfloat32 [a=2]\"];\n"
        "  n5 -> n2 [style=dashed];\n"
        "  n6 [label=\"%6 result 0\\nfloat32 [a=2]\"];\n"
        "  n2 -> n6;\n"
        "}\n");
}
