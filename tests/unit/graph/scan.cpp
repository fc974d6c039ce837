// dg::scan: the port-map walk, stacked and last-value outputs, carries, invariants, unrolling.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <vector>

namespace dg = dimgraph;

namespace {

struct Time : dg::dim<"time"> {};
struct Other : dg::dim<"other"> {};
struct T40 : dg::dim<"t40", 40> {};
struct T8 : dg::dim<"t8", 8> {};
struct F : dg::dim<"f", 3> {};
struct One : dg::dim<"one", 1> {};

// x(t, f) of a [Time, F] tensor with extent n: seeded values.
dg::tensor<float, Time, F> sequence(std::size_t n, std::uint64_t seed) {
  return dg::uniform<float, Time, F>(seed, -1.0f, 1.0f, dg::extent<Time>(n));
}

}  // namespace

TEST_CASE("scan: a forward scan carries a running sum and emits every step") {
  const std::size_t n = 6;
  const auto x = sequence(n, 1);
  const auto h0 = dg::full<float, F>(0.5f);
  auto [ys, last] = dg::scan<Time>([](const auto& x_t, const auto& h) {
    return dg::step(dg::carry(h + x_t), dg::emit(h * x_t));
  })(dg::sliced<Time>(x), h0);
  static_assert(std::is_same_v<decltype(ys), dg::tensor<float, Time, F>>);
  static_assert(std::is_same_v<decltype(last), dg::tensor<float, F>>);
  REQUIRE(ys.extent<Time>() == n);
  for (std::size_t f = 0; f < 3; ++f) {
    float acc = 0.5f;
    for (std::size_t t = 0; t < n; ++t) {
      CHECK(ys(t, f) == doctest::Approx(acc * x(t, f)));
      acc += x(t, f);
    }
    CHECK(last(f) == doctest::Approx(acc));
  }
}

TEST_CASE(
    "scan: part_size 2 and stride 2 over a dim of 40 give 20 iterations to end 39 and 19 "
    "to end 38") {
  constexpr dg::slicing to39{.end = 39, .stride = 2, .part_size = 2};
  constexpr dg::slicing to38{.end = 38, .stride = 2, .part_size = 2};
  const auto x = dg::uniform<float, T40, F>(2, -1.0f, 1.0f);
  auto body = [](const auto& part, const auto& count) {
    return dg::step(dg::carry(count + 1), dg::emit(part));
  };
  const auto zero = dg::zeros<int, One>();
  auto [a, count_a] = dg::scan<T40>(body)(dg::sliced<T40, to39>(x), zero);
  auto [b, count_b] = dg::scan<T40>(body)(dg::sliced<T40, to38>(x), zero);
  CHECK(count_a(0) == 20);
  CHECK(count_b(0) == 19);
  using part = dg::part_dim<T40, 2>;
  static_assert(std::is_same_v<decltype(a), dg::tensor<float, dg::trip_dim<T40, to39>, part, F>>);
  static_assert(dg::static_size_v<dg::trip_dim<T40, to39>> == 20);
  static_assert(dg::static_size_v<dg::trip_dim<T40, to38>> == 19);
  for (std::size_t j = 0; j < 20; ++j)
    for (std::size_t p = 0; p < 2; ++p)
      for (std::size_t f = 0; f < 3; ++f) {
        CHECK(a(j, p, f) == x(2 * j + p, f));
        if (j < 19) CHECK(b(j, p, f) == x(2 * j + p, f));
      }

  // The same over a dynamic dim: the trip count is known at run time only.
  const auto y = sequence(40, 3);
  auto [c] = dg::scan<Time>([](const auto& pair) { return dg::step(dg::emit(pair)); })(
      dg::sliced<Time, to38>(y));
  CHECK(c.extent<dg::trip_dim<Time, to38>>() == 19);
  CHECK(c(18, 1, 2) == y(37, 2));
}

