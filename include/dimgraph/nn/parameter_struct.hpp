// dg::nn layers' weights given as one struct: a Boost.Hana struct whose tensors are the operands.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/hana/accessors.hpp>
#include <boost/hana/concept/struct.hpp>
#include <boost/hana/first.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/string.hpp>
#include <boost/hana/unpack.hpp>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/detail/type_list.hpp"
#include "dimgraph/nn/cell_dims.hpp"

namespace dimgraph::nn {

// A layer's weights as one argument: a Boost.Hana struct (BOOST_HANA_DEFINE_STRUCT or
// BOOST_HANA_ADAPT_STRUCT, as for dg::parameters) whose members that are layer operands
// (tensors, views, symbols) are the layer's weight operands in declaration order. Members of
// other types (sizes, flags, nested structs) are skipped. The same struct is a model for
// dg::parameters and dg::io::load, so weights load straight into what the layer takes.
template <class P>
concept parameter_struct = boost::hana::Struct<P>::value && !layer_operand<P>;

namespace detail {

template <class X>
auto operand_ref(const X& x) {
  if constexpr (layer_operand<X>) {
    return std::tuple<const X&>(x);
  } else {
    return std::tuple<>{};
  }
}

// References to the operand members of p, in declaration order (a std::tuple of const refs).
template <class P>
auto operand_members(const P& p) {
  return boost::hana::unpack(boost::hana::accessors<P>(), [&](auto... member) {
    return std::tuple_cat(operand_ref(boost::hana::second(member)(p))...);
  });
}

// How many operand members P has.
template <class P>
inline constexpr std::size_t operand_member_count_v =
    std::tuple_size_v<decltype(operand_members(std::declval<const P&>()))>;

// layer(args..., the operand members of p...).
template <class P, class Layer, class... Args>
auto call_with_members(const P& p, const Layer& layer, const Args&... args) {
  return std::apply([&](const auto&... w) { return layer(args..., w...); }, operand_members(p));
}

// The name of a member (a hana::string) as a NUL-terminated array.
template <class Name>
struct member_name;
template <char... Cs>
struct member_name<boost::hana::string<Cs...>> {
  static constexpr char value[] = {Cs..., '\0'};
};

// A member as the role of an operand in a mistake: operand<"w", Gate, Input> for a member w
// [Gate, Input]; nothing for a member that is not an operand.
template <class Name, class T>
struct member_role {
  using type = dimgraph::detail::type_list<>;
};
template <class Name, layer_operand T>
  requires requires { typename T::dims; }
struct member_role<Name, T> {
  using type = dimgraph::detail::type_list<
      typename dimgraph::detail::named_operand<member_name<Name>::value, dims_of_t<T>>::type>;
};

// The roles of P's operand members, in declaration order (a type_list of operand<..>): what a
// mistake about the number of a struct's members shows of them.
template <class P>
using member_roles_t = decltype(boost::hana::unpack(boost::hana::accessors<P>(), [](auto... m) {
  return dimgraph::detail::concat_t<typename member_role<
      std::remove_cvref_t<decltype(boost::hana::first(m))>,
      std::remove_cvref_t<decltype(boost::hana::second(m)(std::declval<const P&>()))>>::type...>{};
}));

}  // namespace detail
}  // namespace dimgraph::nn
