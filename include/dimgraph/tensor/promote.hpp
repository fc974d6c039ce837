// Type promotion: promote_t (PyTorch's promoteTypes), promote_scalar_t, is_narrowing_v.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "dimgraph/detail/type_list.hpp"
#include "dimgraph/tensor/element.hpp"

namespace dimgraph {
namespace detail {

static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559 &&
                  sizeof(float) == 4 && sizeof(double) == 8,
              "dimgraph: float and double must be IEEE 754 binary32 and binary64");

// An arithmetic element type reduced to what promotion looks at: category, signedness
// and width. Distinct types of equal width (long and long long) have the same code.
enum class type_code { b1, u8, u16, u32, u64, i8, i16, i32, i64, f32, f64, none };

constexpr bool is_unsigned_code(type_code c) {
  return c >= type_code::u8 && c <= type_code::u64;
}
constexpr bool is_signed_code(type_code c) {
  return c >= type_code::i8 && c <= type_code::i64;
}
constexpr bool is_float_code(type_code c) {
  return c == type_code::f32 || c == type_code::f64;
}
// log2 of the width in bytes, within the code's family (u8 -> 0, u64 -> 3).
constexpr int width_step(type_code c) {
  if (is_unsigned_code(c)) return static_cast<int>(c) - static_cast<int>(type_code::u8);
  if (is_signed_code(c)) return static_cast<int>(c) - static_cast<int>(type_code::i8);
  return static_cast<int>(c) - static_cast<int>(type_code::f32);
}
constexpr type_code wider(type_code a, type_code b) {
  return width_step(a) >= width_step(b) ? a : b;
}

template <class T>
constexpr type_code code_of() {
  if constexpr (std::is_same_v<T, bool>) return type_code::b1;
  else if constexpr (std::is_same_v<T, float>) return type_code::f32;
  else if constexpr (std::is_same_v<T, double>) return type_code::f64;
  else if constexpr (is_integer_element_v<T>) {
    constexpr int step = sizeof(T) == 1 ? 0 : sizeof(T) == 2 ? 1 : sizeof(T) == 4 ? 2 : 3;
    constexpr type_code first = std::is_signed_v<T> ? type_code::i8 : type_code::u8;
    return static_cast<type_code>(static_cast<int>(first) + step);
  } else return type_code::none;  // index<D> and non-elements
}

// The fixed-width type of each code, in type_code's order.
using code_types = type_list<bool, std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t,
                             std::int8_t, std::int16_t, std::int32_t, std::int64_t, float, double>;
template <type_code C>
using type_of_code_t = at_t<static_cast<std::size_t>(C), code_types>;

// The promotion of two arithmetic codes, or none. Rules (PyTorch's promoteTypes on
// bool, u8, i8, i16, i32, i64, f32, f64, extended to u16, u32, u64):
//   bool with X -> X;  floating with floating -> the wider;  integer with floating -> the floating;
//   signed with signed, unsigned with unsigned -> the wider;
//   unsigned u_n with signed i_m -> i_m if m > n, else the signed type of width 2n
//   (u8 with i8 -> i16, u16 with i32 -> i32, u32 with i32 -> i64), and none for u64.
constexpr type_code promote_codes(type_code a, type_code b) {
  if (a == type_code::none || b == type_code::none) return type_code::none;
  if (a == b) return a;
  if (a == type_code::b1) return b;
  if (b == type_code::b1) return a;
  if (is_float_code(a) && is_float_code(b)) return wider(a, b);
  if (is_float_code(a)) return a;
  if (is_float_code(b)) return b;
  if (is_signed_code(a) == is_signed_code(b)) return wider(a, b);
  type_code u = is_unsigned_code(a) ? a : b, s = is_unsigned_code(a) ? b : a;
  if (width_step(s) > width_step(u)) return s;
  if (u == type_code::u64) return type_code::none;
  return static_cast<type_code>(static_cast<int>(type_code::i8) + width_step(u) + 1);
}

template <class A, class B>
struct promote_impl {};  // no promotion
template <class A, class B>
  requires(!std::is_same_v<A, B> && promote_codes(code_of<A>(), code_of<B>()) != type_code::none)
struct promote_impl<A, B> {
  using type = type_of_code_t<promote_codes(code_of<A>(), code_of<B>())>;
};
template <element A>
struct promote_impl<A, A> {
  using type = A;
};

// The fixed-width type an element type promotes as (long long -> std::int64_t on LP64).
template <element T>
struct canonical_element {
  using type = T;
};
template <element T>
  requires(code_of<T>() != type_code::none)
struct canonical_element<T> {
  using type = type_of_code_t<code_of<T>()>;
};

// A C++ scalar does not raise a tensor's type within its category; a scalar of a
// higher category gives that category's default type (int64 for integers, float32
// for floating point, as PyTorch's default dtype). index<D> scalars go only with index<D>.
template <class Elem, class Scalar>
struct promote_scalar_impl {};
template <element Elem, element Scalar>
  requires(!is_index_v<Elem> && !is_index_v<Scalar>)
struct promote_scalar_impl<Elem, Scalar> {
  static constexpr element_category elem_c = element_category_v<Elem>;
  static constexpr element_category scalar_c = element_category_v<Scalar>;
  using type = std::conditional_t<
      (scalar_c <= elem_c), Elem,
      std::conditional_t<scalar_c == element_category::integral, std::int64_t, float>>;
};
template <class D>
struct promote_scalar_impl<index<D>, index<D>> {
  using type = index<D>;
};

}  // namespace detail