TEST_CASE("scan: a backward scan stacks S(N-1) ... S(0) back in original order") {
  const std::size_t n = 5;
  const auto x = sequence(n, 4);
  std::vector<std::size_t> visited;
  auto [ys, last] = dg::scan<Time>([&](const auto& x_t, const auto& h) {
    visited.push_back(visited.size());
    return dg::step(dg::carry(dg::eval(h + x_t)), dg::emit(h + x_t));
  })(dg::sliced<Time, dg::slicing{.start = -1, .end = 0, .stride = -1}>(x), dg::zeros<float, F>());
  static_assert(std::is_same_v<decltype(ys), dg::tensor<float, Time, F>>);
  CHECK(visited.size() == n);
  // Iteration i reads position n-1-i; S[i] = x[n-1] + ... + x[n-1-i] lands at slot n-1-i, so
  // position j holds the suffix sum x[j] + ... + x[n-1].
  for (std::size_t f = 0; f < 3; ++f) {
    float suffix = 0;
    for (std::size_t j = n; j-- > 0;) {
      suffix += x(j, f);
      CHECK(ys(j, f) == doctest::Approx(suffix));
    }
    CHECK(last(f) == doctest::Approx(suffix));  // the last iteration read position 0
  }
}

TEST_CASE("scan: a backward walk with stride -2 and part_size 2 places windows in original order") {
  const std::size_t n = 7;
  const auto x = sequence(n, 5);
  constexpr dg::slicing back{.start = -1, .end = 0, .stride = -2, .part_size = 2};
  std::vector<float> firsts;
  auto [ys] = dg::scan<Time>([&](const auto& part) {
    firsts.push_back(part(0, 0));
    return dg::step(dg::emit(part));
  })(dg::sliced<Time, back>(x));
  // Covered [0, 6], 7 positions: (7 - 2) / 2 + 1 = 3 windows, read as [5, 6], [3, 4], [1, 2].
  REQUIRE(firsts.size() == 3);
  CHECK(firsts[0] == x(5, 0));
  CHECK(firsts[1] == x(3, 0));
  CHECK(firsts[2] == x(1, 0));
  REQUIRE(ys.extent<dg::trip_dim<Time, back>>() == 3);
  for (std::size_t j = 0; j < 3; ++j)
    for (std::size_t p = 0; p < 2; ++p)
      for (std::size_t f = 0; f < 3; ++f) CHECK(ys(j, p, f) == x(1 + 2 * j + p, f));
}

TEST_CASE("scan: the last value of a carry equals the final iteration's value") {
  const auto x = sequence(9, 6);
  constexpr dg::slicing odd{.start = 1, .stride = 2};  // positions 1, 3, 5, 7
  auto [ys, last] = dg::scan<Time>([](const auto& x_t, const auto& h) {
    return dg::step(dg::carry(x_t * 2.0f - h), dg::emit(x_t * 2.0f - h));
  })(dg::sliced<Time, odd>(x), dg::zeros<float, F>());
  REQUIRE(ys.extent<dg::trip_dim<Time, odd>>() == 4);
  for (std::size_t f = 0; f < 3; ++f) {
    float h = 0;
    for (std::size_t t = 1; t < 9; t += 2) h = x(t, f) * 2.0f - h;
    CHECK(last(f) == doctest::Approx(h));
    CHECK(last(f) == ys(3, f));
  }
}

TEST_CASE("scan: an invariant captured tensor is not sliced") {
  const auto x = sequence(4, 7);
  const auto w = dg::uniform<float, Time, F>(8, -1.0f, 1.0f, dg::extent<Time>(4));
  auto [ys] = dg::scan<Time>([&](const auto& x_t) {
    // The whole of w, every time: its sum over Time does not depend on the iteration.
    return dg::step(dg::emit(x_t + dg::sum<Time>(w)));
  })(dg::sliced<Time>(x));
  for (std::size_t t = 0; t < 4; ++t)
    for (std::size_t f = 0; f < 3; ++f) {
      float total = 0;
      for (std::size_t s = 0; s < 4; ++s) total += w(s, f);
      CHECK(ys(t, f) == doctest::Approx(x(t, f) + total));
    }
}

