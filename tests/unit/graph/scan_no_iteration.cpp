// dg::scan with no iteration: the body is not called, the carries come back as given, and the
// stacked outputs are empty along the iteration dim with every other extent the real one.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <tuple>
#include <type_traits>

namespace dg = dimgraph;

namespace {

using Batch = dg::batch;
struct Time : dg::dim<"time"> {};
struct F : dg::dim<"f", 3> {};
struct H : dg::dim<"h", 2> {};
struct One : dg::dim<"one", 1> {};
struct Other : dg::dim<"other"> {};
struct Ranged : dg::dim<"ranged", dg::range{2, 9}> {};

using Gates = decltype(dg::c<4> * H{});

constexpr dg::slicing forward{};
constexpr dg::slicing backward{.start = -1, .end = 0, .stride = -1};

struct lstm_weights {
  dg::tensor<float, Gates, F> w = dg::uniform<float, Gates, F>(1, -0.5f, 0.5f);
  dg::tensor<float, Gates, H> r = dg::uniform<float, Gates, H>(2, -0.5f, 0.5f);
  dg::tensor<float, Gates> b = dg::uniform<float, Gates>(3, -0.5f, 0.5f);
};

// An LSTM over x [Batch, Time, F] walked by S, counting its steps: (outputs [Batch, Time, H],
// the slices re-emitted [Batch, Time, F], last h, last c). The same function runs eagerly and
// traced (the traced graph runs it on tensors: one instantiation of the scan for both).
template <dg::slicing S>
auto lstm(const lstm_weights& p, int& calls) {
  return [&p, &calls](const auto& x, const auto& h0, const auto& c0) {
    auto [ys, xs, h_last, c_last] =
        dg::scan<Time>([&](const auto& xt, const auto& h, const auto& c) {
          ++calls;
          auto next = dg::nn::lstm_cell(xt, h, c, p.w, p.r, p.b);
          return dg::step(dg::carry(next.h, next.c), dg::emit(next.h, xt));
        })(dg::sliced<Time, S>(x), h0, c0);
    return std::tuple{ys, xs, h_last, c_last};
  };
}

template <class Run>
void check_lstm_no_steps(const Run& run, std::size_t batch, const int& calls) {
  CAPTURE(batch);
  const auto x = dg::uniform<float, Batch, Time, F>(4, -1.0f, 1.0f, dg::extent<Batch>(batch),
                                                    dg::extent<Time>(0));
  const auto h0 = dg::uniform<float, Batch, H>(5, -1.0f, 1.0f, dg::extent<Batch>(batch));
  const auto c0 = dg::uniform<float, Batch, H>(6, -1.0f, 1.0f, dg::extent<Batch>(batch));
  auto [ys, xs, h, c] = run(x, h0, c0);
  static_assert(std::is_same_v<decltype(ys), dg::tensor<float, Batch, Time, H>>);
  static_assert(std::is_same_v<decltype(xs), dg::tensor<float, Batch, Time, F>>);
  CHECK(calls == 0);
  CHECK(ys.template extent<Batch>() == batch);
  CHECK(ys.template extent<Time>() == 0);
  CHECK(ys.size() == 0);
  CHECK(xs.template extent<Batch>() == batch);
  CHECK(xs.template extent<Time>() == 0);
  CHECK(h.template extent<Batch>() == batch);
  CHECK(c.template extent<Batch>() == batch);
  for (std::size_t i = 0; i < batch; ++i)
    for (std::size_t j = 0; j < 2; ++j) {
      CHECK(h(i, j) == h0(i, j));
      CHECK(c(i, j) == c0(i, j));
    }
}

}  // namespace

TEST_CASE("scan: no iteration keeps the batch extent of an LSTM's outputs, eager") {
  const lstm_weights p;
  int calls = 0;
  for (std::size_t batch : {1u, 32u}) {
    check_lstm_no_steps(lstm<forward>(p, calls), batch, calls);
    check_lstm_no_steps(lstm<backward>(p, calls), batch, calls);
  }
}