// The common element type of two tensors' elements, as torch.promote_types on the
// types PyTorch has (bool, uint8, int8..int64, float32, float64):
//   bool < integers < floating; within signed or unsigned integers the wider wins;
//   uint8 with int8 -> int16; any integer with float32 -> float32; float32 with float64 -> float64.
// Extension to uint16/uint32/uint64 (PyTorch refuses these with integers):
//   unsigned with unsigned -> the wider; u_n with i_m -> the smallest signed type holding
//   both ranges (u16 with i8 -> i32, u32 with i64 -> i64); u64 with any signed integer:
//   no promotion. Any unsigned with float32/float64 -> that floating type (as PyTorch).
// index<D> promotes only with the same index<D>. A type promotes with itself to itself.
// Types of equal width and signedness (long, long long) promote as the fixed-width type.
// promote_t is ill-formed (SFINAE-friendly) where there is no promotion: test it with
// has_promotion_v to report an error.
template <class A, class B>
using promote_t = typename detail::promote_impl<A, B>::type;

template <class A, class B>
inline constexpr bool has_promotion_v = requires { typename detail::promote_impl<A, B>::type; };

// The type a tensor with elements Elem and a C++ scalar of type Scalar combine in
// (PyTorch's "wrapped numbers"): the tensor's type unless the scalar's category is
// higher, then int64 (an integer scalar with a bool tensor) or float (a floating
// scalar with a bool or integer tensor). f32 with a double scalar -> f32; i8 with an
// int -> i8; u8 with a long -> u8; bool with an int -> int64; int32 with 0.5 -> float.
// Ill-formed when Elem or Scalar is index<D> (except index<D> with index<D>).
template <class Elem, class Scalar>
using promote_scalar_t = typename detail::promote_scalar_impl<Elem, Scalar>::type;

template <class Elem, class Scalar>
inline constexpr bool has_scalar_promotion_v =
    requires { typename detail::promote_scalar_impl<Elem, Scalar>::type; };

namespace detail {
template <class Src, class Dst>
constexpr bool narrowing() {
  if constexpr (has_promotion_v<Dst, Src>)
    return !std::is_same_v<typename canonical_element<promote_t<Dst, Src>>::type,
                           typename canonical_element<Dst>::type>;
  else return true;
}
}  // namespace detail

// True when writing Src elements into a Dst output needs a dg::cast: the promotion of
// Dst and Src is not Dst itself (or there is none). float -> double is fine; double ->
// float, int64 -> int32, float -> int32, int -> bool, int -> index<D> are narrowing.
template <class Src, class Dst>
inline constexpr bool is_narrowing_v = detail::narrowing<Src, Dst>();

}  // namespace dimgraph