TEST_CASE("scan: several sliced inputs advance together in the order they were passed") {
  const auto x = sequence(5, 9);
  const auto y = dg::uniform<float, Time>(10, -1.0f, 1.0f, dg::extent<Time>(6));
  // x forwards over all 5, y backwards over its first 5 (positions 4, 3, 2, 1, 0).
  auto [ys, last] = dg::scan<Time>([](const auto& h, const auto& x_t, const auto& y_t) {
    return dg::step(dg::carry(h + x_t * y_t), dg::emit(x_t * y_t));
  })(dg::zeros<float, F>(), dg::sliced<Time>(x),
     dg::sliced<Time, dg::slicing{.start = 4, .end = 0, .stride = -1}>(y));
  for (std::size_t f = 0; f < 3; ++f) {
    float acc = 0;
    for (std::size_t i = 0; i < 5; ++i) {
      const float v = x(i, f) * y(4 - i);
      CHECK(ys(i, f) == doctest::Approx(v));
      acc += v;
    }
    CHECK(last(f) == doctest::Approx(acc));
  }
}

TEST_CASE("scan: negative start and end count from the end") {
  const auto x = sequence(6, 11);
  constexpr dg::slicing middle{.start = -4, .end = -2};  // positions 2, 3, 4
  auto [ys] = dg::scan<Time>([](const auto& x_t) { return dg::step(dg::emit(x_t)); })(
      dg::sliced<Time, middle>(x));
  REQUIRE(ys.extent<dg::trip_dim<Time, middle>>() == 3);
  for (std::size_t j = 0; j < 3; ++j)
    for (std::size_t f = 0; f < 3; ++f) CHECK(ys(j, f) == x(2 + j, f));
}

TEST_CASE("scan: the iteration dim goes where the dim was in the first sliced input") {
  const auto x = dg::uniform<float, F, Time>(12, -1.0f, 1.0f, dg::extent<Time>(3));
  auto [ys] = dg::scan<Time>([](const auto& x_t) { return dg::step(dg::emit(x_t * x_t)); })(
      dg::sliced<Time>(x));
  static_assert(std::is_same_v<decltype(ys), dg::tensor<float, F, Time>>);
  for (std::size_t f = 0; f < 3; ++f)
    for (std::size_t t = 0; t < 3; ++t) CHECK(ys(f, t) == doctest::Approx(x(f, t) * x(f, t)));
}

TEST_CASE("scan: a static trip count runs the same unrolled or not") {
  const auto x = dg::uniform<float, T8, F>(13, -1.0f, 1.0f);
  auto body = [](const auto& x_t, const auto& h) {
    return dg::step(dg::carry(h * 0.5f + x_t), dg::emit(h));
  };
  const auto h0 = dg::zeros<float, F>();
  auto [a, ha] = dg::scan<T8>(body)(dg::sliced<T8>(x), h0);
  auto [b, hb] = dg::scan<T8, dg::unroll<3>>(body)(dg::sliced<T8>(x), h0);
  auto [c, hc] = dg::scan<T8, dg::unroll_all>(body)(dg::sliced<T8>(x), h0);
  static_assert(std::is_same_v<decltype(a), dg::tensor<float, T8, F>>);
  for (std::size_t f = 0; f < 3; ++f) {
    float h = 0;
    for (std::size_t t = 0; t < 8; ++t) {
      CHECK(a(t, f) == doctest::Approx(h));
      CHECK(b(t, f) == a(t, f));
      CHECK(c(t, f) == a(t, f));
      h = h * 0.5f + x(t, f);
    }
    CHECK(ha(f) == doctest::Approx(h));
    CHECK(hb(f) == ha(f));
    CHECK(hc(f) == ha(f));
  }
}

TEST_CASE("scan: a slicing outside the dim or differing trip counts throw before any work") {
  const auto x = sequence(3, 14);
  const auto y = sequence(4, 15);
  int calls = 0;
  auto body = [&](const auto& x_t, const auto&...) {
    ++calls;
    return dg::step(dg::emit(x_t));
  };
  CHECK_THROWS_AS(dg::scan<Time>(body)(dg::sliced<Time, dg::slicing{.start = 5}>(x)),
                  dg::shape_error);
  CHECK_THROWS_WITH_AS(
      dg::scan<Time>(body)(dg::sliced<Time>(x), dg::sliced<Time>(y)),
      doctest::Contains("dimgraph: scan: sliced inputs iterate a different number"),
      dg::shape_error);
  CHECK(calls == 0);
}

