// The element functions of dimgraph's element-wise ops (what one lane of a vector computes).
#pragma once

#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "dimgraph/config.hpp"
#include "dimgraph/detail/fixed_string.hpp"
#include "dimgraph/detail/simd.hpp"
#include "dimgraph/detail/simd_math.hpp"
#include "dimgraph/expr/op_table.hpp"
#include "dimgraph/tensor/promote.hpp"

// Every functor works on vectors of lanes (detail/simd.hpp), one lane per element; the
// scalar form is the one-lane vector, so a loop's remainder computes exactly what its vector
// body does. A functor has
//   name                                  the op's name in messages and listings
//                                         (the op table's functors also have it as `label`,
//                                         a detail::fixed_string: a traced node's op_tag)
//   template <class... Es> result_t       the element type of the result for operands of
//                                         element types Es...
//   template <class... Es> apply(vs...)   the result lanes, for operand lanes vs... of
//                                         element types Es...
// Semantics follow IEEE 754 and PyTorch: NaN propagates through min, max and relu; integer
// arithmetic wraps (two's complement) instead of overflowing; math functions of integers
// compute in float.
DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail::fn {

template <class T>
using float_of_t = std::conditional_t<std::is_floating_point_v<T>, T, float>;

template <class E, std::size_t L>
using lanes_t = simd::vec<simd::lane_t<E>, L>;

// Lanes of element type From as lanes of element type To (a value conversion: bool lanes
// are masks, so true converts to 1 and a non-zero number to true).
template <class To, class From, class V>
DIMGRAPH_ALWAYS_INLINE inline lanes_t<To, simd::lanes_v<V>> as(V v) {
  constexpr std::size_t L = simd::lanes_v<V>;
  if constexpr (std::is_same_v<simd::lane_t<To>, simd::lane_t<From>>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    return simd::mask_cast<std::int8_t>(v != simd::splat<simd::value_t<V>, L>(0));
  } else if constexpr (std::is_same_v<From, bool>) {
    // The mask at To's width, then 1 for all ones (a conversion between lanes of one width).
    using I = simd::mask_lane_t<simd::lane_t<To>>;
    return simd::convert<simd::lane_t<To>>(simd::mask_cast<I>(v) & simd::splat<I, L>(1));
  } else {
    return simd::convert<simd::lane_t<To>>(v);
  }
}

// A comparison's mask (lanes of the operands' width) as bool lanes.
template <class M>
DIMGRAPH_ALWAYS_INLINE inline simd::vec<std::int8_t, simd::lanes_v<M>> to_bool(M m) {
  return simd::mask_cast<std::int8_t>(m);
}

// Integer arithmetic in the unsigned type of the same width: wraps, never undefined.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline auto as_unsigned(V v) {
  using T = simd::value_t<V>;
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
    return simd::bits<simd::vec<std::make_unsigned_t<T>, simd::lanes_v<V>>>(v);
  else return v;
}
template <class V, class U>
DIMGRAPH_ALWAYS_INLINE inline V from_unsigned(U u) {
  if constexpr (std::is_same_v<U, V>) return u;
  else return simd::bits<V>(u);
}

