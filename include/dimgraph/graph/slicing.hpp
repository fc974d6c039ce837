// dg::slicing (TensorIterator-1's port map), the walk it gives over a dim, and the dims of
// a scan: the part dim of a slice and the iteration dim of an emitted output.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include "dimgraph/dim/describe.hpp"
#include "dimgraph/dim/list.hpp"
#include "dimgraph/dim/size.hpp"
#include "dimgraph/shape/slice_rule.hpp"

namespace dimgraph {

// How dg::sliced walks a dim: OpenVINO TensorIterator-1's port map. A structural type, so
// it is a template argument: dg::sliced<Time, dg::slicing{.start = -1, .end = 0, .stride = -1}>.
//  start, end   the first and the last position covered, both INCLUSIVE; a negative one
//               counts from the end (-1 is the last position)
//  stride       the step between iterations; negative walks backwards (from start down to end)
//  part_size    the positions each iteration reads: 1 drops the dim from the slice, more
//               keeps it as part_dim<Dim, part_size>
// See slicing_walk for the exact rule. Errors: stride 0, part_size below 1 (compile time).
struct slicing {
  std::ptrdiff_t start = 0;
  std::ptrdiff_t end = -1;
  std::ptrdiff_t stride = 1;
  std::ptrdiff_t part_size = 1;
  friend constexpr bool operator==(const slicing&, const slicing&) = default;
};

// The walk of a slicing over a dim of extent n: `count` iterations; iteration i reads the
// window [first + i * step, first + i * step + part_size).
struct slice_walk {
  bool valid = false;  // the covered range lies inside the dim
  std::size_t count = 0;
  std::ptrdiff_t first = 0;
  std::ptrdiff_t step = 1;
  std::size_t part_size = 1;
  bool forward = true;
  constexpr friend bool operator==(const slice_walk&, const slice_walk&) = default;

