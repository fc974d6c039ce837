// dg::torch: views of at::Tensor and at::Tensor over dimgraph memory alias the same memory;
// dtype, rank, extents and layouts that do not fit are errors.
#include <dimgraph.hpp>
#include <dimgraph/interop/torch.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

namespace dg = dimgraph;

namespace {
struct Row : dg::dim<"row", 2> {};
struct Col : dg::dim<"col", 3> {};
struct Time : dg::dim<"time"> {};
}  // namespace

TEST_CASE("torch::view: written through the view, read through LibTorch, and back") {
  at::Tensor t = at::zeros({2, 3}, at::kFloat);
  auto v = dg::torch::view<float, Time, Col>(t);
  CHECK(v.extent<Time>() == 2);
  v.at(dg::at<Time>(1), dg::at<Col>(2)) = 7;
  CHECK(t[1][2].item<float>() == 7.0f);
  t[0][1] = 3;
  CHECK(v(0, 1) == 3.0f);

  // A transposed (strided) tensor is viewed with its strides.
  at::Tensor tt = t.t();
  auto vt = dg::torch::view<float, Col, Row>(tt);
  CHECK(vt.to_vector() == std::vector<float>{0, 0, 3, 0, 0, 7});
}

TEST_CASE("torch::from: LibTorch sees the tensor's memory") {
  dg::tensor<std::int64_t, Row, Col> x{{1, 2, 3}, {4, 5, 6}};
  at::Tensor t = dg::torch::from(x);
  CHECK((t.scalar_type() == at::kLong));
  CHECK(t.size(0) == 2);
  CHECK(t.size(1) == 3);
  CHECK(t.stride(0) == 3);
  CHECK(t[1][0].item<std::int64_t>() == 4);
  t[0][0] = 10;
  CHECK(x(0, 0) == 10);
  at::Tensor p = dg::torch::from(dg::permute<Col, Row>(x));
  CHECK(p[2][1].item<std::int64_t>() == 6);
}

TEST_CASE("torch::view: dtype, device, rank, extents and layouts that do not fit throw") {
  at::Tensor d = at::zeros({2, 3}, at::kDouble);
  CHECK_THROWS_WITH_AS((dg::torch::view<float, Row, Col>(d)),
                       "dimgraph: torch::view: the tensor's dtype is Double, the view's element "
                       "type is Float",
                       dg::error);
  at::Tensor f = at::zeros({3, 2}, at::kFloat);
  CHECK_THROWS_WITH_AS((dg::torch::view<float, Row, Col>(f)),
                       "dimgraph: torch::view: dim 'row' cannot have extent 3: its size is [2, 2]",
                       dg::shape_error);
  CHECK_THROWS_WITH_AS((dg::torch::view<float, Row>(f)),
                       "dimgraph: torch::view: the tensor has 2 dimensions, the view 1 dims",
                       dg::shape_error);
  at::Tensor e = at::zeros({3}, at::kFloat).expand({2, 3});  // stride 0: rows share memory
  CHECK_THROWS_AS((dg::torch::view<float, Row, Col>(e)), dg::shape_error);
}
