// The element functions of dimgraph's element-wise ops (what one lane of a vector computes).
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>

#include "dimgraph/detail/simd.hpp"
#include "dimgraph/detail/simd_math.hpp"
#include "dimgraph/tensor/promote.hpp"

// Every functor works on vectors of lanes (detail/simd.hpp), one lane per element; the
// scalar form is the one-lane vector, so a loop's remainder computes exactly what its vector
// body does. A functor has
//   name                                  the op's name in messages and listings
//   template <class... Es> result_t       the element type of the result for operands of
//                                         element types Es...
//   template <class... Es> apply(vs...)   the result lanes, for operand lanes vs... of
//                                         element types Es...
// Semantics follow IEEE 754 and PyTorch: NaN propagates through min, max and relu; integer
// arithmetic wraps (two's complement) instead of overflowing; math functions of integers
// compute in float.
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

// Binary arithmetic in the promoted type C = promote_t<A, B>.
#define DIMGRAPH_ARITHMETIC(NAME, OPNAME, OP)                                        \
  struct NAME {                                                                      \
    static constexpr const char* name = OPNAME;                                      \
    template <class A, class B>                                                      \
    using result_t = promote_t<A, B>;                                                \
    template <class A, class B, class VA, class VB>                                  \
    DIMGRAPH_ALWAYS_INLINE auto apply(VA a, VB b) const {                            \
      using C = promote_t<A, B>;                                                     \
      using V = lanes_t<C, simd::lanes_v<VA>>;                                       \
      return from_unsigned<V>(as_unsigned(as<C, A>(a)) OP as_unsigned(as<C, B>(b))); \
    }                                                                                \
  };
DIMGRAPH_ARITHMETIC(add, "add", +)
DIMGRAPH_ARITHMETIC(sub, "sub", -)
DIMGRAPH_ARITHMETIC(mul, "mul", *)
#undef DIMGRAPH_ARITHMETIC

// True division: integers divide as float (torch.div). x / 0 follows IEEE.
struct div {
  static constexpr const char* name = "div";
  template <class A, class B>
  using result_t = float_of_t<promote_t<A, B>>;
  template <class A, class B, class VA, class VB>
  DIMGRAPH_ALWAYS_INLINE auto apply(VA a, VB b) const {
    using C = result_t<A, B>;
    return as<C, A>(a) / as<C, B>(b);
  }
};

// min and max: a NaN in either operand gives NaN (torch.minimum / torch.maximum).
template <bool Max>
struct extreme {
  static constexpr const char* name = Max ? "max" : "min";
  template <class A, class B>
  using result_t = promote_t<A, B>;
  template <class A, class B, class VA, class VB>
  DIMGRAPH_ALWAYS_INLINE auto apply(VA a_, VB b_) const {
    using C = promote_t<A, B>;
    const auto a = as<C, A>(a_);
    const auto b = as<C, B>(b_);
    const auto take_b = [&] {
      if constexpr (Max) return a < b;
      else return b < a;
    }();
    if constexpr (std::is_floating_point_v<C>) return (take_b | (b != b)) ? b : a;
    else return take_b ? b : a;
  }
};
using minimum = extreme<false>;
using maximum = extreme<true>;

