// dimgraph::shape: a dim list plus the run-time extents of its non-static dims.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/detail/require.hpp"
#include "dimgraph/config.hpp"
#include "dimgraph/detail/checked_size.hpp"
#include "dimgraph/dim/describe.hpp"
#include "dimgraph/dim/list.hpp"
#include "dimgraph/dim/size.hpp"
#include "dimgraph/shape/error.hpp"
#include "dimgraph/shape/lengths.hpp"

namespace dimgraph {

// An extent given by tag: dg::extent<Time>(25).
template <class D>
struct extent_arg {
  std::size_t value;
};
template <dimension D>
constexpr extent_arg<std::remove_cvref_t<D>> extent(std::size_t n) {
  return {n};
}

namespace detail {

// "time[25]" for a run-time extent, "feature=512" for a static one.
template <class D>
std::string dim_with_extent(std::size_t n) {
  return describe<D>() + (is_static_v<D> ? "=" : "[") + std::to_string(n) +
         (is_static_v<D> ? "" : "]");
}

// The most elements a shape may have: then every offset in elements, and the size in bytes
// of the elements (8 bytes at most each) with room to align them, fit a std::ptrdiff_t, so
// that no size, stride or offset computed from a shape's extents overflows.
inline constexpr std::size_t max_elements = static_cast<std::size_t>(PTRDIFF_MAX) / 8;

// Whether the product of the extents other than 0 is at most max_elements (with no 0 it is
// the element count; the row-major strides are products of trailing extents, so they fit
// too even when an extent is 0).
template <std::size_t R>
constexpr bool extents_fit(const std::array<std::size_t, R>& ext) {
  std::size_t n = 1;
  for (std::size_t e : ext)
    if (e != 0 && (mul_overflows(n, e, n) || n > max_elements)) return false;
  return true;
}

// The error of check_elements, out of line: the check itself stays small enough to inline.
template <class... Ds>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_too_many_elements(
    const char* op, const std::array<std::size_t, sizeof...(Ds)>& e) {
  std::string dims;
  bool zero = false;
  for (std::size_t x : e) zero = zero || x == 0;
  with_indices<sizeof...(Ds)>([&]<std::size_t... Is>(index_constant<Is>...) {
    ((dims += (Is ? ", " : "") + dim_with_extent<Ds>(e[Is])), ...);
  });
  throw shape_error(op, "the extents " + (zero ? std::string("other than 0 of ") : "") + dims +
                            " multiply to more than " + std::to_string(max_elements) +
                            ", the most elements a tensor can address");
}

// Checks that extents of the dims Ds... (of a shape, or of an expression whose elements are
// never stored, such as a broadcast) fit extents_fit. Error: shape_error naming `op` and
// every dim with its extent.
template <class... Ds>
constexpr void check_elements(const char* op, const std::array<std::size_t, sizeof...(Ds)>& e) {
  if (!extents_fit<sizeof...(Ds)>(e)) throw_too_many_elements<Ds...>(op, e);
}

// Checks an extent entering through `op` against D's interval.
template <class D>
constexpr std::size_t checked_extent(const char* op, std::size_t n) {
  if (!bounds_v<D>.contains(n))
    throw shape_error(op, "dim '" + describe<D>() + "' cannot have extent " + std::to_string(n) +
                              ": its size is " + to_string(bounds_v<D>));
  return n;
}

}  // namespace detail

// The extents of Ds... . Static dims cost nothing: only the others are stored. A ragged dim
// whose batch dim is among Ds... also has its lengths (a shared pointer; null when every entry
// is full); shapes without ragged dims store none.
// Shape rule: none (a shape is what rules act on). Error: an extent outside its
// dim's interval (shape_error), a missing or repeated extent argument (compile time).
template <class... Ds>
class shape {
 public:
  using dims = dim_list<Ds...>;
  static constexpr std::size_t rank = sizeof...(Ds);

 private:
  static constexpr std::array<bool, rank> dynamic_{!is_static_v<Ds>...};
  static constexpr std::size_t count_dynamic() {
    std::size_t n = 0;
    for (bool d : dynamic_) n += d;
    return n;
  }
  // slot_[i]: where dim i's extent is stored, for dynamic dims.
  static constexpr std::array<std::size_t, rank> slot_ = [] {
    std::array<std::size_t, rank> s{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < rank; ++i) s[i] = dynamic_[i] ? n++ : 0;
    return s;
  }();

  // lslot_[i]: where dim i's lengths are stored, for dims that carry lengths.
  static constexpr std::array<bool, rank> ragged_{detail::carries_lengths_v<Ds, dims>...};
  static constexpr std::array<std::size_t, rank> lslot_ = [] {
    std::array<std::size_t, rank> s{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < rank; ++i) s[i] = ragged_[i] ? n++ : 0;
    return s;
  }();

 public:
  static constexpr std::size_t ragged_count =
      (std::size_t{detail::carries_lengths_v<Ds, dims>} + ... + 0);
  static constexpr std::size_t dynamic_count = count_dynamic();
  static constexpr bool is_static = dynamic_count == 0;
  DIMGRAPH_REQUIRE_DECL(
      (detail::extents_fit<rank>({(is_static_v<Ds> ? bounds_v<Ds>.lo : 0)...})),
      "dimgraph: shape: the static dims have more elements than a tensor can address", has<Ds...>);

  // A static shape needs no extents.
  constexpr shape()
    requires is_static
  = default;

