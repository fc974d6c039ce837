// program_kernel: an expression's program run on L lanes, one statement per instruction.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "dimgraph/config.hpp"
#include "dimgraph/detail/simd.hpp"
#include "dimgraph/detail/type_list.hpp"
#include "dimgraph/expr/functors.hpp"
#include "dimgraph/expr/program.hpp"

DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail {

// ---- Running a program -----------------------------------------------------------------

// A base holding one value.
template <std::size_t K, class V>
struct reg_slot {
  V v;
};

// The registers of a program with N[k] values of kind k, L lanes each.
template <std::size_t L, class N, class Kinds = std::make_index_sequence<reg_kinds>>
struct register_file;
template <std::size_t L, std::size_t... N, std::size_t... Kinds>
struct register_file<L, std::index_sequence<N...>, std::index_sequence<Kinds...>>
    : reg_slot<Kinds, simd::vec<reg_lane_t<Kinds>, L>[N + 1]>... {
  static constexpr std::array<std::size_t, reg_kinds> counts{N...};
  // The registers of kind K.
  template <std::size_t K>
  DIMGRAPH_ALWAYS_INLINE auto& bank() {
    return static_cast<reg_slot<K, simd::vec<reg_lane_t<K>, L>[counts[K] + 1]>&>(*this).v;
  }
  template <std::size_t K>
  DIMGRAPH_ALWAYS_INLINE const auto& bank() const {
    return static_cast<const reg_slot<K, simd::vec<reg_lane_t<K>, L>[counts[K] + 1]>&>(*this).v;
  }
};

// Lanes of element type T from memory: bool as masks, dg::index as its int64 value.
template <std::size_t L, class T>
DIMGRAPH_ALWAYS_INLINE inline fn::lanes_t<T, L> load_lanes(const T* p) {
  fn::lanes_t<T, L> v;
  std::memcpy(&v, static_cast<const void*>(p), sizeof(v));
  if constexpr (std::is_same_v<T, bool>) return -v;
  else return v;
}
template <std::size_t L, class T>
DIMGRAPH_ALWAYS_INLINE inline fn::lanes_t<T, L> load_lanes(const T* p, std::ptrdiff_t s) {
  simd::lane_t<T> lanes[L];
  for (std::size_t l = 0; l < L; ++l) lanes[l] = fn::lane_of(p[static_cast<std::ptrdiff_t>(l) * s]);
  fn::lanes_t<T, L> v;
  std::memcpy(&v, lanes, sizeof(v));
  return v;
}
template <std::size_t L, class T>
DIMGRAPH_ALWAYS_INLINE inline void store_lanes(T* p, fn::lanes_t<T, L> v) {
  if constexpr (std::is_same_v<T, bool>) v &= 1;
  if constexpr (std::is_same_v<simd::lane_t<T>, T>)
    *reinterpret_cast<simd::unaligned_vec<T, L>*>(p) = v;
  else std::memcpy(static_cast<void*>(p), &v, sizeof(v));
}
template <std::size_t L, class T>
DIMGRAPH_ALWAYS_INLINE inline void store_lanes(T* p, std::ptrdiff_t s, fn::lanes_t<T, L> v) {
  for (std::size_t l = 0; l < L; ++l)
    p[static_cast<std::ptrdiff_t>(l) * s] = fn::element_of<T>(v[l]);
}

// Register At (among those of its kind) of element type T, read and written.
template <class T, std::size_t At, std::size_t L, class Regs>
DIMGRAPH_ALWAYS_INLINE inline fn::lanes_t<T, L> reg_get(const Regs& r) {
  const auto& v = r.template bank<reg_kind_v<T>>()[At];
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(v)>, fn::lanes_t<T, L>>) return v;
  else return simd::bits<fn::lanes_t<T, L>>(v);
}
template <class T, std::size_t At, std::size_t L, class Regs>
DIMGRAPH_ALWAYS_INLINE inline void reg_set(Regs& r, fn::lanes_t<T, L> value) {
  auto& v = r.template bank<reg_kind_v<T>>()[At];
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(v)>, fn::lanes_t<T, L>>) v = value;
  else v = simd::bits<std::remove_cvref_t<decltype(v)>>(value);
}

