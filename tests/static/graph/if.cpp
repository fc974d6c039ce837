// The result types of dg::if_: the then-branch's dims, one tensor or a tuple.
#include <dimgraph.hpp>

#include <tuple>
#include <type_traits>
#include <utility>

namespace dg = dimgraph;

namespace {
struct A : dg::dim<"a", 2> {};
struct B : dg::dim<"b"> {};

using ab = dg::tensor<float, A, B>;
using ba = dg::tensor<float, B, A>;

struct identity {
  auto operator()(const auto& x, const auto&) const { return x; }
};
struct second_plus_one {
  auto operator()(const auto&, const auto& y) const { return y + 1.0f; }
};
struct pair_of_sums {
  auto operator()(const auto& x, const auto& y) const { return std::pair{dg::sum<B>(x), x * y}; }
};

// The else-branch returns [B, A]: the result takes the then-branch's order.
static_assert(std::is_same_v<decltype(dg::if_(true, identity{}, second_plus_one{})(
                                 std::declval<const ab&>(), std::declval<const ba&>())),
                             ab>);
static_assert(std::is_same_v<decltype(dg::if_(true, second_plus_one{}, identity{})(
                                 std::declval<const ab&>(), std::declval<const ba&>())),
                             ba>);
// A compile-time condition gives the chosen branch's own types.
static_assert(std::is_same_v<decltype(dg::if_(std::false_type{}, identity{}, second_plus_one{})(
                                 std::declval<const ab&>(), std::declval<const ba&>())),
                             ba>);
static_assert(std::is_same_v<decltype(dg::if_(false, pair_of_sums{}, pair_of_sums{})(
                                 std::declval<const ab&>(), std::declval<const ab&>())),
                             std::tuple<dg::tensor<float, A>, ab>>);
}  // namespace
