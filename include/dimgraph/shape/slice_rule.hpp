// The slice rule: NumPy slice bounds, the extent they select, and the dim a slice gives.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <string>
#include <type_traits>

#include "dimgraph/dim/describe.hpp"
#include "dimgraph/dim/operators.hpp"
#include "dimgraph/dim/size.hpp"

namespace dimgraph {

// An open slice bound (NumPy's None): the start or end of the dim in the stride's direction.
struct none_t {
  friend constexpr bool operator==(none_t, none_t) = default;
};
inline constexpr none_t none{};

// A slice bound: an index (a negative one counts from the end) or dg::none.
// A structural type, so it can be a template argument: dg::slice<Time, 2, -1>(x).
struct slice_index {
  std::ptrdiff_t value = 0;
  bool is_none = true;

  constexpr slice_index(none_t) noexcept {}  // NOLINT: implicit, like an integer
  template <std::integral I>
    requires(!std::is_same_v<I, bool>)
  constexpr slice_index(I i) noexcept
      : value(static_cast<std::ptrdiff_t>(i)), is_none(false) {}  // NOLINT
};

// The positions a slice selects along a dim of extent n: first, first + step, ...
// (count of them; first is 0 when count is 0).
struct slice_range {
  std::size_t first = 0;
  std::ptrdiff_t step = 1;
  std::size_t count = 0;
};

// |step| as a std::size_t (exact for PTRDIFF_MIN too).
constexpr std::size_t step_magnitude(std::ptrdiff_t step) {
  return step < 0 ? std::size_t{0} - static_cast<std::size_t>(step)
                  : static_cast<std::size_t>(step);
}

// NumPy's rule (Python's slice.indices): a negative bound counts from the end, bounds
// beyond either end are clamped (a slice never fails), end is exclusive; a negative
// step walks backwards, and an open bound is then the last position (start) or the
// position before the first (end). step must not be 0; any other step is exact, however
// large (|step| is taken without overflow: a step of PTRDIFF_MIN selects at most one position).
constexpr slice_range slice_positions(std::size_t extent, slice_index start, slice_index end,
                                      std::ptrdiff_t step) {
  const auto n = static_cast<std::ptrdiff_t>(extent);
  auto adjust = [&](slice_index b, std::ptrdiff_t open) {
    if (b.is_none) return open;
    std::ptrdiff_t v = b.value;
    if (v < 0) {
      v = v < -n ? (step < 0 ? -1 : 0) : v + n;
    } else if (v >= n) {
      v = step < 0 ? n - 1 : n;
    }
    return v;
  };
  const std::ptrdiff_t s = adjust(start, step < 0 ? n - 1 : 0);
  const std::ptrdiff_t e = adjust(end, step < 0 ? -1 : n);
  const std::size_t k = step_magnitude(step);
  std::size_t count = 0;
  if (step > 0 && s < e) count = static_cast<std::size_t>(e - s - 1) / k + 1;
  if (step < 0 && e < s) count = static_cast<std::size_t>(s - e - 1) / k + 1;
  return count == 0 ? slice_range{0, step, 0}
                    : slice_range{static_cast<std::size_t>(s), step, count};
}

namespace detail {

// The extents a slice can select from a dim whose extent lies in a. The count is
// monotone between the extents where a bound starts or stops being clamped (|bound|
// and its neighbours), so its extremes lie at those points or at a's ends; far beyond
// them the count grows by one per |step| (unbounded), stays put, or falls to 0.
constexpr interval slice_bounds(interval a, slice_index start, slice_index end,
                                std::ptrdiff_t step) {
  if (a.is_empty()) return interval::empty();
  auto count = [&](std::size_t n) { return slice_positions(n, start, end, step).count; };
  const std::size_t k = step_magnitude(step);
  // far: beyond every point where clamping changes, and where the distance from start to
  // end is positive if it grows with the extent (it is then n plus at most the bounds).
  std::size_t far = 2;
  interval r = interval::empty();
  auto sample = [&](std::size_t n) {
    if (!a.contains(n)) return;
    const std::size_t c = count(n);
    r = hull(r, interval::exactly(c));
  };
  for (slice_index b : {start, end}) {
    if (b.is_none) continue;
    const std::size_t m = step_magnitude(b.value);
    for (std::size_t p : {m - 1, m, m + 1})
      if (p <= m + 1) sample(p);  // (m - 1 wraps when m is 0)
    far += m;
  }
  far = std::max(far, a.lo);
  sample(a.lo);
  if (a.is_bounded()) {
    sample(a.hi);
  } else {
    const std::size_t at_far = count(far), next = count(far + k);
    sample(far);
    if (next > at_far) r.hi = unbounded;
    if (next < at_far) r.lo = 0;
  }
  return r;
}

// The canonical slice for a static dim of size n: the positive positions lo, lo + k, ...
// (m of them), as the algebra writes them: the part [lo, lo + (m - 1) k + 1) of a, cut
// into windows of k. m == 0 gives a - n (empty); m == 1 or k == 1 need no windows.
template <class A, std::size_t N, std::size_t Lo, std::size_t M, std::size_t K>
constexpr auto positive_static_slice() {
  if constexpr (M == 0) {
    return A{} - c<N>;
  } else {
    constexpr std::size_t hi = Lo + (M - 1) * K + 1;
    constexpr auto part = sub_left(c<Lo>, A{} - c<N - hi>);
    if constexpr (M == 1) return part;
    else return ceildiv(part, c<K>);
  }
}

}  // namespace detail

// The dim of a's positions in reverse order. reversed_dim<reversed_dim<a>> is a (reverse_t).
template <class A>
struct reversed_dim : dim_expr_base {
  static constexpr interval bounds = bounds_v<A>;
  using source = A;
  static constexpr dim_kind kind = kind_v<A>;
  static std::string describe() { return "reverse(" + dimgraph::describe<A>() + ")"; }
};

// The dim of a slice of a. sliced_dim<a> (no parameters) is the result of a slice whose
// bounds are known only at run time, with size [0, hi(a)]; sliced_dim<a, start, end,
// step> is a compile-time slice that the algebra cannot write (such as one counting from
// the end of a non-static dim), sized by the slice rule.
template <class A, auto... Bounds>
struct sliced_dim : dim_expr_base {
  static_assert(sizeof...(Bounds) == 0 || sizeof...(Bounds) == 3,
                "dimgraph: sliced_dim: give no bounds or three");
  static constexpr interval bounds = [] {
    if constexpr (sizeof...(Bounds) == 0) return interval{0, bounds_v<A>.hi};
    else return detail::slice_bounds(bounds_v<A>, Bounds...);
  }();
  using source = A;
  static constexpr dim_kind kind = kind_v<A>;
  static std::string describe() {
    if constexpr (sizeof...(Bounds) == 0) {
      return "slice(" + dimgraph::describe<A>() + ")";
    } else {
      const slice_index b[] = {Bounds...};
      auto bound = [](slice_index i) { return i.is_none ? "" : std::to_string(i.value); };
      return detail::describe_at<A>(detail::level_atom) + "[" + bound(b[0]) + ":" + bound(b[1]) +
             ":" + bound(b[2]) + "]";
    }
  }
};

namespace detail {

// A slice of a ragged dim is ragged over the same batch dim when each row's valid part stays a
// prefix: the slice starts from the front (or its start is known only at run time, and checked
// there) and steps forwards. Its lengths are the slice rule applied to each row's length.
template <class A>
struct ragged_batch_of<sliced_dim<A>> {
  using type = ragged_batch_t<A>;
};
template <class A, slice_index Start, slice_index End, std::ptrdiff_t Step>
struct ragged_batch_of<sliced_dim<A, Start, End, Step>> {
  using type = std::conditional_t<(Step > 0 && (Start.is_none || Start.value >= 0)),
                                  ragged_batch_t<A>, void>;
};

template <class A>
struct reverse_of {
  using type = reversed_dim<A>;
};
template <class A>
struct reverse_of<reversed_dim<A>> {
  using type = A;
};

}  // namespace detail

template <dimension A>
using reverse_t = typename detail::reverse_of<std::remove_cvref_t<A>>::type;

namespace detail {

// The positions cut from the front and the back (a larger cut than the dim can be
// never selects anything: that slice is left to the opaque form).
constexpr std::size_t front_back_cut(slice_index start, slice_index end) {
  return (start.is_none ? 0 : static_cast<std::size_t>(start.value)) +
         (end.is_none ? 0 : static_cast<std::size_t>(-end.value));
}

// The dim of dg::slice<A, Start, End, Step> (see slice_dim_t).
template <class A, slice_index Start, slice_index End, std::ptrdiff_t Step>
constexpr auto slice_dim_fn() {
  static_assert(Step != 0, "dimgraph: slice: the stride is 0");
  if constexpr (Step == 0) {
    return invalid_dim{};
  } else if constexpr (is_static_v<A>) {
    constexpr std::size_t n = bounds_v<A>.lo;
    constexpr slice_range r = slice_positions(n, Start, End, Step);
    if constexpr (Step > 0 || r.count <= 1) {
      return positive_static_slice<A, n, r.first, r.count,
                                   (Step > 0 ? static_cast<std::size_t>(Step) : 1)>();
    } else {
      constexpr std::size_t k = static_cast<std::size_t>(-Step);
      constexpr std::size_t last = r.first - (r.count - 1) * k;
      return reverse_t<decltype(positive_static_slice<A, n, last, r.count, k>())>{};
    }
  } else if constexpr (Step > 0 && (Start.is_none || Start.value >= 0) &&
                       (End.is_none || End.value < 0) &&
                       bounds_v<A>.hi >= front_back_cut(Start, End)) {
    constexpr std::size_t s = Start.is_none ? 0 : static_cast<std::size_t>(Start.value);
    constexpr std::size_t e = End.is_none ? 0 : static_cast<std::size_t>(-End.value);
    return ceildiv(sub_left(c<s>, A{} - c<e>), c<static_cast<std::size_t>(Step)>);
  } else if constexpr (Step == -1 && Start.is_none && End.is_none) {
    return reverse_t<A>{};
  } else {
    return sliced_dim<A, Start, End, Step>{};
  }
}

}  // namespace detail

// The dim dg::slice<A, Start, End, Step>(x) gives: the algebra's dim for the selected
// positions wherever the algebra can write them, so that equal positions give equal
// types and slicing the padding off a padded dim gives the dim itself.
//  - a static: the positions are known. A positive step gives the part of a from the
//    first to the last position, cut into windows of the step:
//    ceildiv(sub_left(c<first>, a - c<n - last - 1>), c<step>) (which folds to a itself
//    for the whole of a); a negative step gives reverse_t of the same positions read
//    forwards. The size is static.
//  - a not static, a positive step, a start from the front (>= 0 or open) and an end
//    from the back (< 0 or open): ceildiv(sub_left(c<start>, a - c<-end>), c<step>),
//    sized by interval arithmetic.
//  - a not static, the whole of a backwards (none, none, -1): reversed_dim<a>.
//  - anything else (e.g. the last 3 of a dynamic dim, slice<T, -3>): the opaque
//    sliced_dim<a, Start, End, Step>, sized exactly by the slice rule (here [0, 3]).
// A slice with bounds known only at run time gives sliced_dim<a> instead.
template <dimension A, slice_index Start, slice_index End = none, std::ptrdiff_t Step = 1>
using slice_dim_t = decltype(detail::slice_dim_fn<std::remove_cvref_t<A>, Start, End, Step>());

}  // namespace dimgraph