  // Every non-static dim's extent, by tag, in any order; static dims may be given
  // too (they must then match).
  template <class... Ts>
    requires(sizeof...(Ts) > 0)
  explicit constexpr shape(extent_arg<Ts>... given) {
    static_assert((list_contains_v<dims, Ts> && ...),
                  "dimgraph: shape: an extent is given for a dim the shape does not have");
    static_assert(detail::first_duplicate_v<detail::type_list<Ts...>> == sizeof...(Ts),
                  "dimgraph: shape: an extent is given twice");
    static_assert(((is_static_v<Ds> || detail::contains_v<Ds, detail::type_list<Ts...>>)&&...),
                  "dimgraph: shape: a non-static dim has no extent");
    (set_checked<Ts>("shape", given.value), ...);
    check_size("shape");
  }

  // Extents by position, for code that builds shapes from other shapes.
  static constexpr shape from_extents([[maybe_unused]] const std::array<std::size_t, rank>& ext,
                                      [[maybe_unused]] const char* op = "shape") {  // (rank 0)
    shape s(uninitialized{});
    [[maybe_unused]] std::size_t i = 0;
    ((s.template set_checked<Ds>(op, ext[i++])), ...);
    s.check_size(op);
    return s;
  }

  // The lengths of D (null: every entry full, or D carries none in this shape).
  template <class D>
  const lengths_ref& lengths() const {
    using d = std::remove_cvref_t<D>;
    if constexpr (detail::carries_lengths_v<d, dims>)
      return lengths_[lslot_[list_index_of_v<dims, d>]];
    else return none_;
  }
  // Sets the lengths of D, checked against the extents of D and of its batch dim (errors: those
  // of detail::check_lengths, naming op).
  template <class D>
  void set_lengths(const char* op, lengths_ref l) {
    using d = std::remove_cvref_t<D>;
    static_assert(detail::carries_lengths_v<d, dims>,
                  "dimgraph: lengths: the dim is not ragged, or the shape lacks its batch dim");
    detail::check_lengths<d>(op, l, extent<d>(), extent<ragged_batch_t<d>>());
    lengths_[lslot_[list_index_of_v<dims, d>]] = std::move(l);
  }
  // Every dim's lengths taken from a shape with the same ragged dims (views keep their
  // tensor's lengths).
  template <class... Es>
  void take_lengths(const shape<Es...>& other) {
    (take_one<Ds>(other), ...);
  }

  template <class D>
  constexpr std::size_t extent() const {
    static_assert(list_contains_v<dims, std::remove_cvref_t<D>>,
                  "dimgraph: extent: the shape has no such dim");
    constexpr std::size_t i = list_index_of_v<dims, std::remove_cvref_t<D>>;
    if constexpr (!dynamic_[i]) return bounds_v<D>.lo;
    else return extents_[slot_[i]];
  }
  constexpr std::size_t extent(std::size_t i) const {
    constexpr std::array<std::size_t, rank + 1> fixed{bounds_v<Ds>.lo..., 0};
    return dynamic_[i] ? extents_[slot_[i]] : fixed[i];
  }
  constexpr std::array<std::size_t, rank> extents() const {
    std::array<std::size_t, rank> e{};
    for (std::size_t i = 0; i < rank; ++i) e[i] = extent(i);
    return e;
  }
  // The number of elements (at most detail::max_elements: checked where extents enter).
  constexpr std::size_t size() const {
    std::size_t n = 1;
    for (std::size_t i = 0; i < rank; ++i) n *= extent(i);
    return n;
  }

  friend constexpr bool operator==(const shape& a, const shape& b) {
    return a.extents_ == b.extents_;
  }

 private:
  struct uninitialized {};
  explicit constexpr shape(uninitialized) {}

  template <class D>
  constexpr void set_checked(const char* op, std::size_t n) {
    constexpr std::size_t i = list_index_of_v<dims, D>;
    detail::checked_extent<D>(op, n);
    if constexpr (dynamic_[i]) extents_[slot_[i]] = n;
  }

  // Error: the extents other than 0 multiply to more than detail::max_elements (shape_error
  // naming `op` and every dim with its extent). Static shapes are checked at compile time.
  constexpr void check_size([[maybe_unused]] const char* op) const {
    if constexpr (!is_static) detail::check_elements<Ds...>(op, extents());
  }

  template <class D, class Other>
  void take_one(const Other& other) {
    if constexpr (detail::carries_lengths_v<D, dims> &&
                  detail::carries_lengths_v<D, typename Other::dims>)
      lengths_[lslot_[list_index_of_v<dims, D>]] = other.template lengths<D>();
  }

  static inline const lengths_ref none_{};
  [[no_unique_address]] std::array<std::size_t, dynamic_count> extents_{};
  [[no_unique_address]] detail::lengths_array<ragged_count> lengths_{};
};

// The text of a shape: "[batch[2], time[25], feature=512]"; a ragged dim with lengths shows
// them: "time[5] lengths {5, 3, 1}".
template <class... Ds>
std::string to_string(const shape<Ds...>& s) {
  std::string out = "[";
  std::size_t i = 0;
  [[maybe_unused]] auto one = [&]<class D>(std::type_identity<D>) {
    out += (i ? ", " : "") + detail::dim_with_extent<D>(s.extent(i));
    if (const auto& l = s.template lengths<D>()) out += " lengths " + detail::lengths_text(*l);
    ++i;
  };
  (one(std::type_identity<Ds>{}), ...);
  return out + "]";
}

}  // namespace dimgraph
