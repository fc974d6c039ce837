// dg::scan over a ragged dim: each batch row runs for its own length. Checked against hand
// loops (running sums, tests/support/reference_lstm.hpp, a plain-loop GRU written here) and
// against each sequence run alone through a scan over a plain (not ragged) dim; padding values
// (NaN, inf) change nothing; forwards, backwards and bidirectional; no iteration; traced.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "reference_lstm.hpp"

namespace dg = dimgraph;

namespace {

struct Batch : dg::dim<"batch", dg::interval{}, dg::dim_kind::batch> {};
struct Time : dg::dim<"time", dg::ragged<Batch>> {};
struct Steps : dg::dim<"steps"> {};  // a plain dynamic dim: one sequence run alone
struct F : dg::dim<"f", 2> {};
struct In : dg::dim<"input", 5> {};
struct Hid : dg::dim<"hidden", 4> {};

constexpr dg::slicing forward{};
constexpr dg::slicing backward{.start = -1, .end = 0, .stride = -1};

using Gates = decltype(dg::c<4> * Hid{});
using Columns = decltype(In{} + Hid{});
using GruGates = decltype(dg::c<3> * Hid{});

constexpr float pad_nan = std::numeric_limits<float>::quiet_NaN();
constexpr float pad_inf = std::numeric_limits<float>::infinity();

// Seeded values in [-scale, scale] (not the library's own fill).
template <class X>
void fill(X& x, unsigned seed, float scale = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = u(gen);
}

// Random lengths in [0, steps] for `rows` rows, with 0 and steps among them (rows >= 2).
std::vector<std::int64_t> random_lengths(std::size_t rows, std::size_t steps, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::int64_t> u(0, static_cast<std::int64_t>(steps));
  std::vector<std::int64_t> l(rows);
  for (auto& v : l) v = u(gen);
  l[0] = static_cast<std::int64_t>(steps);
  if (rows > 1) l[rows / 2] = 0;
  return l;
}

// x [Batch, Time, In] with lengths lens and extent `steps`: seeded values, `pad` past each
// row's length.
dg::tensor<float, Batch, Time, In> ragged_input(const std::vector<std::int64_t>& lens,
                                                std::size_t steps, unsigned seed, float pad) {
  dg::tensor<float, Batch, Time, In> x(dg::extent<Batch>(lens.size()), dg::extent<Time>(steps),
                                       dg::lengths<Time>(lens));
  fill(x, seed);
  const std::size_t in = dg::static_size_v<In>;
  for (std::size_t b = 0; b < lens.size(); ++b)
    for (auto t = static_cast<std::size_t>(lens[b]); t < steps; ++t)
      for (std::size_t k = 0; k < in; ++k) x(b, t, k) = pad;
  return x;
}

// Row b's valid part of x as a sequence of its own: [Batch = 1, Steps = len, In].
dg::tensor<float, Batch, Steps, In> row_alone(const dg::tensor<float, Batch, Time, In>& x,
                                              std::size_t b, std::size_t len) {
  dg::tensor<float, Batch, Steps, In> r(dg::extent<Batch>(1), dg::extent<Steps>(len));
  for (std::size_t t = 0; t < len; ++t)
    for (std::size_t k = 0; k < dg::static_size_v<In>; ++k) r(0, t, k) = x(b, t, k);
  return r;
}
template <class X>
dg::tensor<float, Batch, Hid> state_row(const X& h, std::size_t b) {
  dg::tensor<float, Batch, Hid> r(dg::extent<Batch>(1));
  for (std::size_t j = 0; j < dg::static_size_v<Hid>; ++j) r(0, j) = h(b, j);
  return r;
}

struct lstm_weights {
  dg::tensor<float, Gates, Columns> w;
  dg::tensor<float, Gates> b;
  explicit lstm_weights(unsigned seed) {
    fill(w, seed, 0.4f);
    fill(b, seed + 1, 0.2f);
  }
};

// The LSTM over dim T walked by S: (outputs, last h, last c).
template <class T, dg::slicing S, class X, class H, class C>
auto lstm_scan(const lstm_weights& p, const X& x, const H& h0, const C& c0) {
  return dg::scan<T>([&](const auto& xt, const auto& h, const auto& c) {
    auto next = dg::nn::lstm_cell(xt, h, c, p.w, p.b);
    return dg::step(dg::carry(next.h, next.c), dg::emit(next.h));
  })(dg::sliced<T, S>(x), h0, c0);
}

// PyTorch's GRU weights: W [3H, I], R [3H, H], b_ih, b_hh [3H].
struct gru_weights {
  dg::tensor<float, GruGates, In> w;
  dg::tensor<float, GruGates, Hid> r;
  dg::tensor<float, GruGates> bi, bh;
  explicit gru_weights(unsigned seed) {
    fill(w, seed, 0.4f);
    fill(r, seed + 1, 0.4f);
    fill(bi, seed + 2, 0.2f);
    fill(bh, seed + 3, 0.2f);
  }
};

template <class T, dg::slicing S, class X, class H>
auto gru_scan(const gru_weights& p, const X& x, const H& h0) {
  return dg::scan<T>([&](const auto& xt, const auto& h) {
    auto h2 = dg::nn::gru_cell(xt, h, p.w, p.r, p.bi, p.bh);
    return dg::step(dg::carry(h2), dg::emit(h2));
  })(dg::sliced<T, S>(x), h0);
}

float sigmoid(float v) {
  return 1.0f / (1.0f + std::exp(-v));
}

// One GRU step on plain arrays (PyTorch's GRUCell), h updated in place from x.
void reference_gru_step(const gru_weights& p, const float* x, float* h) {
  constexpr std::size_t in = dg::static_size_v<In>, hid = dg::static_size_v<Hid>;
  float gx[3 * hid], gh[3 * hid];
  for (std::size_t g = 0; g < 3 * hid; ++g) {
    double ax = p.bi.data()[g], ah = p.bh.data()[g];
    for (std::size_t k = 0; k < in; ++k) ax += double(p.w.data()[g * in + k]) * x[k];
    for (std::size_t k = 0; k < hid; ++k) ah += double(p.r.data()[g * hid + k]) * h[k];
    gx[g] = static_cast<float>(ax);
    gh[g] = static_cast<float>(ah);
  }
  for (std::size_t j = 0; j < hid; ++j) {
    const float r = sigmoid(gx[j] + gh[j]);
    const float z = sigmoid(gx[hid + j] + gh[hid + j]);
    const float n = std::tanh(gx[2 * hid + j] + r * gh[2 * hid + j]);
    h[j] = (1.0f - z) * n + z * h[j];
  }
}

bool close(float a, float b) {
  return std::fabs(a - b) <= 1e-5f;
}

// Every valid step of row b of ys [Batch, Time, Hid] is close to want [len, Hid] (hand loop
// order: time positions), every step past len is exactly 0.
template <class Y>
std::size_t row_mismatches(const Y& ys, std::size_t b, std::size_t len, const float* want) {
  std::size_t bad = 0;
  constexpr std::size_t hid = dg::static_size_v<Hid>;
  for (std::size_t t = 0; t < ys.template extent<Time>(); ++t)
    for (std::size_t j = 0; j < hid; ++j)
      bad += t < len ? !close(ys(b, t, j), want[t * hid + j]) : ys(b, t, j) != 0.0f;
  return bad;
}

template <class X>
std::vector<std::int64_t> lengths_vector(const X& x) {
  return dg::lengths_of<Time>(x).to_vector();
}

}  // namespace

