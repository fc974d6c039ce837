// The op table (expr/op_table.hpp): every op of it, run eagerly and traced, against a scalar
// reference written here from the op's definition.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <type_traits>

namespace dg = dimgraph;

namespace {

struct B : dg::dim<"b"> {};     // dynamic: its extent is known at run time only
struct F : dg::dim<"f", 5> {};  // static, and no whole number of vectors: remainders run too

// Each op of the table on one element, in double (bool for comparisons and logic), from its
// definition. A table op without an entry here does not compile.
namespace reference {
constexpr auto add = [](double a, double b) { return a + b; };
constexpr auto sub = [](double a, double b) { return a - b; };
constexpr auto mul = [](double a, double b) { return a * b; };
constexpr auto div = [](double a, double b) { return a / b; };
constexpr auto pow = [](double a, double b) { return std::pow(a, b); };
constexpr auto min = [](double a, double b) { return a < b ? a : b; };
constexpr auto max = [](double a, double b) { return a > b ? a : b; };
constexpr auto equal = [](double a, double b) { return a == b; };
constexpr auto not_equal = [](double a, double b) { return a != b; };
constexpr auto less = [](double a, double b) { return a < b; };
constexpr auto less_equal = [](double a, double b) { return a <= b; };
constexpr auto greater = [](double a, double b) { return a > b; };
constexpr auto greater_equal = [](double a, double b) { return a >= b; };
constexpr auto logical_and = [](bool a, bool b) { return a && b; };
constexpr auto logical_or = [](bool a, bool b) { return a || b; };
constexpr auto logical_xor = [](bool a, bool b) { return a != b; };
constexpr auto logical_not = [](bool a) { return !a; };
constexpr auto neg = [](double a) { return -a; };
constexpr auto abs = [](double a) { return a < 0 ? -a : a; };
constexpr auto relu = [](double a) { return a > 0 ? a : 0.0; };
constexpr auto floor = [](double a) { return std::floor(a); };
constexpr auto ceil = [](double a) { return std::ceil(a); };
constexpr auto exp = [](double a) { return std::exp(a); };
constexpr auto expm1 = [](double a) { return std::expm1(a); };
constexpr auto log = [](double a) { return std::log(a); };
constexpr auto log1p = [](double a) { return std::log1p(a); };
constexpr auto sqrt = [](double a) { return std::sqrt(a); };
constexpr auto rsqrt = [](double a) { return 1.0 / std::sqrt(a); };
constexpr auto tanh = [](double a) { return std::tanh(a); };
constexpr auto sigmoid = [](double a) { return 1.0 / (1.0 + std::exp(-a)); };
constexpr auto erf = [](double a) { return std::erf(a); };
constexpr auto gelu = [](double a) { return 0.5 * a * (1.0 + std::erf(a / std::sqrt(2.0))); };
constexpr auto sin = [](double a) { return std::sin(a); };
constexpr auto cos = [](double a) { return std::cos(a); };
}  // namespace reference

// Operand values: negative, zero, whole and half numbers, and some outside a function's
// domain (log of a negative number is NaN in the op and in the reference alike).
constexpr double values[] = {-1.75, 0.5, 2.0, -0.25, 0.0, 1.25, -3.0, 0.75, 3.5, -0.5, 1.0, -2.5};
constexpr std::size_t nb = 3, nf = 5;

// Operands of element type E: x [B, F] and y [F] (broadcast over B; y's first element equals
// x's first, so comparisons meet equal operands).
template <class E>
E value(std::size_t i) {
  if constexpr (std::is_same_v<E, bool>) return (i * 7 + i / 3) % 3 != 0;
  else return static_cast<E>(values[i % std::size(values)]);
}
template <class E>
dg::tensor<E, B, F> make_x() {
  dg::tensor<E, B, F> x(dg::extent<B>(nb));
  for (std::size_t i = 0; i < nb * nf; ++i) x.data()[i] = value<E>(i);
  return x;
}
template <class E>
dg::tensor<E, F> make_y() {
  dg::tensor<E, F> y;
  for (std::size_t f = 0; f < nf; ++f) y.data()[f] = value<E>(f == 0 ? 0 : f * 5 + 2);
  return y;
}

// The op's element against the reference's: exact for bool and infinities, NaN where the
// reference is NaN, else within the ops' stated few ulp (a float result against double).
template <class R, class W>
void check_element(R got, W want) {
  if constexpr (std::is_same_v<W, bool>) {
    CHECK(got == want);
  } else if (std::isnan(want)) {
    CHECK(std::isnan(got));
  } else if (std::isinf(want)) {
    CHECK(static_cast<double>(got) == want);
  } else {
    CHECK(static_cast<double>(got) == doctest::Approx(want).epsilon(1e-5));
  }
}

template <class E>
std::string element_text() {
  return std::is_same_v<E, bool> ? "bool" : "float32";
}

template <class G>
std::string listing(const G& g) {
  std::ostringstream os;
  os << g;
  return os.str();
}

// A binary op on tensors with a run-time dim (one operand broadcast), and traced: the graph's
// type, its one node named after the op, its values; traced with a C++ scalar operand, the
// op's node over a scalar node.
template <class Op, class W, class P>
void check_binary(const char* name, Op op, W (*ref)(P, P)) {
  INFO("op: " << std::string(name));
  using E = std::conditional_t<std::is_same_v<P, bool>, bool, float>;
  using R = std::conditional_t<std::is_same_v<W, bool>, bool, E>;
  const auto x = make_x<E>();
  const auto y = make_y<E>();

  const dg::tensor<R, B, F> eager = op(x, y);
  static_assert(std::is_same_v<dg::value_t<decltype(op(x, y))>, R>);
  for (std::size_t b = 0; b < nb; ++b)
    for (std::size_t f = 0; f < nf; ++f) check_element(eager(b, f), ref(x(b, f), y(f)));

  auto g = dg::trace(op, dg::input<E, B, F>{}, dg::input<E, F>{});
  static_assert(std::is_same_v<typename decltype(g)::template output_t<0>, dg::tensor<R, B, F>>);
  CHECK(listing(g) == "%0 = input 0 : " + element_text<E>() + " [b[0, inf], f=5]\n" +
                          "%1 = input 1 : " + element_text<E>() + " [f=5]\n" + "%2 = " + name +
                          "(%0, %1) : " + element_text<R>() + " [b[0, inf], f=5]\nreturn %2\n");
  const dg::tensor<R, B, F> traced = g(x, y);
  for (std::size_t b = 0; b < nb; ++b)
    for (std::size_t f = 0; f < nf; ++f) check_element(traced(b, f), ref(x(b, f), y(f)));

  const E s = value<E>(1);
  auto with_scalar = dg::trace([&](const auto& v) { return op(v, s); }, dg::input<E, B, F>{});
  CHECK(listing(with_scalar)
            .find("%2 = " + std::string(name) + "(%0, %1) : " + element_text<R>() +
                  " [b[0, inf], f=5]\nreturn %2\n") != std::string::npos);
}

// A unary op on a tensor with a run-time dim, and traced.
template <class Op, class W, class P>
void check_unary(const char* name, Op op, W (*ref)(P)) {
  INFO("op: " << std::string(name));
  using E = std::conditional_t<std::is_same_v<P, bool>, bool, float>;
  using R = std::conditional_t<std::is_same_v<W, bool>, bool, E>;
  const auto x = make_x<E>();

  const dg::tensor<R, B, F> eager = op(x);
  static_assert(std::is_same_v<dg::value_t<decltype(op(x))>, R>);
  for (std::size_t b = 0; b < nb; ++b)
    for (std::size_t f = 0; f < nf; ++f) check_element(eager(b, f), ref(x(b, f)));

  auto g = dg::trace(op, dg::input<E, B, F>{});
  static_assert(std::is_same_v<typename decltype(g)::template output_t<0>, dg::tensor<R, B, F>>);
  CHECK(listing(g) == "%0 = input 0 : " + element_text<E>() + " [b[0, inf], f=5]\n" + "%1 = " +
                          name + "(%0) : " + element_text<R>() + " [b[0, inf], f=5]\nreturn %1\n");
  const dg::tensor<R, B, F> traced = g(x);
  for (std::size_t b = 0; b < nb; ++b)
    for (std::size_t f = 0; f < nf; ++f) check_element(traced(b, f), ref(x(b, f)));
}

}  // namespace

// The table once more, with this test's macros: one check per op, by its public spelling.
#define DIMGRAPH_TEST_BINARY(PUBLIC, OP, KIND, LANES) \
  check_binary(                                       \
      #OP, [](const auto& x, const auto& y) { return dg::PUBLIC(x, y); }, +reference::OP);
#define DIMGRAPH_TEST_UNARY(PUBLIC, OP, KIND, LANES) \
  check_unary(                                       \
      #OP, [](const auto& x) { return dg::PUBLIC(x); }, +reference::OP);
#define DIMGRAPH_TEST_NOTHING(PUBLIC, OP, KIND, LANES)

TEST_CASE("op table: every binary op, eager and traced, equals its scalar reference"){
    DIMGRAPH_ELEMENTWISE_OPS(DIMGRAPH_TEST_BINARY, DIMGRAPH_TEST_NOTHING)}

TEST_CASE("op table: every unary op, eager and traced, equals its scalar reference") {
  DIMGRAPH_ELEMENTWISE_OPS(DIMGRAPH_TEST_NOTHING, DIMGRAPH_TEST_UNARY)
}

#undef DIMGRAPH_TEST_BINARY
#undef DIMGRAPH_TEST_UNARY
#undef DIMGRAPH_TEST_NOTHING
