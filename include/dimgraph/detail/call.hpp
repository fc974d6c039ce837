// Whether a callable takes some arguments, and what it returns, without <type_traits>'
// std::is_invocable/std::invoke_result: a mistake inside a user's body or branch is then
// reported through a few frames of our own, not through five of the standard library's.
// (Callables only: a pointer to member is not a body.)
#pragma once

#include <utility>

namespace dimgraph::detail {

template <class F, class... Args>
concept callable_with =
    requires(F&& f, Args&&... args) { static_cast<F&&>(f)(static_cast<Args&&>(args)...); };

template <class F, class... Args>
using call_result_t = decltype(std::declval<F>()(std::declval<Args>()...));

}  // namespace dimgraph::detail
