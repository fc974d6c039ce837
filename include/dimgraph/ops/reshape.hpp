// Views that re-describe a tensor's dims: rename, split, split_dims, and merge_dims (a view
// where the layout allows, else a copy), one family; and permute after a reported mistake.
#pragma once

#include "dimgraph/ops/merge_dims.hpp"
#include "dimgraph/ops/rename.hpp"
#include "dimgraph/ops/split.hpp"
#include "dimgraph/ops/view.hpp"

namespace dimgraph {

// permute (tensor/tensor.hpp) after a reported mistake: nothing more to say.
template <class... Ps, detail::poisoned X>
detail::invalid_expr permute(X&&) {
  return {};
}

}  // namespace dimgraph