TEST_CASE("ragged scan: a running sum stops at each row's length and emits 0 past it") {
  // Rows of lengths 4, 2, 0 and 3; x(b, t) = 10 b + t + 1 at valid steps, padding -100.
  const std::vector<std::int64_t> lens{4, 2, 0, 3};
  dg::tensor<float, Batch, Time, F> x(dg::extent<Batch>(4), dg::lengths<Time>(lens));
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t t = 0; t < 4; ++t)
      for (std::size_t f = 0; f < 2; ++f)
        x(b, t, f) =
            t < static_cast<std::size_t>(lens[b]) ? float(10 * b + t + 1) * float(f + 1) : -100.0f;
  const dg::tensor<float, Batch, F> h0(dg::extent<Batch>(4));
  auto [ys, h] = dg::scan<Time>([](const auto& xt, const auto& s) {
    auto s2 = dg::eval(s + xt);
    return dg::step(dg::carry(s2), dg::emit(s2));
  })(dg::sliced<Time>(x), h0);
  static_assert(std::is_same_v<decltype(ys), dg::tensor<float, Batch, Time, F>>);
  CHECK(lengths_vector(ys) == lens);
  CHECK(dg::to_string(ys.shape()) == "[batch[4], time[4] lengths {4, 2, 0, 3}, f=2]");
  for (std::size_t b = 0; b < 4; ++b) {
    float sum = 0;
    for (std::size_t t = 0; t < 4; ++t) {
      const bool valid = t < static_cast<std::size_t>(lens[b]);
      if (valid) sum += float(10 * b + t + 1);
      for (std::size_t f = 0; f < 2; ++f) CHECK(ys(b, t, f) == (valid ? sum * float(f + 1) : 0.0f));
    }
    for (std::size_t f = 0; f < 2; ++f) CHECK(h(b, f) == sum * float(f + 1));
  }
}

