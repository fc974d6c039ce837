// An expression's program: its instructions (leaf_op, scalar_op, apply_op) and what it reads.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/simd.hpp"
#include "dimgraph/detail/type_list.hpp"
#include "dimgraph/tensor/tensor.hpp"

// (What a program is, and how it is run: expr/evaluator.hpp.)
namespace dimgraph::detail {

// ---- Instructions ----------------------------------------------------------------------

// Read leaf object X (a tensor, a view, or the tensor a temporary was evaluated into), of
// element type T.
template <class X, class T>
struct leaf_op {
  using object = X;
  using value_type = T;
  using dims = typename X::dims;
  using state = void;
  static constexpr std::size_t arity = 0;
  static constexpr bool is_leaf = true;
  static constexpr bool is_view = is_view_v<X>;
  static constexpr bool stateful = false;
};
// A scalar: the same value in every lane (the value is state).
template <class T>
struct scalar_op {
  using value_type = T;
  using state = T;
  static constexpr std::size_t arity = 0;
  static constexpr bool is_leaf = false;
  static constexpr bool is_view = false;
  static constexpr bool stateful = true;
};
// F applied to the results of the instructions Dist... places before this one, whose element
// types are Args (a type_list). F is state when it holds data (a user's function with
// captures).
template <class F, class Value, class Args, std::size_t... Dist>
struct apply_op {
  using value_type = Value;
  using state = F;
  static constexpr std::size_t arity = sizeof...(Dist);
  static constexpr bool is_leaf = false;
  static constexpr bool is_view = false;
  static constexpr bool stateful = !(std::is_empty_v<F> && std::is_default_constructible_v<F>);
};

template <class I>
struct is_leaf_op : std::bool_constant<I::is_leaf> {};
template <class I>
struct is_stateful_op : std::bool_constant<I::stateful> {};
template <class List>
struct state_types_of;
template <class... Is>
struct state_types_of<type_list<Is...>> {
  using type = type_list<typename Is::state...>;
};

// Exclusive prefix sums of flags: {0, f0, f0 + f1, ...}.
template <std::size_t N>
constexpr std::array<std::size_t, N + 1> prefix_counts(const std::array<bool, N + 1>& f) {
  std::array<std::size_t, N + 1> r{};
  for (std::size_t k = 0; k < N; ++k) r[k + 1] = r[k] + std::size_t{f[k]};
  return r;
}

// Registers are kept in one array per kind of lane (float, double, signed and unsigned
// integers of 1, 2, 4 and 8 bytes): instruction K's value is element reg_at[K] of the array
// of its kind. (One struct member per instruction would make every access a lookup among N
// members, quadratic in the program's length.)
template <class T>
constexpr std::size_t reg_kind() {
  using U = simd::lane_t<T>;
  static_assert(std::is_arithmetic_v<U> && sizeof(U) <= 8 && (sizeof(U) & (sizeof(U) - 1)) == 0,
                "dimgraph: a lane is a number of 1, 2, 4 or 8 bytes");
  constexpr std::size_t log = sizeof(U) == 1 ? 0 : sizeof(U) == 2 ? 1 : sizeof(U) == 4 ? 2 : 3;
  if constexpr (std::is_floating_point_v<U>) return sizeof(U) == 4 ? 0 : 1;
  else if constexpr (std::is_signed_v<U>) return 2 + log;
  else return 6 + log;
}
template <class T>
inline constexpr std::size_t reg_kind_v = reg_kind<T>();
inline constexpr std::size_t reg_kinds = 10;
template <std::size_t Kind>
using reg_lane_t =
    at_t<Kind, type_list<float, double, std::int8_t, std::int16_t, std::int32_t, std::int64_t,
                         std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t>>;

// Facts::registers (the count of each kind of register) as an index_sequence. (Not a template
// on the array itself: GCC 12 misreads the elements of a std::array template argument.)
template <class Facts, class Kinds = std::make_index_sequence<reg_kinds>>
struct register_counts;
template <class Facts, std::size_t... Kinds>
struct register_counts<Facts, std::index_sequence<Kinds...>> {
  using type = std::index_sequence<Facts::registers[Kinds]...>;
};

// What a program reads: for instruction K, its leaf number leaf_at[K] (among leaves), view
// number view_at[K], state number state_at[K] and register reg_at[K] (among those of its
// kind); the leaf instructions, and the state types.
template <class Program>
struct program_facts;
template <class... Is>
struct program_facts<type_list<Is...>> {
  static constexpr std::size_t size = sizeof...(Is);
  static constexpr auto leaf_at = prefix_counts<size>({Is::is_leaf..., false});
  static constexpr auto view_at = prefix_counts<size>({Is::is_view..., false});
  static constexpr auto state_at = prefix_counts<size>({Is::stateful..., false});
  static constexpr std::size_t leaves = leaf_at[size];
  static constexpr std::size_t views = view_at[size];
  static constexpr std::size_t states = state_at[size];
  static constexpr std::array<std::size_t, size + 1> reg_kind{
      reg_kind_v<typename Is::value_type>..., 0};
  // Registers are reused: the program is a tree in post-order, each value read once, by the
  // instruction that consumes it, so the live values form a stack and a value's register is
  // the height of its kind's part of that stack when it is pushed (a chain of N ops needs two
  // registers per kind, not N: a register file the optimiser keeps in SSA values, not in an
  // array in memory whose every load it must check against every store before it).
  static constexpr std::array<std::size_t, size + 1> arity{Is::arity..., 0};
  struct allocation {
    std::array<std::size_t, size + 1> at{};
    std::array<std::size_t, reg_kinds> count{};
  };
  static constexpr allocation allocate() {
    allocation a{};
    std::array<std::size_t, reg_kinds> height{};
    std::array<std::size_t, size + 1> stack{};  // the kinds of the live values, bottom first
    std::size_t top = 0;
    for (std::size_t k = 0; k < size; ++k) {
      for (std::size_t j = 0; j < arity[k]; ++j) --height[stack[--top]];
      const std::size_t kind = reg_kind[k];
      a.at[k] = height[kind]++;
      if (height[kind] > a.count[kind]) a.count[kind] = height[kind];
      stack[top++] = kind;
    }
    return a;
  }
  static constexpr allocation allocated = allocate();
  static constexpr auto registers = allocated.count;
  static constexpr auto reg_at = allocated.at;
  using leaf_ops = filter_t<is_leaf_op, type_list<Is...>>;
  using state_types = typename state_types_of<filter_t<is_stateful_op, type_list<Is...>>>::type;
};

}  // namespace dimgraph::detail
