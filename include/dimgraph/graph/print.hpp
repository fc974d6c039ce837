// A traced graph as text: an IR-like listing (operator<<) and Graphviz dot (dg::to_dot).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "dimgraph/graph/region.hpp"
#include "dimgraph/graph/trace.hpp"
#include "dimgraph/tensor/print.hpp"

namespace dimgraph {
namespace detail {

// A dim as the graph knows it: "feature=512" (static), "beam[1, 8]" (interval), "time[0, inf]"
// (dynamic: any extent), "len[4, inf]" (bounded below only).
template <class D>
std::string symbolic_dim_text() {
  if constexpr (is_static_v<D>) return describe<D>() + "=" + std::to_string(bounds_v<D>.lo);
  else return describe<D>() + to_string(bounds_v<D>);
}
template <class T, class... Ds>
std::string node_type_text(dim_list<Ds...>) {
  std::string out = element_name<T>() + " [";
  [[maybe_unused]] const char* sep = "";
  ((out += sep, out += symbolic_dim_text<Ds>(), sep = ", "), ...);
  return out + "]";
}
template <class N>
std::string node_type_text() {
  return node_type_text<typename N::value_type>(typename N::dims{});
}

template <detail::fixed_string Name, class... Attrs>
std::string op_label(std::type_identity<op_tag<Name, Attrs...>>) {
  std::string out(Name.view());
  if constexpr (sizeof...(Attrs) > 0) {
    const char* sep = "<";
    auto attr = [&]<class A>(std::type_identity<A>) {
      out += sep;
      if constexpr (dimension<A>) out += describe<A>();
      else out += element_name<A>();
      sep = ", ";
    };
    (attr(std::type_identity<Attrs>{}), ...);
    out += ">";
  }
  return out;
}

// One line per distinct value: values are numbered in the order they are first completed,
// so operands come before the ops that use them and a value used twice appears once. The
// sub-graphs of a region node (if_, scan) follow it, indented, each ending in a yield line.
struct graph_listing {
  static constexpr std::size_t no_id = static_cast<std::size_t>(-1);
  struct entry {
    std::size_t depth = 0;            // nesting in sub-graphs
    std::size_t id = no_id;           // no_id: a label or yield line
    std::string op;                   // "input 0", "add", "sum<time>", "then:", "yield"
    std::vector<std::size_t> inputs;  // ids of the operands
    std::string attributes;           // run-time attributes: "start=1, end=-1, stride=1"
    std::string type;                 // "float32 [batch[?], feature=512]"
  };
  std::vector<entry> entries;
  // A value's identity (in its scope) -> its id, sorted by identity. (A sorted vector, not a
  // std::map: <map> costs every translation unit that includes the library.)
  std::vector<std::pair<std::string, std::size_t>> ids;
  auto id_position(const std::string& key) {
    return std::lower_bound(ids.begin(), ids.end(), key,
                            [](const auto& a, const std::string& k) { return a.first < k; });
  }
  const std::size_t* find_id(const std::string& key) {
    const auto at = id_position(key);
    return at != ids.end() && at->first == key ? &at->second : nullptr;
  }
  std::size_t next_id = 0;
  std::size_t depth = 0;
  std::string scope;  // "" outside sub-graphs, "r5.0/" in the first sub-graph of %5

  // The id of the value `key` (scope + rest), added as e when it is new. A value of an
  // enclosing graph that a sub-graph uses (a capture) keeps its id there: with `inherit`, the
  // key is looked up in the enclosing scopes first.
  std::size_t add(std::string key, entry e, bool inherit = true) {
    if (inherit && !scope.empty() && key.starts_with(scope)) {
      const std::string rest = key.substr(scope.size());
      // Scopes are "r5.0/r9.0/": each enclosing one is a prefix ending in '/', then "".
      for (std::size_t close = scope.size() - 1;;) {
        const std::size_t slash = close == 0 ? std::string::npos : scope.rfind('/', close - 1);
        const std::size_t length = slash == std::string::npos ? 0 : slash + 1;
        if (const std::size_t* found = find_id(scope.substr(0, length) + rest)) return *found;
        if (length == 0) break;
        close = slash;
      }
    }
    const auto at = id_position(key);
    if (at != ids.end() && at->first == key) return at->second;
    const std::size_t id = next_id++;
    ids.emplace(at, std::move(key), id);
    e.depth = depth;
    e.id = id;
    entries.push_back(std::move(e));
    return id;
  }
  void line(std::string op, std::vector<std::size_t> inputs = {}, std::string attributes = {}) {
    entries.push_back({depth, no_id, std::move(op), std::move(inputs), std::move(attributes), {}});
  }
  std::string key_of(const std::string& label, const std::vector<std::size_t>& in,
                     const std::string& rest) const {
    std::string key = scope + label + "(";
    for (std::size_t i : in) key += std::to_string(i) + ",";
    return key + ")" + rest;
  }

