// Structural ops that copy: concat, merge_dims, pad, gather, one_hot against hand-written
// loops; round trips with split, split_dims and slice; every run-time error.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace dg = dimgraph;

namespace {
struct A : dg::dim<"a", 4> {};
struct B : dg::dim<"b", 3> {};
struct F : dg::dim<"f", 2> {};
struct T : dg::dim<"t"> {};
struct U : dg::dim<"u"> {};
struct Beam : dg::dim<"beam", dg::range{1, 8}> {};
struct V : dg::dim<"v", 10> {};
struct W : dg::dim<"w"> {};

template <class Ex, class Fn>
std::string message_of(Fn f) {
  try {
    f();
  } catch (const Ex& e) {
    return e.what();
  }
  return "no exception";
}

// Element i of the row-major data is base + i.
template <class X>
void fill(X& x, int base) {
  for (std::size_t i = 0; i < x.size(); ++i)
    x.data()[i] = static_cast<typename X::value_type>(base + static_cast<int>(i));
}
}  // namespace

TEST_CASE("concat: values equal the hand loop, the other operand's dims in another order") {
  dg::tensor<float, A, T> x(dg::extent<T>(3));
  dg::tensor<float, T, B> y(dg::extent<T>(3));  // along B, other dim T first
  fill(x, 0);
  fill(y, 100);
  auto z = dg::concat(dg::along<A>(x), dg::along<B>(y));
  static_assert(std::is_same_v<decltype(z), dg::tensor<float, decltype(A{} + B{}), T>>);
  REQUIRE(z.extent<T>() == 3);
  for (std::size_t t = 0; t < 3; ++t) {
    for (std::size_t i = 0; i < 4; ++i) CHECK(z(i, t) == x.data()[i * 3 + t]);
    for (std::size_t i = 0; i < 3; ++i) CHECK(z(4 + i, t) == y.data()[t * 3 + i]);
  }
}

TEST_CASE("concat: dynamic concatenated dims, three operands, lazy operands, promotion") {
  dg::tensor<float, T, F> x(dg::extent<T>(2));
  dg::tensor<float, U, F> y(dg::extent<U>(3));
  dg::tensor<double, T, F> w(dg::extent<T>(2));
  fill(x, 0);
  fill(y, 10);
  fill(w, 20);
  auto z = dg::concat(dg::along<T>(x * 2.0f), dg::along<U>(y), dg::along<T>(w));
  static_assert(std::is_same_v<decltype(z), dg::tensor<double, decltype(T{} + U{} + T{}), F>>);
  REQUIRE(z.extent<decltype(T{} + U{} + T{})>() == 7);
  for (std::size_t f = 0; f < 2; ++f) {
    for (std::size_t i = 0; i < 2; ++i) CHECK(z(i, f) == 2.0 * x.data()[i * 2 + f]);
    for (std::size_t i = 0; i < 3; ++i) CHECK(z(2 + i, f) == y.data()[i * 2 + f]);
    for (std::size_t i = 0; i < 2; ++i) CHECK(z(5 + i, f) == w.data()[i * 2 + f]);
  }
}

TEST_CASE("concat: split undoes it, and the same tag twice is 2 * a") {
  dg::tensor<float, T, F> x(dg::extent<T>(2));
  dg::tensor<float, F, B> y;
  fill(x, 0);
  fill(y, 50);
  auto z = dg::concat(dg::along<T>(x), dg::along<B>(y));
  auto [zx, zy] = dg::split<T, B>(z);
  CHECK(zx == x);
  CHECK(zy == y);
  dg::tensor<float, T, F> x2(dg::extent<T>(2));
  fill(x2, 7);
  auto twice = dg::concat(dg::along<T>(x), dg::along<T>(x2));
  static_assert(std::is_same_v<decltype(twice), dg::tensor<float, decltype(dg::c<2> * T{}), F>>);
  auto [first, second] = dg::split<T, T>(twice);
  CHECK(first == x);
  CHECK(second == x2);
}

TEST_CASE("concat: other dims and a tag concatenated with itself must agree") {
  dg::tensor<float, A, T> x(dg::extent<T>(2));
  dg::tensor<float, B, T> y(dg::extent<T>(3));
  CHECK(message_of<dg::shape_error>([&] { (void)dg::concat(dg::along<A>(x), dg::along<B>(y)); }) ==
        "dimgraph: concat: dim 't' has extent 2 in operand 1 and 3 in operand 2");
  dg::tensor<float, A, T> x3(dg::extent<T>(3));
  CHECK(message_of<dg::shape_error>([&] {
          (void)dg::concat(dg::along<A>(x3), dg::along<B>(y), dg::along<A>(x));
        }) == "dimgraph: concat: dim 't' has extent 3 in operand 1 and 2 in operand 3");
  dg::tensor<float, T, F> p(dg::extent<T>(2)), q(dg::extent<T>(5));
  CHECK(message_of<dg::shape_error>([&] { (void)dg::concat(dg::along<T>(p), dg::along<T>(q)); }) ==
        "dimgraph: concat: dim 't' has extent 2 in operand 1 and 5 in operand 2");
}

