// What the multi-head attention tests share: their dims, one block's packed weights with
// accessors for the double-precision reference, and the comparison of a result with it.
#pragma once

#include <dimgraph.hpp>

#include "reference_attention.hpp"

#include <doctest/doctest.h>

#include <cstddef>

namespace attention_fixture {

struct Model : dimgraph::dim<"model", 8> {};
struct Inner : dimgraph::dim<"inner", 8> {};
struct Time : dimgraph::dim<"time"> {};
struct Source : dimgraph::dim<"source"> {};
struct KModel : dimgraph::dim<"kmodel", 5> {};
struct VModel : dimgraph::dim<"vmodel", 3> {};
struct Heads1 : dimgraph::dim<"heads", 1> {};
struct Heads2 : dimgraph::dim<"heads", 2> {};
struct Heads4 : dimgraph::dim<"heads", 4> {};
using Batch = dimgraph::batch;
using Inner3 = decltype(dimgraph::c<3> * Inner{});

inline constexpr auto no_masking = [](std::size_t, std::size_t, std::size_t, std::size_t) {
  return false;
};
inline constexpr auto nothing_added = [](std::size_t, std::size_t, std::size_t, std::size_t) {
  return 0.0;
};

// The packed weights of one attention block.
struct packed {
  dimgraph::nn::attention_parameters<float, Model, Inner> p;
  packed() {
    p.in_proj_weight = dimgraph::uniform<float, Inner3, Model>(1, -0.5f, 0.5f);
    p.in_proj_bias = dimgraph::uniform<float, Inner3>(2, -0.5f, 0.5f);
    p.out_proj.weight = dimgraph::uniform<float, Model, Inner>(3, -0.5f, 0.5f);
    p.out_proj.bias = dimgraph::uniform<float, Model>(4, -0.5f, 0.5f);
  }
  // Accessors of the three projections (thirds of the packed weight, torch's chunk(3)).
  auto w(std::size_t part) const {
    return [this, part](std::size_t i, std::size_t m) -> double {
      return p.in_proj_weight(part * 8 + i, m);
    };
  }
  auto b(std::size_t part) const {
    return [this, part](std::size_t i) -> double { return p.in_proj_bias(part * 8 + i); };
  }
  auto wo() const {
    return [this](std::size_t o, std::size_t i) -> double { return p.out_proj.weight(o, i); };
  }
  auto bo() const {
    return [this](std::size_t o) -> double { return p.out_proj.bias(o); };
  }
};

template <class X>
auto accessor(const X& x) {
  return [&x](std::size_t i, std::size_t j, std::size_t k) -> double { return x(i, j, k); };
}

template <class Y>
void check_near(const Y& y, const support::array3& want, std::size_t n0, std::size_t n1,
                std::size_t n2) {
  for (std::size_t i = 0; i < n0; ++i)
    for (std::size_t j = 0; j < n1; ++j)
      for (std::size_t k = 0; k < n2; ++k)
        CHECK(y(i, j, k) == doctest::Approx(want(i, j, k)).epsilon(1e-5));
}

}  // namespace attention_fixture