TEST_CASE("ragged scan: a backward running sum starts at each row's own last step") {
  const std::vector<std::int64_t> lens{3, 5, 1, 0};
  dg::tensor<float, Batch, Time, F> x(dg::extent<Batch>(4), dg::lengths<Time>(lens));
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t t = 0; t < 5; ++t)
      for (std::size_t f = 0; f < 2; ++f)
        x(b, t, f) = t < static_cast<std::size_t>(lens[b]) ? float(100 * b + 10 * t + f) : pad_nan;
  const dg::tensor<float, Batch, F> h0(dg::extent<Batch>(4));
  std::vector<std::size_t> visited;  // the first step each row reads: its last valid position
  auto [ys, h] = dg::scan<Time>([](const auto& xt, const auto& s) {
    auto s2 = dg::eval(s + xt);
    return dg::step(dg::carry(s2), dg::emit(s2));
  })(dg::sliced<Time, backward>(x), h0);
  CHECK(lengths_vector(ys) == lens);
  for (std::size_t b = 0; b < 4; ++b) {
    const auto len = static_cast<std::size_t>(lens[b]);
    for (std::size_t f = 0; f < 2; ++f) {
      // Position t holds the sum of x(b, t..len-1): the walk from len - 1 down to t.
      float suffix = 0;
      for (std::size_t t = 5; t-- > 0;) {
        if (t < len) suffix += float(100 * b + 10 * t + f);
        CHECK(ys(b, t, f) == (t < len ? suffix : 0.0f));
      }
      CHECK(h(b, f) == suffix);
    }
  }
}

TEST_CASE("ragged scan: time-major and time-last layouts, a carry in another dim order") {
  // The same sums as [Batch, Time, F], laid out [Time, Batch, F] and [Batch, F, Time]; the carry
  // is [F, Batch] while the body's value is [Batch, F].
  const std::vector<std::int64_t> lens{2, 0, 3};
  dg::tensor<float, Batch, Time, F> x(dg::extent<Batch>(3), dg::lengths<Time>(lens));
  fill(x, 5);
  auto sums = [&](const auto& input, auto slicing) {
    const dg::tensor<float, F, Batch> h0(dg::extent<Batch>(3));
    return dg::scan<Time>([](const auto& xt, const auto& s) {
      auto s2 = dg::eval(xt + s);
      return dg::step(dg::carry(s2), dg::emit(s2));
    })(dg::sliced<Time, decltype(slicing)::value>(input), h0);
  };
  // (Copied element by element: dg::permute's view does not keep the lengths.)
  auto relaid = [&]<class... Ds>(dg::dim_list<Ds...>) {
    dg::tensor<float, Ds...> y(dg::extent<Batch>(3), dg::extent<Time>(3), dg::lengths<Time>(lens));
    for (std::size_t b = 0; b < 3; ++b)
      for (std::size_t t = 0; t < 3; ++t)
        for (std::size_t f = 0; f < 2; ++f)
          y.at(dg::at<Batch>(b), dg::at<Time>(t), dg::at<F>(f)) = x(b, t, f);
    return y;
  };
  const auto tm = relaid(dg::dim_list<Time, Batch, F>{});
  const auto tl = relaid(dg::dim_list<Batch, F, Time>{});
  CHECK(lengths_vector(tm) == lens);
  CHECK(lengths_vector(tl) == lens);
  using fw = std::integral_constant<dg::slicing, forward>;
  using bw = std::integral_constant<dg::slicing, backward>;
  const auto [a, ha] = sums(x, fw{});
  const auto [c, hc] = sums(tm, bw{});
  const auto [d, hd] = sums(tl, bw{});
  static_assert(
      std::is_same_v<std::remove_cvref_t<decltype(c)>, dg::tensor<float, Time, Batch, F>>);
  static_assert(
      std::is_same_v<std::remove_cvref_t<decltype(d)>, dg::tensor<float, Batch, F, Time>>);
  for (std::size_t b = 0; b < 3; ++b) {
    const auto len = static_cast<std::size_t>(lens[b]);
    for (std::size_t f = 0; f < 2; ++f) {
      float prefix = 0, total = 0;
      for (std::size_t t = 0; t < len; ++t) total += x(b, t, f);
      for (std::size_t t = 0; t < 3; ++t) {
        if (t < len) prefix += x(b, t, f);
        const float suffix = t < len ? total - prefix + x(b, t, f) : 0.0f;
        CHECK(close(a(b, t, f), t < len ? prefix : 0.0f));
        CHECK(close(c(t, b, f), suffix));
        CHECK(close(d(b, f, t), suffix));
      }
      CHECK(close(ha(f, b), total));
      CHECK(close(hc(f, b), total));
      CHECK(close(hd(f, b), total));
    }
  }
}

