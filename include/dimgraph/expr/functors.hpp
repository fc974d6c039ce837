// The element functions of dimgraph's element-wise ops (what one element computes).
#pragma once

#include <cmath>
#include <type_traits>

#include "dimgraph/tensor/promote.hpp"

namespace dimgraph::detail::fn {

// Math on integers is done in float, as in PyTorch (exp of an int tensor is float).
template <class T>
using float_of_t = std::conditional_t<std::is_floating_point_v<T>, T, float>;

#define DIMGRAPH_PROMOTED_BINARY(NAME, OPNAME, EXPR)          \
  struct NAME {                                               \
    static constexpr const char* name = OPNAME;               \
    template <class A, class B>                               \
    constexpr auto operator()(A a_, B b_) const {             \
      using C = promote_t<A, B>;                              \
      const C a = static_cast<C>(a_), b = static_cast<C>(b_); \
      return static_cast<C>(EXPR);                            \
    }                                                         \
  };
DIMGRAPH_PROMOTED_BINARY(add, "add", a + b)
DIMGRAPH_PROMOTED_BINARY(sub, "sub", a - b)
DIMGRAPH_PROMOTED_BINARY(mul, "mul", a* b)
DIMGRAPH_PROMOTED_BINARY(minimum, "min", b < a ? b : a)
DIMGRAPH_PROMOTED_BINARY(maximum, "max", a < b ? b : a)
#undef DIMGRAPH_PROMOTED_BINARY

// True division: integers divide as float (PyTorch's torch.div).
struct div {
  static constexpr const char* name = "div";
  template <class A, class B>
  constexpr auto operator()(A a, B b) const {
    using C = float_of_t<promote_t<A, B>>;
    return static_cast<C>(static_cast<C>(a) / static_cast<C>(b));
  }
};
struct pow {
  static constexpr const char* name = "pow";
  template <class A, class B>
  auto operator()(A a, B b) const {
    using C = promote_t<A, B>;
    if constexpr (std::is_floating_point_v<C>)
      return static_cast<C>(std::pow(static_cast<C>(a), static_cast<C>(b)));
    else return static_cast<C>(std::pow(static_cast<double>(a), static_cast<double>(b)));
  }
};

#define DIMGRAPH_COMPARISON(NAME, OPNAME, OP)                                         \
  struct NAME {                                                                       \
    static constexpr const char* name = OPNAME;                                       \
    template <class A, class B>                                                       \
    constexpr bool operator()(A a, B b) const {                                       \
      if constexpr (std::is_same_v<A, B>) return a OP b;                              \
      else return static_cast<promote_t<A, B>>(a) OP static_cast<promote_t<A, B>>(b); \
    }                                                                                 \
  };
DIMGRAPH_COMPARISON(equal, "equal", ==)
DIMGRAPH_COMPARISON(not_equal, "not_equal", !=)
DIMGRAPH_COMPARISON(less, "less", <)
DIMGRAPH_COMPARISON(less_equal, "less_equal", <=)
DIMGRAPH_COMPARISON(greater, "greater", >)
DIMGRAPH_COMPARISON(greater_equal, "greater_equal", >=)
#undef DIMGRAPH_COMPARISON

struct logical_and {
  static constexpr const char* name = "logical_and";
  constexpr bool operator()(bool a, bool b) const { return a && b; }
};
struct logical_or {
  static constexpr const char* name = "logical_or";
  constexpr bool operator()(bool a, bool b) const { return a || b; }
};
struct logical_xor {
  static constexpr const char* name = "logical_xor";
  constexpr bool operator()(bool a, bool b) const { return a != b; }
};
struct logical_not {
  static constexpr const char* name = "logical_not";
  constexpr bool operator()(bool a) const { return !a; }
};

// Unary ops that keep the type.
struct neg {
  static constexpr const char* name = "neg";
  template <class A>
  constexpr A operator()(A a) const {
    return static_cast<A>(-a);
  }
};
struct abs {
  static constexpr const char* name = "abs";
  template <class A>
  constexpr A operator()(A a) const {
    if constexpr (std::is_unsigned_v<A>) return a;
    else return a < A(0) ? static_cast<A>(-a) : a;
  }
};
struct relu {
  static constexpr const char* name = "relu";
  template <class A>
  constexpr A operator()(A a) const {
    return a > A(0) ? a : A(0);
  }
};
struct floor {
  static constexpr const char* name = "floor";
  template <class A>
  A operator()(A a) const {
    if constexpr (std::is_floating_point_v<A>) return std::floor(a);
    else return a;
  }
};
struct ceil {
  static constexpr const char* name = "ceil";
  template <class A>
  A operator()(A a) const {
    if constexpr (std::is_floating_point_v<A>) return std::ceil(a);
    else return a;
  }
};

// Unary math, computed in float_of_t.
#define DIMGRAPH_FLOAT_UNARY(NAME, EXPR)       \
  struct NAME {                                \
    static constexpr const char* name = #NAME; \
    template <class A>                         \
    auto operator()(A a_) const {              \
      using C = float_of_t<A>;                 \
      const C x = static_cast<C>(a_);          \
      return static_cast<C>(EXPR);             \
    }                                          \
  };
DIMGRAPH_FLOAT_UNARY(exp, std::exp(x))
DIMGRAPH_FLOAT_UNARY(log, std::log(x))
DIMGRAPH_FLOAT_UNARY(log1p, std::log1p(x))
DIMGRAPH_FLOAT_UNARY(sqrt, std::sqrt(x))
DIMGRAPH_FLOAT_UNARY(rsqrt, C(1) / std::sqrt(x))
DIMGRAPH_FLOAT_UNARY(tanh, std::tanh(x))
DIMGRAPH_FLOAT_UNARY(sigmoid, C(1) / (C(1) + std::exp(-x)))
DIMGRAPH_FLOAT_UNARY(gelu, C(0.5) * x * (C(1) + std::erf(x * C(0.70710678118654752440))))
DIMGRAPH_FLOAT_UNARY(sin, std::sin(x))
DIMGRAPH_FLOAT_UNARY(cos, std::cos(x))
#undef DIMGRAPH_FLOAT_UNARY

struct select {
  static constexpr const char* name = "where";
  template <class A, class B>
  constexpr auto operator()(bool c, A a, B b) const {
    using C = promote_t<A, B>;
    return c ? static_cast<C>(a) : static_cast<C>(b);
  }
};

template <class T>
struct cast_to {
  static constexpr const char* name = "cast";
  template <class A>
  constexpr T operator()(A a) const {
    if constexpr (is_index_v<A>) return static_cast<T>(a.value());
    else return static_cast<T>(a);
  }
};

// A user function: dg::map(f, xs...).
template <class F>
struct user {
  static constexpr const char* name = "map";
  F f;
  template <class... As>
  constexpr auto operator()(As... as) const {
    return f(as...);
  }
};

}  // namespace dimgraph::detail::fn
