// leaf_table: the flat description of an expression's memory that kernels read (and its rows).
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <tuple>
#include <utility>
#include <vector>

#include "dimgraph/detail/simd.hpp"
#include "dimgraph/eval/plan.hpp"
#include "dimgraph/eval/table_row.hpp"
#include "dimgraph/expr/evaluator.hpp"
#include "dimgraph/shape/error.hpp"

namespace dimgraph::detail {

// The strides of x along Dims (0 where x lacks the dim).
template <class Dims, class X>
DIMGRAPH_ALWAYS_INLINE inline std::array<std::ptrdiff_t, Dims::size> strides_along(const X& x) {
  return [&]<class... Ds>(std::type_identity<dim_list<Ds...>>) {
    return std::array<std::ptrdiff_t, Dims::size>{[&] {
      if constexpr (list_contains_v<typename X::dims, Ds>) return x.template stride<Ds>();
      else return std::ptrdiff_t{0};
    }()...};
  }(std::type_identity<Dims>{});
}

// The row-major strides of an owning tensor with dims Layout along Dims, given the extents
// of Dims (Layout's dims are among them).
template <class Dims, class Layout, std::size_t R>
constexpr std::array<std::ptrdiff_t, R> layout_strides(const std::array<std::size_t, R>& ext) {
  std::array<std::ptrdiff_t, R> s{};
  [&]<class... Ls>(std::type_identity<dim_list<Ls...>>) {
    constexpr std::size_t at[] = {list_index_of_v<Dims, Ls>..., 0};
    std::ptrdiff_t step = 1;
    for (std::size_t k = sizeof...(Ls); k-- > 0;) {
      s[at[k]] = step;
      step *= static_cast<std::ptrdiff_t>(ext[at[k]]);
    }
  }(std::type_identity<Layout>{});
  return s;
}
// The number of elements of a tensor with dims Layout.
template <class Dims, class Layout, std::size_t R>
constexpr std::size_t layout_size(const std::array<std::size_t, R>& ext) {
  return [&]<class... Ls>(std::type_identity<dim_list<Ls...>>) {
    return (std::size_t{1} * ... * ext[list_index_of_v<Dims, Ls>]);
  }(std::type_identity<Layout>{});
}

// The bytes [lo, hi) that a strided tensor touches (empty for 0 elements).
template <class X>
inline std::pair<const char*, const char*> memory_span(const X& x) {
  using value = std::remove_const_t<std::remove_pointer_t<decltype(x.data())>>;
  const char* base = reinterpret_cast<const char*>(x.data());
  std::ptrdiff_t lo = 0, hi = 0;
  const auto ext = x.shape().extents();
  for (std::size_t d = 0; d < ext.size(); ++d) {
    if (ext[d] == 0) return {base, base};
    std::ptrdiff_t span = x.strides()[d] * static_cast<std::ptrdiff_t>(ext[d] - 1);
    (span < 0 ? lo : hi) += span;
  }
  return {base + lo * static_cast<std::ptrdiff_t>(sizeof(value)),
          base + (hi + 1) * static_cast<std::ptrdiff_t>(sizeof(value))};
}

// (Cold and out of line, so that checks cost a few compares in the hot path.)
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE inline void throw_partial_overlap(std::size_t operand) {
  throw overlap_error("assign",
                      "operand " + std::to_string(operand) +
                          " partially overlaps the output (same memory, different element order); "
                          "evaluate it into a new tensor first");
}

// The output of a kernel as the table sees it: where it is and how it steps.
template <std::size_t R>
struct output_info {
  const void* data = nullptr;
  std::array<std::ptrdiff_t, R> strides{};
  const char* lo = nullptr;  // the bytes it spans (lo == hi: nothing)
  const char* hi = nullptr;
  std::size_t element_bytes = 1;
};

// Whether a strided layout (extents, strides in elements) reaches some element twice, e.g.
// through a zero stride: writing through it would make the result depend on loop order.
template <std::size_t R>
bool self_overlapping(const std::array<std::size_t, R>& ext,
                      const std::array<std::ptrdiff_t, R>& str) {
  std::array<std::size_t, R> order{};
  std::size_t n = 0;
  for (std::size_t d = 0; d < R; ++d) {
    if (ext[d] == 0) return false;
    if (ext[d] > 1) order[n++] = d;
  }
  const auto mag = [&](std::size_t d) {
    return static_cast<std::size_t>(str[d] < 0 ? -str[d] : str[d]);
  };
  for (std::size_t i = 1; i < n; ++i)  // by stride, smallest first
    for (std::size_t j = i; j > 0 && mag(order[j]) < mag(order[j - 1]); --j)
      std::swap(order[j], order[j - 1]);
  std::size_t reach = 0;  // the largest offset the smaller dims reach
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t d = order[i];
    if (mag(d) <= reach) return true;
    reach += mag(d) * (ext[d] - 1);
  }
  return false;
}