TEST_CASE("ragged scan: a ragged LSTM equals each sequence run alone, forwards and backwards") {
  const lstm_weights p(21);
  constexpr std::size_t steps = 7, hid = dg::static_size_v<Hid>, in = dg::static_size_v<In>;
  for (std::size_t rows : {2, 5, 9}) {
    const auto lens = random_lengths(rows, steps, 30 + unsigned(rows));
    const auto x = ragged_input(lens, steps, 31, 0.5f);
    dg::tensor<float, Batch, Hid> h0(dg::extent<Batch>(rows)), c0(dg::extent<Batch>(rows));
    fill(h0, 32, 0.5f);
    fill(c0, 33, 0.5f);
    for (bool back : {false, true}) {
      CAPTURE(rows);
      CAPTURE(back);
      auto [ys, h, c] =
          back ? lstm_scan<Time, backward>(p, x, h0, c0) : lstm_scan<Time, forward>(p, x, h0, c0);
      CHECK(lengths_vector(ys) == lens);
      for (std::size_t b = 0; b < rows; ++b) {
        const auto len = static_cast<std::size_t>(lens[b]);
        // The plain-loop LSTM on the row alone.
        std::vector<float> out(len * hid), h_last(hid), c_last(hid);
        reference::lstm_sequence(p.w.data(), p.b.data(), x.data() + b * steps * in,
                                 h0.data() + b * hid, c0.data() + b * hid, 1, len, in, hid, back,
                                 out.data(), h_last.data(), c_last.data());
        CHECK(row_mismatches(ys, b, len, out.data()) == 0);
        // The row alone through a scan over a plain dim (no lengths at all).
        const auto xr = row_alone(x, b, len);
        auto [ysr, hr, cr] =
            back ? lstm_scan<Steps, backward>(p, xr, state_row(h0, b), state_row(c0, b))
                 : lstm_scan<Steps, forward>(p, xr, state_row(h0, b), state_row(c0, b));
        for (std::size_t j = 0; j < hid; ++j) {
          CHECK(close(h(b, j), h_last[j]));
          CHECK(close(c(b, j), c_last[j]));
          CHECK(close(h(b, j), hr(0, j)));
          CHECK(close(c(b, j), cr(0, j)));
          for (std::size_t t = 0; t < len; ++t) CHECK(close(ys(b, t, j), ysr(0, t, j)));
        }
      }
    }
  }
}

TEST_CASE("ragged scan: a ragged GRU equals each sequence run alone, forwards and backwards") {
  const gru_weights p(41);
  constexpr std::size_t steps = 6, hid = dg::static_size_v<Hid>, in = dg::static_size_v<In>;
  for (std::size_t rows : {3, 8}) {
    const auto lens = random_lengths(rows, steps, 50 + unsigned(rows));
    const auto x = ragged_input(lens, steps, 51, -2.0f);
    dg::tensor<float, Batch, Hid> h0(dg::extent<Batch>(rows));
    fill(h0, 52, 0.5f);
    for (bool back : {false, true}) {
      CAPTURE(rows);
      CAPTURE(back);
      auto [ys, h] = back ? gru_scan<Time, backward>(p, x, h0) : gru_scan<Time, forward>(p, x, h0);
      CHECK(lengths_vector(ys) == lens);
      for (std::size_t b = 0; b < rows; ++b) {
        const auto len = static_cast<std::size_t>(lens[b]);
        std::vector<float> out(len * hid), state(h0.data() + b * hid, h0.data() + (b + 1) * hid);
        for (std::size_t s = 0; s < len; ++s) {
          const std::size_t t = back ? len - 1 - s : s;
          reference_gru_step(p, x.data() + (b * steps + t) * in, state.data());
          for (std::size_t j = 0; j < hid; ++j) out[t * hid + j] = state[j];
        }
        CHECK(row_mismatches(ys, b, len, out.data()) == 0);
        const auto xr = row_alone(x, b, len);
        auto [ysr, hr] = back ? gru_scan<Steps, backward>(p, xr, state_row(h0, b))
                              : gru_scan<Steps, forward>(p, xr, state_row(h0, b));
        for (std::size_t j = 0; j < hid; ++j) {
          CHECK(close(h(b, j), state[j]));
          CHECK(close(h(b, j), hr(0, j)));
          for (std::size_t t = 0; t < len; ++t) CHECK(close(ys(b, t, j), ysr(0, t, j)));
        }
      }
    }
  }
}