TEST_CASE("scan: no iteration keeps the batch extent of an LSTM's outputs, traced") {
  const lstm_weights p;
  int calls = 0;
  auto g_forward = dg::trace(lstm<forward>(p, calls), dg::input<float, Batch, Time, F>{},
                             dg::input<float, Batch, H>{}, dg::input<float, Batch, H>{});
  auto g_backward = dg::trace(lstm<backward>(p, calls), dg::input<float, Batch, Time, F>{},
                              dg::input<float, Batch, H>{}, dg::input<float, Batch, H>{});
  static_assert(
      std::is_same_v<decltype(g_forward)::output_t<0>, dg::tensor<float, Batch, Time, H>>);
  calls = 0;  // (tracing called each body once, on symbols)
  for (std::size_t batch : {1u, 32u}) {
    check_lstm_no_steps(g_forward, batch, calls);
    check_lstm_no_steps(g_backward, batch, calls);
  }
}

TEST_CASE("scan: with no iteration a batch dim only a carry has comes from that carry") {
  // x [Time, F] has no batch; the carry [Batch, F] does, and so does what the body emits.
  const auto x = dg::uniform<float, Time, F>(7, -1.0f, 1.0f, dg::extent<Time>(0));
  const auto h0 = dg::uniform<float, Batch, F>(8, -1.0f, 1.0f, dg::extent<Batch>(5));
  auto [ys, last] = dg::scan<Time>([](const auto& x_t, const auto& h) {
    return dg::step(dg::carry(h + x_t), dg::emit(h * x_t));
  })(dg::sliced<Time>(x), h0);
  static_assert(std::is_same_v<decltype(ys), dg::tensor<float, Time, Batch, F>>);
  CHECK(ys.extent<Time>() == 0);
  CHECK(ys.extent<Batch>() == 5);
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t f = 0; f < 3; ++f) CHECK(last(i, f) == h0(i, f));
}

TEST_CASE("scan: an empty walk over a non-empty dim keeps the other extents, both directions") {
  // Extent 5 along Time, walks of no step: start = end + 1 forwards, start = end - 1 backwards.
  const auto x =
      dg::uniform<float, Batch, Time, F>(9, -1.0f, 1.0f, dg::extent<Batch>(4), dg::extent<Time>(5));
  const auto count0 = dg::zeros<int, One>();
  auto body = [](const auto& x_t, const auto& count) {
    return dg::step(dg::carry(count + 1), dg::emit(x_t));
  };
  auto [ys_f, count_f] =
      dg::scan<Time>(body)(dg::sliced<Time, dg::slicing{.start = 2, .end = 1}>(x), count0);
  auto [ys_b, count_b] = dg::scan<Time>(body)(
      dg::sliced<Time, dg::slicing{.start = 1, .end = 2, .stride = -1}>(x), count0);
  CHECK(ys_f.extent<Batch>() == 4);
  CHECK(ys_b.extent<Batch>() == 4);
  CHECK(ys_f.size() == 0);
  CHECK(ys_b.size() == 0);
  CHECK(count_f(0) == 0);
  CHECK(count_b(0) == 0);
}

TEST_CASE("scan: with no iteration a dim only a captured tensor has gets its smallest extent") {
  const auto x = dg::uniform<float, Time, F>(10, -1.0f, 1.0f, dg::extent<Time>(0));
  const auto v = dg::iota<float, Other>(dg::extent<Other>(8));
  const auto w = dg::iota<float, Ranged>(dg::extent<Ranged>(7));
  auto [a, b] = dg::scan<Time>([&](const auto& x_t) {
    return dg::step(dg::emit(dg::sum<F>(x_t) * v, dg::sum<F>(x_t) * w));
  })(dg::sliced<Time>(x));
  static_assert(std::is_same_v<decltype(a), dg::tensor<float, Time, Other>>);
  CHECK(a.extent<Time>() == 0);
  CHECK(a.extent<Other>() == 0);   // dynamic: [0, inf)
  CHECK(b.extent<Ranged>() == 2);  // range{2, 9}
}
