// dimgraph::error and its subclasses: what run-time checks throw.
#pragma once

#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "dimgraph/config.hpp"

namespace dimgraph {

// Every run-time error of dimgraph. The message starts with "dimgraph: <op>: " and
// names the dims involved with their extents. Nothing is written to an output
// before the checks that can throw have passed.
class error : public std::runtime_error {
 public:
  error(const std::string& op, const std::string& what)
      : std::runtime_error("dimgraph: " + op + ": " + what) {}

  const char* what() const noexcept override {
    return message_ ? message_->c_str() : std::runtime_error::what();
  }

  // Names the user's call the error happened in, before the op that threw it: the message
  // "dimgraph: <the message so far>" becomes "dimgraph: <op>: <where>: <the message so far>"
  // (without "<where>: " when where is empty), so calls inside calls read in call order:
  // "dimgraph: scan: at iteration 3: nn::lstm_cell: add: dim 'batch' has extent 2 in operand 1
  // and 3 in operand 2". The error keeps its class: catch it by reference, add the context
  // and rethrow it with `throw;` (detail::in_call does).
  void add_context(std::string_view op, std::string_view where = {}) {
    constexpr std::string_view prefix = "dimgraph: ";
    std::string_view so_far = what();
    if (so_far.starts_with(prefix)) so_far.remove_prefix(prefix.size());
    std::string m;
    m.reserve(prefix.size() + op.size() + where.size() + so_far.size() + 4);
    m.append(prefix).append(op).append(": ");
    if (!where.empty()) m.append(where).append(": ");
    m.append(so_far);
    message_ = std::make_shared<const std::string>(std::move(m));
  }

 private:
  std::shared_ptr<const std::string> message_;  // (shared: copying an exception never throws)
};

// Extents that do not fit: a mismatch, an extent outside a dim's interval, a split
// that does not divide.
class shape_error : public error {
 public:
  using error::error;
};

// An index outside [0, size) of its dim.
class index_error : public error {
 public:
  using error::error;
};

// An output that partially overlaps an input.
class overlap_error : public error {
 public:
  using error::error;
};

// A file that cannot be read or written, or whose contents do not fit what is loaded into
// (dimgraph/io/): the message names the file and, where there is one, the parameter with the
// file's shape and the expected one.
class io_error : public error {
 public:
  using error::error;
};

namespace detail {

// f() run as the user's call op (at where within it: a string, or a callable that makes one
// only when f throws): a dg::error f throws gets the call before its message (see
// error::add_context) and is rethrown with its class; other exceptions pass unchanged. Inlined
// into the caller; while nothing throws, none of it runs (the handler sits apart from the
// normal path).
template <class Where, class F>
DIMGRAPH_ALWAYS_INLINE inline decltype(auto) in_call(std::string_view op, const Where& where,
                                                     F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (error& e) {
    try {
      if constexpr (std::is_invocable_v<const Where&>) e.add_context(op, where());
      else e.add_context(op, where);
    } catch (const std::bad_alloc&) {
      // (No memory for the longer message: the error goes on with its own.)
    }
    throw;
  }
}
template <class F>
DIMGRAPH_ALWAYS_INLINE inline decltype(auto) in_call(std::string_view op, F&& f) {
  return in_call(op, std::string_view{}, std::forward<F>(f));
}

}  // namespace detail
}  // namespace dimgraph