TEST_CASE("ragged scan: padding values (NaN, inf) change no result") {
  const lstm_weights p(61);
  const gru_weights q(62);
  constexpr std::size_t rows = 6, steps = 5;
  const auto lens = random_lengths(rows, steps, 63);
  dg::tensor<float, Batch, Hid> h0(dg::extent<Batch>(rows)), c0(dg::extent<Batch>(rows));
  fill(h0, 64, 0.5f);
  fill(c0, 65, 0.5f);
  const auto x0 = ragged_input(lens, steps, 66, 0.0f);
  for (float pad : {pad_nan, pad_inf, -pad_inf, 1e30f}) {
    CAPTURE(pad);
    const auto x = ragged_input(lens, steps, 66, pad);
    const auto [ys0, h0f, c0f] = lstm_scan<Time, forward>(p, x0, h0, c0);
    const auto [ys, hf, cf] = lstm_scan<Time, forward>(p, x, h0, c0);
    CHECK(ys == ys0);
    CHECK(hf == h0f);
    CHECK(cf == c0f);
    const auto [zs0, hb0, cb0] = lstm_scan<Time, backward>(p, x0, h0, c0);
    const auto [zs, hb, cb] = lstm_scan<Time, backward>(p, x, h0, c0);
    CHECK(zs == zs0);
    CHECK(hb == hb0);
    CHECK(cb == cb0);
    const auto [gs0, g0] = gru_scan<Time, backward>(q, x0, h0);
    const auto [gs, g] = gru_scan<Time, backward>(q, x, h0);
    CHECK(gs == gs0);
    CHECK(g == g0);
  }
}

TEST_CASE("ragged scan: a bidirectional LSTM at batch 1 and more equals per-sequence runs") {
  // Forward and backward LSTMs (weights of their own), outputs concatenated along hidden.
  const lstm_weights pf(71), pb(72);
  constexpr std::size_t steps = 6, hid = dg::static_size_v<Hid>, in = dg::static_size_v<In>;
  auto bilstm = [&]<class T>(std::type_identity<T>, const auto& x, const auto& h0, const auto& c0) {
    auto [yf, hf, cf] = lstm_scan<T, forward>(pf, x, h0, c0);
    auto [yb, hb, cb] = lstm_scan<T, backward>(pb, x, h0, c0);
    return std::tuple{dg::eval(dg::concat(dg::along<Hid>(yf), dg::along<Hid>(yb))), hf, hb};
  };
  for (std::size_t rows : {1, 4}) {
    CAPTURE(rows);
    auto lens = random_lengths(rows, steps, 80 + unsigned(rows));
    if (rows == 1) lens[0] = 4;  // (one row, shorter than the extent)
    const auto x = ragged_input(lens, steps, 81, pad_nan);
    dg::tensor<float, Batch, Hid> h0(dg::extent<Batch>(rows)), c0(dg::extent<Batch>(rows));
    fill(h0, 82, 0.5f);
    fill(c0, 83, 0.5f);
    const auto [ys, hf, hb] = bilstm(std::type_identity<Time>{}, x, h0, c0);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(ys)>,
                                 dg::tensor<float, Batch, Time, decltype(dg::c<2> * Hid{})>>);
    REQUIRE(ys.extent<Time>() == steps);
    for (std::size_t b = 0; b < rows; ++b) {
      const auto len = static_cast<std::size_t>(lens[b]);
      std::vector<float> of(len * hid), ob(len * hid), h(hid), c(hid);
      reference::lstm_sequence(pf.w.data(), pf.b.data(), x.data() + b * steps * in,
                               h0.data() + b * hid, c0.data() + b * hid, 1, len, in, hid, false,
                               of.data(), h.data(), c.data());
      for (std::size_t j = 0; j < hid; ++j) CHECK(close(hf(b, j), h[j]));
      reference::lstm_sequence(pb.w.data(), pb.b.data(), x.data() + b * steps * in,
                               h0.data() + b * hid, c0.data() + b * hid, 1, len, in, hid, true,
                               ob.data(), h.data(), c.data());
      for (std::size_t j = 0; j < hid; ++j) CHECK(close(hb(b, j), h[j]));
      // The row alone, both directions over a plain dim.
      const auto [ysr, hfr, hbr] = bilstm(std::type_identity<Steps>{}, row_alone(x, b, len),
                                          state_row(h0, b), state_row(c0, b));
      for (std::size_t t = 0; t < steps; ++t)
        for (std::size_t j = 0; j < 2 * hid; ++j) {
          const float got = ys(b, t, j);
          if (t >= len) {
            CHECK(got == 0.0f);
            continue;
          }
          CHECK(close(got, j < hid ? of[t * hid + j] : ob[t * hid + j - hid]));
          CHECK(close(got, ysr(0, t, j)));
        }
    }
  }
}

