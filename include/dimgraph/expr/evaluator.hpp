// evaluator<E>: how each kind of expression is evaluated — its program of per-lane
// instructions, its leaves, and the walk that finds them at run time.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "dimgraph/detail/simd.hpp"
#include "dimgraph/detail/type_list.hpp"
#include "dimgraph/expr/functors.hpp"
#include "dimgraph/expr/node.hpp"
#include "dimgraph/tensor/tensor.hpp"

// An expression is evaluated against a flat description of its memory operands (its
// "leaves": tensors, views and evaluated temporaries, numbered in visiting order) and a
// program: the expression's nodes in post-order, each one instruction that reads a leaf, a
// scalar, or applies a function to the results of earlier instructions. The program is a
// type, built bottom-up as each node's type is made (a node's program is its operands'
// programs followed by its own instruction), and it is run by one function whose body is one
// statement per instruction: a chain of N ops is one flat function of N statements, with no
// nesting of N functions or instantiations, however deep the expression.
//
// Owning tensors are row-major, and tensors with the same dims in one expression have the
// same extents, so they have the same strides: the loop planner treats each distinct dim
// list of owning leaves (a "layout") as one operand, and each view as one. A chain over
// five tensors and a bias is a plan with three operands, whatever its length.
//
// Every node kind has one evaluator specialisation, holding together
//   program           the node's instructions (a type_list, post-order)
//   layouts           the distinct dim lists of its owning leaves (a type_list)
//   lane_bytes        the widest lane in the node's program (sets the vector length)
//   static_layout     every leaf is an all-static owning tensor (the plan is a constant)
//   needs_temporary   the node is evaluated into a tensor of its own when it is the operand
//                     of an element-wise op (a reduction, a contraction)
//   has_temporaries   the node or one below it needs a temporary
//   walk(e, w)        hands the walker the node's leaves and state (scalars, functions with
//                     data), in program order.
// A node's evaluator is instantiated when the node's type is (map_expr names its operands'
// evaluators), and it asks for its walk there, so that a chain of N ops never nests N
// instantiations.
namespace dimgraph::detail {

template <class E>
struct evaluator;  // specialised next to each node kind

template <class E>
using evaluator_of = evaluator<std::remove_cvref_t<E>>;

// Whether its arguments have values (they always do: naming them in a static_assert makes the
// compiler compute them there).
template <class... Ts>
constexpr bool known(Ts...) {
  return true;
}

// set_union_t<A, B>: A's elements, then those of B not in A (type_lists).
template <class A, class B>
struct set_union;
template <class A, class... Bs>
struct set_union<A, type_list<Bs...>> {
  using type = concat_t<A, std::conditional_t<contains_v<Bs, A>, type_list<>, type_list<Bs>>...>;
};
template <class A, class B>
using set_union_t = typename set_union<A, B>::type;
template <class... Ls>
struct set_union_all {
  using type = type_list<>;
};
template <class L, class... Ls>
struct set_union_all<L, Ls...> {
  using type = set_union_t<L, typename set_union_all<Ls...>::type>;
};

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

// ---- Walking an expression -------------------------------------------------------------

// An evaluated temporary kept alive for the duration of an assignment.
struct kept_base {
  virtual ~kept_base() = default;
};
template <class Tensor>
struct kept final : kept_base {
  Tensor value;
  explicit kept(Tensor&& t) : value(std::move(t)) {}
};

// A node that is not element-wise (a reduction, a product), evaluated into a tensor of its
// own (declared here, defined with the assignment in eval/assign.hpp).
template <class E>
auto materialize(const E& e);

// What a walk records, in program order: a pointer to each leaf object and to each piece of
// state, and the temporaries it evaluated.
struct walker {
  const void** leaf;
  const void** state;
  std::vector<std::unique_ptr<kept_base>>* temporaries = nullptr;

  void add_leaf(const void* x) { *leaf++ = x; }
  void add_state(const void* s) { *state++ = s; }
  // e evaluated into a tensor that lives as long as the walk's owner.
  template <class E>
  const void* keep(const E& e) {
    using tensor_t = decltype(materialize(e));
    auto k = std::make_unique<kept<tensor_t>>(materialize(e));
    const void* p = &k->value;
    temporaries->push_back(std::move(k));
    return p;
  }
};

// ---- Leaves and scalars ----------------------------------------------------------------

// The evaluator of memory: an object X of element type T.
template <class X, class T, bool Static>
struct leaf_evaluator {
  using program = type_list<leaf_op<X, T>>;
  using layouts = std::conditional_t<is_view_v<X>, type_list<>, type_list<typename X::dims>>;
  static constexpr std::size_t lane_bytes = sizeof(simd::lane_t<T>);
  static constexpr bool static_layout = Static && !is_view_v<X>;
  static constexpr bool needs_temporary = false;
  static constexpr bool has_temporaries = false;
  static void walk(const X& x, walker& w) { w.add_leaf(&x); }
};
template <class T, class... Ds>
struct evaluator<tensor<T, Ds...>>
    : leaf_evaluator<tensor<T, Ds...>, T, tensor<T, Ds...>::is_static> {};
template <class T, class... Ds>
struct evaluator<tensor_view<T, Ds...>>
    : leaf_evaluator<tensor_view<T, Ds...>, std::remove_const_t<T>, false> {};

// A node evaluated into a tensor of its own first (needs_temporary): a leaf of that tensor.
template <class E>
struct temporary_evaluator {
  using object = tensor_of_list_t<typename E::value_type, typename E::dims>;
  using program = type_list<leaf_op<object, typename E::value_type>>;
  using layouts = type_list<typename E::dims>;
  static constexpr std::size_t lane_bytes = sizeof(simd::lane_t<typename E::value_type>);
  static constexpr bool static_layout = false;
  static constexpr bool needs_temporary = true;
  static constexpr bool has_temporaries = true;
  static void walk(const E& e, walker& w) { w.add_leaf(w.keep(e)); }
};

template <class T>
struct evaluator<scalar_expr<T>> {
  using program = type_list<scalar_op<T>>;
  using layouts = type_list<>;
  static constexpr std::size_t lane_bytes = sizeof(simd::lane_t<T>);
  static constexpr bool static_layout = true;
  static constexpr bool needs_temporary = false;
  static constexpr bool has_temporaries = false;
  static void walk(const scalar_expr<T>& e, walker& w) { w.add_state(&e.value); }
};

// ---- Running a program -----------------------------------------------------------------

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

// A base holding one value.
template <std::size_t K, class V>
struct reg_slot {
  V v;
};

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
