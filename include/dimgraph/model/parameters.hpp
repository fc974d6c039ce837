// dg::parameters, dg::parameter_count: the tensors of a model written as a Boost.Hana struct.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/hana/accessors.hpp>
#include <boost/hana/concept/struct.hpp>
#include <boost/hana/first.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/string.hpp>
#include <boost/hana/unpack.hpp>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/detail/type_list.hpp"
#include "dimgraph/tensor/tensor.hpp"

namespace dimgraph {
namespace detail {

template <class X>
inline constexpr bool is_owning_tensor_v = false;
template <class T, class... Ds>
inline constexpr bool is_owning_tensor_v<tensor<T, Ds...>> = true;

template <class X>
inline constexpr bool is_std_array_v = false;
template <class X, std::size_t N>
inline constexpr bool is_std_array_v<std::array<X, N>> = true;

// The type of member `Accessor` of struct M.
template <class M, class Accessor>
using member_t = std::remove_cvref_t<decltype(boost::hana::second(std::declval<Accessor>())(
    std::declval<M&>()))>;

// The tensor types of a model part X in visiting order (a detail::type_list): a tensor is
// itself; a std::array repeats its element's list; a Hana struct concatenates its members'
// lists in declaration order; anything else (a size, a flag) has none.
template <class X>
struct model_tensors;
template <class X>
using model_tensors_t = typename model_tensors<X>::type;

template <class X, class = std::make_index_sequence<0>>
struct repeat_list {};
template <class L, std::size_t... I>
struct repeat_list<L, std::index_sequence<I...>> {
  template <std::size_t>
  using same = L;
  using type = concat_t<same<I>...>;
};

template <class X>
struct model_tensors {
  static auto get() {
    if constexpr (is_owning_tensor_v<X>) {
      return type_list<X>{};
    } else if constexpr (is_std_array_v<X>) {
      using elem = typename X::value_type;
      return typename repeat_list<model_tensors_t<elem>,
                                  std::make_index_sequence<std::tuple_size_v<X>>>::type{};
    } else if constexpr (boost::hana::Struct<X>::value) {
      return boost::hana::unpack(boost::hana::accessors<X>(), [](auto... member) {
        return concat_t<model_tensors_t<member_t<X, decltype(member)>>...>{};
      });
    } else {
      return type_list<>{};
    }
  }
  using type = decltype(get());
};

template <class List>
struct as_tuple;
template <class... Ts>
struct as_tuple<type_list<Ts...>> {
  using type = std::tuple<Ts...>;
};

// Calls f(path, tensor) for every tensor in x, path being x's own dotted path.
template <class X, class F>
void visit_parameters(X& x, std::string& path, F& f) {
  using plain = std::remove_const_t<X>;
  const std::size_t kept = path.size();
  const auto descend = [&](const char* name, auto& part) {
    if (!path.empty()) path += '.';
    path += name;
    visit_parameters(part, path, f);
    path.resize(kept);
  };
  if constexpr (is_owning_tensor_v<plain>) {
    f(std::as_const(path), x);
  } else if constexpr (is_std_array_v<plain>) {
    for (std::size_t i = 0; i < x.size(); ++i) descend(std::to_string(i).c_str(), x[i]);
  } else if constexpr (boost::hana::Struct<plain>::value) {
    boost::hana::for_each(boost::hana::accessors<plain>(), [&](auto member) {
      descend(boost::hana::to<const char*>(boost::hana::first(member)),
              boost::hana::second(member)(x));
    });
  }
}

}  // namespace detail

// A model: a dg::tensor, a std::array of models, or a struct of models made a Boost.Hana
// struct (BOOST_HANA_DEFINE_STRUCT in the struct, or BOOST_HANA_ADAPT_STRUCT after it; the
// user includes <boost/hana/define_struct.hpp> or <boost/hana/adapt_struct.hpp>). Members of
// other types (sizes, flags) are not parameters and are skipped.
template <class M>
concept model =
    detail::is_owning_tensor_v<M> || detail::is_std_array_v<M> || boost::hana::Struct<M>::value;

// The number of tensors in model M, at compile time.
template <model M>
inline constexpr std::size_t tensor_count_v = detail::model_tensors_t<M>::size;

// The types of the tensors in model M in visiting order, as a std::tuple type (at compile time).
template <model M>
using parameter_types_t = typename detail::as_tuple<detail::model_tensors_t<M>>::type;

// Calls f(name, tensor) for every tensor of the model once, in declaration order (depth
// first; std::array elements in index order), name being its dotted path from the model:
// "encoder.layers.0.attention.w_q" (a model that is itself a tensor has the name ""). The
// tensor is passed as the model is (const or not). Error: M is not a model (compile time).
template <class M, class F>
void parameters(M& m, F&& f) {
  DIMGRAPH_REQUIRE(model<std::remove_const_t<M>>,
                   "dimgraph: parameters: the model must be a dg::tensor, a std::array of models "
                   "or a Boost.Hana struct (BOOST_HANA_DEFINE_STRUCT / BOOST_HANA_ADAPT_STRUCT)",
                   detail::operand_role_t<"model", std::remove_const_t<M>>, std::remove_const_t<M>);
  if constexpr (model<std::remove_const_t<M>>) {
    std::string path;
    detail::visit_parameters(m, path, f);
  }
}

// The number of elements in all the tensors of the model (its run-time extents).
template <class M>
std::size_t parameter_count(const M& m) {
  DIMGRAPH_REQUIRE(model<M>,
                   "dimgraph: parameter_count: the model must be a dg::tensor, a std::array of "
                   "models or a Boost.Hana struct (BOOST_HANA_DEFINE_STRUCT / "
                   "BOOST_HANA_ADAPT_STRUCT)",
                   detail::operand_role_t<"model", M>, M);
  std::size_t n = 0;
  if constexpr (model<M>) parameters(m, [&](const std::string&, const auto& t) { n += t.size(); });
  return n;
}

}  // namespace dimgraph
