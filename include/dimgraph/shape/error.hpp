// dimgraph::error and its subclasses: what run-time checks throw.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

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

  // Names the user's call the error happened in, before the message:
  // "dimgraph: <op>: <where>: <the message so far>", e.g. "dimgraph: scan: at iteration 3:
  // dimgraph: add: ...". The error keeps its class: catch it by reference, add the context
  // and rethrow it with `throw;`.
  void add_context(const std::string& op, const std::string& where) {
    message_ =
        std::make_shared<const std::string>("dimgraph: " + op + ": " + where + ": " + what());
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

}  // namespace dimgraph
