// dg::scan over a ragged dim: each batch row runs for its own length. Checked against hand
// loops (running sums, tests/support/reference_lstm.hpp, a plain-loop GRU written here) and
// against each sequence run alone (a batch of one, without padding); padding values (NaN, inf)
// change nothing; forwards, backwards and bidirectional; no iteration; traced. Each scan is
// compiled once and serves several cases: the forward running sum is unrolled by 2, the
// backward one runs time-last with its carry in another dim order, the GRU runs time-major and
// also emits indices and bools and carries a count.
#include <dimgraph.hpp>

#include "ragged_fixture.hpp"

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
#include <utility>
#include <vector>

#include "reference_lstm.hpp"

namespace dg = dimgraph;

namespace {

using namespace ragged_fixture;
struct F : dg::dim<"f", 2> {};
struct In : dg::dim<"input", 5> {};
struct Hid : dg::dim<"hidden", 4> {};

constexpr std::size_t hid = dg::static_size_v<Hid>, in = dg::static_size_v<In>;
constexpr dg::slicing forward{};
constexpr dg::slicing backward{.start = -1, .end = 0, .stride = -1};

using Gates = decltype(dg::c<4> * Hid{});
using Columns = decltype(In{} + Hid{});
using GruGates = decltype(dg::c<3> * Hid{});

using x_t = dg::tensor<float, Batch, Time, F>;
using last_t = dg::tensor<float, Batch, F, Time>;
using sum_t = dg::tensor<float, Batch, F>;
using carry_t = dg::tensor<float, F, Batch>;
using input_t = dg::tensor<float, Batch, Time, In>;
using major_t = dg::tensor<float, Time, Batch, In>;  // time-major, as PyTorch's RNNs
using state_t = dg::tensor<float, Batch, Hid>;
using count_t = dg::tensor<int, Batch>;

// Seeded values in [-scale, scale] (not the library's own fill).
template <class X>
void fill(X& x, unsigned seed, float scale = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = u(gen);
}

state_t states(std::size_t rows, unsigned seed) {
  state_t s(dg::extent<Batch>(rows));
  fill(s, seed, 0.5f);
  return s;
}
state_t state_row(const state_t& h, std::size_t b) {
  state_t r(dg::extent<Batch>(1));
  for (std::size_t j = 0; j < hid; ++j) r(0, j) = h(b, j);
  return r;
}

// The running sum as a scan body: carries x_t + s and emits it. Given somewhere to, it also
// keeps each slice it reads (and so counts its calls).
struct running_sum {
  std::vector<std::vector<float>>* seen = nullptr;
  template <class X, class S>
  auto operator()(const X& xt, const S& s) const {
    if (seen) seen->push_back(xt.to_vector());
    auto s2 = dg::eval(xt + s);
    return dg::step(dg::carry(s2), dg::emit(s2));
  }
};

// The running sums of x [Batch, Time, F] forwards, unrolled by 2, from h0 [Batch, F]; and of
// y [Batch, F, Time] backwards from h0 [F, Batch] (a carry in another order than the body's
// value, [Batch, F]). (outputs, last sums)
auto forward_sums(const x_t& x, const sum_t& h0, running_sum body = {}) {
  return dg::scan<Time, dg::unroll<2>>(body)(dg::sliced<Time>(x), h0);
}
auto backward_sums(const last_t& y, const carry_t& h0, running_sum body = {}) {
  return dg::scan<Time>(body)(dg::sliced<Time, backward>(y), h0);
}

// x laid out [Batch, F, Time], copied element by element: dg::permute's view drops the lengths.
last_t time_last(const x_t& x, const lens_t& l) {
  last_t y(dg::extent<Batch>(l.size()), dg::extent<Time>(x.extent<Time>()), dg::lengths<Time>(l));
  for (std::size_t b = 0; b < l.size(); ++b)
    for (std::size_t t = 0; t < x.extent<Time>(); ++t)
      for (std::size_t f = 0; f < 2; ++f) y(b, f, t) = x(b, t, f);
  return y;
}

struct lstm_weights {
  dg::tensor<float, Gates, Columns> w;
  dg::tensor<float, Gates> b;
  explicit lstm_weights(unsigned seed) {
    fill(w, seed, 0.4f);
    fill(b, seed + 1, 0.2f);
  }
};

// The LSTM over Time walked by S: (outputs, last h, last c).
template <dg::slicing S, class X, class H, class C>
auto lstm_scan(const lstm_weights& p, const X& x, const H& h0, const C& c0) {
  return dg::scan<Time>([&](const auto& xt, const auto& h, const auto& c) {
    auto next = dg::nn::lstm_cell(xt, h, c, p.w, p.b);
    return dg::step(dg::carry(next.h, next.c), dg::emit(next.h));
  })(dg::sliced<Time, S>(x), h0, c0);
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

// The GRU over Time walked by S, on a time-major x: emits h, the argmax of h and whether h sums
// above 0; carries h and the number of steps taken. (outputs, argmaxes, signs, last h, counts)
template <dg::slicing S>
auto gru_scan(const gru_weights& p, const major_t& x, const state_t& h0, const count_t& n0) {
  return dg::scan<Time>([&](const auto& xt, const auto& h, const auto& n) {
    auto h2 = dg::eval(dg::nn::gru_cell(xt, h, p.w, p.r, p.bi, p.bh));
    return dg::step(dg::carry(h2, n + 1),
                    dg::emit(h2, dg::argmax<Hid>(h2), dg::greater(dg::sum<Hid>(h2), 0.0f)));
  })(dg::sliced<Time, S>(x), h0, n0);
}

// x time-major, [Time, Batch, In], lengths kept.
major_t time_major(const input_t& x, const lens_t& l) {
  major_t y(dg::extent<Batch>(l.size()), dg::extent<Time>(x.extent<Time>()), dg::lengths<Time>(l));
  for (std::size_t b = 0; b < l.size(); ++b)
    for (std::size_t t = 0; t < x.extent<Time>(); ++t)
      for (std::size_t k = 0; k < in; ++k) y(t, b, k) = x(b, t, k);
  return y;
}

float sigmoid(float v) {
  return 1.0f / (1.0f + std::exp(-v));
}

// One GRU step on plain arrays (PyTorch's GRUCell), h updated in place from x.
void reference_gru_step(const gru_weights& p, const float* x, float* h) {
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

// ys(b, t, j) in any dim order.
template <class Y>
float at(const Y& ys, std::size_t b, std::size_t t, std::size_t j) {
  return ys.at(dg::at<Batch>(b), dg::at<Time>(t), dg::at<Hid>(j));
}

// Every valid step of row b of ys [.., Batch, Time, Hid ..] that is not close to want [len, Hid]
// (hand loop order: time positions), and every step past len that is not exactly 0.
template <class Y>
std::size_t row_mismatches(const Y& ys, std::size_t b, std::size_t len, const float* want) {
  std::size_t bad = 0;
  for (std::size_t t = 0; t < ys.template extent<Time>(); ++t)
    for (std::size_t j = 0; j < hid; ++j)
      bad += t < len ? !close(at(ys, b, t, j), want[t * hid + j]) : at(ys, b, t, j) != 0.0f;
  return bad;
}

// The same for row 0 of a sequence run alone, against row b of the batch's.
template <class Y, class A>
std::size_t alone_mismatches(const Y& ys, std::size_t b, const A& alone_ys) {
  std::size_t bad = 0;
  for (std::size_t t = 0; t < alone_ys.template extent<Time>(); ++t)
    for (std::size_t j = 0; j < hid; ++j) bad += !close(at(ys, b, t, j), at(alone_ys, 0, t, j));
  return bad;
}

}  // namespace

TEST_CASE("ragged scan: a running sum stops at each row's length and emits 0 past it") {
  // Rows of lengths 4, 2, 0 and 3; x(b, t) = 10 b + t + 1 at valid steps, padding -100. (Unrolled
  // by 2: row 3 ends inside an unrolled pair.)
  const lens_t lens{4, 2, 0, 3};
  x_t xm(dg::extent<Batch>(4), dg::lengths<Time>(lens));
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t t = 0; t < 4; ++t)
      for (std::size_t f = 0; f < 2; ++f)
        xm(b, t, f) = valid(lens, b, t) ? float(10 * b + t + 1) * float(f + 1) : -100.0f;
  const sum_t h0(dg::extent<Batch>(4));
  auto [ys, h] = forward_sums(xm, h0);
  static_assert(std::is_same_v<decltype(ys), x_t>);
  CHECK(lengths_vector(ys) == lens);
  CHECK(dg::to_string(ys.shape()) == "[batch[4], time[4] lengths {4, 2, 0, 3}, f=2]");
  for (std::size_t b = 0; b < 4; ++b) {
    float sum = 0;
    for (std::size_t t = 0; t < 4; ++t) {
      if (valid(lens, b, t)) sum += float(10 * b + t + 1);
      for (std::size_t f = 0; f < 2; ++f)
        CHECK(ys(b, t, f) == (valid(lens, b, t) ? sum * float(f + 1) : 0.0f));
    }
    for (std::size_t f = 0; f < 2; ++f) CHECK(h(b, f) == sum * float(f + 1));
  }
}

TEST_CASE("ragged scan: a backward running sum starts at each row's own last step") {
  // Laid out time-last, [Batch, F, Time]; the carry is [F, Batch] while the body's value is
  // [Batch, F].
  const lens_t lens{3, 5, 1, 0};
  x_t xm(dg::extent<Batch>(4), dg::lengths<Time>(lens));
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t t = 0; t < 5; ++t)
      for (std::size_t f = 0; f < 2; ++f)
        xm(b, t, f) = valid(lens, b, t) ? float(100 * b + 10 * t + f) : float(qnan);
  const last_t x = time_last(xm, lens);
  CHECK(lengths_vector(x) == lens);
  const carry_t h0(dg::extent<Batch>(4));
  auto [ys, h] = backward_sums(x, h0);
  static_assert(std::is_same_v<decltype(ys), last_t>);
  CHECK(lengths_vector(ys) == lens);
  for (std::size_t b = 0; b < 4; ++b) {
    const auto len = row_length(lens, b);
    for (std::size_t f = 0; f < 2; ++f) {
      // Position t holds the sum of x(b, t..len-1): the walk from len - 1 down to t.
      float suffix = 0;
      for (std::size_t t = 5; t-- > 0;) {
        if (t < len) suffix += float(100 * b + 10 * t + f);
        CHECK(ys(b, f, t) == (t < len ? suffix : 0.0f));
      }
      CHECK(h(f, b) == suffix);
    }
  }
}

