// dimgraph::error and its subclasses: what run-time checks throw.
#pragma once

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

}  // namespace dimgraph
