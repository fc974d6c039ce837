// A traced graph as text: an IR-like listing (operator<<) and Graphviz dot (dg::to_dot).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "dimgraph/graph/trace.hpp"
#include "dimgraph/tensor/print.hpp"

namespace dimgraph {
namespace detail {

// A dim as the graph knows it: "feature=512" (static), "beam[1..8]" (interval), "time[?]"
// (dynamic: any extent), "len[4..]" (bounded below only).
template <class D>
std::string symbolic_dim_text() {
  constexpr interval b = bounds_v<D>;
  if constexpr (is_static_v<D>) return describe<D>() + "=" + std::to_string(b.lo);
  else if constexpr (b.lo == 0 && !b.is_bounded()) return describe<D>() + "[?]";
  else
    return describe<D>() + "[" + std::to_string(b.lo) + ".." +
           (b.is_bounded() ? std::to_string(b.hi) : std::string()) + "]";
}
template <class T, class... Ds>
std::string node_type_text(dim_list<Ds...>*) {
  std::string out = element_name<T>() + " [";
  [[maybe_unused]] const char* sep = "";
  ((out += sep, out += symbolic_dim_text<Ds>(), sep = ", "), ...);
  return out + "]";
}
template <class N>
std::string node_type_text() {
  return node_type_text<typename N::value_type>(static_cast<typename N::dims*>(nullptr));
}

template <detail::fixed_string Name, class... Attrs>
std::string op_label(op_tag<Name, Attrs...>*) {
  std::string out(Name.view());
  if constexpr (sizeof...(Attrs) > 0) {
    const char* sep = "<";
    auto attr = [&]<class A>(A*) {
      out += sep;
      if constexpr (dimension<A>) out += describe<A>();
      else out += element_name<A>();
      sep = ", ";
    };
    (attr(static_cast<Attrs*>(nullptr)), ...);
    out += ">";
  }
  return out;
}

// One node per distinct value: nodes are numbered in the order they are first completed, so
// operands come before the ops that use them and a value used twice appears once.
struct graph_listing {
  struct entry {
    std::string op;                   // "input 0", "add", "sum<time>", "constant", "2.5"
    std::vector<std::size_t> inputs;  // ids of the operands
    std::string attributes;           // run-time attributes: "start=1, end=-1, stride=1"
    std::string type;                 // "float32 [batch[?], feature=512]"
  };
  std::vector<entry> entries;
  std::map<std::string, std::size_t> ids;  // a node's identity -> its id

  std::size_t add(std::string key, entry e) {
    auto [it, inserted] = ids.emplace(std::move(key), entries.size());
    if (inserted) entries.push_back(std::move(e));
    return it->second;
  }

  template <std::size_t I, class T, class... Ds>
  std::size_t visit(const input_node<I, T, Ds...>&) {
    using N = input_node<I, T, Ds...>;
    return add("input " + std::to_string(I),
               {"input " + std::to_string(I), {}, {}, node_type_text<N>()});
  }
  template <class T, class Dims>
  std::size_t visit(const constant_node<T, Dims>& n) {
    using N = constant_node<T, Dims>;
    std::string key = "constant@" + std::to_string(reinterpret_cast<std::uintptr_t>(n.address)) +
                      node_type_text<N>();
    return add(std::move(key), {"constant", {}, {}, node_type_text<N>()});
  }
  template <class T>
  std::size_t visit(const scalar_node<T>& n) {
    std::string text = element_text(n.value);
    return add("scalar " + text + element_name<T>(),
               {"scalar " + text, {}, {}, node_type_text<scalar_node<T>>()});
  }
  template <class Op, class T, class Dims, class... Cs>
  std::size_t visit(const op_node<Op, T, Dims, Cs...>& n) {
    using N = op_node<Op, T, Dims, Cs...>;
    std::vector<std::size_t> in = std::apply(
        [&](const auto&... c) { return std::vector<std::size_t>{visit(c)...}; }, n.children);
    std::string label = op_label(static_cast<Op*>(nullptr));
    std::string key = label + "(";
    for (std::size_t i : in) key += std::to_string(i) + ",";
    key += ")" + n.attributes + node_type_text<N>();
    return add(std::move(key),
               {std::move(label), std::move(in), n.attributes, node_type_text<N>()});
  }
};

template <class G>
graph_listing list_graph(const G& g) {
  graph_listing l;
  // Inputs first, numbered by position, even when an output does not use them.
  [&]<class... Ins>(std::tuple<Ins...>*) {
    (l.visit(Ins{}), ...);
  }(static_cast<typename G::input_nodes*>(nullptr));
  std::apply([&](const auto&... out) { (l.visit(out), ...); }, g.output_node_values());
  return l;
}

}  // namespace detail

// The listing: one line per node, "%id = op<dims>(%operands) {attributes} : type [dims]", then
// "return %ids". A dim prints with its size ("feature=512"), interval ("beam[1..8]") or
// "[?]" when any extent is allowed.
template <class Fn, class Ins, class Outs>
std::ostream& operator<<(std::ostream& os, const graph<Fn, Ins, Outs>& g) {
  const auto l = detail::list_graph(g);
  for (std::size_t i = 0; i < l.entries.size(); ++i) {
    const auto& e = l.entries[i];
    os << '%' << i << " = " << e.op;
    if (!e.inputs.empty()) {
      os << '(';
      for (std::size_t k = 0; k < e.inputs.size(); ++k) os << (k ? ", %" : "%") << e.inputs[k];
      os << ')';
    }
    if (!e.attributes.empty()) os << " {" << e.attributes << '}';
    os << " : " << e.type << '\n';
  }
  os << "return";
  std::apply(
      [&](const auto&... out) {
        const char* sep = " ";
        auto print = [&](std::size_t id) {
          os << sep << '%' << id;
          sep = ", ";
        };
        auto copy = l;  // visiting again finds each output's id
        (print(copy.visit(out)), ...);
      },
      g.output_node_values());
  return os << '\n';
}

// Graphviz: one box per node labelled with its op and type, an edge per operand.
template <class Fn, class Ins, class Outs>
std::string to_dot(const graph<Fn, Ins, Outs>& g) {
  const auto l = detail::list_graph(g);
  std::string out = "digraph dimgraph {\n  node [shape=box, fontname=\"monospace\"];\n";
  for (std::size_t i = 0; i < l.entries.size(); ++i) {
    const auto& e = l.entries[i];
    out += "  n" + std::to_string(i) + " [label=\"%" + std::to_string(i) + " " + e.op +
           (e.attributes.empty() ? "" : " {" + e.attributes + "}") + "\\n" + e.type + "\"];\n";
    for (std::size_t in : e.inputs)
      out += "  n" + std::to_string(in) + " -> n" + std::to_string(i) + ";\n";
  }
  return out + "}\n";
}

}  // namespace dimgraph