TEST_CASE("scan: no iteration gives empty stacked outputs and the initial carries") {
  const auto x = sequence(0, 16);
  const auto h0 = dg::full<float, F>(2.0f);
  auto [ys, last] = dg::scan<Time>([](const auto& x_t, const auto& h) {
    return dg::step(dg::carry(h + x_t), dg::emit(x_t));
  })(dg::sliced<Time>(x), h0);
  CHECK(ys.extent<Time>() == 0);
  for (std::size_t f = 0; f < 3; ++f) CHECK(last(f) == 2.0f);
}

TEST_CASE("scan: a carry may be a tensor the body made and a temporary input is held") {
  auto [ys, last] = dg::scan<Time>([](const auto& x_t, const auto& h) {
    dg::tensor<float, F> next = h + x_t;
    return dg::step(dg::carry(std::move(next)), dg::emit(x_t));
  })(dg::sliced<Time>(sequence(3, 17)), dg::zeros<float, F>());
  const auto x = sequence(3, 17);
  for (std::size_t f = 0; f < 3; ++f)
    CHECK(last(f) == doctest::Approx(x(0, f) + x(1, f) + x(2, f)));
  CHECK(ys(2, 1) == x(2, 1));
}

TEST_CASE("scan: a sliced input over another dynamic dim keeps its other dims") {
  const auto x =
      dg::uniform<float, Other, Time>(18, -1.0f, 1.0f, dg::extent<Other>(2), dg::extent<Time>(3));
  auto [ys] = dg::scan<Time>([](const auto& x_t) { return dg::step(dg::emit(x_t + 1.0f)); })(
      dg::sliced<Time>(x));
  static_assert(std::is_same_v<decltype(ys), dg::tensor<float, Other, Time>>);
  REQUIRE(ys.extent<Other>() == 2);
  for (std::size_t o = 0; o < 2; ++o)
    for (std::size_t t = 0; t < 3; ++t) CHECK(ys(o, t) == doctest::Approx(x(o, t) + 1.0f));
}

TEST_CASE("scan: the part and trip dims describe themselves") {
  constexpr dg::slicing s{.end = 38, .stride = 2, .part_size = 2};
  CHECK(dg::describe<dg::part_dim<T40, 2>>() == "part2(t40)");
  CHECK(dg::describe<dg::trip_dim<T40, s>>() == "trip(t40, 0:38:2, part 2)");
}

TEST_CASE("scan: a carry may come back with its dims in another order") {
  const auto x = dg::uniform<float, Time, F, Other>(19, -1.0f, 1.0f, dg::extent<Time>(3),
                                                    dg::extent<Other>(2));
  const auto h0 = dg::zeros<float, Other, F>(dg::extent<Other>(2));
  auto [last] = dg::scan<Time>([](const auto& x_t, const auto& h) {
    return dg::step(dg::carry(x_t + h));  // [F, Other]: evaluated into the carry's [Other, F]
  })(dg::sliced<Time>(x), h0);
  static_assert(std::is_same_v<decltype(last), dg::tensor<float, Other, F>>);
  for (std::size_t o = 0; o < 2; ++o)
    for (std::size_t f = 0; f < 3; ++f)
      CHECK(last(o, f) == doctest::Approx(x(0, f, o) + x(1, f, o) + x(2, f, o)));
}

