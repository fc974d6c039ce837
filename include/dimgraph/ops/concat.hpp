// Ops that copy into a longer dim: concat (a + b + ...) and pad (c<before> + a + c<after>).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/detail/require.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/eval/ragged.hpp"
#include "dimgraph/eval/reduce.hpp"
#include "dimgraph/ops/view.hpp"

// Each op checks everything first, then allocates its result and fills it by assigning
// its operands (any expressions) to sub-views of the result with the element-wise
// machinery: no loops of their own.

namespace dimgraph {

// concat's operand: x, concatenated along its dim A.
template <class A, class X>
struct along_arg {
  using dim = A;
  X operand;
};
template <dimension A, class X>
auto along(X&& x) {
  return along_arg<std::remove_cvref_t<A>, operand_t<X&&>>{std::forward<X>(x)};
}

namespace detail {

template <class T>
inline constexpr bool is_along_v = false;
template <class A, class X>
inline constexpr bool is_along_v<along_arg<A, X>> = true;

template <class X>
using operand_value_t = value_t<std::remove_cvref_t<X>>;

template <class... Ts>
struct common_element;
template <class T>
struct common_element<T> {
  using type = T;
};
template <class T, class U, class... Ts>
  requires has_promotion_v<T, U>
struct common_element<T, U, Ts...> : common_element<promote_t<T, U>, Ts...> {};
template <class... Ts>
inline constexpr bool has_common_element_v = requires { typename common_element<Ts...>::type; };

template <class... As, class... Xs>
constexpr structural_check check_concat(type_list<along_arg<As, Xs>...>) {
  constexpr bool all_expr = (expression<Xs> && ...);
  if constexpr (!all_expr) {
    return structural_check::not_memory;
  } else {
    if (!(list_contains_v<dims_t<Xs>, As> && ...)) return structural_check::no_such_dim;
    using first = type_list<As...>;
    using others = list_difference_t<dims_t<front_t<type_list<Xs...>>>, dim_list<front_t<first>>>;
    if (!(list_same_set_v<list_difference_t<dims_t<Xs>, dim_list<As>>, others> && ...))
      return structural_check::other_dims_differ;
    if (list_contains_v<others, concat_dim_t<As...>>) return structural_check::dim_present;
    if (!has_common_element_v<operand_value_t<Xs>...>) return structural_check::no_common_type;
    return structural_check::ok;
  }
}

// concat's run-time rule: other dims and repeated concatenated tags agree; the
// concatenated extents add up.
template <class R, class... As, class... Xs>
std::array<std::size_t, sizeof...(As)> concat_extents(const along_arg<As, Xs>&... parts) {
  const auto& first = std::get<0>(std::forward_as_tuple(parts...)).operand;
  using first_t = std::remove_cvref_t<decltype(first)>;
  using others = list_difference_t<dims_t<first_t>, dim_list<front_t<type_list<As...>>>>;
  std::size_t i = 0;
  auto agree_others = [&]<class... Ds>(dim_list<Ds...>, const auto& x) {
    (check_agree<Ds>("concat", first.template extent<Ds>(), 1, x.template extent<Ds>(), i + 1),
     ...);
  };
  ((agree_others(others{}, parts.operand), ++i), ...);
  std::array<std::size_t, sizeof...(As)> ext{parts.operand.template extent<As>()...};
  // The same tag concatenated with itself (a + a == 2 * a) has one extent.
  constexpr std::size_t firsts[] = {index_of_v<As, type_list<As...>>...};
  for (std::size_t k = 0; k < sizeof...(As); ++k) {
    const std::size_t j = firsts[k];
    if (j != k && ext[j] != ext[k]) {
      for_each_index<sizeof...(As)>([&]<std::size_t K>(index_constant<K>) {
        if (K == k) check_agree<at_t<K, type_list<As...>>>("concat", ext[j], j + 1, ext[k], k + 1);
      });
    }
  }
  return ext;
}

}  // namespace detail

// Concatenation along one dim of each operand (a new tensor):
//   concat(along<a>(x), along<b>(y)): [.., a, ..] , [.., b, ..] -> [.., a + b, ..]
// The result dim is a + b by the algebra (a + a is 2 * a), at the position of x's a, and
// x's other dims in x's order; every operand must have the same other dims (in any
// order) with equal extents. More operands: along<a>(x), along<b>(y), along<c>(w), ...
// The element type is the operands' common type. Along ragged dims (ragged over one batch
// dim), each row holds the operands' valid parts one after the other and its length is their
// sum (a part that is not ragged is whole in every row); the rest of the row is zero.
// Errors (compile time): an operand lacks its dim; the operands' other dims differ; the result
// dim is one of the other dims; no common element type; dims ragged over different batch dims;
// concatenation along a ragged dim's batch dim. Errors (run time): another dim, or a tag
// concatenated with itself, with different extents; concatenated extents that add up to more than a
// std::size_t holds, or a result larger than a tensor can address (shape_error). Nothing is
// allocated before the checks.
template <class... Parts>
  requires(sizeof...(Parts) > 0 && (detail::is_along_v<Parts> && ...))
auto concat(Parts... parts) {
  if constexpr ((detail::poisoned<decltype(parts.operand)> || ...)) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    constexpr auto check = detail::check_concat(detail::type_list<Parts...>{});
    static_assert(check != check_t::not_memory,
                  "dimgraph: concat: an operand is not a tensor or an expression");
    DIMGRAPH_REQUIRE(check != check_t::no_such_dim, "dimgraph: concat: an operand has no such dim",
                     ::dimgraph::asked<typename Parts::dim...>,
                     detail::has_role_t<decltype(parts.operand)>...);
    DIMGRAPH_REQUIRE(
        check != check_t::other_dims_differ, "dimgraph: concat: the operands' other dims differ",
        ::dimgraph::asked<typename Parts::dim...>, detail::has_role_t<decltype(parts.operand)>...);
    DIMGRAPH_REQUIRE(check != check_t::dim_present,
                     "dimgraph: concat: the result dim is already one of the other dims",
                     ::dimgraph::asked<typename Parts::dim...>,
                     detail::has_role_t<decltype(parts.operand)>...);
    static_assert(check != check_t::no_common_type,
                  "dimgraph: concat: the element types have no common type");
    using whole_dim = concat_dim_t<typename Parts::dim...>;
    constexpr bool keeps =
        check != check_t::ok ||
        (!detail::is_batch_of_lengths<decltype(parts.operand), typename Parts::dim>() && ...);
    DIMGRAPH_REQUIRE(keeps, DIMGRAPH_BATCH_OF_LENGTHS("concat"),
                     ::dimgraph::asked<typename Parts::dim...>,
                     detail::has_role_t<decltype(parts.operand)>...);
    constexpr bool one_batch =
        check != check_t::ok ||
        (detail::lengths_carry_to<decltype(parts.operand), typename Parts::dim, whole_dim>() &&
         ...);
    DIMGRAPH_REQUIRE(
        one_batch, "dimgraph: concat: the concatenated dims are ragged over different batch dims",
        ::dimgraph::asked<typename Parts::dim...>, detail::has_role_t<decltype(parts.operand)>...);
    if constexpr (check == check_t::ok && keeps && one_batch) {
      return [&]<class... As, class... Xs>(const along_arg<As, Xs>&... ps) {
        using r_dim = concat_dim_t<As...>;
        using x0 = std::remove_cvref_t<detail::front_t<detail::type_list<Xs...>>>;
        using a0 = detail::front_t<detail::type_list<As...>>;
        using value = typename detail::common_element<detail::operand_value_t<Xs>...>::type;
        using result_t =
            detail::tensor_of_list_t<value, detail::replace_dim_t<dims_t<x0>, a0, r_dim>>;
        const auto ext = detail::concat_extents<r_dim>(ps...);
        const auto& x = std::get<0>(std::forward_as_tuple(ps...)).operand;
        const std::size_t total = std::apply(
            [&](auto... e) {
              return detail::result_extent<r_dim, true>(
                  "concat", {e...}, [&] { return detail::parts_text<As...>(" + ", ext); });
            },
            ext);
        auto shape = detail::shape_with<result_t, r_dim>("concat", x, total);
        if constexpr (detail::carries_lengths_v<r_dim, dims_t<result_t>>) {
          // Along ragged dims: each row packs the valid parts of its operands, one after the
          // other (a part that is not ragged is whole in every row), and is as long as they are
          // together; the rest of the row is zero.
          const std::array<lengths_ref, sizeof...(As)> given{detail::lengths_in<As>(ps.operand)...};
          if (std::any_of(given.begin(), given.end(), [](const lengths_ref& l) { return !!l; })) {
            using bt = ragged_batch_t<r_dim>;
            const std::size_t rows = x.template extent<bt>();
            auto part_length = [&](std::size_t k, std::size_t b) {
              return given[k] ? static_cast<std::size_t>((*given[k])[b]) : ext[k];
            };
            auto lengths = std::make_shared<std::vector<std::int64_t>>(rows);
            for (std::size_t b = 0; b < rows; ++b)
              for (std::size_t k = 0; k < sizeof...(As); ++k)
                (*lengths)[b] += static_cast<std::int64_t>(part_length(k, b));
            shape.template set_lengths<r_dim>("concat", std::move(lengths));
            result_t r(shape);
            std::fill_n(r.data(), r.size(), value{});
            auto whole = r.view();
            const std::ptrdiff_t s = r.template stride<r_dim>();
            std::vector<std::size_t> at(rows, 0);
            std::size_t k = 0;
            auto copy_part = [&]<class A>(std::type_identity<A>, const auto& operand) {
              decltype(auto) src = [&]() -> decltype(auto) {
                if constexpr (requires { operand.data(); }) return (operand);
                else return dimgraph::eval(operand);
              }();
              for (std::size_t b = 0; b < rows; ++b) {
                const std::size_t n = part_length(k, b);
                auto dst_row = detail::entry_view<bt>(whole, b);
                detail::replaced_view<r_dim, A>(dst_row, "concat",
                                                static_cast<std::ptrdiff_t>(at[b]) * s, {n}, {s}) =
                    detail::leading_view<A>(detail::entry_view<bt>(src, b), n);
                at[b] += n;
              }
              ++k;
            };
            (copy_part(std::type_identity<As>{}, ps.operand), ...);
            return r;
          }
        }
        result_t r(shape);
        auto whole = r.view();
        const std::ptrdiff_t s = r.template stride<r_dim>();
        std::ptrdiff_t offset = 0;
        std::size_t i = 0;
        ((detail::replaced_view<r_dim, As>(whole, "concat", offset, {ext[i]}, {s}) = ps.operand,
          offset += static_cast<std::ptrdiff_t>(ext[i++]) * s),
         ...);
        return r;
      }(parts...);
    } else {
      return detail::invalid_expr{};
    }
  }
}

