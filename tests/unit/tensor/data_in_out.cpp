// Data in and out: tensors copied from spans, vectors, pointers and nested lists; views and
// strided views over caller-owned memory; to_vector; element access by tag.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace dg = dimgraph;

namespace {
struct Row : dg::dim<"row", 2> {};
struct Col : dg::dim<"col", 3> {};
struct Time : dg::dim<"time"> {};
struct Beam : dg::dim<"beam", dg::range{1, 4}> {};
struct Depth : dg::dim<"depth", 2> {};

template <class E>
std::string message_of(auto f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "no exception";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE("data in: a tensor copies a vector, a span or a pointer in row-major order") {
  const std::vector<float> v{1, 2, 3, 4, 5, 6, 7, 8, 9};
  dg::tensor<float, Time, Col> a(v, dg::extent<Time>(3));
  CHECK(a.extent<Time>() == 3);
  CHECK(a.at(dg::at<Time>(0), dg::at<Col>(2)) == 3.0f);
  CHECK(a.at(dg::at<Col>(0), dg::at<Time>(2)) == 7.0f);
  CHECK(a.data() != v.data());  // a copy

  const std::array<std::int16_t, 6> s{-1, 2, -3, 4, -5, 6};
  const std::span<const std::int16_t> sp(s);
  dg::tensor<std::int16_t, Row, Col> b(sp);
  CHECK(b(1, 0) == 4);
  CHECK(b.to_vector() == std::vector<std::int16_t>{-1, 2, -3, 4, -5, 6});

  const double raw[4] = {0.5, 1.5, 2.5, 3.5};
  dg::tensor<double, Beam> c(raw, dg::extent<Beam>(4));
  CHECK(c.to_vector() == std::vector<double>{0.5, 1.5, 2.5, 3.5});
}

TEST_CASE("data in: a span of another size is a shape_error naming the shape and both sizes") {
  const std::vector<float> v(7);
  const std::string m =
      message_of<dg::shape_error>([&] { dg::tensor<float, Time, Col> t(v, dg::extent<Time>(2)); });
  CHECK(m == "dimgraph: tensor: 7 elements are given for the shape [time[2], col=3] of 6 elements");
  // An extent outside its interval is checked before anything is read.
  const float four[4] = {1, 2, 3, 4};
  CHECK(message_of<dg::shape_error>([&] {
          dg::tensor<float, Beam> t(four, dg::extent<Beam>(5));
        }) == "dimgraph: tensor: dim 'beam' cannot have extent 5: its size is [1, 4]");
}

TEST_CASE("data in: nested initializer lists, one level per dim") {
  dg::tensor<float, Row, Col> t{{1, 2, 3}, {4, 5, 6.5}};
  CHECK(t.to_vector() == std::vector<float>{1, 2, 3, 4, 5, 6.5f});
  CHECK(t.at(dg::at<Row>(1), dg::at<Col>(2)) == 6.5f);

  dg::tensor<int, Col> r{7, 8, 9};
  CHECK(r.to_vector() == std::vector<int>{7, 8, 9});

  dg::tensor<std::uint8_t, Depth, Row, Col> d{{{1, 2, 3}, {4, 5, 6}}, {{7, 8, 9}, {10, 11, 12}}};
  CHECK(d(1, 0, 2) == 9);
  CHECK(d.at(dg::at<Depth>(1), dg::at<Row>(1), dg::at<Col>(0)) == 10);

  dg::tensor<bool, Row, Col> b{{true, false, true}, {false, false, true}};
  CHECK(b.to_vector() == std::vector<bool>{true, false, true, false, false, true});
}

TEST_CASE("data in: a list of the wrong length along an outer dim is a shape_error") {
  using rows3 = dg::tensor<float, Row, Col>;
  CHECK(message_of<dg::shape_error>([] {
          rows3 t{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
        }) ==
        "dimgraph: tensor: the initializer list has 3 entries along dim 'row' of size 2 (shape "
        "[row=2, col=3])");
  CHECK(message_of<dg::shape_error>([] {
          dg::tensor<int, Col> t{1, 2};
        }) ==
        "dimgraph: tensor: the initializer list has 2 entries along dim 'col' of size 3 (shape "
        "[col=3])");
  CHECK(message_of<dg::shape_error>([] {
          dg::tensor<int, Depth, Row, Col> t{{{1, 2, 3}, {4, 5, 6}}, {{7, 8, 9}}};
        }) ==
        "dimgraph: tensor: the initializer list has 1 entries along dim 'row' of size 2 "
        "(shape [depth=2, row=2, col=3])");
  // Innermost lists of another length do not compile (tests/fail/tensor_init_row_length.cpp).
}

TEST_CASE(
    "data in: rows longer than 64 elements are plain lists, their length checked at run time") {
  struct Two : dg::dim<"two", 2> {};
  struct Wide : dg::dim<"wide", 65> {};
  std::initializer_list<float> row0 = {
      0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
      22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
      44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64};
  const dg::tensor<float, Two, Wide> t{row0, row0};
  CHECK(t(0, 0) == 0.0f);
  CHECK(t(1, 64) == 64.0f);
  CHECK(message_of<dg::shape_error>([] {
          dg::tensor<float, Two, Wide> u{{1, 2, 3}, {4, 5, 6}};
        }) ==
        "dimgraph: tensor: the initializer list has 3 entries along dim 'wide' of size 65 (shape "
        "[two=2, wide=65])");
}

TEST_CASE("data out: to_vector follows the listed dims, whatever the strides") {
  dg::tensor<int, Row, Col> t{{1, 2, 3}, {4, 5, 6}};
  CHECK(dg::permute<Col, Row>(t).to_vector() == std::vector<int>{1, 4, 2, 5, 3, 6});
  CHECK(t[dg::at<Row>(1)].to_vector() == std::vector<int>{4, 5, 6});
  CHECK(t[dg::at<Col>(1)].to_vector() == std::vector<int>{2, 5});
  dg::tensor<float, Time, Col> empty(dg::extent<Time>(0));
  CHECK(empty.to_vector().empty());
}

TEST_CASE("view: over a pointer or a range, element type deduced, no copy") {
  std::vector<float> buf{1, 2, 3, 4, 5, 6};
  auto v = dg::view<Time, Col>(buf.data(), dg::extent<Time>(2));
  static_assert(std::is_same_v<decltype(v), dg::tensor_view<float, Time, Col>>);
  v.at(dg::at<Time>(1), dg::at<Col>(0)) = 40;
  CHECK(buf[3] == 40.0f);

  const std::vector<float>& cbuf = buf;
  auto w = dg::view<Row, Col>(cbuf);
  static_assert(std::is_same_v<decltype(w), dg::tensor_view<const float, Row, Col>>);
  CHECK(w.data() == buf.data());
  CHECK(w.to_vector() == std::vector<float>{1, 2, 3, 40, 5, 6});

  auto e = dg::view<float, Row, Col>(buf.data());  // the explicit element type still works
  CHECK(e(0, 1) == 2.0f);

  CHECK(message_of<dg::shape_error>([&] { (void)dg::view<Time, Col>(buf, dg::extent<Time>(3)); }) ==
        "dimgraph: view: 6 elements are given for the shape [time[3], col=3] of 9 elements");
}

TEST_CASE("strided_view: strides in elements, by tag") {
  // A 2 x 3 window of a 4 x 5 row-major buffer, starting at (1, 1).
  std::vector<int> buf(20);
  for (int i = 0; i < 20; ++i) buf[static_cast<std::size_t>(i)] = i;
  auto win = dg::strided_view<Row, Col>(buf.data() + 6, dg::stride<Col>(1), dg::stride<Row>(5));
  CHECK(win.to_vector() == std::vector<int>{6, 7, 8, 11, 12, 13});
  CHECK(win.stride<Row>() == 5);

  // Column-major memory seen as [Time, Col].
  const std::vector<int> colmajor{1, 4, 2, 5, 3, 6};
  auto cm = dg::strided_view<Time, Col>(colmajor, dg::extent<Time>(2), dg::stride<Time>(1),
                                        dg::stride<Col>(2));
  CHECK(cm.to_vector() == std::vector<int>{1, 2, 3, 4, 5, 6});

  // Reversed rows, permitted explicitly.
  auto rev = dg::strided_view<Row, Col>(buf.data() + 5, dg::stride<Row>(-5), dg::stride<Col>(1),
                                        dg::allow_negative_strides);
  CHECK(rev.to_vector() == std::vector<int>{5, 6, 7, 0, 1, 2});

  // Overlapping rows (a sliding window), permitted explicitly.
  auto slide = dg::strided_view<Time, Col>(buf.data(), dg::extent<Time>(3), dg::stride<Time>(1),
                                           dg::stride<Col>(1), dg::allow_overlap);
  CHECK(slide.to_vector() == std::vector<int>{0, 1, 2, 1, 2, 3, 2, 3, 4});
}

TEST_CASE("strided_view: negative, overlapping and out-of-range layouts are shape_errors") {
  std::vector<int> buf(20);
  CHECK(message_of<dg::shape_error>([&] {
          (void)dg::strided_view<Row, Col>(buf.data() + 5, dg::stride<Row>(-5), dg::stride<Col>(1));
        }) ==
        "dimgraph: strided_view: dim 'row' has the negative stride -5 ([row=2, col=3] with "
        "strides [-5, 1]); pass dg::allow_negative_strides to permit it");
  CHECK(message_of<dg::shape_error>([&] {
          (void)dg::strided_view<Row, Col>(buf.data(), dg::stride<Row>(2), dg::stride<Col>(1));
        }) ==
        "dimgraph: strided_view: dim 'row' (stride 2) overlaps dim 'col': elements at "
        "different positions would share memory ([row=2, col=3] with strides [2, 1]); pass "
        "dg::allow_overlap to permit it");
  CHECK(message_of<dg::shape_error>([&] {
          (void)dg::strided_view<Row, Col>(buf.data(), dg::stride<Row>(0), dg::stride<Col>(1));
        }) ==
        "dimgraph: strided_view: dim 'row' (stride 0) steps by 0: elements at different "
        "positions would share memory ([row=2, col=3] with strides [0, 1]); pass "
        "dg::allow_overlap to permit it");
  CHECK(message_of<dg::shape_error>([&] {
          (void)dg::strided_view<Row, Col>(buf, dg::stride<Row>(10), dg::stride<Col>(3));
        }) == "no exception");  // reaches offsets 0 to 16 of 20
  CHECK(message_of<dg::shape_error>([&] {
          (void)dg::strided_view<Row, Col>(buf, dg::stride<Row>(11), dg::stride<Col>(5));
        }) ==
        "dimgraph: strided_view: [row=2, col=3] with strides [11, 5] reaches offsets 0 to "
        "21 of a range of 20 elements");
  // Offsets that overflow are caught before any address is computed.
  constexpr auto big = std::numeric_limits<std::ptrdiff_t>::max() / 2;
  const std::string m = message_of<dg::shape_error>([&] {
    (void)dg::strided_view<Time, Col>(buf.data(), dg::extent<Time>(3), dg::stride<Time>(big),
                                      dg::stride<Col>(1));
  });
  CHECK(contains(m, "dimgraph: strided_view: the offsets of [time[3], col=3] with strides ["));
  CHECK(contains(m, "do not fit a std::ptrdiff_t"));
  // An empty view reaches nothing, whatever its strides.
  auto none = dg::strided_view<Time, Col>(buf.data(), dg::extent<Time>(0), dg::stride<Time>(0),
                                          dg::stride<Col>(0));
  CHECK(none.size() == 0);
}

TEST_CASE("element access by tag: at() in any order, checked, operator() by position") {
  dg::tensor<int, Row, Col> t{{1, 2, 3}, {4, 5, 6}};
  CHECK(t.at(dg::at<Col>(2), dg::at<Row>(0)) == 3);
  t.at(dg::at<Row>(1), dg::at<Col>(1)) = 50;
  CHECK(t(1, 1) == 50);
  CHECK(message_of<dg::index_error>([&] { (void)t.at(dg::at<Row>(2), dg::at<Col>(0)); }) ==
        "dimgraph: at: index 2 is out of range for dim 'row' of extent 2");
}