// One instruction run into register Out: a function template per kind of instruction whose
// arguments are the instruction, its registers and what it reads, never the program or the
// row (a function named by the whole program, once per instruction, would be N names of
// length N for a chain of N ops).
//   leaf: lanes of a leaf at `at`, stepping by `step` elements (when it is not unit), at i;
template <std::size_t Out, std::size_t L, class Inner, bool Unit, class Regs, class X, class T>
DIMGRAPH_ALWAYS_INLINE inline void exec(Regs& r, std::type_identity<leaf_op<X, T>>,
                                        std::index_sequence<>, std::nullptr_t, const void* at,
                                        std::ptrdiff_t step, std::size_t i) {
  using dims = typename X::dims;
  const T* p = static_cast<const T*>(at);
  if constexpr (!list_contains_v<dims, Inner>) {
    reg_set<T, Out, L>(r, simd::splat<simd::lane_t<T>, L>(fn::lane_of(*p)));
  } else if constexpr (is_view_v<X> ? Unit : std::is_same_v<back_t<types_of_t<dims>>, Inner>) {
    reg_set<T, Out, L>(r, load_lanes<L>(p + i));
  } else {
    reg_set<T, Out, L>(r, load_lanes<L>(p + static_cast<std::ptrdiff_t>(i) * step, step));
  }
}
//   scalar: the value in every lane;
template <std::size_t Out, std::size_t L, class Inner, bool Unit, class Regs, class T>
DIMGRAPH_ALWAYS_INLINE inline void exec(Regs& r, std::type_identity<scalar_op<T>>,
                                        std::index_sequence<>, const T* value, const void*,
                                        std::ptrdiff_t, std::size_t) {
  reg_set<T, Out, L>(r, simd::splat<simd::lane_t<T>, L>(fn::lane_of(*value)));
}
//   apply: F over the registers In... (of types As...), F itself as state when it has data.
template <std::size_t Out, std::size_t L, class Inner, bool Unit, class Regs, class F, class V,
          class... As, std::size_t... Dist, std::size_t... In, class State>
DIMGRAPH_ALWAYS_INLINE inline void exec(
    Regs& r, std::type_identity<apply_op<F, V, type_list<As...>, Dist...>>,
    std::index_sequence<In...>, State f, const void*, std::ptrdiff_t, std::size_t) {
  if constexpr (std::is_null_pointer_v<State>)
    reg_set<V, Out, L>(r, F{}.template apply<As...>(reg_get<As, In, L>(r)...));
  else reg_set<V, Out, L>(r, f->template apply<As...>(reg_get<As, In, L>(r)...));
}

// The registers instruction K (an I) of a program with facts Facts reads.
template <class Facts, std::size_t K, class I>
struct input_registers {
  using type = std::index_sequence<>;
};
template <class Facts, std::size_t K, class F, class V, class Args, std::size_t... Dist>
struct input_registers<Facts, K, apply_op<F, V, Args, Dist...>> {
  using type = std::index_sequence<Facts::reg_at[K - Dist]...>;
};