struct pow {
  static constexpr const char* name = "pow";
  template <class A, class B>
  using result_t = promote_t<A, B>;
  template <class A, class B, class VA, class VB>
  DIMGRAPH_ALWAYS_INLINE auto apply(VA a, VB b) const {
    using C = promote_t<A, B>;
    if constexpr (std::is_floating_point_v<C>) {
      return simd::pow(as<C, A>(a), as<C, B>(b));
    } else {
      // Integer powers by squaring (wrapping); a negative exponent gives 0 except for
      // bases 1 and -1, as integer pow in PyTorch.
      constexpr std::size_t L = simd::lanes_v<VA>;
      using V = lanes_t<C, L>;
      const V base = as<C, A>(a), exponent = as<C, B>(b);
      V r{};
      for (std::size_t l = 0; l < L; ++l) {
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
};

// Comparisons give bool lanes; NaN compares unequal to everything (IEEE).
// (mask: the comparison's own mask, lanes of the compared type's width.)
#define DIMGRAPH_COMPARISON(NAME, OPNAME, OP)             \
  struct NAME {                                           \
    static constexpr const char* name = OPNAME;           \
    static constexpr bool is_comparison = true;           \
    template <class A, class B>                           \
    using result_t = bool;                                \
    template <class A, class B, class VA, class VB>       \
    DIMGRAPH_ALWAYS_INLINE static auto mask(VA a, VB b) { \
      using C = promote_t<A, B>;                          \
      return as<C, A>(a) OP as<C, B>(b);                  \
    }                                                     \
    template <class A, class B, class VA, class VB>       \
    DIMGRAPH_ALWAYS_INLINE auto apply(VA a, VB b) const { \
      return to_bool(mask<A, B>(a, b));                   \
    }                                                     \
  };
DIMGRAPH_COMPARISON(equal, "equal", ==)
DIMGRAPH_COMPARISON(not_equal, "not_equal", !=)
DIMGRAPH_COMPARISON(less, "less", <)
DIMGRAPH_COMPARISON(less_equal, "less_equal", <=)
DIMGRAPH_COMPARISON(greater, "greater", >)
DIMGRAPH_COMPARISON(greater_equal, "greater_equal", >=)
#undef DIMGRAPH_COMPARISON

// Logical ops on bool lanes (masks: 0 or all ones).
#define DIMGRAPH_LOGICAL(NAME, OPNAME, OP)                \
  struct NAME {                                           \
    static constexpr const char* name = OPNAME;           \
    template <class A, class B>                           \
    using result_t = bool;                                \
    template <class A, class B, class VA, class VB>       \
    DIMGRAPH_ALWAYS_INLINE auto apply(VA a, VB b) const { \
      return a OP b;                                      \
    }                                                     \
  };
DIMGRAPH_LOGICAL(logical_and, "logical_and", &)
DIMGRAPH_LOGICAL(logical_or, "logical_or", |)
DIMGRAPH_LOGICAL(logical_xor, "logical_xor", ^)
#undef DIMGRAPH_LOGICAL
struct logical_not {
  static constexpr const char* name = "logical_not";
  template <class A>
  using result_t = bool;
  template <class A, class V>
  DIMGRAPH_ALWAYS_INLINE V apply(V a) const {
    return ~a;
  }
};

// Unary ops that keep the type.
struct neg {
  static constexpr const char* name = "neg";
  template <class A>
  using result_t = A;
  template <class A, class V>
  DIMGRAPH_ALWAYS_INLINE V apply(V a) const {
    return from_unsigned<V>(-as_unsigned(a));
  }
};
// |x|: clears the sign of floats (|-0| = 0, |NaN| is NaN); wraps for the lowest integer.
struct abs {
  static constexpr const char* name = "abs";
  template <class A>
  using result_t = A;
  template <class A, class V>
  DIMGRAPH_ALWAYS_INLINE V apply(V a) const {
    using T = simd::value_t<V>;
    if constexpr (std::is_unsigned_v<T>) return a;
    else if constexpr (std::is_floating_point_v<T>) return a < T(0) ? -a : a * T(1) + T(0);
    else return from_unsigned<V>(a < T(0) ? -as_unsigned(a) : as_unsigned(a));
  }
};
// max(x, 0); relu(NaN) is NaN.
struct relu {
  static constexpr const char* name = "relu";
  template <class A>
  using result_t = A;
  template <class A, class V>
  DIMGRAPH_ALWAYS_INLINE V apply(V a) const {
    using T = simd::value_t<V>;
    return a < T(0) ? V{} : a;
  }
};
// floor and ceil (identity on integers); NaN, infinities and signed zeros kept.
template <bool Up>
struct rounding {
  static constexpr const char* name = Up ? "ceil" : "floor";
  template <class A>
  using result_t = A;
  template <class A, class V>
  DIMGRAPH_ALWAYS_INLINE V apply(V a) const {
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
};
using floor = rounding<false>;
using ceil = rounding<true>;

// Unary math, computed in float_of_t (vectorised, see detail/simd_math.hpp for accuracy).
#define DIMGRAPH_MATH(NAME)                        \
  struct NAME {                                    \
    static constexpr const char* name = #NAME;     \
    template <class A>                             \
    using result_t = float_of_t<A>;                \
    template <class A, class V>                    \
    DIMGRAPH_ALWAYS_INLINE auto apply(V a) const { \
      return simd::NAME(as<float_of_t<A>, A>(a));  \
    }                                              \
  };
DIMGRAPH_MATH(exp)
DIMGRAPH_MATH(log)
DIMGRAPH_MATH(log1p)
DIMGRAPH_MATH(sqrt)
DIMGRAPH_MATH(rsqrt)
DIMGRAPH_MATH(tanh)
DIMGRAPH_MATH(sigmoid)
DIMGRAPH_MATH(gelu)
DIMGRAPH_MATH(sin)
DIMGRAPH_MATH(cos)
#undef DIMGRAPH_MATH

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
