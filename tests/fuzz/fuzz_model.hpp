// The model the file-format fuzzers load into: every element kind, static, interval and
// dynamic dims, nested structs and an array.
#pragma once

#include <dimgraph.hpp>

#include <boost/hana/define_struct.hpp>

#include <array>
#include <cstdint>

namespace fuzz_model {
namespace dg = dimgraph;
struct Two : dg::dim<"two", 2> {};
struct Pair : dg::dim<"pair", 2> {};
struct Span : dg::dim<"span", dg::range{1, 16}> {};
struct Free : dg::dim<"free"> {};
struct Vocab : dg::dim<"vocab", 5> {};

struct Cell {
  BOOST_HANA_DEFINE_STRUCT(Cell, (dg::tensor<float, Pair, Two>, w), (dg::tensor<bool, Two>, mask));
};
struct Model {
  dg::tensor<double, Span> scale{dg::extent<Span>(1)};
  dg::tensor<std::int64_t, Free, Two> table{dg::extent<Free>(0)};
  dg::tensor<dg::index<Vocab>, Two> ids;
  std::array<Cell, 2> cells;
};
}  // namespace fuzz_model
BOOST_HANA_ADAPT_STRUCT(fuzz_model::Model, scale, table, ids, cells);