TEST_CASE("merge_dims: adjacent dims of a tensor merge as a view") {
  dg::tensor<float, F, A, B> x;
  fill(x, 0);
  auto m = dg::merge_dims<A, B>(x);
  static_assert(std::is_same_v<decltype(m), dg::tensor_view<float, F, decltype(A{} * B{})>>);
  CHECK(m.data() == x.data());
  for (std::size_t f = 0; f < 2; ++f)
    for (std::size_t i = 0; i < 4; ++i)
      for (std::size_t j = 0; j < 3; ++j) CHECK(m(f, i * 3 + j) == x(f, i, j));
  auto back = dg::split_dims<A, B>(m);
  static_assert(std::is_same_v<decltype(back), dg::tensor_view<float, F, A, B>>);
  CHECK(back == x);
}

TEST_CASE("merge_dims: otherwise a copy with a major") {
  dg::tensor<float, A, F, B> x;
  fill(x, 0);
  auto m = dg::merge_dims<B, A>(x);  // apart, and in the other order: at b's position
  static_assert(std::is_same_v<decltype(m), dg::tensor<float, F, decltype(B{} * A{})>>);
  for (std::size_t j = 0; j < 3; ++j)
    for (std::size_t i = 0; i < 4; ++i)
      for (std::size_t f = 0; f < 2; ++f) CHECK(m(f, j * 4 + i) == x.data()[(i * 2 + f) * 3 + j]);
  CHECK(dg::split_dims<B, A>(m) == x);
  // a view (strides known only at run time) and a lazy expression are copied too
  dg::tensor<float, T, U> y(dg::extent<T>(3), dg::extent<U>(2));
  fill(y, 1);
  auto mv = dg::merge_dims<T, U>(y.view());
  static_assert(dg::detail::is_tensor_v<decltype(mv)>);
  auto me = dg::merge_dims<U, T>(y * 2.0f);
  using tu = decltype(T{} * U{});
  static_assert(std::is_same_v<decltype(me), dg::tensor<float, decltype(U{} * T{})>>);
  REQUIRE(mv.extent<tu>() == 6);
  for (std::size_t t = 0; t < 3; ++t)
    for (std::size_t u = 0; u < 2; ++u) {
      CHECK(mv(t * 2 + u) == y(t, u));
      CHECK(me(u * 3 + t) == 2.0f * y(t, u));
    }
  CHECK(dg::split_dims<U, T>(me, dg::extent<T>(3)) == dg::eval(dg::permute<U, T>(y) * 2.0f));
}

TEST_CASE("pad: the padding holds the value and the middle the operand") {
  dg::tensor<float, A, F> x;
  fill(x, 1);
  auto p = dg::pad<A, 2, 1>(x, -1.0f);
  static_assert(
      std::is_same_v<decltype(p), dg::tensor<float, decltype(dg::c<2> + A{} + dg::c<1>), F>>);
  for (std::size_t i = 0; i < 7; ++i)
    for (std::size_t f = 0; f < 2; ++f)
      CHECK(p(i, f) == (i >= 2 && i < 6 ? x.data()[(i - 2) * 2 + f] : -1.0f));
  auto q = dg::pad<F, 0, 3>(x);  // inner dim, zeros by default
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t f = 0; f < 5; ++f) CHECK(q(i, f) == (f < 2 ? x.data()[i * 2 + f] : 0.0f));
}

TEST_CASE("pad: slicing the padding off gives the operand back, type and values") {
  dg::tensor<float, T, B> x(dg::extent<T>(3));
  fill(x, 5);
  auto p = dg::pad<T, 1, 2>(x, 9.0f);
  using padded = decltype(dg::c<1> + T{} + dg::c<2>);
  REQUIRE(p.extent<padded>() == 6);
  auto back = dg::slice<padded, 1, -2>(p);
  static_assert(std::is_same_v<decltype(back), dg::tensor_view<float, T, B>>);
  CHECK(back == x);
  auto q = dg::pad<B, 3, 0>(x);
  auto qb = dg::slice<dg::pad_dim_t<B, 3, 0>, 3>(q);
  static_assert(std::is_same_v<decltype(qb), dg::tensor_view<float, T, B>>);
  CHECK(qb == x);
  dg::tensor<int, Beam> e(dg::extent<Beam>(1));
  e.data()[0] = 4;
  auto pe = dg::pad<Beam, 1, 1>(e, 7);
  CHECK(pe(0) == 7);
  CHECK(pe(1) == 4);
  CHECK(pe(2) == 7);
}

