// The algebra's laws, checked over every pair and triple of a set of sample dims
// that covers each normal form: tags, constants, sums, coefficients, products,
// products ending in a sum, and opaque splits and removals.
#include <dimgraph.hpp>

#include <type_traits>

namespace dg = dimgraph;

namespace {

struct A : dg::dim<"a"> {};
struct B : dg::dim<"b", dg::range{2, 6}> {};
struct C : dg::dim<"c", 4> {};

template <class... Xs>
struct samples {};

// Pairs range over all samples; triples over a smaller set (compile time is cubic).
using pair_samples =
    samples<A, B, C, dg::const_dim<2>, decltype(A{} + B{}), decltype(dg::c<2> * A{}),
            decltype(A{} * B{}), decltype(A{} * dg::c<3>), decltype(dg::c<2> + A{}),
            decltype(A{} - dg::c<1>), decltype(A{} / B{}), decltype(B{} * (A{} + C{})),
            decltype(dg::div_left(C{}, A{}))>;
using triple_samples =
    samples<A, B, dg::const_dim<2>, decltype(A{} + B{}), decltype(dg::c<2> * A{}),
            decltype(A{} * dg::c<3>), decltype(A{} - dg::c<1>), decltype(A{} / B{}),
            decltype(B{} * (A{} + C{}))>;

template <class X, class Y, class Z>
constexpr bool associative() {
  static_assert(std::is_same_v<decltype((X{} + Y{}) + Z{}), decltype(X{} + (Y{} + Z{}))>);
  static_assert(std::is_same_v<decltype((X{} * Y{}) * Z{}), decltype(X{} * (Y{} * Z{}))>);
  // right distributivity: the sum is the major factor
  static_assert(std::is_same_v<decltype((X{} + Y{}) * Z{}), decltype(X{} * Z{} + Y{} * Z{})>);
  return true;
}

template <class X, class Y>
constexpr bool inverses() {
  constexpr X x{};
  constexpr Y y{};
  static_assert(std::is_same_v<decltype((x + y) - y), X>);
  static_assert(std::is_same_v<decltype(dg::sub_left(x, x + y)), Y>);
  static_assert(std::is_same_v<decltype((x * y) / y), X>);
  static_assert(std::is_same_v<decltype(dg::div_left(x, x * y)), Y>);
  if constexpr (dg::detail::split_possible<X, Y>()) {
    static_assert(std::is_same_v<decltype((x / y) * y), X>);
    static_assert(std::is_same_v<decltype(y * dg::div_left(y, x)), X>);
  }
  return true;
}

template <class X>
constexpr bool identities() {
  constexpr X x{};
  static_assert(std::is_same_v<decltype(x + dg::c<0>), X>);
  static_assert(std::is_same_v<decltype(dg::c<0> + x), X>);
  static_assert(std::is_same_v<decltype(x * dg::c<1>), X>);
  static_assert(std::is_same_v<decltype(dg::c<1> * x), X>);
  static_assert(std::is_same_v<decltype(x * dg::c<0>), dg::const_dim<0>>);
  static_assert(std::is_same_v<decltype(x + x), decltype(dg::c<2> * x)>);
  static_assert(std::is_same_v<decltype(x / dg::c<1>), X>);
  static_assert(std::is_same_v<decltype(x - dg::c<0>), X>);
  return true;
}

template <class X, class... Ys>
constexpr bool over_y(samples<Ys...>) {
  return (inverses<X, Ys>() && ...);
}
template <class X, class Y, class... Zs>
constexpr bool over_z(samples<Zs...>) {
  return (associative<X, Y, Zs>() && ...);
}
template <class X, class... Ys>
constexpr bool over_yz(samples<Ys...> s) {
  return (over_z<X, Ys>(s) && ...);
}
template <class... Xs>
constexpr bool pair_laws(samples<Xs...> s) {
  return (identities<Xs>() && ...) && (over_y<Xs>(s) && ...);
}
template <class... Xs>
constexpr bool triple_laws(samples<Xs...> s) {
  return (over_yz<Xs>(s) && ...);
}

static_assert(pair_laws(pair_samples{}));
static_assert(triple_laws(triple_samples{}));

}  // namespace