// The lanes of the table's ops whose computation is more than an operator or a function of
// simd_math.hpp (expr/op_table.hpp names them), on lanes of the type the op computes in.
namespace lanes {

// min and max: a NaN in either operand gives NaN (torch.minimum / torch.maximum).
template <bool Max, class V>
DIMGRAPH_ALWAYS_INLINE inline V extreme(V a, V b) {
  const auto take_b = [&] {
    if constexpr (Max) return a < b;
    else return b < a;
  }();
  if constexpr (std::is_floating_point_v<simd::value_t<V>>) return (take_b | (b != b)) ? b : a;
  else return take_b ? b : a;
}
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V minimum(V a, V b) {
  return extreme<false>(a, b);
}
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V maximum(V a, V b) {
  return extreme<true>(a, b);
}

// Integer powers by squaring (wrapping); a negative exponent gives 0 except for bases 1 and
// -1, as integer pow in PyTorch. Floating-point powers as simd::pow.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V pow(V base, V exponent) {
  using C = simd::value_t<V>;
  if constexpr (std::is_floating_point_v<C>) {
    return simd::pow(base, exponent);
  } else {
    V r{};
    for (std::size_t l = 0; l < simd::lanes_v<V>; ++l) {
      using U = std::make_unsigned_t<C>;
      C x = base[l], e = exponent[l];
      if constexpr (std::is_signed_v<C>) {
        if (e < 0) {
          r[l] = x == 1 ? C(1) : x == -1 ? ((e & 1) ? C(-1) : C(1)) : C(0);
          continue;
        }
      }
      U acc = 1, sq = static_cast<U>(x);
      for (U k = static_cast<U>(e); k; k >>= 1) {
        if (k & 1) acc = static_cast<U>(acc * sq);
        sq = static_cast<U>(sq * sq);
      }
      r[l] = static_cast<C>(acc);
    }
    return r;
  }
}

// |x|: clears the sign of floats (|-0| = 0, |NaN| is NaN); wraps for the lowest integer.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V abs(V a) {
  using T = simd::value_t<V>;
  if constexpr (std::is_unsigned_v<T>) return a;
  else if constexpr (std::is_floating_point_v<T>) return a < T(0) ? -a : a * T(1) + T(0);
  else return from_unsigned<V>(a < T(0) ? -as_unsigned(a) : as_unsigned(a));
}

// max(x, 0) as x < 0 ? 0 : x: relu(NaN) is NaN, relu(-0) is -0 (PyTorch's clamp_min(x, 0)).
// Floating lanes take x86's max instruction, which compares the same way (0 > x ? 0 : x): one
// instruction, where a compare and a select took two (three without SSE4.1).
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V relu(V a) {
  using T = simd::value_t<V>;
  if constexpr (std::is_floating_point_v<T>) return simd::math::at_least(a, T(0));
  else return a < T(0) ? V{} : a;
}

// floor and ceil (identity on integers); NaN, infinities and signed zeros kept.
template <bool Up, class V>
DIMGRAPH_ALWAYS_INLINE inline V rounded(V a) {
  using T = simd::value_t<V>;
  if constexpr (!std::is_floating_point_v<T>) {
    return a;
  } else {
    using I = simd::mask_lane_t<T>;
    constexpr T big = std::is_same_v<T, float> ? T(8388608.0) : T(4503599627370496.0);
    const auto t = simd::convert<T>(simd::convert<I>(a < big && a > -big ? a : V{}));
    const V r = Up ? (t < a ? t + T(1) : t) : (t > a ? t - T(1) : t);
    using B = simd::vec<std::make_unsigned_t<I>, simd::lanes_v<V>>;
    const auto sign = simd::bits<B>(a) & simd::bits<B>(simd::splat<T, simd::lanes_v<V>>(T(-0.0)));
    const V signed_r = simd::bits<V>(
        (simd::bits<B>(r) & ~simd::bits<B>(simd::splat<T, simd::lanes_v<V>>(T(-0.0)))) | sign);
    return a < big && a > -big ? signed_r : a;
  }
}
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V floor(V a) {
  return rounded<false>(a);
}
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V ceil(V a) {
  return rounded<true>(a);
}

}  // namespace lanes

// Which operands an op of the table takes (the public op checks them, ops/elementwise.hpp):
//   arithmetic  numbers: no dg::index<D>, and bool only next to a number (not two bools, not
//               the one operand of a unary op)
//   comparison  any two operands with a common type
//   logical     bool operands
enum class operand_rule : unsigned char { arithmetic, comparison, logical };

// The promoted type of the element types Es (one: itself).
template <class... Es>
struct common_element;
template <class A>
struct common_element<A> {
  using type = A;
};
template <class A, class B>
struct common_element<A, B> {
  using type = promote_t<A, B>;
};
template <class... Es>
using common_element_t = typename common_element<Es...>::type;