TEST_CASE("scan: a body taking its arguments by value may carry and emit expressions over them") {
  const auto x = sequence(4, 20);
  auto [ys, last] = dg::scan<Time>([](auto x_t, auto h) {
    auto local = dg::eval(x_t * 2.0f);
    return dg::step(dg::carry(h + local), dg::emit(h - x_t));
  })(dg::sliced<Time>(x), dg::zeros<float, F>());
  for (std::size_t f = 0; f < 3; ++f) {
    float acc = 0;
    for (std::size_t t = 0; t < 4; ++t) {
      CHECK(ys(t, f) == doctest::Approx(acc - x(t, f)));
      acc += x(t, f) * 2.0f;
    }
    CHECK(last(f) == doctest::Approx(acc));
  }
}

TEST_CASE("scan: a slicing that does not fit says what is wrong with it") {
  const auto x = sequence(5, 21);
  auto body = [](const auto& x_t) { return dg::step(dg::emit(x_t)); };
  const std::string where = "dimgraph: scan: sliced input 0 along dim 'time' of extent 5: ";
  CHECK_THROWS_WITH_AS(
      dg::scan<Time>(body)(dg::sliced<Time, dg::slicing{.start = 3, .end = 1}>(x)),
      (where + "start 3 is after end 1 for a forward slicing (stride 1); the end is inclusive, so "
               "an empty walk has start = end + 1")
          .c_str(),
      dg::shape_error);
  CHECK_THROWS_WITH_AS(
      dg::scan<Time>(body)(dg::sliced<Time, dg::slicing{.start = 1, .end = 3, .stride = -1}>(x)),
      (where + "start 1 is before end 3 for a backward slicing (stride -1); the end is inclusive, "
               "so an empty walk has start = end - 1")
          .c_str(),
      dg::shape_error);
  CHECK_THROWS_WITH_AS(dg::scan<Time>(body)(dg::sliced<Time, dg::slicing{.end = 9}>(x)),
                       (where + "end 9 lies past the last position (4) of the dim").c_str(),
                       dg::shape_error);
  CHECK_THROWS_WITH_AS(
      dg::scan<Time>(body)(dg::sliced<Time, dg::slicing{.start = -7}>(x)),
      (where + "start -7 (position -2) lies before the first position of the dim").c_str(),
      dg::shape_error);
  // An empty walk (start = end + 1) is no mistake.
  auto [ys] = dg::scan<Time>(body)(dg::sliced<Time, dg::slicing{.start = 2, .end = 1}>(x));
  CHECK(ys.size() == 0);
}

TEST_CASE("scan: an error thrown in the body names scan and the iteration, keeping its class") {
  const auto x = sequence(5, 22);
  int calls = 0;
  auto body = [&](const auto& x_t) {
    const std::size_t f = calls++ == 3 ? 7 : 0;  // out of range at iteration 3
    return dg::step(dg::emit(dg::full<float>(x_t.at(dg::at<F>(f)))));
  };
  CHECK_THROWS_WITH_AS(
      dg::scan<Time>(body)(dg::sliced<Time>(x)),
      "dimgraph: scan: at iteration 3: at: index 7 is out of range for dim 'f' of extent 3",
      dg::index_error);
  // Iterations count in walk order: a backward walk's iteration 3 is its fourth step.
  calls = 0;
  const auto backward = dg::sliced<Time, dg::slicing{.start = -1, .end = 0, .stride = -1}>(x);
  try {
    (void)dg::scan<Time>(body)(backward);
    FAIL("no exception");
  } catch (const dg::index_error& e) {
    CHECK(std::string(e.what()).starts_with("dimgraph: scan: at iteration 3: at: "));
  }
}

