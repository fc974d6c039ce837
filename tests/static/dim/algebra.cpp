// The laws and the identity table of the dim algebra (DESIGN §2), for static,
// interval and dynamic tags alike.
#include <dimgraph.hpp>

#include <type_traits>

namespace dg = dimgraph;

namespace {

template <class A, class B>
constexpr bool same = std::is_same_v<A, B>;
template <auto X, auto Y>
constexpr bool eq = std::is_same_v<decltype(X), decltype(Y)>;

// Every check runs over three tag families: static, interval and dynamic.
template <class A, class B, class C>
constexpr bool table() {
  constexpr A a{};
  constexpr B b{};
  constexpr C c{};
  constexpr auto _2 = dg::c<2>;
  constexpr auto _3 = dg::c<3>;
  static_assert(eq<a + a, _2 * a>);
  static_assert(eq<_2 * a + a, dg::c<3> * a>);
  static_assert(!eq<_2 * a, a * _2>);
  static_assert(eq<(a + b) * c, a * c + b * c>);
  static_assert(eq<a * b + b, (a + dg::c<1>)*b>);
  static_assert(!eq<c*(a + b), c * a + c * b>);
  static_assert(eq<(_2 * a) * _3, _2*(a * _3)>);
  static_assert(!eq<_2*(a * _3), a * dg::c<6>>);
  static_assert(eq<(a * b) / b, a>);
  static_assert(!eq<(b * a) / b, a>);
  static_assert(eq<dg::div_left(b, b * a), a>);
  static_assert(eq<(a / b) * b, a>);
  static_assert(eq<(a + b) - b, a>);
  static_assert(eq<dg::sub_left(_2, (_2 + c) + _2) - _2, c>);
  static_assert(!eq<(_2 + a) - _2, a>);
  static_assert(eq<_2 * _3, dg::c<6>>);
  static_assert(eq<dg::c<1> * a, a>);
  static_assert(eq<a + dg::c<0>, a>);
  static_assert(eq<dg::ceildiv(dg::ceildiv(a, _2), _3), dg::ceildiv(a, dg::c<6>)>);
  static_assert(eq<dg::floordiv(dg::floordiv(a, _2), _3), dg::floordiv(a, dg::c<6>)>);
  return true;
}

struct S1 : dg::dim<"s1", 6> {};
struct S2 : dg::dim<"s2", 3> {};
struct S3 : dg::dim<"s3", 4> {};
struct I1 : dg::dim<"i1", dg::range{1, 8}> {};
struct I2 : dg::dim<"i2", dg::range{2, 4}> {};
struct I3 : dg::dim<"i3", dg::range{0, 5}> {};
struct D1 : dg::dim<"d1"> {};
struct D2 : dg::dim<"d2"> {};
struct D3 : dg::dim<"d3"> {};
struct One : dg::dim<"one", 1> {};

static_assert(table<S1, S2, S3>());
static_assert(table<I1, I2, I3>());
static_assert(table<D1, D2, D3>());
static_assert(table<S1, I2, D3>());

// A tag of static size 1 is not the constant 1; equal names and sizes are different dims.
struct S1Twin : dg::dim<"s1", 6> {};
static_assert(!same<One, dg::const_dim<1>>);
static_assert(!eq<One{} * D1{}, D1{}>);
static_assert(!same<S1, S1Twin>);

}  // namespace