  // Where iteration i starts reading.
  constexpr std::size_t window(std::size_t i) const {
    return static_cast<std::size_t>(first + static_cast<std::ptrdiff_t>(i) * step);
  }
  // The slot of an emitted output that iteration i fills: outputs keep the original order,
  // so a backward walk fills them from the back (slot(i) = count - 1 - i).
  constexpr std::size_t slot(std::size_t i) const { return forward ? i : count - 1 - i; }
};

// The one rule, used at compile time (static dims) and at run time:
//   s = start < 0 ? start + n : start,  e = end < 0 ? end + n : end
//   [lo, hi] = stride > 0 ? [s, e] : [e, s]          (the covered range, inclusive)
//   valid  <=>  0 <= lo <= hi + 1 <= n                (hi + 1 == lo: empty range)
//   L = hi - lo + 1,  k = |stride| (exact for any stride),  P = part_size
//   count  = L < P ? 0 : (L - P) / k + 1
//   window(i) = stride > 0 ? lo + i * k : hi + 1 - P - i * k
// With k == P this is the opset's (|end - start| + 1) / part_size: over a dim of 40 with
// part_size 2 and stride 2, end 39 gives 20 iterations and end 38 gives 19. A smaller stride
// gives overlapping windows, a larger one skips positions.
constexpr slice_walk slicing_walk(slicing s, std::size_t n) {
  slice_walk w;
  if (s.stride == 0 || s.part_size < 1) return w;
  const auto len = static_cast<std::ptrdiff_t>(n);
  const std::ptrdiff_t a = s.start < 0 ? s.start + len : s.start;
  const std::ptrdiff_t b = s.end < 0 ? s.end + len : s.end;
  w.forward = s.stride > 0;
  const std::ptrdiff_t lo = w.forward ? a : b, hi = w.forward ? b : a;
  w.valid = 0 <= lo && lo - 1 <= hi && hi < len;  // (written so that nothing overflows)
  if (!w.valid) return w;
  const auto covered = static_cast<std::size_t>(hi - lo + 1);
  const std::size_t k = step_magnitude(s.stride), p = static_cast<std::size_t>(s.part_size);
  w.part_size = p;
  w.count = covered < p ? 0 : (covered - p) / k + 1;
  w.first = w.forward ? lo : hi + 1 - s.part_size;
  w.step = s.stride;
  return w;
}

// Why a slicing's walk over a dim of extent n is not valid (the rule above, the first and
// the last covered position being lo and hi): a bound outside the dim (lo < 0, hi >= n, or
// lo > n / hi < -1 beyond an empty walk), or start past end in the walk's direction.
enum class slicing_fit { ok, before_first, past_last, reversed };
struct slicing_fit_result {
  slicing_fit fit = slicing_fit::ok;
  bool at_start = true;  // the bound at fault (when outside the dim)
};
constexpr slicing_fit_result check_slicing_fit(slicing s, std::size_t n) {
  const auto len = static_cast<std::ptrdiff_t>(n);
  const std::ptrdiff_t a = s.start < 0 ? s.start + len : s.start;
  const std::ptrdiff_t b = s.end < 0 ? s.end + len : s.end;
  const bool forward = s.stride > 0;
  const std::ptrdiff_t lo = forward ? a : b, hi = forward ? b : a;
  if (lo < 0) return {slicing_fit::before_first, forward};
  if (hi >= len) return {slicing_fit::past_last, !forward};
  if (hi < -1) return {slicing_fit::before_first, !forward};
  if (lo > len) return {slicing_fit::past_last, forward};
  if (lo - 1 > hi) return {slicing_fit::reversed, true};
  return {};
}

// What is wrong with a slicing over a dim of extent n whose walk is not valid:
// "start 3 is after end 1 for a forward slicing (stride 1); ...".
inline std::string slicing_problem(slicing s, std::size_t n) {
  const auto len = static_cast<std::ptrdiff_t>(n);
  auto bound = [&](bool is_start) {
    const std::ptrdiff_t v = is_start ? s.start : s.end;
    std::string text = (is_start ? "start " : "end ") + std::to_string(v);
    if (v < 0) text += " (position " + std::to_string(v + len) + ")";
    return text;
  };
  const slicing_fit_result r = check_slicing_fit(s, n);
  const std::string stride = " (stride " + std::to_string(s.stride) + ")";
  switch (r.fit) {
    case slicing_fit::before_first:
      return bound(r.at_start) + " lies before the first position of the dim";
    case slicing_fit::past_last:
      return bound(r.at_start) + " lies past the last position (" + std::to_string(len - 1) +
             ") of the dim";
    case slicing_fit::reversed:
      if (s.stride > 0)
        return bound(true) + " is after " + bound(false) + " for a forward slicing" + stride +
               "; the end is inclusive, so an empty walk has start = end + 1";
      return bound(true) + " is before " + bound(false) + " for a backward slicing" + stride +
             "; the end is inclusive, so an empty walk has start = end - 1";
    case slicing_fit::ok:
      break;
  }
  return "the slicing fits the dim";
}

// Whether a slicing's parameters make sense whatever the extent (stride != 0, part_size >= 1).
constexpr bool slicing_well_formed(slicing s) {
  return s.stride != 0 && s.part_size >= 1;
}

// The trip count of a slicing over D when it is known at compile time: D is static, or both
// bounds count from the front (the covered length then does not depend on the extent).
template <class D, slicing S>
constexpr bool static_trip_v = is_static_v<D> || (S.start >= 0 && S.end >= 0);
template <class D, slicing S>
constexpr slice_walk static_walk() {
  if constexpr (is_static_v<D>) {
    return slicing_walk(S, bounds_v<D>.lo);
  } else {
    // Any extent above both bounds gives the same walk.
    return slicing_walk(S, static_cast<std::size_t>(S.start > S.end ? S.start : S.end) + 1);
  }
}

// The part dim of a slice with part_size P > 1 along D: static size P, D's kind.
template <class D, std::size_t P>
struct part_dim : dim_expr_base {
  static constexpr interval bounds = interval::exactly(P);
  using source = D;
  static constexpr dim_kind kind = kind_v<D>;
  static std::string describe() {
    return "part" + std::to_string(P) + "(" + dimgraph::describe<D>() + ")";
  }
};

// The iteration dim of an emitted output when the walk does not read every position of D
// once: its extent is the trip count (static when static_trip_v, else [0, hi(D)]); slot j
// holds the iteration whose window is the j-th from the front.
template <class D, slicing S>
struct trip_dim : dim_expr_base {
  static constexpr interval bounds = [] {
    if constexpr (static_trip_v<D, S>) return interval::exactly(static_walk<D, S>().count);
    else return interval{0, bounds_v<D>.hi};
  }();
  using source = D;
  static constexpr dim_kind kind = kind_v<D>;
  static std::string describe() {
    return "trip(" + dimgraph::describe<D>() + ", " + std::to_string(S.start) + ":" +
           std::to_string(S.end) + ":" + std::to_string(S.stride) + ", part " +
           std::to_string(S.part_size) + ")";
  }
};

namespace detail {

// concat_t through a class template (GCC rejects a pack expanded into concat_t directly).
template <class... Lists>
struct joined {
  using type = concat_t<type_list<>, Lists...>;
};

// Whether a walk over D reads every position once, in either direction, one at a time.
template <class D, slicing S>
constexpr bool walks_whole_dim() {
  if (S.part_size != 1 || (S.stride != 1 && S.stride != -1)) return false;
  if constexpr (is_static_v<D>) {
    const slice_walk w = slicing_walk(S, bounds_v<D>.lo);
    return w.valid && w.count == bounds_v<D>.lo;
  } else {
    return S.stride == 1 ? S.start == 0 && S.end == -1 : S.start == -1 && S.end == 0;
  }
}

template <class D, slicing S>
struct iteration_dim {
  using type = std::conditional_t<walks_whole_dim<D, S>(), D, trip_dim<D, S>>;
};

// The dim a slice has where D was: none (part_size 1) or part_dim<D, P>.
template <class D, slicing S, class L>
struct slice_dims;
template <class D, slicing S, class... Ds>
struct slice_dims<D, S, dim_list<Ds...>> {
  template <class X>
  using one = std::conditional_t<
      !std::is_same_v<X, D>, type_list<X>,
      std::conditional_t<S.part_size == 1, type_list<>,
                         type_list<part_dim<D, static_cast<std::size_t>(S.part_size)>>>>;
  using type = dims_of_t<typename joined<one<Ds>...>::type>;
};

// Dims with Iter inserted at position Pos (clamped to the rank).
template <class Iter, std::size_t Pos, class L>
struct stacked_dims {
  using list = types_of_t<L>;
  static constexpr std::size_t at = Pos < list::size ? Pos : list::size;
  using type =
      dims_of_t<concat_t<slice_t<0, at, list>, type_list<Iter>, slice_t<at, list::size, list>>>;
};

}  // namespace detail

// The dim an emitted output of dg::scan<D> over dg::sliced<D, S> inputs is stacked along:
// D itself when the walk reads every position of D once with part_size 1 (forward or
// backward: outputs are in original order either way), else trip_dim<D, S>.
template <class D, slicing S>
using iteration_dim_t = typename detail::iteration_dim<D, S>::type;

// The dims of a slice of [.., D, ..]: [.., ..] for part_size 1, [.., part_dim<D, P>, ..] else.
template <class D, slicing S, class Dims>
using slice_dims_t = typename detail::slice_dims<D, S, Dims>::type;

// The dims of an emitted output: the emitted value's dims with Iter inserted at Pos, the
// position D has in the first sliced input (clamped to the emitted value's rank).
template <class Iter, std::size_t Pos, class Dims>
using stacked_dims_t = typename detail::stacked_dims<Iter, Pos, Dims>::type;

}  // namespace dimgraph