template <class V, class...>
inline constexpr std::size_t lanes_of_first_v = simd::lanes_v<V>;

// The kinds of op (the table's third column) are the bases of the table's functors; each
// converts the operand lanes and hands them to Op::compute, the table's lanes column.
// wrapping: arithmetic in the promoted type C; integers compute in the unsigned type of C's
// width, so they wrap instead of overflowing.
template <class Op>
struct wrapping {
  static constexpr operand_rule operands = operand_rule::arithmetic;
  template <class... Es>
  using result_t = common_element_t<Es...>;
  template <class... Es, class... Vs>
  DIMGRAPH_ALWAYS_INLINE auto apply(Vs... vs) const {
    using C = common_element_t<Es...>;
    using V = lanes_t<C, lanes_of_first_v<Vs...>>;
    return from_unsigned<V>(Op::compute(as_unsigned(as<C, Es>(vs))...));
  }
};
// promoting: arithmetic in the promoted type.
template <class Op>
struct promoting {
  static constexpr operand_rule operands = operand_rule::arithmetic;
  template <class... Es>
  using result_t = common_element_t<Es...>;
  template <class... Es, class... Vs>
  DIMGRAPH_ALWAYS_INLINE auto apply(Vs... vs) const {
    return Op::compute(as<common_element_t<Es...>, Es>(vs)...);
  }
};
// floating: arithmetic in the promoted type's floating-point type, so integers compute in
// float (true division as torch.div, x / 0 as IEEE; math functions, vectorised with the
// accuracy detail/simd_math.hpp states).
template <class Op>
struct floating {
  static constexpr operand_rule operands = operand_rule::arithmetic;
  template <class... Es>
  using result_t = float_of_t<common_element_t<Es...>>;
  template <class... Es, class... Vs>
  DIMGRAPH_ALWAYS_INLINE auto apply(Vs... vs) const {
    return Op::compute(as<float_of_t<common_element_t<Es...>>, Es>(vs)...);
  }
};
// comparing: bool lanes; NaN compares unequal to everything (IEEE). (mask: the comparison's
// own mask, lanes of the compared type's width.)
template <class Op>
struct comparing {
  static constexpr operand_rule operands = operand_rule::comparison;
  static constexpr bool is_comparison = true;
  template <class A, class B>
  using result_t = bool;
  template <class A, class B, class VA, class VB>
  DIMGRAPH_ALWAYS_INLINE static auto mask(VA a, VB b) {
    using C = promote_t<A, B>;
    return Op::compute(as<C, A>(a), as<C, B>(b));
  }
  template <class A, class B, class VA, class VB>
  DIMGRAPH_ALWAYS_INLINE auto apply(VA a, VB b) const {
    return to_bool(mask<A, B>(a, b));
  }
};
// logical: on bool lanes (masks: 0 or all ones).
template <class Op>
struct logical {
  static constexpr operand_rule operands = operand_rule::logical;
  template <class... Es>
  using result_t = bool;
  template <class... Es, class... Vs>
  DIMGRAPH_ALWAYS_INLINE auto apply(Vs... vs) const {
    return Op::compute(vs...);
  }
};

