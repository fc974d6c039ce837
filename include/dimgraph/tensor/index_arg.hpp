// dg::at<D>(i): a position along dim D, for element access and slicing by tag.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include "dimgraph/dim/describe.hpp"
#include "dimgraph/dim/tag.hpp"
#include "dimgraph/shape/error.hpp"

namespace dimgraph {

template <class D>
struct at_arg {
  std::size_t value;
};
template <dimension D>
constexpr at_arg<std::remove_cvref_t<D>> at(std::size_t i) {
  return {i};
}

namespace detail {
// Throws index_error unless i < n.
template <class D>
constexpr void check_index(const char* op, std::size_t i, std::size_t n) {
  if (i >= n)
    throw index_error(op, "index " + std::to_string(i) + " is out of range for dim '" +
                              describe<D>() + "' of extent " + std::to_string(n));
}
}  // namespace detail

}  // namespace dimgraph