TEST_CASE("ragged scan: a ragged LSTM equals each sequence run alone, forwards and backwards") {
  const lstm_weights p(21);
  constexpr std::size_t steps = 7;
  for (std::size_t rows : {2u, 5u, 9u}) {
    const auto lens = random_lengths(rows, steps, 30 + unsigned(rows));
    const input_t x = padded<float, In>(lens, 31, 0.5);
    const state_t h0 = states(rows, 32), c0 = states(rows, 33);
    for (bool back : {false, true}) {
      CAPTURE(rows);
      CAPTURE(back);
      auto [ys, h, c] = back ? lstm_scan<backward>(p, x, h0, c0) : lstm_scan<forward>(p, x, h0, c0);
      CHECK(lengths_vector(ys) == lens);
      for (std::size_t b = 0; b < rows; ++b) {
        CAPTURE(b);
        const auto len = row_length(lens, b);
        // The plain-loop LSTM on the row alone.
        std::vector<float> out(len * hid), h_last(hid), c_last(hid);
        reference::lstm_sequence(p.w.data(), p.b.data(), x.data() + b * steps * in,
                                 h0.data() + b * hid, c0.data() + b * hid, 1, len, in, hid, back,
                                 out.data(), h_last.data(), c_last.data());
        CHECK(row_mismatches(ys, b, len, out.data()) == 0);
        // The row alone through the scan: a batch of one, without padding.
        const auto xr = alone<Time>(x, lens, b);
        auto [ysr, hr, cr] = back ? lstm_scan<backward>(p, xr, state_row(h0, b), state_row(c0, b))
                                  : lstm_scan<forward>(p, xr, state_row(h0, b), state_row(c0, b));
        CHECK(alone_mismatches(ys, b, ysr) == 0);
        for (std::size_t j = 0; j < hid; ++j) {
          CHECK(close(h(b, j), h_last[j]));
          CHECK(close(c(b, j), c_last[j]));
          CHECK(close(h(b, j), hr(0, j)));
          CHECK(close(c(b, j), cr(0, j)));
        }
      }
    }
  }
}

