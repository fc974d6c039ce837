// Forward declarations of dimgraph's public types.
#pragma once

#include <cstddef>

namespace dimgraph {
struct interval;
enum class dim_kind;
struct dim_expr_base;
struct dim_tag_base;
struct batch;
template <std::size_t K>
struct const_dim;
template <class... Ds>
struct dim_list;
class error;
class shape_error;
class index_error;
class overlap_error;
}  // namespace dimgraph