// The functors of the op table: fn::add, fn::tanh, ...
#define DIMGRAPH_TABLE_FUNCTOR(PUBLIC, OP, KIND, LANES)    \
  struct OP : KIND<OP> {                                   \
    static constexpr const char* name = #OP;               \
    static constexpr fixed_string<sizeof(#OP)> label{#OP}; \
    template <class... Vs>                                 \
    DIMGRAPH_ALWAYS_INLINE static auto compute(Vs... vs) { \
      return LANES(vs...);                                 \
    }                                                      \
  };
DIMGRAPH_ELEMENTWISE_OPS(DIMGRAPH_TABLE_FUNCTOR, DIMGRAPH_TABLE_FUNCTOR)
#undef DIMGRAPH_TABLE_FUNCTOR

// The names of the table's ops.
#define DIMGRAPH_TABLE_NAME(PUBLIC, OP, KIND, LANES) #OP,
inline constexpr std::string_view table_op_names[] = {
    DIMGRAPH_ELEMENTWISE_OPS(DIMGRAPH_TABLE_NAME, DIMGRAPH_TABLE_NAME)};
#undef DIMGRAPH_TABLE_NAME

// where(c, a, b).
struct select {
  static constexpr const char* name = "where";
  template <class Cond, class A, class B>
  using result_t = promote_t<A, B>;
  template <class Cond, class A, class B, class VC, class VA, class VB>
  DIMGRAPH_ALWAYS_INLINE auto apply(VC c, VA a, VB b) const {
    using C = promote_t<A, B>;
    const auto m = simd::mask_cast<simd::mask_lane_t<simd::lane_t<C>>>(c);
    return m ? as<C, A>(a) : as<C, B>(b);
  }
};

// where(Cmp(a, b), x, y) as one instruction: the comparison's mask selects at its own width
// (a comparison alone gives bool lanes, which select would widen again).
template <class Cmp>
struct select_compared {
  static constexpr const char* name = "where";
  template <class A, class B, class X, class Y>
  using result_t = promote_t<X, Y>;
  template <class A, class B, class X, class Y, class VA, class VB, class VX, class VY>
  DIMGRAPH_ALWAYS_INLINE auto apply(VA a, VB b, VX x, VY y) const {
    using R = promote_t<X, Y>;
    const auto m =
        simd::mask_cast<simd::mask_lane_t<simd::lane_t<R>>>(Cmp::template mask<A, B>(a, b));
    return m ? as<R, X>(x) : as<R, Y>(y);
  }
};
template <class F>
inline constexpr bool is_comparison_v = false;
template <class F>
  requires F::is_comparison
inline constexpr bool is_comparison_v<F> = true;

template <class T>
struct cast_to {
  static constexpr const char* name = "cast";
  template <class A>
  using result_t = T;
  template <class A, class V>
  DIMGRAPH_ALWAYS_INLINE auto apply(V a) const {
    return as<T, A>(a);
  }
};

// A lane value as the element it stands for, and back.
template <class E, class L>
DIMGRAPH_ALWAYS_INLINE inline E element_of(L v) {
  if constexpr (std::is_same_v<E, bool>) return v != 0;
  else return E(v);
}
template <class E>
DIMGRAPH_ALWAYS_INLINE inline simd::lane_t<E> lane_of(E e) {
  if constexpr (std::is_same_v<E, bool>) return e ? -1 : 0;
  else if constexpr (is_index_v<E>) return e.value();
  else return e;
}

// A user function: dg::map(f, xs...), called lane by lane. (Functors of the library
// itself have result_t and apply and are used as they are.)
template <class F>
struct user {
  static constexpr const char* name = "map";
  F f;
  template <class... Es>
  using result_t = std::remove_cvref_t<std::invoke_result_t<const F&, Es...>>;
  template <class... Es, class... Vs>
  DIMGRAPH_ALWAYS_INLINE auto apply(Vs... vs) const {
    constexpr std::size_t L = simd::lanes_v<std::tuple_element_t<0, std::tuple<Vs...>>>;
    lanes_t<result_t<Es...>, L> r{};
    for (std::size_t l = 0; l < L; ++l) r[l] = lane_of(f(element_of<Es>(vs[l])...));
    return r;
  }
};

template <class F>
concept lane_functor = requires { F::name; };
template <class F>
using functor_t = std::conditional_t<lane_functor<F>, F, user<F>>;
template <class F>
DIMGRAPH_ALWAYS_INLINE inline functor_t<F> as_functor(F f) {
  if constexpr (lane_functor<F>) return f;
  else return user<F>{std::move(f)};
}

}  // namespace dimgraph::detail::fn
DIMGRAPH_WIDE_END