// The memory of a leaf object (an Op::object).
template <class Op>
DIMGRAPH_ALWAYS_INLINE inline const void* leaf_data(const void* object) {
  return static_cast<const typename Op::object*>(object)->data();
}

// The leaves of an expression evaluated over OutDims: their base pointers, the strides of
// each operand of the loop plan ("slots": 0 the output, then one per layout, then one per
// view) along OutDims, and the temporaries the expression needed. Filled from the
// expression's walk (make_kernel), checking each leaf against the output: a leaf whose
// memory overlaps the output must be the output itself, element for element (in-place
// element-wise work).
// Above this many leaves, a table takes the leaves' data pointers in a loop (see add_leaves).
inline constexpr std::size_t loop_leaves_above = 64;

template <class OutDims, class Layouts, class LeafOps, bool Temporaries>
struct leaf_table {
  static constexpr std::size_t rank = OutDims::size;
  static constexpr std::size_t layouts = Layouts::size;
  static constexpr std::size_t Leaves = LeafOps::size;
  static constexpr auto view_at = []<class... Ops>(type_list<Ops...>) {
    return prefix_counts<sizeof...(Ops)>({Ops::is_view..., false});
  }(LeafOps{});
  static constexpr std::size_t Views = view_at[Leaves];
  static constexpr std::size_t slots = 1 + layouts + Views;

  template <class Dims>
  static constexpr std::size_t slot_of_layout = 1 + index_of_v<Dims, Layouts>;
  template <std::size_t V>
  static constexpr std::size_t slot_of_view = 1 + layouts + V;

  static constexpr std::size_t leaf_count = Leaves;
  using bases_type = std::array<const void*, Leaves + 1>;  // (+1: never empty)
  // Leaf J's plan operand, and the size of its elements.
  static constexpr std::array<std::size_t, Leaves + 1> leaf_slot =
      []<class... Ops, std::size_t... Js>(type_list<Ops...>, std::index_sequence<Js...>) {
        return std::array<std::size_t, Leaves + 1>{[] {
                                                     if constexpr (Ops::is_view)
                                                       return slot_of_view<view_at[Js]>;
                                                     else return slot_of_layout<typename Ops::dims>;
                                                   }()...,
                                                   0};
      }(LeafOps{}, std::make_index_sequence<Leaves>{});
  static constexpr std::array<std::size_t, Leaves + 1> leaf_bytes =
      []<class... Ops>(type_list<Ops...>) {
        return std::array<std::size_t, Leaves + 1>{sizeof(typename Ops::value_type)..., 0};
      }(LeafOps{});

  std::array<std::array<std::ptrdiff_t, rank>, slots> strides{};
  std::array<std::size_t, rank> extents{};
  output_info<rank> out{};
  bool check_overlap = false;
  std::size_t bad_leaf = 0;  // 1 + the first leaf that partially overlaps the output
  std::array<bool, Views + 1> view_steps{};      // view V has the output's last dim
  std::array<const char*, Views + 1> view_lo{};  // the bytes view V spans (when checked)
  std::array<const char*, Views + 1> view_hi{};
  [[no_unique_address]] std::conditional_t<Temporaries, std::vector<std::unique_ptr<kept_base>>,
                                           std::tuple<>>
      temporaries;

  // extents: the output's; the layouts' strides follow from them.
  leaf_table(const std::array<std::size_t, rank>& ext, const output_info<rank>& o, bool check)
      : extents(ext), out(o), check_overlap(check) {
    strides[0] = o.strides;
    set_layouts(std::make_index_sequence<layouts>{});
  }

