// A traced graph's type is the graph: its inputs, outputs and nodes, for static_assert.
#include <dimgraph.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>

namespace dg = dimgraph;

namespace {
struct Batch : dg::dim<"batch"> {};
struct Time : dg::dim<"time", dg::range{1, 25}> {};
struct Feature : dg::dim<"feature", 8> {};

struct attention_scores {
  auto operator()(const auto& q, const auto& k) const {
    return dg::softmax<Time>(dg::sum<Feature>(q * k));
  }
};
using G = decltype(dg::trace(attention_scores{}, dg::input<float, Batch, Time, Feature>{},
                             dg::input<float, Time, Feature>{}));

static_assert(std::is_same_v<G::inputs, std::tuple<dg::tensor<float, Batch, Time, Feature>,
                                                   dg::tensor<float, Time, Feature>>>);
static_assert(std::is_same_v<G::outputs, std::tuple<dg::tensor<float, Batch, Time>>>);
static_assert(std::is_same_v<G::output_t<0>, dg::tensor<float, Batch, Time>>);
static_assert(G::input_count == 2 && G::output_count == 1);
// q, k, mul, sum, softmax: each node once, inputs first, operands before their users.
static_assert(G::nodes::size == 5);
static_assert(
    std::is_same_v<dg::detail::at_t<0, G::nodes>, dg::input_node<0, float, Batch, Time, Feature>>);
static_assert(
    std::is_same_v<dg::detail::at_t<1, G::nodes>, dg::input_node<1, float, Time, Feature>>);
static_assert(std::is_same_v<dg::detail::at_t<4, G::nodes>::op, dg::op_tag<"softmax", Time>>);
static_assert(std::is_same_v<dg::detail::at_t<4, G::nodes>::dims, dg::dim_list<Batch, Time>>);

// Promotion and the interval of a padded dim are the eager ops' own.
struct padded {
  auto operator()(const auto& x) const { return dg::pad<Time, 2, 2>(x * 2); }
};
using P = decltype(dg::trace(padded{}, dg::input<std::int8_t, Time>{}));
using padded_time = decltype(dg::c<2> + Time{} + dg::c<2>);
static_assert(std::is_same_v<P::output_t<0>, dg::tensor<std::int8_t, padded_time>>);
static_assert(dg::bounds_v<padded_time> == dg::interval{5, 29});

// A symbol is not an expression: it never reaches the evaluator.
static_assert(dg::symbolic<dg::symbol<dg::input_node<0, float, Time>>>);
static_assert(!dg::expression<dg::symbol<dg::input_node<0, float, Time>>>);
}  // namespace
