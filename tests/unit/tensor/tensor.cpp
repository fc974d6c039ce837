// tensor and tensor_view: construction, storage, access by position and tag, slices, permute, view.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dg = dimgraph;

namespace {
struct Time : dg::dim<"time"> {};
struct Feat : dg::dim<"feat", 3> {};
struct Beam : dg::dim<"beam", dg::range{1, 8}> {};
struct Rows : dg::dim<"rows", 4> {};
struct One : dg::dim<"one", 1> {};
struct Empty : dg::dim<"empty", 0> {};

template <class E>
std::string message_of(auto f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "no exception";
}

bool aligned64(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 64 == 0;
}

// p lies inside the bytes of the object o.
template <class O>
bool inside(const void* p, const O& o) {
  auto b = reinterpret_cast<std::uintptr_t>(&o), a = reinterpret_cast<std::uintptr_t>(p);
  return b <= a && a < b + sizeof(O);
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE("tensor: static, interval and dynamic dims, extents by tag in any order") {
  dg::tensor<float, Time, Feat> a(dg::extent<Time>(5));
  CHECK(a.extent<Time>() == 5);
  CHECK(a.extent<Feat>() == 3);
  CHECK(a.size() == 15);
  static_assert(decltype(a)::rank == 2);

  dg::tensor<float, Beam, Time, Feat> b(dg::extent<Time>(2), dg::extent<Beam>(4));
  dg::tensor<float, Beam, Time, Feat> c(dg::extent<Beam>(4), dg::extent<Time>(2));
  CHECK(b.extent<Beam>() == 4);
  CHECK(b.extent<Time>() == 2);
  CHECK(c.extent<Beam>() == 4);
  CHECK(c.extent<Time>() == 2);
  CHECK(b.size() == 24);
  // A static dim may be given too when it matches.
  dg::tensor<float, Time, Feat> d(dg::extent<Feat>(3), dg::extent<Time>(1));
  CHECK(d.size() == 3);
  // From a shape.
  dg::tensor<float, Time, Feat> e(dg::shape<Time, Feat>(dg::extent<Time>(7)));
  CHECK(e.extent<Time>() == 7);
  // A static tensor needs no extents; a dynamic one cannot be default-constructed.
  dg::tensor<float, Rows, Feat> s;
  CHECK(s.size() == 12);
  static_assert(std::is_default_constructible_v<dg::tensor<float, Rows, Feat>>);
  static_assert(!std::is_default_constructible_v<dg::tensor<float, Time, Feat>>);
  static_assert(!std::is_default_constructible_v<dg::tensor<float, Beam>>);
}

TEST_CASE("tensor: row-major strides, the last dim contiguous") {
  dg::tensor<int, Beam, Time, Feat> x(dg::extent<Beam>(2), dg::extent<Time>(5));
  CHECK(x.stride<Feat>() == 1);
  CHECK(x.stride<Time>() == 3);
  CHECK(x.stride<Beam>() == 15);
  x(1, 2, 0) = 7;
  CHECK(x.data()[1 * 15 + 2 * 3 + 0] == 7);
}

TEST_CASE("tensor: an extent outside the dim's interval is a shape_error naming op, dim, extent") {
  using T = dg::tensor<float, Beam, Feat>;
  auto too_big = message_of<dg::shape_error>([] { T x(dg::extent<Beam>(9)); });
  CHECK(contains(too_big, "dimgraph: tensor: "));
  CHECK(contains(too_big, "'beam'"));
  CHECK(contains(too_big, "extent 9"));
  auto zero = message_of<dg::shape_error>([] { T x(dg::extent<Beam>(0)); });
  CHECK(contains(zero, "dimgraph: tensor: "));
  CHECK(contains(zero, "extent 0"));
  auto wrong_static =
      message_of<dg::shape_error>([] { T x(dg::extent<Beam>(2), dg::extent<Feat>(4)); });
  CHECK(contains(wrong_static, "'feat'"));
  CHECK(contains(wrong_static, "extent 4"));
  // The bounds themselves are fine.
  CHECK(T(dg::extent<Beam>(1)).size() == 3);
  CHECK(T(dg::extent<Beam>(8)).size() == 24);
  CHECK_THROWS_AS(dg::shape<Beam>(dg::extent<Beam>(9)), dg::shape_error);
}

TEST_CASE("tensor: elements start value-initialised") {
  dg::tensor<double, Time, Feat> x(dg::extent<Time>(1000));
  std::size_t nonzero = 0;
  for (std::size_t i = 0; i < x.size(); ++i) nonzero += x.data()[i] != 0.0;
  CHECK(nonzero == 0);
  dg::tensor<std::int64_t, Rows, Feat> s;
  for (std::size_t i = 0; i < 12; ++i) CHECK(s.data()[i] == 0);
  dg::tensor<dg::index<Feat>, Time> ix(dg::extent<Time>(4));
  for (std::size_t i = 0; i < 4; ++i) CHECK(ix(i).value() == 0);
  dg::tensor<bool, Time> flags(dg::extent<Time>(3));
  CHECK((!flags(0) && !flags(1) && !flags(2)));
}

TEST_CASE("tensor: all-static tensors keep their data inline, 64-byte aligned") {
  using S = dg::tensor<float, Rows, Feat>;
  static_assert(sizeof(S) >= 12 * sizeof(float));
  static_assert(alignof(S) == 64);
  S s;
  CHECK(inside(s.data(), s));
  CHECK(inside(s.data() + 11, s));
  CHECK(aligned64(s.data()));
  // On the heap too (aligned new).
  auto h = std::make_unique<S>();
  CHECK(inside(h->data(), *h));
  CHECK(aligned64(h->data()));
  std::vector<S> many(3);
  for (const auto& m : many) CHECK(aligned64(m.data()));
  // A rank-0 tensor is one inline element.
  dg::tensor<double> r;
  CHECK(inside(r.data(), r));
  CHECK(r.size() == 1);
}

TEST_CASE("tensor: other tensors allocate, 64-byte aligned") {
  dg::tensor<float, Time, Feat> x(dg::extent<Time>(3));
  CHECK(!inside(x.data(), x));
  CHECK(aligned64(x.data()));
  dg::tensor<std::int8_t, Beam> y(dg::extent<Beam>(5));
  CHECK(aligned64(y.data()));
  dg::tensor<double, Time> z(dg::extent<Time>(1));
  CHECK(aligned64(z.data()));
}

TEST_CASE("tensor: access by position and by tag reach the same element") {
  dg::tensor<int, Time, Feat> x(dg::extent<Time>(4));
  for (std::size_t t = 0; t < 4; ++t)
    for (std::size_t f = 0; f < 3; ++f) x(t, f) = static_cast<int>(10 * t + f);
  CHECK(x.at(dg::at<Time>(2), dg::at<Feat>(1)) == 21);
  CHECK(x.at(dg::at<Feat>(1), dg::at<Time>(2)) == 21);
  CHECK(x.at(dg::at<Time>(3), dg::at<Feat>(2)) == 32);
  x.at(dg::at<Feat>(0), dg::at<Time>(1)) = -5;
  CHECK(x(1, 0) == -5);
  CHECK(x.data()[3] == -5);
  const auto& cx = x;
  static_assert(std::is_same_v<decltype(cx.at(dg::at<Time>(0), dg::at<Feat>(0))), const int&>);
  CHECK(cx(0, 2) == 2);
}

TEST_CASE("tensor: an out-of-range index is an index_error naming the dim and its extent") {
  dg::tensor<int, Time, Feat> x(dg::extent<Time>(4));
  auto time = message_of<dg::index_error>([&] { (void)x.at(dg::at<Time>(4), dg::at<Feat>(0)); });
  CHECK(contains(time, "dimgraph: at: "));
  CHECK(contains(time, "index 4"));
  CHECK(contains(time, "'time'"));
  CHECK(contains(time, "extent 4"));
  auto feat = message_of<dg::index_error>([&] { (void)x.at(dg::at<Time>(0), dg::at<Feat>(3)); });
  CHECK(contains(feat, "'feat'"));
  CHECK(contains(feat, "extent 3"));
  CHECK_THROWS_AS(x[dg::at<Time>(4)], dg::index_error);
  CHECK_THROWS_AS(x[dg::at<Feat>(7)], dg::index_error);
  CHECK_NOTHROW((void)x.at(dg::at<Time>(3), dg::at<Feat>(2)));
}

TEST_CASE("tensor: x[at<D>(i)] is a view without D over the same memory") {
  dg::tensor<int, Time, Feat> x(dg::extent<Time>(4));
  for (std::size_t i = 0; i < 12; ++i) x.data()[i] = static_cast<int>(i);
  auto row = x[dg::at<Time>(2)];
  static_assert(std::is_same_v<decltype(row), dg::tensor_view<int, Feat>>);
  CHECK(row.data() == x.data() + 6);
  CHECK(row(0) == 6);
  CHECK(row(2) == 8);
  row(1) = 100;
  CHECK(x(2, 1) == 100);

  auto col = x[dg::at<Feat>(1)];
  static_assert(std::is_same_v<decltype(col), dg::tensor_view<int, Time>>);
  CHECK(col.extent<Time>() == 4);
  CHECK(col.stride<Time>() == 3);
  CHECK(col(0) == 1);
  CHECK(col(3) == 10);
  col(0) = -1;
  CHECK(x.data()[1] == -1);

  // Down to rank 0.
  auto one = x[dg::at<Time>(3)][dg::at<Feat>(2)];
  static_assert(std::is_same_v<decltype(one), dg::tensor_view<int>>);
  CHECK(one() == 11);
  one() = 99;
  CHECK(x(3, 2) == 99);
  CHECK(one.at() == 99);

  // From a const tensor: a const view.
  const auto& cx = x;
  static_assert(std::is_same_v<decltype(cx[dg::at<Time>(0)]), dg::tensor_view<const int, Feat>>);
}

TEST_CASE("permute: a view with the dims in another order") {
  dg::tensor<int, Time, Feat> x(dg::extent<Time>(2));
  for (std::size_t i = 0; i < 6; ++i) x.data()[i] = static_cast<int>(i);
  auto p = dg::permute<Feat, Time>(x);
  static_assert(std::is_same_v<decltype(p), dg::tensor_view<int, Feat, Time>>);
  CHECK(p.data() == x.data());
  CHECK(p.extent<Time>() == 2);
  CHECK(p.stride<Feat>() == 1);
  CHECK(p.stride<Time>() == 3);
  for (std::size_t t = 0; t < 2; ++t)
    for (std::size_t f = 0; f < 3; ++f) CHECK(p(f, t) == static_cast<int>(3 * t + f));
  p(2, 1) = 50;
  CHECK(x(1, 2) == 50);
  // By tag it is the same element whatever the order.
  CHECK(p.at(dg::at<Time>(1), dg::at<Feat>(2)) == x.at(dg::at<Time>(1), dg::at<Feat>(2)));
  // Permuting a view, and back to the original order.
  auto back = dg::permute<Time, Feat>(p);
  CHECK(back.stride<Time>() == 3);
  CHECK(back(1, 2) == 50);
  // From a const tensor: const elements.
  const auto& cx = x;
  static_assert(std::is_same_v<decltype(dg::permute<Feat, Time>(cx)),
                               dg::tensor_view<const int, Feat, Time>>);
  // Slicing a permuted view.
  auto f2 = p[dg::at<Feat>(2)];
  CHECK(f2(0) == 2);
  CHECK(f2(1) == 50);
}

TEST_CASE("view: a row-major view over external memory") {
  std::vector<float> buffer(12);
  for (std::size_t i = 0; i < 12; ++i) buffer[i] = static_cast<float>(i);
  auto v = dg::view<float, Time, Feat>(buffer.data(), dg::extent<Time>(4));
  static_assert(std::is_same_v<decltype(v), dg::tensor_view<float, Time, Feat>>);
  CHECK(v.data() == buffer.data());
  CHECK(v(3, 1) == 10.0f);
  CHECK(v.at(dg::at<Feat>(2), dg::at<Time>(0)) == 2.0f);
  v(0, 0) = -1.0f;
  CHECK(buffer[0] == -1.0f);

  const std::vector<float>& cbuffer = buffer;
  auto cv = dg::view<const float, Feat, Time>(cbuffer.data(), dg::extent<Time>(4));
  CHECK(cv.stride<Feat>() == 4);
  CHECK(cv(1, 2) == 6.0f);  // position 1 * 4 + 2

  // A static view needs no extents.
  auto s = dg::view<float, Rows, Feat>(buffer.data());
  CHECK(s(3, 2) == 11.0f);

  auto bad = message_of<dg::shape_error>(
      [&] { (void)dg::view<float, Beam>(buffer.data(), dg::extent<Beam>(12)); });
  CHECK(contains(bad, "dimgraph: view: "));
  CHECK(contains(bad, "'beam'"));
  CHECK(contains(bad, "extent 12"));
}

TEST_CASE("tensor: a copy is deep, a move takes the memory") {
  dg::tensor<int, Time, Feat> x(dg::extent<Time>(2));
  for (std::size_t i = 0; i < 6; ++i) x.data()[i] = static_cast<int>(i + 1);
  dg::tensor<int, Time, Feat> y = x;
  CHECK(y.data() != x.data());
  CHECK(y.extent<Time>() == 2);
  for (std::size_t i = 0; i < 6; ++i) CHECK(y.data()[i] == static_cast<int>(i + 1));
  y(0, 0) = 100;
  CHECK(x(0, 0) == 1);

  dg::tensor<int, Time, Feat> z(dg::extent<Time>(5));
  z = x;  // copy-assign another extent
  CHECK(z.extent<Time>() == 2);
  CHECK(z.size() == 6);
  CHECK(z(1, 2) == 6);
  CHECK(z.stride<Time>() == 3);

  const int* memory = x.data();
  dg::tensor<int, Time, Feat> m = std::move(x);
  CHECK(m.data() == memory);
  CHECK(m(1, 1) == 5);
  dg::tensor<int, Time, Feat> n(dg::extent<Time>(1));
  n = std::move(m);
  CHECK(n.data() == memory);
  CHECK(n.extent<Time>() == 2);

  // Static tensors copy their inline elements.
  dg::tensor<int, Rows, Feat> s;
  s(3, 2) = 9;
  auto t = s;
  t(3, 2) = 1;
  CHECK(s(3, 2) == 9);
  CHECK(t(3, 2) == 1);
  CHECK(aligned64(t.data()));
}

TEST_CASE("tensor: zero-size extents and empty static dims") {
  dg::tensor<float, Time, Feat> x(dg::extent<Time>(0));
  CHECK(x.size() == 0);
  CHECK(x.extent<Time>() == 0);
  CHECK_THROWS_AS(x[dg::at<Time>(0)], dg::index_error);
  auto y = x;
  CHECK(y.size() == 0);
  dg::tensor<float, Empty, Feat> e;
  CHECK(e.size() == 0);
  CHECK(e.extent<Empty>() == 0);
  CHECK_THROWS_AS((void)e.at(dg::at<Empty>(0), dg::at<Feat>(0)), dg::index_error);
  auto v = e[dg::at<Feat>(2)];
  CHECK(v.size() == 0);
}

TEST_CASE("tensor: one-element tensors") {
  dg::tensor<double> r;
  static_assert(decltype(r)::rank == 0);
  CHECK(r() == 0.0);
  r() = 2.5;
  CHECK(r.at() == 2.5);
  CHECK(r.data()[0] == 2.5);
  auto rv = r.view();
  static_assert(std::is_same_v<decltype(rv), dg::tensor_view<double>>);
  CHECK(rv() == 2.5);

  dg::tensor<int, One> o;
  o(0) = 4;
  CHECK(o.size() == 1);
  CHECK(o.at(dg::at<One>(0)) == 4);
  CHECK_THROWS_AS((void)o.at(dg::at<One>(1)), dg::index_error);

  dg::tensor<int, Time, One> t(dg::extent<Time>(1));
  t(0, 0) = 8;
  CHECK(t.size() == 1);
  CHECK(t[dg::at<Time>(0)][dg::at<One>(0)]() == 8);
}

TEST_CASE("tensor: view() and the conversion to a const view alias the tensor") {
  dg::tensor<int, Time, Feat> x(dg::extent<Time>(2));
  auto v = x.view();
  static_assert(std::is_same_v<decltype(v), dg::tensor_view<int, Time, Feat>>);
  v(1, 1) = 3;
  CHECK(x(1, 1) == 3);
  dg::tensor_view<const int, Time, Feat> c = x;
  CHECK(c.data() == x.data());
  CHECK(c(1, 1) == 3);
  dg::tensor_view<const int, Time, Feat> from_view = v;
  CHECK(from_view.data() == x.data());
}

TEST_CASE("tensor: reshape changes dynamic extents and resets the elements") {
  dg::tensor<int, Time, Feat> x(dg::extent<Time>(2));
  x(1, 2) = 5;
  x.reshape(dg::shape<Time, Feat>(dg::extent<Time>(2)));
  CHECK(x(1, 2) == 5);  // same extents: kept
  x.reshape(dg::shape<Time, Feat>(dg::extent<Time>(4)));
  CHECK(x.size() == 12);
  CHECK(x.stride<Time>() == 3);
  CHECK(aligned64(x.data()));
  for (std::size_t i = 0; i < 12; ++i) CHECK(x.data()[i] == 0);
}