  template <std::size_t V, class X>
  DIMGRAPH_ALWAYS_INLINE void add_view(const X& x) {
    strides[slot_of_view<V>] = strides_along<OutDims>(x);
    if constexpr (rank > 0)
      view_steps[V] = list_contains_v<typename X::dims, back_t<types_of_t<OutDims>>>;
    if (check_overlap) std::tie(view_lo[V], view_hi[V]) = memory_span(x);
  }
  // The leaves a walk found (objects[J] is leaf J, an object of type LeafOps[J]::object):
  // their base pointers go to bases (which the caller keeps to itself, so the compiler sees
  // that leaves of one tensor share them) and to the table.
  DIMGRAPH_ALWAYS_INLINE void add_leaves(const void* const* objects, bases_type& bases) {
    add_leaves(objects, bases, LeafOps{}, std::make_index_sequence<Leaves>{});
    if (check_overlap) check_leaves(bases);
  }

  // Whether every view that steps along the inner loop of p (and, with out_steps, the
  // output) steps by 1.
  template <std::size_t N>
  bool unit_inner(const loop_plan<rank, N>& p, bool out_steps = true) const {
    if (p.depth == 0) return true;
    if (out_steps && p.inner_stride(0) != 1) return false;
    for (std::size_t v = 0; v < Views; ++v)
      if (view_steps[v] && p.inner_stride(1 + layouts + v) != 1) return false;
    return true;
  }