  template <std::size_t I, class T, class... Ds>
  std::size_t visit(const input_node<I, T, Ds...>&) {
    using N = input_node<I, T, Ds...>;
    return add("input " + std::to_string(I),
               {0, no_id, "input " + std::to_string(I), {}, {}, node_type_text<N>()});
  }
  template <std::size_t I, class T, class... Ds>
  std::size_t visit(const arg_node<I, T, Ds...>&) {
    using N = arg_node<I, T, Ds...>;
    return add(scope + "arg " + std::to_string(I),
               {0, no_id, "arg " + std::to_string(I), {}, {}, node_type_text<N>()}, false);
  }
  template <class T, class Dims>
  std::size_t visit(const constant_node<T, Dims>& n) {
    using N = constant_node<T, Dims>;
    std::string key = "constant@" + std::to_string(reinterpret_cast<std::uintptr_t>(n.address)) +
                      node_type_text<N>();
    return add(std::move(key), {0, no_id, "constant", {}, {}, node_type_text<N>()});
  }
  template <class T>
  std::size_t visit(const scalar_node<T>& n) {
    std::string text = element_text(n.value);
    return add("scalar " + text + element_name<T>(),
               {0, no_id, "scalar " + text, {}, {}, node_type_text<scalar_node<T>>()});
  }
  template <class Op, class T, class Dims, class... Cs>
  std::size_t visit(const op_node<Op, T, Dims, Cs...>& n) {
    using N = op_node<Op, T, Dims, Cs...>;
    std::vector<std::size_t> in = std::apply(
        [&](const auto&... c) { return std::vector<std::size_t>{visit(c)...}; }, n.children);
    std::string label = op_label(std::type_identity<Op>{});
    std::string key = key_of(label, in, n.attributes + node_type_text<N>());
    return add(std::move(key),
               {0, no_id, std::move(label), std::move(in), n.attributes, node_type_text<N>()});
  }
  template <class Op, class Results, class Bodies, class... Cs>
  std::size_t visit(const region_node<Op, Results, Bodies, Cs...>& n) {
    std::vector<std::size_t> in = std::apply(
        [&](const auto&... c) { return std::vector<std::size_t>{visit(c)...}; }, n.children);
    std::string label = op_label(std::type_identity<Op>{});
    std::string type = results_text(std::type_identity<Results>{});
    std::string key = key_of(label, in, n.attributes + type + type_key<Bodies>());
    const std::size_t before = next_id;
    const std::size_t id =
        add(std::move(key), {0, no_id, std::move(label), std::move(in), n.attributes, type});
    if (id == before) {  // first time: list the sub-graphs under it
      std::string outer = scope;
      std::size_t k = 0;
      ++depth;
      std::apply(
          [&](const auto&... body) {
            ((scope = outer + "r" + std::to_string(id) + "." + std::to_string(k++) + "/",
              line(body.name + ":"), visit_body(body)),
             ...);
          },
          n.bodies);
      --depth;
      scope = outer;
    }
    return id;
  }
  template <std::size_t K, class Region>
  std::size_t visit(const result_node<K, Region>& n) {
    const std::size_t region = visit(n.region);
    using N = result_node<K, Region>;
    return add(key_of("result " + std::to_string(K), {region}, {}),
               {0, no_id, "result " + std::to_string(K), {region}, {}, node_type_text<N>()});
  }

  // The nodes of Hoisted under n (n itself when it is one), each where it is first met.
  template <class Hoisted, class N>
  void visit_hoisted(const N& n) {
    if constexpr (contains_v<N, Hoisted>) {
      visit(n);
    } else if constexpr (
        requires { n.children; } && !requires { n.bodies; }) {
      std::apply([&](const auto&... c) { (visit_hoisted<Hoisted>(c), ...); }, n.children);
    }
  }

