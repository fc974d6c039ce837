// The split rules one by one: for each named rule, a split it decides, with the rule that fired
// and the result worked out by hand; and first_verified's walk over a list of rules.
#include <dimgraph.hpp>

#include <type_traits>

namespace dg = dimgraph;

namespace {

namespace rule = dg::detail::split_rule;
using dg::const_dim;
using dg::dim_prod;
using dg::dim_sum;
using dg::detail::difference;
using dg::detail::left_difference;
using dg::detail::left_quotient;
using dg::detail::quotient;

struct A : dg::dim<"a"> {};
struct B : dg::dim<"b"> {};
struct C : dg::dim<"c"> {};

// Split (quotient<X, D>, ...) fired Rule and gave Result.
template <class Split, class Rule, class Result>
constexpr bool fired = std::is_same_v<typename Split::rule, Rule> &&
                       std::is_same_v<typename Split::type, Result> && !Split::opaque;

// X / D
static_assert(fired<quotient<A, A>, rule::trivial, const_dim<1>>);
static_assert(fired<quotient<dim_prod<A, B>, const_dim<1>>, rule::trivial, dim_prod<A, B>>);
// (a * b) / b == a; (a * 6) / 3 == a * 2
static_assert(fired<quotient<dim_prod<A, B>, B>, rule::trailing_factor, A>);
static_assert(fired<quotient<dim_prod<A, const_dim<6>>, const_dim<3>>, rule::trailing_factor,
                    dim_prod<A, const_dim<2>>>);
// (a * b + 2 * b) / b == a + 2
using sum_of_bs = dim_sum<dim_prod<A, B>, dim_prod<const_dim<2>, B>>;
static_assert(fired<quotient<sum_of_bs, B>, rule::blockwise_sum, dim_sum<A, const_dim<2>>>);
// 2 * (a + b + a) == a + b + 2 * a + b + a (the copies' ends merged); divided by a + b + a: 2
using aba = dim_sum<A, B, A>;
using two_abas = dim_sum<A, B, dim_prod<const_dim<2>, A>, B, A>;
static_assert(fired<quotient<two_abas, aba>, rule::copies_of_sum, const_dim<2>>);
// c * (a * b + 2 * b) / b == c * (a + 2)
using c_times_sum = dim_prod<C, sum_of_bs>;
static_assert(fired<quotient<c_times_sum, B>, rule::within_trailing_sum,
                    dim_prod<C, dim_sum<A, const_dim<2>>>>);
// a / div_left(b, a) == b
using b_into_a = dg::dim_left_quotient<B, A>;
static_assert(fired<quotient<A, b_into_a>, rule::by_left_quotient, B>);
// (a * c) / (b * c) == (a * c / c) / b == a / b
using ac = dim_prod<A, C>;
using bc = dim_prod<B, C>;
static_assert(fired<quotient<ac, bc>, rule::factor_by_factor, dg::dim_quotient<A, B>>);
// (b * a) / b: no rule's guess multiplies back: opaque
static_assert(
    std::is_void_v<quotient<dim_prod<B, A>, B>::rule> &&
    std::is_same_v<quotient<dim_prod<B, A>, B>::type, dg::dim_quotient<dim_prod<B, A>, B>>);
// (a + b + a) / (a + b): copies_of_sum guesses 2 ((3 - 1) / (2 - 1)), but 2 * (a + b) is
// a + b + a + b: the guess is not kept
static_assert(quotient<dim_sum<A, B, A>, dim_sum<A, B>>::opaque);

// div_left(D, X)
static_assert(fired<left_quotient<A, A>, rule::trivial, const_dim<1>>);
// div_left(a, a * b) == b; div_left(3, 6 * a) == 2 * a
static_assert(fired<left_quotient<A, dim_prod<A, B>>, rule::leading_factor, B>);
static_assert(fired<left_quotient<const_dim<3>, dim_prod<const_dim<6>, A>>, rule::leading_factor,
                    dim_prod<const_dim<2>, A>>);
// div_left(2, a + b + a + b) == a + b; div_left(2, 1 + a + 2 + a + 1) == 1 + a + 1
using abab = dim_sum<A, B, A, B>;
static_assert(fired<left_quotient<const_dim<2>, abab>, rule::copies_by_constant, dim_sum<A, B>>);
using one_a_one_twice = dim_sum<const_dim<1>, A, const_dim<2>, A, const_dim<1>>;
static_assert(fired<left_quotient<const_dim<2>, one_a_one_twice>, rule::copies_by_constant,
                    dim_sum<const_dim<1>, A, const_dim<1>>>);
// (a + b) * c == a * c + b * c: div_left(a + b, a * c + b * c) == div_left(a, a * c) == c
using ab = dim_sum<A, B>;
using ac_bc = dim_sum<ac, bc>;
static_assert(fired<left_quotient<ab, ac_bc>, rule::first_block, C>);
// (2 + a) * (b + c) == b + c + b + c + a * (b + c): the first block, div_left(2, b), is no
// split; the last, div_left(a, a * (b + c)), gives b + c
using two_a = dim_sum<const_dim<2>, A>;
using bc_sum = dim_sum<B, C>;
using spread = dim_sum<B, C, B, C, dim_prod<A, bc_sum>>;
static_assert(fired<left_quotient<two_a, spread>, rule::last_block, bc_sum>);
// div_left(a * 2, a * (b + c + b + c)) == div_left(2, b + c + b + c) == b + c
using a2 = dim_prod<A, const_dim<2>>;
using a_bcbc = dim_prod<A, dim_sum<B, C, B, C>>;
static_assert(fired<left_quotient<a2, a_bcbc>, rule::shared_leading_factors, bc_sum>);
// div_left(a / b, a) == b
using a_over_b = dg::dim_quotient<A, B>;
static_assert(fired<left_quotient<a_over_b, A>, rule::by_quotient, B>);
// div_left(c * b, c * a) == div_left(b, div_left(c, c * a)) == div_left(b, a)
using cb = dim_prod<C, B>;
using ca = dim_prod<C, A>;
static_assert(
    fired<left_quotient<cb, ca>, rule::leading_factor_by_factor, dg::dim_left_quotient<B, A>>);
// div_left(b, a * b): opaque
static_assert(std::is_void_v<left_quotient<B, dim_prod<A, B>>::rule> &&
              std::is_same_v<left_quotient<B, dim_prod<A, B>>::type,
                             dg::dim_left_quotient<B, dim_prod<A, B>>>);

// X - D and sub_left(D, X)
static_assert(fired<difference<A, const_dim<0>>, rule::nothing_removed, A>);
static_assert(fired<left_difference<const_dim<0>, A>, rule::nothing_removed, A>);
// (a + 3 * b) - 2 * b == a + b
using a_3b = dim_sum<A, dim_prod<const_dim<3>, B>>;
using b2 = dim_prod<const_dim<2>, B>;
static_assert(fired<difference<a_3b, b2>, rule::trailing_term, dim_sum<A, B>>);
// sub_left(2, 5 + a) == 3 + a
using five_a = dim_sum<const_dim<5>, A>;
static_assert(
    fired<left_difference<const_dim<2>, five_a>, rule::leading_term, dim_sum<const_dim<3>, A>>);
// (2 + a) - 2 and sub_left(2, a + 2) stay opaque: terms cancel only at the end they were added
static_assert(difference<dim_sum<const_dim<2>, A>, const_dim<2>>::opaque);
static_assert(left_difference<const_dim<2>, dim_sum<A, const_dim<2>>>::opaque);

// first_verified keeps the first guess that multiplies back, skips a guess that does not, and
// never instantiates the rules after the one it keeps.
template <class Q>
struct guesses {
  template <class X, class D>
  static constexpr auto guess() {
    return std::type_identity<Q>{};
  }
};
struct guesses_nothing {
  template <class X, class D>
  static constexpr auto guess() {
    return dg::detail::no_guess{};
  }
};
struct not_instantiated {
  template <class X, class D>
  static constexpr auto guess() {
    return typename X::no_such_member{};
  }
};
struct times_b_gives_ab {
  using input = dim_prod<A, B>;
  using part = B;
  using opaque = dg::dim_quotient<dim_prod<A, B>, B>;
  template <class Q>
  using back = dg::detail::times_t<Q, B>;
};
using walk = dg::detail::first_verified<
    dg::detail::type_list<guesses_nothing, guesses<C>, guesses<A>, not_instantiated>,
    times_b_gives_ab>;
static_assert(std::is_same_v<walk::rule, guesses<A>> && std::is_same_v<walk::type, A>);
using none_kept = dg::detail::first_verified<dg::detail::type_list<guesses_nothing, guesses<C>>,
                                             times_b_gives_ab>;
static_assert(std::is_void_v<none_kept::rule> && none_kept::opaque &&
              std::is_same_v<none_kept::type, dg::dim_quotient<dim_prod<A, B>, B>>);

}  // namespace