 private:
  // (Expressions and functions named by the leaf's type, not by the table, which names every
  // leaf: a chain of N ops is not N functions with names of length N.)
  template <class... Ops, std::size_t... Js>
  DIMGRAPH_ALWAYS_INLINE void add_leaves(const void* const* objects, bases_type& bases,
                                         type_list<Ops...>, std::index_sequence<Js...>) {
    if constexpr (sizeof...(Ops) <= loop_leaves_above) {
      const int order[] = {(bases[Js] = leaf_data<Ops>(objects[Js]), 0)..., 0};
      (void)order;
    } else {
      // Many leaves: one loop (through each leaf's kind of object), not one statement per
      // leaf. The optimiser then looks up each later read of bases[k] (the rows' placement)
      // against one store, not against every leaf's store before it: quadratic in the leaves.
      static constexpr const void* (*data[])(const void*) = {&leaf_data<Ops>...};
      for (std::size_t k = 0; k < sizeof...(Ops); ++k) bases[k] = data[k](objects[k]);
    }
    add_views(objects, std::make_index_sequence<Views>{});
  }
  // The leaf of view V.
  static constexpr std::array<std::size_t, Views + 1> view_leaf = [] {
    std::array<std::size_t, Views + 1> r{};
    for (std::size_t k = 0; k < Leaves; ++k)
      if (view_at[k + 1] != view_at[k]) r[view_at[k]] = k;
    return r;
  }();
  template <std::size_t... Vs>
  DIMGRAPH_ALWAYS_INLINE void add_views([[maybe_unused]] const void* const* objects,
                                        std::index_sequence<Vs...>) {
    (add_view<Vs>(*static_cast<const typename at_t<view_leaf[Vs], LeafOps>::object*>(
         objects[view_leaf[Vs]])),
     ...);
  }
  // Every leaf against the output (one loop: a long expression's leaves do not each carry
  // their own copy of the test). Almost every assignment reads memory apart from its output's,
  // so a first pass without branches asks only whether any leaf's bytes meet the output's
  // bytes; each leaf is tested exactly only when one does. (A branch per leaf and flags kept
  // on the stack made this check half the cost of `out = a * b + c` over 256 floats.)
  DIMGRAPH_ALWAYS_INLINE void check_leaves(const bases_type& base) {
    if (out.lo == out.hi) return;
    std::array<std::size_t, layouts + 1> elements{};
    set_elements(elements, std::make_index_sequence<layouts>{});
    const auto span = [&](std::size_t k) {
      const std::size_t slot = leaf_slot[k];
      const char* lo = static_cast<const char*>(base[k]);
      const char* hi = lo;
      if (slot > layouts) {
        lo = view_lo[slot - 1 - layouts];
        hi = view_hi[slot - 1 - layouts];
      } else if constexpr (layouts > 0) {  // (slot >= 1: a leaf's slot is never the output's)
        hi += elements[slot - 1] * leaf_bytes[k];
      }
      return std::pair{lo, hi};
    };
    bool meets = false;
    for (std::size_t k = 0; k < Leaves; ++k) {
      const auto [lo, hi] = span(k);
      meets |= (lo != hi) & (out.lo < hi) & (lo < out.hi);
    }
    if (!meets) [[likely]]
      return;
    for (std::size_t k = 0; k < Leaves; ++k) {
      const auto [lo, hi] = span(k);
      note(k, lo, hi, base[k], strides[leaf_slot[k]], leaf_bytes[k]);
    }
  }
  template <std::size_t... Ls>
  void set_elements(std::array<std::size_t, layouts + 1>& elements, std::index_sequence<Ls...>) {
    ((elements[Ls] = layout_size<OutDims, at_t<Ls, Layouts>>(extents)), ...);
  }
  template <std::size_t... Ls>
  void set_layouts(std::index_sequence<Ls...>) {
    ((strides[1 + Ls] = layout_strides<OutDims, at_t<Ls, Layouts>>(extents)), ...);
  }
  void note(std::size_t leaf, const char* lo, const char* hi, const void* data,
            const std::array<std::ptrdiff_t, rank>& s, std::size_t bytes) {
    if (lo == hi || out.lo == out.hi || hi <= out.lo || out.hi <= lo) return;
    if (data == out.data && s == out.strides) return;
    if (disjoint_lattices(data, s, bytes)) return;
    if (bad_leaf == 0) bad_leaf = leaf + 1;
  }
  // Whether no element of the leaf (at data, strides s, elements of `bytes`) can share a
  // byte with an element of the output: every address of each lies on its own residue class
  // modulo the gcd g of all their byte strides, and the two classes (with the elements'
  // sizes) do not meet. This accepts interleavings such as even and odd columns, or two
  // rows of one matrix; it never accepts two sets that share an element.
  bool disjoint_lattices(const void* data, const std::array<std::ptrdiff_t, rank>& s,
                         std::size_t bytes) const {
    std::size_t g = 0;
    const auto add = [&g](std::ptrdiff_t stride, std::size_t size) {
      std::size_t v = static_cast<std::size_t>(stride < 0 ? -stride : stride) * size;
      while (v) {
        const std::size_t t = g % v;
        g = v;
        v = t;
      }
    };
    for (std::size_t d = 0; d < rank; ++d) {
      if (extents[d] < 2) continue;
      add(s[d], bytes);
      add(out.strides[d], out.element_bytes);
    }
    if (g == 0) return false;  // one element each, and their spans meet
    const std::ptrdiff_t delta =
        static_cast<const char*>(data) - static_cast<const char*>(out.data);
    const std::size_t diff = static_cast<std::size_t>(
        ((delta % static_cast<std::ptrdiff_t>(g)) + static_cast<std::ptrdiff_t>(g)) %
        static_cast<std::ptrdiff_t>(g));
    return out.element_bytes <= diff && diff + bytes <= g;
  }
};

// The kernel of e over a table: walks e, recording its leaves in the table (which checks them
// against the output) and evaluating its temporaries, and copies its state.
template <class E, class Table>
DIMGRAPH_ALWAYS_INLINE inline program_kernel<typename evaluator_of<E>::program> make_kernel(
    const E& e, Table& table, typename Table::bases_type& bases) {
  using program = typename evaluator_of<E>::program;
  using facts = program_facts<program>;
  std::array<const void*, facts::leaves + 1> objects{};
  std::array<const void*, facts::states + 1> states{};
  walker w{objects.data(), states.data()};
  if constexpr (evaluator_of<E>::has_temporaries) w.temporaries = &table.temporaries;
  evaluator_of<E>::walk(e, w);
  table.add_leaves(objects.data(), bases);
  return program_kernel<program>(states.data());
}

// The table of the leaves of an expression E evaluated over OutDims.
template <class OutDims, class E>
using table_for = leaf_table<OutDims, typename evaluator_of<E>::layouts,
                             typename program_facts<typename evaluator_of<E>::program>::leaf_ops,
                             evaluator_of<E>::has_temporaries>;

}  // namespace dimgraph::detail