TEST_CASE("ragged scan: every length 0 runs no iteration, the carries are the initial values") {
  int calls = 0;
  auto body = [&](const auto& xt, const auto& s) {
    ++calls;
    auto s2 = dg::eval(s + xt);
    return dg::step(dg::carry(s2), dg::emit(s2, s2 * 2.0f));
  };
  dg::tensor<float, Batch, F> h0(dg::extent<Batch>(3));
  fill(h0, 90);
  for (std::size_t steps : {0, 4}) {
    CAPTURE(steps);
    dg::tensor<float, Batch, Time, F> x(dg::extent<Batch>(3), dg::extent<Time>(steps),
                                        dg::lengths<Time>({0, 0, 0}));
    fill(x, 91);
    for (auto slicing : {forward, backward}) {
      calls = 0;
      auto run = [&](auto s) {
        return dg::scan<Time>(body)(dg::sliced<Time, decltype(s)::value>(x), h0);
      };
      auto [ys, zs, h] = slicing.stride > 0 ? run(std::integral_constant<dg::slicing, forward>{})
                                            : run(std::integral_constant<dg::slicing, backward>{});
      CHECK(calls == 0);
      CHECK(ys.extent<Batch>() == 3);
      CHECK(ys.extent<Time>() == steps);
      CHECK(zs.extent<Time>() == steps);
      CHECK(lengths_vector(ys) == std::vector<std::int64_t>{0, 0, 0});
      CHECK(lengths_vector(zs) == std::vector<std::int64_t>{0, 0, 0});
      for (float v : ys.to_vector()) CHECK(v == 0.0f);
      CHECK(h == h0);
    }
  }
  // An empty batch: no row, no iteration.
  dg::tensor<float, Batch, Time, F> empty(dg::extent<Batch>(0), dg::extent<Time>(2),
                                          dg::lengths<Time>(std::vector<std::int64_t>{}));
  const dg::tensor<float, Batch, F> e0(dg::extent<Batch>(0));
  calls = 0;
  auto [ys, zs, h] = dg::scan<Time>(body)(dg::sliced<Time, backward>(empty), e0);
  CHECK(calls == 0);
  CHECK(ys.extent<Batch>() == 0);
  CHECK(ys.extent<Time>() == 2);
  CHECK(h.size() == 0);
}

TEST_CASE("ragged scan: the body runs max(len) times and finished rows read zeros") {
  // Lengths 1 and 3 over an extent of 5: three iterations; at iterations 1 and 2 row 0 has
  // finished and its slice is 0 whatever the padding holds.
  dg::tensor<float, Batch, Time, F> x(dg::extent<Batch>(2), dg::extent<Time>(5),
                                      dg::lengths<Time>({1, 3}));
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = float(i + 1);
  std::vector<std::vector<float>> seen;
  dg::tensor<float, Batch, F> h0(dg::extent<Batch>(2));
  auto [ys, h] = dg::scan<Time>([&](const auto& xt, const auto& s) {
    seen.push_back(xt.to_vector());
    return dg::step(dg::carry(s + xt), dg::emit(xt));
  })(dg::sliced<Time>(x), h0);
  REQUIRE(seen.size() == 3);
  CHECK(seen[0] == std::vector<float>{1, 2, 11, 12});
  CHECK(seen[1] == std::vector<float>{0, 0, 13, 14});
  CHECK(seen[2] == std::vector<float>{0, 0, 15, 16});
  CHECK(h.to_vector() == std::vector<float>{1, 2, 39, 42});
  CHECK(ys.to_vector() ==
        std::vector<float>{1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 11, 12, 13, 14, 15, 16, 0, 0, 0, 0});
}

