// detail::fixed_string: a string usable as a template argument (dim names).
#pragma once

#include <cstddef>
#include <string_view>

namespace dimgraph::detail {

template <std::size_t N>
struct fixed_string {
  char chars[N]{};  // includes the terminating NUL

  constexpr fixed_string(const char (&s)[N]) {  // NOLINT: implicit by design
    for (std::size_t i = 0; i < N; ++i) chars[i] = s[i];
  }
  constexpr std::string_view view() const { return {chars, N - 1}; }
  constexpr std::size_t size() const { return N - 1; }
};

}  // namespace dimgraph::detail