  // A sub-graph: its arguments first, in order (as a graph's inputs), then the nodes a scan
  // that hoists computes before its loop, then what it yields.
  template <class Outs, class... Args, class Hoisted>
  void visit_body(const body_graph<Outs, std::tuple<Args...>, Hoisted>& body) {
    ++depth;
    (visit(Args{}), ...);
    if constexpr (Hoisted::size > 0) {
      line("before the loop:");
      std::apply([&](const auto&... y) { (visit_hoisted<Hoisted>(y), ...); }, body.yields);
      line("every iteration:");
    }
    std::vector<std::size_t> out = std::apply(
        [&](const auto&... y) { return std::vector<std::size_t>{visit(y)...}; }, body.yields);
    line("yield", std::move(out), body.yield_text);
    --depth;
  }

  // Tells sub-graphs of different types apart without RTTI.
  template <class T>
  static std::string type_key() {
    static const char tag = 0;
    return "@" + std::to_string(reinterpret_cast<std::uintptr_t>(&tag));
  }

  template <class... Ts>
  static std::string results_text(std::type_identity<std::tuple<Ts...>>) {
    std::string out = "(";
    [[maybe_unused]] const char* sep = "";
    ((out += sep, out += node_type_text<typename Ts::value_type>(typename Ts::dims{}), sep = ", "),
     ...);
    return out + ")";
  }
};

template <class G>
graph_listing list_graph(const G& g) {
  graph_listing l;
  // Inputs first, numbered by position, even when an output does not use them.
  [&]<class... Ins>(std::type_identity<std::tuple<Ins...>>) {
    (l.visit(Ins{}), ...);
  }(std::type_identity<typename G::input_nodes>{});
  std::apply([&](const auto&... out) { (l.visit(out), ...); }, g.output_node_values());
  return l;
}

}  // namespace detail

// The listing: one line per node, "%id = op<dims>(%operands) {attributes} : type [dims]", then
// "return %ids". A dim prints with its size ("feature=512") or its interval ("beam[1, 8]",
// "time[0, inf]").
template <class Fn, class Ins, class Outs>
std::ostream& operator<<(std::ostream& os, const graph<Fn, Ins, Outs>& g) {
  auto l = detail::list_graph(g);
  for (const auto& e : l.entries) {
    os << std::string(2 * e.depth, ' ');
    if (e.id != detail::graph_listing::no_id) os << '%' << e.id << " = ";
    os << e.op;
    if (!e.inputs.empty()) {
      const bool call = e.id != detail::graph_listing::no_id;
      os << (call ? "(" : " ");
      for (std::size_t k = 0; k < e.inputs.size(); ++k) os << (k ? ", %" : "%") << e.inputs[k];
      if (call) os << ')';
    }
    if (!e.attributes.empty()) os << " {" << e.attributes << '}';
    if (!e.type.empty()) os << " : " << e.type;
    os << '\n';
  }
  os << "return";
  std::apply(
      [&](const auto&... out) {
        const char* sep = " ";
        auto print = [&](std::size_t id) {
          os << sep << '%' << id;
          sep = ", ";
        };
        (print(l.visit(out)), ...);  // visited already: this finds each output's id
      },
      g.output_node_values());
  return os << '\n';
}

// Graphviz: one box per value labelled with its op and type, an edge per operand; the values
// a sub-graph yields have a dashed edge to the node that holds it.
template <class Fn, class Ins, class Outs>
std::string to_dot(const graph<Fn, Ins, Outs>& g) {
  const auto l = detail::list_graph(g);
  std::string out = "digraph dimgraph {\n  node [shape=box, fontname=\"monospace\"];\n";
  std::vector<std::size_t> holder;  // the region node of each open sub-graph depth
  for (const auto& e : l.entries) {
    if (e.id == detail::graph_listing::no_id) {
      if (e.op == "yield")
        for (std::size_t in : e.inputs)
          out += "  n" + std::to_string(in) + " -> n" + std::to_string(holder[e.depth - 2]) +
                 " [style=dashed];\n";
      continue;
    }
    holder.resize(e.depth + 1);
    holder[e.depth] = e.id;
    out += "  n" + std::to_string(e.id) + " [label=\"%" + std::to_string(e.id) + " " + e.op +
           (e.attributes.empty() ? "" : " {" + e.attributes + "}") + "\\n" + e.type + "\"];\n";
    for (std::size_t in : e.inputs)
      out += "  n" + std::to_string(in) + " -> n" + std::to_string(e.id) + ";\n";
  }
  return out + "}\n";
}

}  // namespace dimgraph
