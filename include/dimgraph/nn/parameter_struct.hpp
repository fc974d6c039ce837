// dg::nn layers' weights given as one struct: a Boost.Hana struct whose tensors are the operands.
#pragma once

#include <cstddef>
#include <tuple>
#include <utility>

#include <boost/hana/accessors.hpp>
#include <boost/hana/concept/struct.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/unpack.hpp>

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

}  // namespace detail
}  // namespace dimgraph::nn
