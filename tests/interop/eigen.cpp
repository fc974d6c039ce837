// dg::eigen: views and maps alias the same memory both ways; mismatches are errors.
#include <dimgraph.hpp>
#include <dimgraph/interop/eigen.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace dg = dimgraph;

namespace {
struct Row : dg::dim<"row", 2> {};
struct Col : dg::dim<"col", 3> {};
struct Time : dg::dim<"time"> {};
struct Depth : dg::dim<"depth", 2> {};
}  // namespace

TEST_CASE("eigen::view: a column-major matrix, written through the view, read through Eigen") {
  Eigen::MatrixXf m(2, 3);
  m << 1, 2, 3, 4, 5, 6;
  auto v = dg::eigen::view<Row, Col>(m);
  CHECK(v.stride<Row>() == 1);
  CHECK(v.stride<Col>() == 2);
  CHECK(v.to_vector() == std::vector<float>{1, 2, 3, 4, 5, 6});
  v.at(dg::at<Row>(1), dg::at<Col>(0)) = 40;
  CHECK(m(1, 0) == 40.0f);
  m(0, 2) = 30;
  CHECK(v(0, 2) == 30.0f);
}

TEST_CASE("eigen::view: row-major blocks, vectors and tensors, dynamic dims take Eigen's extent") {
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> big(4, 5);
  for (int i = 0; i < 20; ++i) big.data()[i] = i;
  auto block = dg::eigen::view<Time, Col>(big.block(1, 1, 2, 3));
  CHECK(block.extent<Time>() == 2);
  CHECK(block.to_vector() == std::vector<double>{6, 7, 8, 11, 12, 13});

  Eigen::VectorXi vec(3);
  vec << 7, 8, 9;
  auto vv = dg::eigen::view<Col>(vec);
  vv(1) = 80;
  CHECK(vec(1) == 80);

  Eigen::Tensor<float, 3> t(2, 2, 3);  // column-major
  t.setZero();
  auto tv = dg::eigen::view<Depth, Row, Col>(t);
  tv.at(dg::at<Depth>(1), dg::at<Row>(0), dg::at<Col>(2)) = 5;
  CHECK(t(1, 0, 2) == 5.0f);
  CHECK(tv.stride<Col>() == 4);
}

TEST_CASE("eigen::matrix_map and tensor_map: Eigen sees the tensor's memory") {
  dg::tensor<float, Row, Col> x{{1, 2, 3}, {4, 5, 6}};
  auto m = dg::eigen::matrix_map(x);
  CHECK(m.rows() == 2);
  CHECK(m(1, 2) == 6.0f);
  m(0, 1) = 20;
  CHECK(x(0, 1) == 20.0f);
  auto mt = dg::eigen::matrix_map(dg::permute<Col, Row>(x));  // strided: the transpose
  CHECK(mt(2, 1) == 6.0f);
  CHECK(mt(1, 0) == 20.0f);

  auto tm = dg::eigen::tensor_map(x);
  CHECK(tm(1, 0) == 4.0f);
  tm(1, 1) = 50;
  CHECK(x(1, 1) == 50.0f);
}

TEST_CASE("eigen: mismatched extents and layouts are shape_errors") {
  Eigen::MatrixXf m(3, 3);
  CHECK_THROWS_WITH_AS((dg::eigen::view<Row, Col>(m)),
                       "dimgraph: eigen::view: dim 'row' cannot have extent 3: its size is [2, 2]",
                       dg::shape_error);
  dg::tensor<float, Row, Col> x;
  CHECK_THROWS_AS((dg::eigen::tensor_map(dg::permute<Col, Row>(x))), dg::shape_error);
}