namespace detail {

template <class A, class P, class X>
constexpr structural_check check_pad() {
  if constexpr (!expression<X>) {
    return structural_check::not_memory;
  } else {
    using dims = dims_t<X>;
    if (!list_contains_v<dims, A>) return structural_check::no_such_dim;
    if (!std::is_same_v<P, A> && list_contains_v<dims, P>) return structural_check::dim_present;
    return structural_check::ok;
  }
}

template <class X>
struct pad_value {
  using type = int;  // (after a reported mistake)
};
template <expression X>
struct pad_value<X> {
  using type = value_t<X>;
};

// The part of a padded dim before or after the operand (a private dim: it only names a
// sub-view of the result).
template <class P, std::size_t Size, bool After>
struct pad_part : dim_expr_base {
  static constexpr interval bounds = interval::exactly(Size);
  static constexpr dim_kind kind = kind_v<P>;
  static constexpr std::string_view name = After ? "padding after" : "padding before";
};

}  // namespace detail

// Padding along dim a with `value` (a new tensor):
//   pad<a, before, after>(x, value = 0): [.., a, ..] -> [.., before + a + after, ..]
// The result dim is dg::c<before> + a + dg::c<after> by the algebra, so slicing the
// padding off again, slice<pad_dim_t<a, before, after>, before, -after> (end dg::none
// when after is 0), gives a view with dim a itself. Along a ragged a each row is
// before + its length + after, with value right after the row's data (and in the rest of the
// row). Errors (compile time): x has no dim a; the padded dim is already one of x's dims; a is
// a ragged dim's batch dim. Error
// (run time): the padded extent does not fit a std::size_t, or the result is larger than a
// tensor can address (shape_error).
template <dimension A, std::size_t Before, std::size_t After, class X>
auto pad(X&& x, typename detail::pad_value<std::remove_cvref_t<X>>::type value = {}) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    using a = std::remove_cvref_t<A>;
    using p = pad_dim_t<a, Before, After>;
    constexpr auto check = detail::check_pad<a, p, X>();
    static_assert(check != check_t::not_memory,
                  "dimgraph: pad: the operand is not a tensor or an expression");
    static_assert(check != check_t::no_such_dim, "dimgraph: pad: the tensor has no such dim");
    static_assert(check != check_t::dim_present,
                  "dimgraph: pad: the padded dim is already a dim of the tensor");
    // (Padding a ragged dim gives a dim ragged over the same batch dim: each row is padded.)
    constexpr bool keeps = check != check_t::ok || !detail::is_batch_of_lengths<X, a>();
    static_assert(keeps, DIMGRAPH_BATCH_OF_LENGTHS("pad"));
    if constexpr (check == check_t::ok && keeps) {
      using x_t = std::remove_cvref_t<X>;
      using value_type = value_t<x_t>;
      using result_t =
          detail::tensor_of_list_t<value_type, detail::replace_dim_t<dims_t<x_t>, a, p>>;
      const std::size_t n = x.template extent<a>();
      const std::size_t padded = detail::result_extent<p, true>("pad", {Before, n, After}, [&] {
        return std::to_string(Before) + " + " + detail::dim_with_extent<a>(n) + " + " +
               std::to_string(After);
      });
      auto shape = detail::shape_with<result_t, p>("pad", x, padded);
      // A ragged a: each row is before + its length + after, the value also written after each
      // row's valid part, so that a row's padding after it starts right where its data ends.
      constexpr bool ragged = detail::carries_lengths_v<a, dims_t<x_t>> && !std::is_same_v<a, p>;
      [[maybe_unused]] lengths_ref lengths;
      if constexpr (ragged) {
        lengths = detail::lengths_in<a>(x);
        shape.template set_lengths<p>("pad", detail::map_lengths(lengths, [](std::int64_t len) {
                                        return static_cast<std::int64_t>(Before + After) + len;
                                      }));
      }
      result_t r(shape);
      auto whole = r.view();
      const std::ptrdiff_t s = r.template stride<p>();
      if constexpr (Before > 0)
        detail::fill_view(detail::replaced_view<p, detail::pad_part<p, Before, false>>(
                              whole, "pad", 0, {Before}, {s}),
                          value);
      auto middle = detail::replaced_view<p, a>(whole, "pad",
                                                static_cast<std::ptrdiff_t>(Before) * s, {n}, {s});
      if constexpr (ragged) {
        if (lengths) {
          detail::with_position_type(x, dim_list<a>{}, [&]<class I>(std::type_identity<I>) {
            const detail::ragged_mask<I, dims_t<x_t>, a> mask(x);
            middle = mask.apply(x, value);
          });
        } else {
          middle = x;
        }
      } else {
        middle = x;
      }
      if constexpr (After > 0)
        detail::fill_view(
            detail::replaced_view<p, detail::pad_part<p, After, true>>(
                whole, "pad", static_cast<std::ptrdiff_t>(Before + n) * s, {After}, {s}),
            value);
      return r;
    } else {
      return detail::invalid_expr{};
    }
  }
}

}  // namespace dimgraph