// The program's state, copied from where the walk found it.
template <std::size_t S, class T>
struct state_slot {
  T value;
};
struct state_tag {};
template <class Ss, class... Ts>
struct state_pack_impl;
template <std::size_t... Ss, class... Ts>
struct state_pack_impl<std::index_sequence<Ss...>, Ts...> : state_tag, state_slot<Ss, Ts>... {
  explicit state_pack_impl([[maybe_unused]] const void* const* from)
      : state_slot<Ss, Ts>{*static_cast<const Ts*>(from[Ss])}... {}
};
template <class List>
struct state_pack;
// Many pieces of plain state: bytes at fixed offsets, copied in one loop (one statement per
// piece would make the optimiser look each copied pointer up against every store before it).
template <class... Ts>
struct state_bytes : state_tag {
  static constexpr std::size_t count = sizeof...(Ts);
  static constexpr std::array<std::size_t, count> size{sizeof(Ts)...};
  static constexpr std::array<std::size_t, count + 1> offset = [] {
    constexpr std::array<std::size_t, count> align{alignof(Ts)...};
    std::array<std::size_t, count + 1> o{};
    std::size_t at = 0;
    for (std::size_t k = 0; k < count; ++k) {
      at = (at + align[k] - 1) / align[k] * align[k];
      o[k] = at;
      at += size[k];
    }
    o[count] = at;
    return o;
  }();
  alignas(std::max({alignof(Ts)...})) unsigned char bytes[offset[count]];
  explicit state_bytes(const void* const* from) {
    for (std::size_t k = 0; k < count; ++k) std::memcpy(bytes + offset[k], from[k], size[k]);
  }
  template <std::size_t S, class T>
  DIMGRAPH_ALWAYS_INLINE const T* at() const {
    return std::launder(reinterpret_cast<const T*>(bytes + offset[S]));
  }
};
inline constexpr std::size_t state_bytes_above = 64;
template <class... Ts>
struct state_pack<type_list<Ts...>> {
  using type = std::conditional_t<
      (sizeof...(Ts) > state_bytes_above) && (std::is_trivially_copyable_v<Ts> && ...) &&
          (std::is_trivially_destructible_v<Ts> && ...),
      state_bytes<Ts...>, state_pack_impl<std::index_sequence_for<Ts...>, Ts...>>;
};

// The state of an instruction: a pointer to slot S (of type T) of a state pack, or none.
template <bool Stateful>
struct state_of {
  template <std::size_t S, class T>
  DIMGRAPH_ALWAYS_INLINE static std::nullptr_t get(const state_tag&) {
    return nullptr;
  }
};
template <>
struct state_of<true> {
  template <std::size_t S, class T>
  DIMGRAPH_ALWAYS_INLINE static const T* get(const state_slot<S, T>& slot) {
    return &slot.value;
  }
  template <std::size_t S, class T, class... Ts>
  DIMGRAPH_ALWAYS_INLINE static const T* get(const state_bytes<Ts...>& pack) {
    return pack.template at<S, T>();
  }
};

// The kernel of a program: its state, and packet<L>(row, i), the L lanes of the result at
// position i of the current row (the row, in eval/, knows where each leaf is).
template <class Program>
struct program_kernel : state_pack<typename program_facts<Program>::state_types>::type {
  using facts = program_facts<Program>;
  using value_type = typename back_t<Program>::value_type;
  static constexpr std::size_t leaves = facts::leaves;
  static constexpr std::size_t views = facts::views;
  static constexpr std::size_t instructions = facts::size;
  using state_base = typename state_pack<typename facts::state_types>::type;
  using state_base::state_base;

  template <std::size_t L, class Row>
  DIMGRAPH_ALWAYS_INLINE fn::lanes_t<value_type, L> packet(const Row& row, std::size_t i) const {
    return run<L>(row, i, std::make_index_sequence<facts::size>{}, Program{});
  }

 private:
  template <std::size_t L, class Row, std::size_t... Ks, class... Is>
  DIMGRAPH_ALWAYS_INLINE fn::lanes_t<value_type, L> run(const Row& row, std::size_t i,
                                                        std::index_sequence<Ks...>,
                                                        type_list<Is...>) const {
    register_file<L, typename register_counts<facts>::type> r;
    // (A braced list runs its elements in order, and does not nest like a fold.)
    const int order[] = {
        (exec<facts::reg_at[Ks], L, typename Row::inner, Row::unit>(
             r, std::type_identity<Is>{}, typename input_registers<facts, Ks, Is>::type{},
             state_of<Is::stateful>::template get<facts::state_at[Ks], typename Is::state>(*this),
             row.at[facts::leaf_at[Ks]], row.step[Row::leaf_slot[facts::leaf_at[Ks]]], i),
         0)...};
    (void)order;
    return reg_get<value_type, facts::reg_at[facts::size - 1], L>(r);
  }
};

}  // namespace dimgraph::detail
DIMGRAPH_WIDE_END