TEST_CASE("ragged scan: a second sliced input, a forward one without the batch dim, unroll") {
  // y [Batch, Time, F] without lengths takes x's; p [Time, F] has no batch dim: every row reads
  // position i. unroll<2> gives the same values.
  const std::vector<std::int64_t> lens{3, 1};
  dg::tensor<float, Batch, Time, F> x(dg::extent<Batch>(2), dg::lengths<Time>(lens));
  dg::tensor<float, Batch, Time, F> y(dg::extent<Batch>(2), dg::extent<Time>(3));
  dg::tensor<float, Time, F> pos(dg::extent<Time>(3));
  fill(x, 100);
  fill(y, 101);
  fill(pos, 102);
  auto body = [](const auto& xt, const auto& yt, const auto& pt, const auto& s) {
    auto s2 = dg::eval(s * 0.5f + xt * yt + pt);
    return dg::step(dg::carry(s2), dg::emit(s2));
  };
  const dg::tensor<float, Batch, F> h0(dg::extent<Batch>(2));
  auto [ys, h] =
      dg::scan<Time>(body)(dg::sliced<Time>(x), dg::sliced<Time>(y), dg::sliced<Time>(pos), h0);
  auto [ys2, h2] = dg::scan<Time, dg::unroll<2>>(body)(dg::sliced<Time>(x), dg::sliced<Time>(y),
                                                       dg::sliced<Time>(pos), h0);
  CHECK(ys == ys2);
  CHECK(h == h2);
  CHECK(lengths_vector(ys) == lens);
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t f = 0; f < 2; ++f) {
      float s = 0;
      for (std::size_t t = 0; t < 3; ++t) {
        const bool valid = t < static_cast<std::size_t>(lens[b]);
        if (valid) s = s * 0.5f + x(b, t, f) * y(b, t, f) + pos(t, f);
        CHECK(close(ys(b, t, f), valid ? s : 0.0f));
      }
      CHECK(close(h(b, f), s));
    }
}

TEST_CASE("ragged scan: emitted indices and bools past a row's length are zero") {
  const std::vector<std::int64_t> lens{2, 3};
  dg::tensor<float, Batch, Time, In> x(dg::extent<Batch>(2), dg::lengths<Time>(lens));
  fill(x, 110);
  dg::tensor<int, Batch> n0(dg::extent<Batch>(2));
  auto [best, pos, n] = dg::scan<Time>([](const auto& xt, const auto& count) {
    return dg::step(dg::carry(count + 1),
                    dg::emit(dg::argmax<In>(xt), dg::greater(dg::sum<In>(xt), 0.0f)));
  })(dg::sliced<Time>(x), n0);
  CHECK(n.to_vector() == std::vector<int>{2, 3});
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t t = 0; t < 3; ++t) {
      std::size_t want = 0;
      float total = 0;
      for (std::size_t k = 0; k < dg::static_size_v<In>; ++k) {
        if (x(b, t, k) > x(b, t, want)) want = k;
        total += x(b, t, k);
      }
      const bool valid = t < static_cast<std::size_t>(lens[b]);
      CHECK(best(b, t).value() == (valid ? want : 0));
      CHECK(pos(b, t) == (valid && total > 0.0f));
    }
}

TEST_CASE("ragged scan: a tensor without lengths on a ragged dim runs every row in full") {
  dg::tensor<float, Batch, Time, F> x(dg::extent<Batch>(2), dg::extent<Time>(3));
  fill(x, 120);
  const dg::tensor<float, Batch, F> h0(dg::extent<Batch>(2));
  auto [ys, h] = dg::scan<Time>([](const auto& xt, const auto& s) {
    return dg::step(dg::carry(s + xt), dg::emit(xt));
  })(dg::sliced<Time, backward>(x), h0);
  CHECK(ys == x);
  CHECK(lengths_vector(ys) == std::vector<std::int64_t>{3, 3});
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t f = 0; f < 2; ++f) CHECK(close(h(b, f), x(b, 0, f) + x(b, 1, f) + x(b, 2, f)));
}

TEST_CASE("ragged scan: a traced graph runs each row for its own length") {
  const lstm_weights p(130);
  auto fn = [&](const auto& x, const auto& h0, const auto& c0) {
    auto [ys, h, c] = lstm_scan<Time, backward>(p, x, h0, c0);
    return std::tuple{ys, h, c};
  };
  const auto g = dg::trace(fn, dg::input<float, Batch, Time, In>{}, dg::input<float, Batch, Hid>{},
                           dg::input<float, Batch, Hid>{});
  std::ostringstream os;
  os << g;
  CHECK(os.str().find("scan<time>(%0, %1, %2) {sliced 0 [start=-1, end=0, stride=-1, "
                      "part_size=1], carried 1, 2, ragged over batch}") != std::string::npos);
  const auto lens = random_lengths(5, 6, 131);
  const auto x = ragged_input(lens, 6, 132, pad_nan);
  dg::tensor<float, Batch, Hid> h0(dg::extent<Batch>(5)), c0(dg::extent<Batch>(5));
  fill(h0, 133, 0.5f);
  fill(c0, 134, 0.5f);
  const auto [ys, h, c] = g(x, h0, c0);
  CHECK(lengths_vector(ys) == lens);
  constexpr std::size_t hid = dg::static_size_v<Hid>, in = dg::static_size_v<In>;
  for (std::size_t b = 0; b < 5; ++b) {
    const auto len = static_cast<std::size_t>(lens[b]);
    std::vector<float> out(len * hid), hl(hid), cl(hid);
    reference::lstm_sequence(p.w.data(), p.b.data(), x.data() + b * 6 * in, h0.data() + b * hid,
                             c0.data() + b * hid, 1, len, in, hid, true, out.data(), hl.data(),
                             cl.data());
    CHECK(row_mismatches(ys, b, len, out.data()) == 0);
    for (std::size_t j = 0; j < hid; ++j) {
      CHECK(close(h(b, j), hl[j]));
      CHECK(close(c(b, j), cl[j]));
    }
  }
}

