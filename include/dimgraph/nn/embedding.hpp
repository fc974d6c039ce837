// dg::nn::embedding: the rows of a table picked by a tensor of dg::index<Vocab> (token ids).
#pragma once

#include <cstddef>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/graph/ops.hpp"
#include "dimgraph/nn/cell_dims.hpp"
#include "dimgraph/nn/parameter_struct.hpp"
#include "dimgraph/ops/index.hpp"

namespace dimgraph::nn {
namespace detail {

// Why embedding rejects its operands (checked in this order: one message per mistake).
enum class embedding_check { ok, not_index, table_rank, no_vocab_dim, idx_has_embed_dim };

template <class Idx, class Table>
constexpr embedding_check check_embedding() {
  if constexpr (!is_index_v<value_of_t<Idx>>) {
    return embedding_check::not_index;
  } else {
    using vocab = index_dim_t<value_of_t<Idx>>;
    if (dims_of_t<Table>::size != 2) return embedding_check::table_rank;
    if (!list_contains_v<dims_of_t<Table>, vocab>) return embedding_check::no_vocab_dim;
    using embed = list_difference_t<dims_of_t<Table>, dim_list<vocab>>;
    if (list_intersection_t<dims_of_t<Idx>, embed>::size != 0)
      return embedding_check::idx_has_embed_dim;
    return embedding_check::ok;
  }
}

template <embedding_check Check, class Idx, class Table>
void report_embedding() {
  using idx = dimgraph::detail::operand_role_t<"idx", Idx>;
  using table = dimgraph::detail::operand_role_t<"table", Table>;
  DIMGRAPH_REQUIRE(Check != embedding_check::not_index,
                   "dimgraph: nn::embedding: the indices must be a tensor of dg::index<Vocab> "
                   "(token ids that carry their vocabulary dim), not of floats or plain integers",
                   idx, value_of_t<Idx>, table);
  DIMGRAPH_REQUIRE(Check != embedding_check::table_rank,
                   "dimgraph: nn::embedding: the table must have exactly two dims [vocab, embed]",
                   value_of_t<Idx>, table);
  DIMGRAPH_REQUIRE(Check != embedding_check::no_vocab_dim,
                   "dimgraph: nn::embedding: the table has no dim for the indices' vocabulary dim",
                   value_of_t<Idx>, table);
  DIMGRAPH_REQUIRE(Check != embedding_check::idx_has_embed_dim,
                   "dimgraph: nn::embedding: the indices already have the table's embedding dim",
                   idx, table);
}

// The number of a parameter struct's operand members (Members: their roles).
template <class Idx, class... Members>
void report_embedding_members(dimgraph::detail::type_list<Members...>) {
  DIMGRAPH_REQUIRE(sizeof...(Members) == 1,
                   "dimgraph: nn::embedding: a parameter struct must hold the table (its one "
                   "tensor member)",
                   dimgraph::detail::operand_role_t<"idx", Idx>, Members...);
}

}  // namespace detail

// embedding(idx, table): row idx[..] of table for every index, as torch.nn.Embedding with
// table its weight [num_embeddings, embedding_dim] = [vocab, embed] (either dim order):
//   embedding([is...] of dg::index<vocab>, [vocab, embed]) -> [is..., embed]
// Evaluated now (a tensor; a symbol when traced). Errors (compile time): idx's elements are not
// dg::index<D>; the table has not two dims, or none of them is the indices' vocabulary dim;
// idx has the embedding dim. Error (run time): an index outside [0, extent of vocab)
// (index_error from gather naming the dim, the index and the extent, after the layer's name:
// "dimgraph: nn::embedding: gather: index 7 ..."), before anything is written.
template <layer_operand Idx, layer_operand Table>
auto embedding(const Idx& idx, const Table& table) {
  if constexpr (dimgraph::detail::any_poisoned<Idx, Table>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::embedding_check check = detail::check_embedding<Idx, Table>();
    detail::report_embedding<check, Idx, Table>();
    if constexpr (check == detail::embedding_check::ok) {
      return dimgraph::detail::in_call("nn::embedding",
                                       [&] { return dimgraph::gather(table, idx); });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}

// embedding(idx, p) with the table as one struct (see parameter_struct): p's one operand
// member is the table (torch.nn.Embedding's weight). Error (compile time): p has not one
// operand member.
template <layer_operand Idx, parameter_struct P>
auto embedding(const Idx& idx, const P& p) {
  constexpr std::size_t n = detail::operand_member_count_v<P>;
  detail::report_embedding_members<Idx>(detail::member_roles_t<P>{});
  if constexpr (n == 1) {
    return detail::call_with_members(
        p, [](const auto&... a) { return nn::embedding(a...); }, idx);
  } else {
    return dimgraph::detail::invalid_expr{};
  }
}

}  // namespace dimgraph::nn