TEST_CASE("scan: an error in a layer in the body reads scan, the iteration, the layer, the op") {
  struct In : dg::dim<"input", 3> {};
  struct Hid : dg::dim<"hidden", 2> {};
  using gate = decltype(dg::c<3> * Hid{});
  const auto x = dg::uniform<float, dg::batch, Time, In>(30, -1.0f, 1.0f, dg::extent<dg::batch>(2),
                                                         dg::extent<Time>(5));
  const auto w = dg::uniform<float, gate, In>(31, -0.5f, 0.5f);
  const auto r = dg::uniform<float, gate, Hid>(32, -0.5f, 0.5f);
  const auto b = dg::uniform<float, gate>(33, -0.5f, 0.5f);
  const auto h0 = dg::zeros<float, dg::batch, Hid>(dg::extent<dg::batch>(2));
  // A state of batch 3, which the body uses at iteration 2 in place of its carry.
  const auto h3 = dg::zeros<float, dg::batch, Hid>(dg::extent<dg::batch>(3));
  int calls = 0;
  auto body = [&](const auto& x_t, const auto& h) {
    auto next = dg::nn::gru_cell(x_t, calls++ == 2 ? h3 : h, w, r, b, b);
    return dg::step(dg::carry(next), dg::emit(next));
  };
  CHECK_THROWS_WITH_AS(dg::scan<Time>(body)(dg::sliced<Time>(x), h0),
                       "dimgraph: scan: at iteration 2: nn::gru_cell: add: dim 'batch' has extent "
                       "3 in operand 1 and 2 in operand 2",
                       dg::shape_error);
  CHECK(calls == 3);
}

TEST_CASE(
    "scan: an emitted extent that changes mid-scan names scan, the iteration and the output") {
  const auto x = sequence(4, 23);
  const auto v = dg::iota<float, Other>(dg::extent<Other>(8));
  std::size_t calls = 0;
  auto body = [&](const auto& x_t) {
    auto part = dg::eval(dg::slice<Other>(v, 0, 2 + (calls++ == 2)));  // 3 at iteration 2
    return dg::step(dg::emit(x_t, part));
  };
  CHECK_THROWS_WITH_AS(
      dg::scan<Time>(body)(dg::sliced<Time>(x)),
      "dimgraph: scan: at iteration 2: emitted value 1 has extent 3 along dim 'slice(other)', but "
      "iteration 0 emitted extent 2 (every iteration must emit the same extents)",
      dg::shape_error);
}

TEST_CASE("scan: carries and emits with heap-held static dims are handed on, not refilled") {
  // [R96, C64] floats are 24 KiB, above the inline limit: the tensors keep their elements on
  // the heap and a move gives the moved-from one new zeroed storage. The scan hands each step's
  // values on instead (tensor_internals::hand_over), with the same results as a plain loop.
  struct R96 : dg::dim<"r96", 96> {};
  struct C64 : dg::dim<"c64", 64> {};
  using big = dg::tensor<float, R96, C64>;
  static_assert(!big::is_inline);
  const std::size_t n = 5;
  const auto x = dg::uniform<float, Time, R96, C64>(3, -1.0f, 1.0f, dg::extent<Time>(n));
  const big h0 = dg::full<float, R96, C64>(0.25f);
  auto [ys, last] = dg::scan<Time>([](const auto& x_t, const auto& h) {
    big next = h * 0.5f + x_t;
    return dg::step(dg::carry(std::move(next)), dg::emit(h - x_t));
  })(dg::sliced<Time>(x), h0);
  std::size_t bad = 0;
  for (std::size_t r = 0; r < 96; ++r)
    for (std::size_t c = 0; c < 64; ++c) {
      float h = 0.25f;
      for (std::size_t t = 0; t < n; ++t) {
        bad += ys(t, r, c) != h - x(t, r, c);
        h = h * 0.5f + x(t, r, c);
      }
      bad += last(r, c) != h;
    }
  CHECK(bad == 0);
}

TEST_CASE(
    "tensor_internals::hand_over: the new tensor takes the elements, the old one is dropped") {
  struct R96 : dg::dim<"r96", 96> {};
  struct C64 : dg::dim<"c64", 64> {};
  using big = dg::tensor<float, R96, C64>;
  big a = dg::full<float, R96, C64>(1.5f);
  const float* memory = a.data();
  const big b(dg::detail::tensor_internals::hand_over(a));
  CHECK(b.data() == memory);
  CHECK(b(95, 63) == 1.5f);
  CHECK(a.data() == nullptr);  // no storage: destroyed next, without a refill
  big c = dg::full<float, R96, C64>(2.0f);
  dg::detail::tensor_internals::replace(a, c);  // a takes c's elements
  CHECK(a(0, 0) == 2.0f);
  CHECK(c.data() == nullptr);
}