TEST_CASE("gather: rows of the table by index, equal to the hand loop") {
  dg::tensor<float, V, F> table;
  fill(table, 0);
  dg::tensor<dg::index<V>, T, U> idx(dg::extent<T>(2), dg::extent<U>(3));
  const int picks[] = {4, 0, 9, 9, 2, 7};
  for (std::size_t i = 0; i < 6; ++i) idx.data()[i] = dg::index<V>(picks[i]);
  auto g = dg::gather(table, idx);
  static_assert(std::is_same_v<decltype(g), dg::tensor<float, T, U, F>>);
  for (std::size_t t = 0; t < 2; ++t)
    for (std::size_t u = 0; u < 3; ++u)
      for (std::size_t f = 0; f < 2; ++f)
        CHECK(g(t, u, f) == table.data()[static_cast<std::size_t>(picks[t * 3 + u]) * 2 + f]);
  // a table with v inside and indices as a view: the general path, same values
  dg::tensor<double, B, V, F> wide;
  fill(wide, 0);
  auto ti = dg::permute<U, T>(idx);
  auto h = dg::gather(wide, ti);
  static_assert(std::is_same_v<decltype(h), dg::tensor<double, U, T, B, F>>);
  for (std::size_t u = 0; u < 3; ++u)
    for (std::size_t t = 0; t < 2; ++t)
      for (std::size_t b = 0; b < 3; ++b)
        for (std::size_t f = 0; f < 2; ++f)
          CHECK(h(u, t, b, f) ==
                wide.data()[(b * 10 + static_cast<std::size_t>(picks[t * 3 + u])) * 2 + f]);
}

TEST_CASE("gather: an index out of range is an index_error before any work") {
  dg::tensor<float, V, F> table;
  dg::tensor<dg::index<V>, T> idx(dg::extent<T>(3));
  idx.data()[1] = dg::index<V>(10);
  CHECK(message_of<dg::index_error>([&] { (void)dg::gather(table, idx); }) ==
        "dimgraph: gather: index 10 is out of range for dim 'v' of extent 10");
  idx.data()[1] = dg::index<V>(-1);
  CHECK(message_of<dg::index_error>([&] { (void)dg::gather(table, idx); }) ==
        "dimgraph: gather: index -1 is out of range for dim 'v' of extent 10");
  dg::tensor<float, W, F> dyn(dg::extent<W>(3));
  dg::tensor<dg::index<W>, T> widx(dg::extent<T>(2));
  widx.data()[1] = dg::index<W>(3);
  CHECK(message_of<dg::index_error>([&] { (void)dg::gather(dyn, widx); }) ==
        "dimgraph: gather: index 3 is out of range for dim 'w' of extent 3");
}

TEST_CASE("one_hot: a 1 at each index, static or given class extent") {
  dg::tensor<dg::index<V>, T> idx(dg::extent<T>(3));
  const int picks[] = {3, 0, 9};
  for (std::size_t i = 0; i < 3; ++i) idx.data()[i] = dg::index<V>(picks[i]);
  auto h = dg::one_hot(idx);
  static_assert(std::is_same_v<decltype(h), dg::tensor<float, T, V>>);
  for (std::size_t t = 0; t < 3; ++t)
    for (std::size_t v = 0; v < 10; ++v)
      CHECK(h(t, v) == (static_cast<int>(v) == picks[t] ? 1.0f : 0.0f));
  dg::tensor<dg::index<W>, B, T> widx(dg::extent<T>(2));
  for (std::size_t i = 0; i < 6; ++i) widx.data()[i] = dg::index<W>(static_cast<int>(i % 4));
  auto hw = dg::one_hot<std::int32_t>(dg::permute<T, B>(widx), dg::extent<W>(4));
  static_assert(std::is_same_v<decltype(hw), dg::tensor<std::int32_t, T, B, W>>);
  for (std::size_t t = 0; t < 2; ++t)
    for (std::size_t b = 0; b < 3; ++b)
      for (std::size_t w = 0; w < 4; ++w) CHECK(hw(t, b, w) == (w == (b * 2 + t) % 4 ? 1 : 0));
}

TEST_CASE("one_hot: an index out of range or a class extent out of its interval") {
  dg::tensor<dg::index<V>, T> idx(dg::extent<T>(2));
  idx.data()[0] = dg::index<V>(12);
  CHECK(message_of<dg::index_error>([&] { (void)dg::one_hot(idx); }) ==
        "dimgraph: one_hot: index 12 is out of range for dim 'v' of extent 10");
  dg::tensor<dg::index<Beam>, T> bidx(dg::extent<T>(2));
  CHECK(message_of<dg::shape_error>([&] { (void)dg::one_hot(bidx, dg::extent<Beam>(9)); }) ==
        "dimgraph: one_hot: dim 'beam' cannot have extent 9: its size is [1, 8]");
  dg::tensor<dg::index<W>, T> widx(dg::extent<T>(2));
  widx.data()[1] = dg::index<W>(2);
  CHECK(message_of<dg::index_error>([&] { (void)dg::one_hot(widx, dg::extent<W>(2)); }) ==
        "dimgraph: one_hot: index 2 is out of range for dim 'w' of extent 2");
}
