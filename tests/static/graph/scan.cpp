// The port-map walk of dg::slicing and the dims of dg::scan, as compile-time facts.
#include <dimgraph.hpp>

#include <cstddef>
#include <type_traits>

namespace dg = dimgraph;

namespace {
struct Batch : dg::dim<"batch"> {};
struct Time : dg::dim<"time"> {};
struct T40 : dg::dim<"t40", 40> {};
struct Feature : dg::dim<"feature", 8> {};

constexpr dg::slicing pairs_to(std::ptrdiff_t end) {
  return {.end = end, .stride = 2, .part_size = 2};
}

// Inclusive end: (|end - start| + 1) / part_size iterations when stride == part_size.
static_assert(dg::slicing_walk(pairs_to(39), 40).count == 20);
static_assert(dg::slicing_walk(pairs_to(38), 40).count == 19);
static_assert(dg::slicing_walk(pairs_to(-1), 40).count == 20);
static_assert(dg::slicing_walk(pairs_to(-2), 40).count == 19);
// Defaults walk the whole dim forwards; start -1, end 0, stride -1 walks it backwards.
static_assert(dg::slicing_walk({}, 25).count == 25 && dg::slicing_walk({}, 25).window(3) == 3);
constexpr dg::slicing reverse{.start = -1, .end = 0, .stride = -1};
static_assert(dg::slicing_walk(reverse, 25).count == 25);
static_assert(dg::slicing_walk(reverse, 25).window(0) == 24 &&
              dg::slicing_walk(reverse, 25).window(24) == 0);
static_assert(dg::slicing_walk(reverse, 25).slot(0) == 24);  // S[0] goes last: original order
// Negative bounds count from the end; stride 2 skips; a backward part of 2 reads [hi - 1, hi].
static_assert(dg::slicing_walk({.start = -4, .end = -2}, 6).count == 3);
static_assert(dg::slicing_walk({.start = -4, .end = -2}, 6).window(0) == 2);
static_assert(dg::slicing_walk({.start = 1, .stride = 2}, 9).count == 4);
static_assert(
    dg::slicing_walk({.start = -1, .end = 0, .stride = -2, .part_size = 2}, 7).window(0) == 5);
static_assert(dg::slicing_walk({.start = -1, .end = 0, .stride = -2, .part_size = 2}, 7).count ==
              3);
// Empty dims walk nowhere; bounds outside the dim are invalid.
static_assert(dg::slicing_walk({}, 0).valid && dg::slicing_walk({}, 0).count == 0);
static_assert(dg::slicing_walk(reverse, 0).valid && dg::slicing_walk(reverse, 0).count == 0);
static_assert(!dg::slicing_walk({.start = 5}, 3).valid);
static_assert(!dg::slicing_walk({.end = 3}, 3).valid);
static_assert(!dg::slicing_walk({.stride = 0}, 3).valid);

// The iteration dim: the dim itself when every position is read once, else trip_dim.
static_assert(std::is_same_v<dg::iteration_dim_t<Time, dg::slicing{}>, Time>);
static_assert(std::is_same_v<dg::iteration_dim_t<Time, reverse>, Time>);
static_assert(std::is_same_v<dg::iteration_dim_t<T40, dg::slicing{.start = 0, .end = 39}>, T40>);
static_assert(
    std::is_same_v<dg::iteration_dim_t<T40, pairs_to(39)>, dg::trip_dim<T40, pairs_to(39)>>);
static_assert(dg::static_size_v<dg::trip_dim<T40, pairs_to(38)>> == 19);
static_assert(dg::static_size_v<dg::trip_dim<Time, dg::slicing{.start = 2, .end = 5}>> == 4);
static_assert(dg::bounds_v<dg::trip_dim<Time, dg::slicing{.start = 2}>>.lo == 0);
static_assert(dg::static_size_v<dg::part_dim<T40, 2>> == 2);

// Slices drop the dim (part 1) or keep a part dim in its place; outputs insert the iteration dim.
static_assert(
    std::is_same_v<dg::slice_dims_t<Time, dg::slicing{}, dg::dim_list<Batch, Time, Feature>>,
                   dg::dim_list<Batch, Feature>>);
static_assert(std::is_same_v<dg::slice_dims_t<T40, pairs_to(39), dg::dim_list<Batch, T40, Feature>>,
                             dg::dim_list<Batch, dg::part_dim<T40, 2>, Feature>>);
static_assert(std::is_same_v<dg::stacked_dims_t<Time, 1, dg::dim_list<Batch, Feature>>,
                             dg::dim_list<Batch, Time, Feature>>);
static_assert(
    std::is_same_v<dg::stacked_dims_t<Time, 5, dg::dim_list<Batch>>, dg::dim_list<Batch, Time>>);

// The result of a scan, by type: [Batch, Time, Feature] stacked, then the carry.
struct running_sum {
  auto operator()(const auto& x_t, const auto& h) const {
    return dg::step(dg::carry(h + x_t), dg::emit(h));
  }
};
using scan_result = decltype(dg::scan<Time>(running_sum{})(
    dg::sliced<Time>(std::declval<const dg::tensor<float, Batch, Time, Feature>&>()),
    std::declval<const dg::tensor<float, Batch, Feature>&>()));
static_assert(std::is_same_v<scan_result, std::tuple<dg::tensor<float, Batch, Time, Feature>,
                                                     dg::tensor<float, Batch, Feature>>>);
}  // namespace