TEST_CASE("ragged scan: a time-major GRU equals each sequence run alone, forwards and backwards") {
  // Its emitted indices and bools are 0 (false) past a row's length, and its carried count stops
  // at the length.
  const gru_weights p(41);
  constexpr std::size_t steps = 6;
  for (std::size_t rows : {3u, 8u}) {
    const auto lens = random_lengths(rows, steps, 50 + unsigned(rows));
    const input_t xb = padded<float, In>(lens, 51, -2.0);
    const major_t x = time_major(xb, lens);
    const state_t h0 = states(rows, 52);
    const count_t n0(dg::extent<Batch>(rows));
    for (bool back : {false, true}) {
      CAPTURE(rows);
      CAPTURE(back);
      auto [ys, best, up, h, n] =
          back ? gru_scan<backward>(p, x, h0, n0) : gru_scan<forward>(p, x, h0, n0);
      static_assert(std::is_same_v<decltype(ys), dg::tensor<float, Time, Batch, Hid>>);
      CHECK(lengths_vector(ys) == lens);
      CHECK(lengths_vector(best) == lens);
      CHECK(lengths_vector(up) == lens);
      for (std::size_t b = 0; b < rows; ++b) {
        CAPTURE(b);
        const auto len = row_length(lens, b);
        CHECK(n(b) == static_cast<int>(len));
        std::vector<float> out(len * hid), state(h0.data() + b * hid, h0.data() + (b + 1) * hid);
        for (std::size_t s = 0; s < len; ++s) {
          const std::size_t t = back ? len - 1 - s : s;
          reference_gru_step(p, x.data() + (t * rows + b) * in, state.data());
          for (std::size_t j = 0; j < hid; ++j) out[t * hid + j] = state[j];
        }
        CHECK(row_mismatches(ys, b, len, out.data()) == 0);
        for (std::size_t t = 0; t < steps; ++t) {
          std::size_t top = 0;
          float total = 0;
          for (std::size_t j = 0; t < len && j < hid; ++j) {
            if (out[t * hid + j] > out[t * hid + top]) top = j;
            total += out[t * hid + j];
          }
          CHECK(static_cast<std::size_t>(best(t, b).value()) == top);
          CHECK(up(t, b) == (t < len && total > 0.0f));
        }
        // The row alone: a batch of one, without padding.
        const major_t xr = time_major(alone<Time>(xb, lens, b), {lens[b]});
        auto [ysr, bestr, upr, hr, nr] =
            back ? gru_scan<backward>(p, xr, state_row(h0, b), count_t(dg::extent<Batch>(1)))
                 : gru_scan<forward>(p, xr, state_row(h0, b), count_t(dg::extent<Batch>(1)));
        CHECK(alone_mismatches(ys, b, ysr) == 0);
        for (std::size_t j = 0; j < hid; ++j) {
          CHECK(close(h(b, j), state[j]));
          CHECK(close(h(b, j), hr(0, j)));
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
  const state_t h0 = states(rows, 64), c0 = states(rows, 65);
  const count_t n0(dg::extent<Batch>(rows));
  const input_t x0 = padded<float, In>(lens, 66, 0.0);
  const major_t m0 = time_major(x0, lens);
  const auto [ys0, h0f, c0f] = lstm_scan<forward>(p, x0, h0, c0);
  const auto [zs0, hb0, cb0] = lstm_scan<backward>(p, x0, h0, c0);
  const auto [fs0, fa0, fu0, f0, fn0] = gru_scan<forward>(q, m0, h0, n0);
  const auto [gs0, ga0, gu0, g0, gn0] = gru_scan<backward>(q, m0, h0, n0);
  for (double pad : {qnan, inf, -inf, 1e30}) {
    CAPTURE(pad);
    const input_t x = padded<float, In>(lens, 66, pad);
    const major_t m = time_major(x, lens);
    const auto [ys, hf, cf] = lstm_scan<forward>(p, x, h0, c0);
    CHECK(count_different(ys, ys0) == 0);
    CHECK(count_different(hf, h0f) == 0);
    CHECK(count_different(cf, c0f) == 0);
    const auto [zs, hb, cb] = lstm_scan<backward>(p, x, h0, c0);
    CHECK(count_different(zs, zs0) == 0);
    CHECK(count_different(hb, hb0) == 0);
    CHECK(count_different(cb, cb0) == 0);
    const auto [fs, fa, fu, f, fn] = gru_scan<forward>(q, m, h0, n0);
    CHECK(count_different(fs, fs0) == 0);
    CHECK(count_different(fa, fa0) == 0);
    CHECK(count_different(fu, fu0) == 0);
    CHECK(count_different(f, f0) == 0);
    const auto [gs, ga, gu, g, gn] = gru_scan<backward>(q, m, h0, n0);
    CHECK(count_different(gs, gs0) == 0);
    CHECK(count_different(ga, ga0) == 0);
    CHECK(count_different(gu, gu0) == 0);
    CHECK(count_different(g, g0) == 0);
  }
}

TEST_CASE("ragged scan: a bidirectional LSTM at batch 1 and more equals per-sequence runs") {
  // Forward and backward LSTMs (weights of their own), outputs concatenated along hidden.
  const lstm_weights pf(71), pb(72);
  constexpr std::size_t steps = 6;
  auto bilstm = [&](const input_t& x, const state_t& h0, const state_t& c0) {
    auto [yf, hf, cf] = lstm_scan<forward>(pf, x, h0, c0);
    auto [yb, hb, cb] = lstm_scan<backward>(pb, x, h0, c0);
    return std::tuple{dg::eval(dg::concat(dg::along<Hid>(yf), dg::along<Hid>(yb))), hf, hb};
  };
  for (std::size_t rows : {1u, 4u}) {
    CAPTURE(rows);
    auto lens = random_lengths(rows, steps, 80 + unsigned(rows));
    if (rows == 1) lens[0] = 4;  // (one row, shorter than the extent)
    const input_t x = padded<float, In>(lens, 81, qnan, 1.0, steps);
    const state_t h0 = states(rows, 82), c0 = states(rows, 83);
    const auto [ys, hf, hb] = bilstm(x, h0, c0);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(ys)>,
                                 dg::tensor<float, Batch, Time, decltype(dg::c<2> * Hid{})>>);
    REQUIRE(ys.extent<Time>() == steps);
    for (std::size_t b = 0; b < rows; ++b) {
      CAPTURE(b);
      const auto len = row_length(lens, b);
      std::vector<float> of(len * hid), ob(len * hid), h(hid), c(hid);
      reference::lstm_sequence(pf.w.data(), pf.b.data(), x.data() + b * steps * in,
                               h0.data() + b * hid, c0.data() + b * hid, 1, len, in, hid, false,
                               of.data(), h.data(), c.data());
      for (std::size_t j = 0; j < hid; ++j) CHECK(close(hf(b, j), h[j]));
      reference::lstm_sequence(pb.w.data(), pb.b.data(), x.data() + b * steps * in,
                               h0.data() + b * hid, c0.data() + b * hid, 1, len, in, hid, true,
                               ob.data(), h.data(), c.data());
      for (std::size_t j = 0; j < hid; ++j) CHECK(close(hb(b, j), h[j]));
      // The row alone, both directions: a batch of one, without padding.
      const auto [ysr, hfr, hbr] =
          bilstm(alone<Time>(x, lens, b), state_row(h0, b), state_row(c0, b));
      REQUIRE(ysr.extent<Time>() == len);
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
  std::vector<std::vector<float>> seen;
  sum_t h0m(dg::extent<Batch>(3));
  fill(h0m, 90);
  const sum_t& h0 = h0m;
  const carry_t h0t = dg::permute<F, Batch>(h0);
  for (std::size_t steps : {0u, 4u}) {
    CAPTURE(steps);
    const lens_t none{0, 0, 0};
    const x_t x = padded<float, F>(none, 91, 1.0, 1.0, steps);
    seen.clear();
    auto [ys, h] = forward_sums(x, h0, {&seen});
    CHECK(seen.empty());
    CHECK(ys.extent<Batch>() == 3);
    CHECK(ys.extent<Time>() == steps);
    CHECK(lengths_vector(ys) == none);
    for (float v : ys.to_vector()) CHECK(v == 0.0f);
    CHECK(count_different(h, h0) == 0);
    auto [zs, z] = backward_sums(time_last(x, none), h0t, {&seen});
    CHECK(seen.empty());
    CHECK(zs.extent<Time>() == steps);
    CHECK(lengths_vector(zs) == none);
    for (float v : zs.to_vector()) CHECK(v == 0.0f);
    CHECK(count_different(z, h0t) == 0);
  }
  // An empty batch: no row, no iteration.
  const last_t empty(dg::extent<Batch>(0), dg::extent<Time>(2), dg::lengths<Time>(lens_t{}));
  const carry_t e0(dg::extent<Batch>(0));
  seen.clear();
  auto [ys, h] = backward_sums(empty, e0, {&seen});
  CHECK(seen.empty());
  CHECK(ys.extent<Batch>() == 0);
  CHECK(ys.extent<Time>() == 2);
  CHECK(h.size() == 0);
}

TEST_CASE("ragged scan: the body runs max(len) times and finished rows read zeros") {
  // Lengths 1 and 3 over an extent of 5: three iterations; at iterations 1 and 2 row 0 has
  // finished and its slice is 0 whatever the padding holds.
  x_t x(dg::extent<Batch>(2), dg::extent<Time>(5), dg::lengths<Time>({1, 3}));
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = float(i + 1);
  std::vector<std::vector<float>> seen;
  const sum_t h0(dg::extent<Batch>(2));
  auto [ys, h] = forward_sums(x, h0, {&seen});
  REQUIRE(seen.size() == 3);
  CHECK(seen[0] == std::vector<float>{1, 2, 11, 12});
  CHECK(seen[1] == std::vector<float>{0, 0, 13, 14});
  CHECK(seen[2] == std::vector<float>{0, 0, 15, 16});
  CHECK(h.to_vector() == std::vector<float>{1, 2, 39, 42});
  CHECK(ys.to_vector() ==
        std::vector<float>{1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 11, 12, 24, 26, 39, 42, 0, 0, 0, 0});
}

namespace {
// s * 0.5 + x_t * y_t + p_t, counting its calls.
struct mixing {
  int* calls;
  template <class X, class Y, class P, class S>
  auto operator()(const X& xt, const Y& yt, const P& pt, const S& s) const {
    ++*calls;
    auto s2 = dg::eval(s * 0.5f + xt * yt + pt);
    return dg::step(dg::carry(s2), dg::emit(s2));
  }
};
using position_t = dg::tensor<float, Time, F>;
auto mixed(int& calls, const x_t& x, const x_t& y, const position_t& pos, const sum_t& h0) {
  return dg::scan<Time>(mixing{&calls})(dg::sliced<Time>(x), dg::sliced<Time>(y),
                                        dg::sliced<Time>(pos), h0);
}
}  // namespace

TEST_CASE("ragged scan: a second sliced input, and a forward one without the batch dim") {
  // y [Batch, Time, F] without lengths takes x's; p [Time, F] has no batch dim: every row reads
  // position i.
  const lens_t lens{3, 1};
  x_t x(dg::extent<Batch>(2), dg::lengths<Time>(lens));
  x_t y(dg::extent<Batch>(2), dg::extent<Time>(3));
  position_t pos(dg::extent<Time>(3));
  fill(x, 100);
  fill(y, 101);
  fill(pos, 102);
  const sum_t h0(dg::extent<Batch>(2));
  int calls = 0;
  auto [ys, h] = mixed(calls, x, y, pos, h0);
  CHECK(calls == 3);
  CHECK(lengths_vector(ys) == lens);
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t f = 0; f < 2; ++f) {
      float s = 0;
      for (std::size_t t = 0; t < 3; ++t) {
        if (valid(lens, b, t)) s = s * 0.5f + x(b, t, f) * y(b, t, f) + pos(t, f);
        CHECK(close(ys(b, t, f), valid(lens, b, t) ? s : 0.0f));
      }
      CHECK(close(h(b, f), s));
    }
}

TEST_CASE("ragged scan: different lengths or batch extents throw before the first iteration") {
  const x_t x(dg::extent<Batch>(2), dg::extent<Time>(3), dg::lengths<Time>({3, 1}));
  const x_t y(dg::extent<Batch>(2), dg::extent<Time>(3), dg::lengths<Time>({3, 2}));
  const x_t z(dg::extent<Batch>(3), dg::extent<Time>(3));
  const position_t pos(dg::extent<Time>(3));
  const sum_t h2(dg::extent<Batch>(2)), h3(dg::extent<Batch>(3));
  int calls = 0;
  CHECK_THROWS_WITH_AS(mixed(calls, x, y, pos, h2),
                       "dimgraph: scan: dim 'time' has lengths {3, 1} in one operand and {3, 2} "
                       "in another",
                       dg::shape_error);
  CHECK_THROWS_WITH_AS(mixed(calls, x, x, pos, h3),
                       "dimgraph: scan: carry 0 has extent 3 along dim 'batch', but dim 'time' "
                       "has 2 lengths",
                       dg::shape_error);
  CHECK_THROWS_WITH_AS(mixed(calls, x, z, pos, h2),
                       "dimgraph: scan: sliced input 1 has extent 3 along dim 'batch', but dim "
                       "'time' has 2 lengths",
                       dg::shape_error);
  CHECK(calls == 0);
}

TEST_CASE("ragged scan: a tensor without lengths on a ragged dim runs every row in full") {
  last_t xm(dg::extent<Batch>(2), dg::extent<Time>(3));
  fill(xm, 120);
  const last_t& x = xm;
  const carry_t h0(dg::extent<Batch>(2));
  auto [ys, h] = backward_sums(x, h0);
  CHECK(lengths_vector(ys) == lens_t{3, 3});
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t f = 0; f < 2; ++f) {
      float suffix = 0;
      for (std::size_t t = 3; t-- > 0;) {
        suffix += x(b, f, t);
        CHECK(close(ys(b, f, t), suffix));
      }
      CHECK(close(h(f, b), suffix));
    }
}

TEST_CASE("ragged scan: a traced graph runs each row for its own length") {
  auto fn = [](const auto& x, const auto& h0) {
    return dg::scan<Time, dg::unroll<2>>([](const auto& xt, const auto& s) {
      auto s2 = xt + s;
      return dg::step(dg::carry(s2), dg::emit(s2));
    })(dg::sliced<Time>(x), h0);
  };
  const auto g = dg::trace(fn, dg::input<float, Batch, Time, F>{}, dg::input<float, Batch, F>{});
  std::ostringstream os;
  os << g;
  CHECK(os.str().find("scan<time>(%0, %1) {sliced 0 [start=0, end=-1, stride=1, part_size=1], "
                      "carried 1, unroll=2, ragged over batch}") != std::string::npos);
  const auto lens = random_lengths(5, 6, 131);
  const x_t x = padded<float, F>(lens, 132);
  sum_t h0(dg::extent<Batch>(5));
  fill(h0, 133);
  const auto [ys, h] = g(x, std::as_const(h0));
  CHECK(lengths_vector(ys) == lens);
  for (std::size_t b = 0; b < 5; ++b)
    for (std::size_t f = 0; f < 2; ++f) {
      float sum = h0(b, f);
      for (std::size_t t = 0; t < 6; ++t) {
        if (valid(lens, b, t)) sum += x(b, t, f);
        CHECK(close(ys(b, t, f), valid(lens, b, t) ? sum : 0.0f));
      }
      CHECK(close(h(b, f), sum));
    }
}

namespace {
struct Vocab : dg::dim<"vocab", 4> {};
}  // namespace

TEST_CASE("ragged scan: token ids in the padding are never looked up (a static batch dim)") {
  // Padding ids 99 lie outside the vocabulary: an embedding lookup of them would throw. Walked
  // backwards, where each row starts at its own last step.
  dg::tensor<dg::index<Vocab>, Pair, Word> tokens(dg::lengths<Word>({3, 1}));
  const int ids[2][3] = {{1, 3, 0}, {2, 99, 99}};
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t t = 0; t < 3; ++t) tokens(b, t) = dg::index<Vocab>(ids[b][t]);
  dg::tensor<float, Vocab, F> table;
  fill(table, 140);
  const dg::tensor<float, Pair, F> h0;
  auto [ys, h] = dg::scan<Word>([&](const auto& tok, const auto& s) {
    auto s2 = dg::eval(s + dg::nn::embedding(tok, table));
    return dg::step(dg::carry(s2), dg::emit(s2));
  })(dg::sliced<Word, backward>(tokens), h0);
  CHECK(lengths_vector<Word>(ys) == lens_t{3, 1});
  for (std::size_t f = 0; f < 2; ++f) {
    const float a = table(1, f), b = table(3, f), c = table(0, f), d = table(2, f);
    CHECK(close(h(0, f), a + b + c));
    CHECK(close(h(1, f), d));
    CHECK(close(ys(0, 0, f), a + b + c));
    CHECK(close(ys(0, 1, f), b + c));
    CHECK(close(ys(0, 2, f), c));
    CHECK(close(ys(1, 0, f), d));
    CHECK(ys(1, 1, f) == 0.0f);
    CHECK(ys(1, 2, f) == 0.0f);
  }
}
