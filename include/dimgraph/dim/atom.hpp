// atomic_dim: the members a dim that the algebra never looks inside provides.
#pragma once

#include <concepts>
#include <string_view>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/dim/interval.hpp"
#include "dimgraph/dim/tag.hpp"

namespace dimgraph {

// Every dim is either a form of the algebra (dim/forms.hpp: a constant, a sum, a product, an
// opaque split or removal), whose size, kind and printed form come from its parts, or an
// atomic dim, which the algebra treats as one indivisible unit and which says these itself.
// Atoms are the tags (dg::dim<...>) and the private dims an op makes, declared beside it:
// reversed_dim and sliced_dim (shape/slice_rule.hpp), part_dim and trip_dim
// (graph/slicing.hpp), pad_part (ops/concat.hpp), packed_dim (ops/pack.hpp),
// nn::key_dim (nn/attention_params.hpp) and invalid_dim (the stand-in after a reported
// mistake, dim/operators.hpp). An atomic dim D has these static members:
//   D::bounds      an interval    the extents it can have (bounds_v<D>);
//   D::kind        a dim_kind     its kind (kind_v<D>), which the dims made from it share;
//   D::name        a string_view  how describe<D>() prints it ("time"), or instead
//   D::describe()  a std::string  for a printed form built from another dim ("reverse(time)");
// and, when it is made from one other dim A (a reversal, a slice, a part of A):
//   D::source      A              whose kinds it shares, all of them (so reverse(4) * batch
//                                 is a batch dim, as 4 * batch is); kind is then A's.
// A dim with a length per entry of a batch dim says so through detail::ragged_batch_of
// (dim/tag.hpp: a tag by its size argument, another atom by a specialisation beside it); any
// other atom has none. Nothing else about an atom is read: its template parameters, of
// whatever kinds, are its own business.
namespace detail {
template <class D>
concept sized_and_kinded = requires {
  { D::bounds } -> std::convertible_to<interval>;
  { D::kind } -> std::convertible_to<dim_kind>;
};
template <class D>
concept named = requires {
  { D::name } -> std::convertible_to<std::string_view>;
};
template <class D>
concept self_describing = requires { D::describe(); };
}  // namespace detail

template <class D>
concept atomic_dim =
    dimension<D> && detail::sized_and_kinded<D> && (detail::named<D> || detail::self_describing<D>);

namespace detail {

// The check, in a class of its own: made once per type, so that bounds_v, kind_v and
// describe(), which all read an atom's members, give one error between them for a dim that is
// no atom (which then reads as size 0, no kind, printed "<invalid>"); and apart from the
// readers' values, since Clang drops a class whose body holds a failed check.
template <class D>
struct atom_check {
  DIMGRAPH_REQUIRE_DECL(atomic_dim<D>,
                        "dimgraph: dim: a dim that is not a form of the algebra must be an atomic "
                        "dim (static members bounds, kind, and name or describe())",
                        asked<D>);
};

}  // namespace detail
}  // namespace dimgraph
