// Result dims of the structural ops: the dim algebra's types, their intervals, NumPy's
// slice rule on a table of known cases, and the slice interval rule against brute force.
#include <dimgraph.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace dg = dimgraph;

namespace {
struct A : dg::dim<"a", 4> {};
struct B : dg::dim<"b", 3> {};
struct F : dg::dim<"f", 2> {};
struct N : dg::dim<"n", 4> {};
struct T : dg::dim<"t"> {};
struct Beam : dg::dim<"beam", dg::range{1, 8}> {};
struct V : dg::dim<"v", 10> {};
struct Twelve : dg::dim<"twelve", 12> {};
struct Seven : dg::dim<"seven", 7> {};

constexpr A a;
constexpr B b;
constexpr T t;

template <class X>
X& lvalue();
template <class X, class... Ds>
inline constexpr bool has_dims_v = std::is_same_v<typename X::dims, dg::dim_list<Ds...>>;

using af = dg::tensor<float, A, F>;
using fb = dg::tensor<float, F, B>;
using tf = dg::tensor<float, T, F>;

// concat: the algebra's sum, at the position of the first operand's dim
using concat_ab = decltype(dg::concat(dg::along<A>(lvalue<af>()), dg::along<B>(lvalue<fb>())));
static_assert(std::is_same_v<concat_ab, dg::tensor<float, decltype(a + b), F>>);
static_assert(std::is_same_v<dg::concat_dim_t<A, B>, decltype(a + b)>);
static_assert(std::is_same_v<dg::concat_dim_t<A, A>, decltype(dg::c<2> * a)>);
static_assert(std::is_same_v<dg::concat_dim_t<A, B, A>, decltype(a + b + a)>);
using concat_aa = decltype(dg::concat(dg::along<A>(lvalue<af>()), dg::along<A>(lvalue<af>())));
static_assert(has_dims_v<concat_aa, decltype(dg::c<2> * a), F>);
// intervals: concat sums them; an unknown upper bound stays unknown
static_assert(dg::bounds_v<dg::concat_dim_t<Beam, B>> == dg::interval{4, 11});
using concat_beam = decltype(dg::concat(dg::along<Beam>(lvalue<dg::tensor<float, T, Beam>>()),
                                        dg::along<B>(lvalue<dg::tensor<float, T, B>>())));
static_assert(has_dims_v<concat_beam, T, decltype(Beam{} + b)>);
static_assert(dg::bounds_v<dg::detail::back_t<dg::detail::types_of_t<concat_beam::dims>>> ==
              dg::interval{4, 11});
static_assert(dg::bounds_v<dg::concat_dim_t<T, B>> == dg::interval{3, dg::unbounded});
static_assert(dg::static_size_v<dg::concat_dim_t<A, B>> == 7);
// the element type is the operands' common type
using concat_mixed = decltype(dg::concat(dg::along<A>(lvalue<af>()),
                                         dg::along<B>(lvalue<dg::tensor<double, F, B>>())));
static_assert(std::is_same_v<concat_mixed::value_type, double>);

// split: views with the parts; split of a concat gives the operands' dims back
using split_ab = decltype(dg::split<A, B>(lvalue<concat_ab>()));
static_assert(std::is_same_v<
              split_ab, std::tuple<dg::tensor_view<float, A, F>, dg::tensor_view<float, B, F>>>);
using split_const = decltype(dg::split<A, B>(lvalue<const concat_ab>()));
static_assert(
    std::is_same_v<std::tuple_element_t<1, split_const>, dg::tensor_view<const float, B, F>>);

// rename: in place, a view
static_assert(
    std::is_same_v<decltype(dg::rename<A, N>(lvalue<af>())), dg::tensor_view<float, N, F>>);
static_assert(std::is_same_v<decltype(dg::rename<F, T>(lvalue<const af>())),
                             dg::tensor_view<const float, A, T>>);

// merge_dims: a * b at a's position; a view exactly when the operand's type guarantees
// a contiguous merge (a tensor with b right after a)
using ab = dg::tensor<float, A, B, F>;
static_assert(std::is_same_v<decltype(dg::merge_dims<A, B>(lvalue<ab>())),
                             dg::tensor_view<float, decltype(a * b), F>>);
static_assert(std::is_same_v<decltype(dg::merge_dims<B, A>(lvalue<ab>())),
                             dg::tensor<float, decltype(b * a), F>>);
static_assert(std::is_same_v<decltype(dg::merge_dims<A, F>(lvalue<ab>())),
                             dg::tensor<float, decltype(a * F{}), B>>);
static_assert(std::is_same_v<decltype(dg::merge_dims<A, B>(std::declval<ab>())),
                             dg::tensor<float, decltype(a * b), F>>);
static_assert(std::is_same_v<decltype(dg::merge_dims<A, B>(lvalue<ab>().view())),
                             dg::tensor<float, decltype(a * b), F>>);
static_assert(dg::static_size_v<dg::merge_dim_t<A, B>> == 12);
static_assert(dg::bounds_v<dg::merge_dim_t<Beam, B>> == dg::interval{3, 24});

// split_dims: the inverse; its result is a view
using merged = dg::tensor<float, decltype(t * b), F>;
static_assert(std::is_same_v<decltype(dg::split_dims<T, B>(lvalue<merged>())),
                             dg::tensor_view<float, T, B, F>>);
static_assert(std::is_same_v<decltype(dg::merge_dims<T, B>(
                                 lvalue<decltype(dg::split_dims<T, B>(lvalue<merged>()))>())),
                             merged>);

// pad: c<before> + a + c<after>; slicing the padding off gives a back, as a type too
using padded = decltype(dg::pad<A, 2, 3>(lvalue<af>()));
static_assert(std::is_same_v<padded, dg::tensor<float, decltype(dg::c<2> + a + dg::c<3>), F>>);
static_assert(dg::static_size_v<dg::pad_dim_t<A, 2, 3>> == 9);
static_assert(dg::bounds_v<dg::pad_dim_t<Beam, 1, 1>> == dg::interval{3, 10});
static_assert(std::is_same_v<dg::slice_dim_t<dg::pad_dim_t<A, 2, 3>, 2, -3>, A>);
static_assert(std::is_same_v<dg::slice_dim_t<dg::pad_dim_t<A, 2, 3>, 2, 6>, A>);
static_assert(std::is_same_v<dg::slice_dim_t<dg::pad_dim_t<T, 2, 3>, 2, -3>, T>);
static_assert(std::is_same_v<dg::slice_dim_t<dg::pad_dim_t<T, 2, 0>, 2>, T>);
static_assert(std::is_same_v<decltype(dg::slice<dg::pad_dim_t<A, 2, 3>, 2, -3>(lvalue<padded>())),
                             dg::tensor_view<float, A, F>>);

// slice, compile-time bounds: the algebra's window form, static for a static dim
static_assert(
    std::is_same_v<dg::slice_dim_t<Twelve, 2, 10, 3>,
                   decltype(dg::ceildiv(dg::sub_left(dg::c<2>, Twelve{} - dg::c<3>), dg::c<3>))>);
static_assert(dg::static_size_v<dg::slice_dim_t<Twelve, 2, 10, 3>> == 3);
static_assert(dg::static_size_v<dg::slice_dim_t<Twelve, -5>> == 5);
static_assert(dg::static_size_v<dg::slice_dim_t<Twelve, 20>> == 0);
// the same positions, however spelled, are the same dim (positions 2, 5, 8)
static_assert(
    std::is_same_v<dg::slice_dim_t<Twelve, 2, 10, 3>, dg::slice_dim_t<Twelve, -10, 9, 3>>);
static_assert(std::is_same_v<dg::slice_dim_t<Twelve, 0, 12>, Twelve>);
static_assert(std::is_same_v<dg::slice_dim_t<Twelve, dg::none, 100>, Twelve>);
// a negative stride: the reverse of the same positions read forwards
static_assert(
    std::is_same_v<dg::slice_dim_t<Twelve, dg::none, dg::none, -1>, dg::reversed_dim<Twelve>>);
static_assert(std::is_same_v<dg::slice_dim_t<Twelve, 8, 1, -3>,
                             dg::reverse_t<dg::slice_dim_t<Twelve, 2, 9, 3>>>);
static_assert(
    std::is_same_v<dg::slice_dim_t<dg::reversed_dim<Twelve>, dg::none, dg::none, -1>, Twelve>);
static_assert(std::is_same_v<dg::reverse_t<dg::reverse_t<T>>, T>);
static_assert(dg::static_size_v<dg::slice_dim_t<Twelve, 8, 1, -3>> == 3);
// non-static dims: from the front and to the back in the algebra, else opaque and sized by the rule
static_assert(
    std::is_same_v<dg::slice_dim_t<T, 2, -1>, decltype(dg::sub_left(dg::c<2>, t - dg::c<1>))>);
static_assert(std::is_same_v<dg::slice_dim_t<T, 1, dg::none, 2>,
                             decltype(dg::ceildiv(dg::sub_left(dg::c<1>, t), dg::c<2>))>);
static_assert(std::is_same_v<dg::slice_dim_t<T, dg::none, dg::none, -1>, dg::reversed_dim<T>>);
static_assert(std::is_same_v<dg::slice_dim_t<T, -3>,
                             dg::sliced_dim<T, dg::slice_index{-3}, dg::slice_index{dg::none},
                                            std::ptrdiff_t{1}>>);
static_assert(dg::bounds_v<dg::slice_dim_t<T, -3>> == dg::interval{0, 3});
static_assert(dg::bounds_v<dg::slice_dim_t<T, 0, 5>> == dg::interval{0, 5});
static_assert(dg::bounds_v<dg::slice_dim_t<Beam, 2, -1>> == dg::interval{0, 5});
static_assert(dg::bounds_v<dg::slice_dim_t<Beam, 1, dg::none, 3>> == dg::interval{0, 3});
static_assert(dg::bounds_v<dg::slice_dim_t<Beam, 5, -5>> ==
              dg::interval{0, 0});  // never selects anything
static_assert(dg::bounds_v<dg::slice_dim_t<T, 2>> == dg::interval{0, dg::unbounded});
// run-time bounds: one opaque dim per sliced dim, size [0, hi]
static_assert(std::is_same_v<decltype(dg::slice<A>(lvalue<af>(), 1, 3)),
                             dg::tensor_view<float, dg::sliced_dim<A>, F>>);
static_assert(dg::bounds_v<dg::sliced_dim<A>> == dg::interval{0, 4});
static_assert(dg::bounds_v<dg::sliced_dim<T>> == dg::interval{});
static_assert(dg::kind_v<dg::sliced_dim<T>> == dg::kind_v<T> &&
              dg::kind_v<dg::reversed_dim<A>> == dg::kind_v<A>);

// gather and one_hot
using table = dg::tensor<float, V, F>;
using ids = dg::tensor<dg::index<V>, T>;
static_assert(std::is_same_v<decltype(dg::gather(lvalue<table>(), lvalue<ids>())), tf>);
static_assert(
    std::is_same_v<decltype(dg::gather(lvalue<dg::tensor<double, F, V, B>>(), lvalue<ids>())),
                   dg::tensor<double, T, F, B>>);
static_assert(std::is_same_v<decltype(dg::one_hot(lvalue<ids>())), dg::tensor<float, T, V>>);
static_assert(std::is_same_v<decltype(dg::one_hot<double>(lvalue<dg::tensor<dg::index<T>, B>>(),
                                                          dg::extent<T>(5))),
                             dg::tensor<double, B, T>>);

// NumPy's slice rule on known cases (Python's slice(start, stop, step).indices(n))
constexpr bool selects(std::size_t n, dg::slice_index s, dg::slice_index e, std::ptrdiff_t k,
                       std::size_t first, std::size_t count) {
  const auto r = dg::slice_positions(n, s, e, k);
  return r.count == count && (count == 0 || r.first == first) && r.step == k;
}
static_assert(selects(10, 2, 8, 3, 2, 2));                  // 2 5
static_assert(selects(10, -3, dg::none, 1, 7, 3));          // 7 8 9
static_assert(selects(10, dg::none, dg::none, -1, 9, 10));  // 9 .. 0
static_assert(selects(10, 8, 2, -2, 8, 3));                 // 8 6 4
static_assert(selects(10, -100, 100, 1, 0, 10));
static_assert(selects(10, 5, 2, 1, 0, 0));
static_assert(selects(10, dg::none, dg::none, -3, 9, 4));  // 9 6 3 0
static_assert(selects(10, -1, -11, -1, 9, 10));
static_assert(selects(10, 100, dg::none, -1, 9, 10));
static_assert(selects(10, 3, -100, -1, 3, 4));  // 3 2 1 0
static_assert(selects(0, dg::none, dg::none, 1, 0, 0));
static_assert(selects(0, dg::none, dg::none, -1, 0, 0));
static_assert(selects(1, -5, 5, 2, 0, 1));

// For a static dim, the compile-time slice's static size is the run-time rule's count.
constexpr dg::slice_index some_bounds[] = {dg::none, -9, -2, 0, 3, 9};
constexpr std::ptrdiff_t some_strides[] = {-2, -1, 1, 3};
template <std::size_t... Is>
constexpr bool static_slices_match(std::index_sequence<Is...>) {
  return (
      (dg::static_size_v<dg::slice_dim_t<Seven, some_bounds[Is / 24], some_bounds[Is / 4 % 6],
                                         some_strides[Is % 4]>> ==
       dg::slice_positions(7, some_bounds[Is / 24], some_bounds[Is / 4 % 6], some_strides[Is % 4])
           .count) &&
      ...);
}
static_assert(static_slices_match(std::make_index_sequence<144>{}));

// The slice interval rule is the exact range of the slice rule over the dim's extents
// (brute force over every small extent, for every bound in [-5, 5] or open; one
// stride per check, to stay within the compilers' constexpr step limits).
constexpr dg::slice_index all_bounds[] = {dg::none, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5};
template <std::ptrdiff_t K>
constexpr bool slice_bounds_exact() {
  const dg::interval dims[] = {{0, 14}, {3, 9}, {6, 6}, {0, 0}};
  for (auto s : all_bounds)
    for (auto e : all_bounds)
      for (auto d : dims) {
        dg::interval brute = dg::interval::empty();
        for (std::size_t n = d.lo; n <= d.hi; ++n)
          brute = dg::hull(brute, dg::interval::exactly(dg::slice_positions(n, s, e, K).count));
        if (!(dg::detail::slice_bounds(d, s, e, K) == brute)) return false;
      }
  return true;
}
static_assert(slice_bounds_exact<-3>());
static_assert(slice_bounds_exact<-2>());
static_assert(slice_bounds_exact<-1>());
static_assert(slice_bounds_exact<1>());
static_assert(slice_bounds_exact<2>());
static_assert(slice_bounds_exact<3>());
// unbounded dims: the lower bound is the brute-force minimum; the upper bound is
// unbounded exactly when the count keeps growing
template <std::ptrdiff_t K, std::size_t Lo>
constexpr bool slice_bounds_unbounded() {
  for (auto s : all_bounds)
    for (auto e : all_bounds) {
      std::size_t mn = dg::unbounded, mx = 0;
      for (std::size_t n = Lo; n <= 32; ++n) {
        const std::size_t c = dg::slice_positions(n, s, e, K).count;
        mn = c < mn ? c : mn;
        mx = c > mx ? c : mx;
      }
      const bool grows =
          dg::slice_positions(32, s, e, K).count > dg::slice_positions(24, s, e, K).count;
      const auto r = dg::detail::slice_bounds({Lo, dg::unbounded}, s, e, K);
      if (r.lo != mn || (grows ? r.hi != dg::unbounded : r.hi != mx)) return false;
    }
  return true;
}
static_assert(slice_bounds_unbounded<-2, 0>());
static_assert(slice_bounds_unbounded<-1, 0>());
static_assert(slice_bounds_unbounded<1, 0>());
static_assert(slice_bounds_unbounded<3, 4>());

}  // namespace