TEST_CASE("ragged scan: different lengths or batch extents throw before the first iteration") {
  dg::tensor<float, Batch, Time, F> x(dg::extent<Batch>(2), dg::extent<Time>(3),
                                      dg::lengths<Time>({3, 1}));
  dg::tensor<float, Batch, Time, F> y(dg::extent<Batch>(2), dg::extent<Time>(3),
                                      dg::lengths<Time>({3, 2}));
  int calls = 0;
  auto body = [&](const auto& xt, const auto& yt, const auto& s) {
    ++calls;
    return dg::step(dg::carry(s + xt + yt));
  };
  const dg::tensor<float, Batch, F> h2(dg::extent<Batch>(2)), h3(dg::extent<Batch>(3));
  CHECK_THROWS_WITH_AS((dg::scan<Time>(body)(dg::sliced<Time>(x), dg::sliced<Time>(y), h2)),
                       "dimgraph: scan: dim 'time' has lengths {3, 1} in one operand and {3, 2} "
                       "in another",
                       dg::shape_error);
  CHECK_THROWS_WITH_AS((dg::scan<Time>(body)(dg::sliced<Time>(x), dg::sliced<Time>(x), h3)),
                       "dimgraph: scan: carry 0 has extent 3 along dim 'batch', but dim 'time' "
                       "has 2 lengths",
                       dg::shape_error);
  const dg::tensor<float, Batch, Time, F> z(dg::extent<Batch>(3), dg::extent<Time>(3));
  CHECK_THROWS_WITH_AS(
      (dg::scan<Time>(body)(dg::sliced<Time>(x), dg::sliced<Time, backward>(z), h2)),
      "dimgraph: scan: sliced input 1 has extent 3 along dim 'batch', but dim 'time' has 2 "
      "lengths",
      dg::shape_error);
  CHECK(calls == 0);
}

namespace {
struct Pair : dg::dim<"pair", 2, dg::dim_kind::batch> {};
struct Word : dg::dim<"word", dg::ragged<Pair>> {};
struct Vocab : dg::dim<"vocab", 4> {};
}  // namespace

TEST_CASE("ragged scan: token ids in the padding are never looked up (a static batch dim)") {
  // Padding ids 99 lie outside the vocabulary: an embedding lookup of them would throw.
  dg::tensor<dg::index<Vocab>, Pair, Word> tokens(dg::lengths<Word>({3, 1}));
  const int ids[2][3] = {{1, 3, 0}, {2, 99, 99}};
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t t = 0; t < 3; ++t) tokens(b, t) = dg::index<Vocab>(ids[b][t]);
  dg::tensor<float, Vocab, F> table;
  fill(table, 140);
  const dg::tensor<float, Pair, F> h0;
  for (bool back : {false, true}) {
    CAPTURE(back);
    auto body = [&](const auto& tok, const auto& s) {
      auto s2 = dg::eval(s + dg::nn::embedding(tok, table));
      return dg::step(dg::carry(s2), dg::emit(s2));
    };
    auto [ys, h] = back ? dg::scan<Word>(body)(dg::sliced<Word, backward>(tokens), h0)
                        : dg::scan<Word>(body)(dg::sliced<Word>(tokens), h0);
    CHECK(dg::lengths_of<Word>(ys).to_vector() == std::vector<std::int64_t>{3, 1});
    for (std::size_t f = 0; f < 2; ++f) {
      const float a = table(1, f), b = table(3, f), c = table(0, f), d = table(2, f);
      CHECK(close(h(0, f), a + b + c));
      CHECK(close(h(1, f), d));
      CHECK(close(ys(0, 0, f), back ? a + b + c : a));
      CHECK(close(ys(0, 1, f), back ? b + c : a + b));
      CHECK(close(ys(0, 2, f), back ? c : a + b + c));
      CHECK(close(ys(1, 0, f), d));
      CHECK(ys(1, 1, f) == 0.0f);
      CHECK(ys(1, 2, f) == 0.0f);
    }
  }
}
