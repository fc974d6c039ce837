// dg::scan<D, dg::hoist>: the nodes of the body that depend on no carry run once, before the
// loop, over the whole sliced input; the results are the naive schedule's.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace dg = dimgraph;

namespace {

struct Batch : dg::dim<"batch"> {};
struct Time : dg::dim<"time"> {};
struct In : dg::dim<"in", 5> {};
struct Hid : dg::dim<"hid", 4> {};
struct Out : dg::dim<"out", 4> {};

using x_t = dg::tensor<float, Batch, Time, In>;
using h_t = dg::tensor<float, Batch, Hid>;

x_t sequence(std::size_t batch, std::size_t time, std::uint64_t seed) {
  return dg::uniform<float, Batch, Time, In>(seed, -1.0f, 1.0f, dg::extent<Batch>(batch),
                                             dg::extent<Time>(time));
}

struct weights {
  dg::tensor<float, Out, In> w = dg::uniform<float, Out, In>(11, -0.5f, 0.5f);
  dg::tensor<float, Out, Hid> r = dg::uniform<float, Out, Hid>(12, -0.5f, 0.5f);
  dg::tensor<float, Out> b = dg::uniform<float, Out>(13, -0.5f, 0.5f);
};

// h' = tanh(x . W + b + h . R) (Out renamed to Hid), emitted every step: x . W + b depends on
// no carry and is hoisted.
auto rnn_body(const weights& p) {
  return [&p](const auto& xt, const auto& h) {
    auto pre = dg::eval(dg::tanh(dg::dot<In>(xt, p.w) + p.b + dg::dot<Hid>(h, p.r)));
    auto next = dg::rename<Out, Hid>(pre);
    return dg::step(dg::carry(next), dg::emit(next));
  };
}

// The same recurrence as a plain loop in double: out [batch][time][hid], last h.
struct plain_rnn {
  std::vector<double> out, last;
};
plain_rnn rnn_by_hand(const x_t& x, const h_t& h0, const weights& p, bool backward) {
  const std::size_t nb = x.extent<Batch>(), nt = x.extent<Time>(), ni = 5, nh = 4;
  plain_rnn r;
  r.out.assign(nb * nt * nh, 0.0);
  r.last.assign(nb * nh, 0.0);
  for (std::size_t b = 0; b < nb; ++b) {
    std::vector<double> h(nh);
    for (std::size_t j = 0; j < nh; ++j) h[j] = h0(b, j);
    for (std::size_t s = 0; s < nt; ++s) {
      const std::size_t t = backward ? nt - 1 - s : s;
      std::vector<double> next(nh);
      for (std::size_t o = 0; o < nh; ++o) {
        double acc = p.b(o);
        for (std::size_t k = 0; k < ni; ++k) acc += double(p.w(o, k)) * x(b, t, k);
        for (std::size_t k = 0; k < nh; ++k) acc += double(p.r(o, k)) * h[k];
        next[o] = std::tanh(acc);
      }
      h = next;
      for (std::size_t j = 0; j < nh; ++j) r.out[(b * nt + t) * nh + j] = h[j];
    }
    for (std::size_t j = 0; j < nh; ++j) r.last[b * nh + j] = h[j];
  }
  return r;
}

template <class Ys, class H>
void check_rnn(const Ys& ys, const H& last, const plain_rnn& want) {
  const std::size_t nb = ys.template extent<Batch>(), nt = ys.template extent<Time>();
  for (std::size_t b = 0; b < nb; ++b)
    for (std::size_t t = 0; t < nt; ++t)
      for (std::size_t j = 0; j < 4; ++j)
        CHECK(ys.at(dg::at<Batch>(b), dg::at<Time>(t), dg::at<Hid>(j)) ==
              doctest::Approx(want.out[(b * nt + t) * 4 + j]).epsilon(1e-5));
  for (std::size_t b = 0; b < nb; ++b)
    for (std::size_t j = 0; j < 4; ++j)
      CHECK(last(b, j) == doctest::Approx(want.last[b * 4 + j]).epsilon(1e-5));
}

// The largest |a - b| / max(1, |b|) over two tensors of the same dims.
template <class A, class B>
double max_relative(const A& a, const B& b) {
  const auto va = a.to_vector(), vb = b.to_vector();
  REQUIRE(va.size() == vb.size());
  double d = 0;
  for (std::size_t i = 0; i < va.size(); ++i) {
    const double e = std::fabs(double(va[i]) - vb[i]) / std::max(1.0, std::fabs(double(vb[i])));
    if (!(e <= d)) d = e;
  }
  return d;
}

}  // namespace

TEST_CASE("scan hoist: the plan names the carry-free contraction, and only it") {
  const weights p;
  const auto scan = dg::scan<Time, dg::hoist>(rnn_body(p));
  using hoisted =
      decltype(scan)::hoisted_nodes<dg::sliced_input<Time, dg::slicing{}, const x_t&>, h_t>;
  static_assert(hoisted::size == 1);
  // x . W + b: the add of the product of argument 0 (the slice) and a captured tensor.
  using node = dg::detail::front_t<hoisted>;
  static_assert(node::op::name.view() == "add");
  using product = std::tuple_element_t<0, decltype(node::children)>;
  static_assert(product::op::name.view() == "dot");
  static_assert(std::is_same_v<std::tuple_element_t<0, decltype(product::children)>,
                               dg::arg_node<0, float, Batch, In>>);
  // Without dg::hoist, nothing is.
  const auto naive = dg::scan<Time>(rnn_body(p));
  static_assert(decltype(naive)::hoisted_nodes<dg::sliced_input<Time, dg::slicing{}, const x_t&>,
                                               h_t>::size == 0);
}

TEST_CASE("scan hoist: a recurrence with a hoisted input projection equals the plain loop") {
  const weights p;
  for (std::size_t batch : {std::size_t{1}, std::size_t{3}, std::size_t{32}}) {
    CAPTURE(batch);
    const auto x = sequence(batch, 6, 100 + batch);
    const auto h0 = dg::uniform<float, Batch, Hid>(7, -1.0f, 1.0f, dg::extent<Batch>(batch));
    const auto [ys, last] = dg::scan<Time, dg::hoist>(rnn_body(p))(dg::sliced<Time>(x), h0);
    check_rnn(ys, last, rnn_by_hand(x, h0, p, false));
    const auto [ys2, last2] = dg::scan<Time, dg::no_hoist>(rnn_body(p))(dg::sliced<Time>(x), h0);
    CHECK(max_relative(ys, ys2) <= 1e-5);
    CHECK(max_relative(last, last2) <= 1e-5);
  }
}

TEST_CASE("scan hoist: the loop's products take the captured weight as a constant") {
  // In the loop, the weight cache active while the body runs holds R (multiplied by the carry)
  // and nothing else: not the carry, not W (its product is hoisted); without dg::hoist, and
  // outside the loop, none is active.
  const weights p;
  const auto x = sequence(4, 5, 31);
  const auto h0 = dg::uniform<float, Batch, Hid>(8, -1.0f, 1.0f, dg::extent<Batch>(4));
  std::size_t with_cache = 0, only_r = 0;
  auto body = [&](const auto& xt, const auto& h) {
    auto pre = dg::eval(dg::tanh(dg::dot<In>(xt, p.w) + p.b + dg::dot<Hid>(h, p.r)));
    if (const dg::detail::weight_cache* cache = dg::detail::active_weight_cache()) {
      ++with_cache;
      const auto [lo, hi] = dg::detail::memory_span(p.r);
      only_r += cache->holds(lo, hi) && cache->constants() == 1;
    }
    auto next = dg::rename<Out, Hid>(pre);
    return dg::step(dg::carry(next), dg::emit(next));
  };
  const auto [ys, last] = dg::scan<Time, dg::hoist>(body)(dg::sliced<Time>(x), h0);
  check_rnn(ys, last, rnn_by_hand(x, h0, p, false));
  CHECK(with_cache == 5);
  CHECK(only_r == 5);
  CHECK(dg::detail::active_weight_cache() == nullptr);
  with_cache = 0;
  static_cast<void>(dg::scan<Time, dg::no_hoist>(body)(dg::sliced<Time>(x), h0));
  CHECK(with_cache == 0);
}

TEST_CASE("scan hoist: a backward walk reads the hoisted values at its own positions") {
  const weights p;
  const auto x = sequence(2, 5, 3);
  const auto h0 = dg::uniform<float, Batch, Hid>(8, -1.0f, 1.0f, dg::extent<Batch>(2));
  const auto [ys, last] =
      dg::scan<Time, dg::hoist>(rnn_body(p))(dg::sliced<Time, dg::slicing{-1, 0, -1, 1}>(x), h0);
  check_rnn(ys, last, rnn_by_hand(x, h0, p, true));
}

TEST_CASE("scan hoist: no iteration runs nothing and gives the naive schedule's result") {
  const weights p;
  const auto x = sequence(3, 0, 4);
  const auto h0 = dg::uniform<float, Batch, Hid>(9, -1.0f, 1.0f, dg::extent<Batch>(3));
  const auto [ys, last] = dg::scan<Time, dg::hoist>(rnn_body(p))(dg::sliced<Time>(x), h0);
  CHECK(ys.extent<Time>() == 0);
  CHECK(ys.extent<Batch>() == 3);
  CHECK(max_relative(last, h0) == 0.0);
}

TEST_CASE("scan hoist: the LSTM and GRU cells hoist x . W and equal the naive schedule") {
  const auto w = dg::uniform<float, decltype(dg::c<4> * Hid{}), In>(21, -0.5f, 0.5f);
  const auto r = dg::uniform<float, decltype(dg::c<4> * Hid{}), Hid>(22, -0.5f, 0.5f);
  const auto b = dg::uniform<float, decltype(dg::c<4> * Hid{})>(23, -0.5f, 0.5f);
  const auto gw = dg::uniform<float, decltype(dg::c<3> * Hid{}), In>(24, -0.5f, 0.5f);
  const auto gr = dg::uniform<float, decltype(dg::c<3> * Hid{}), Hid>(25, -0.5f, 0.5f);
  const auto gbi = dg::uniform<float, decltype(dg::c<3> * Hid{})>(26, -0.5f, 0.5f);
  const auto gbh = dg::uniform<float, decltype(dg::c<3> * Hid{})>(27, -0.5f, 0.5f);
  auto lstm = [&](const auto& xt, const auto& h, const auto& c) {
    auto s = dg::nn::lstm_cell(xt, h, c, w, r, b);
    return dg::step(dg::carry(s.h, s.c), dg::emit(s.h));
  };
  // The fused form, W [4H, In + Hid]: the cell splits W's columns, so x . W_x hoists too.
  const auto wf =
      dg::uniform<float, decltype(dg::c<4> * Hid{}), decltype(In{} + Hid{})>(28, -0.5f, 0.5f);
  auto fused = [&](const auto& xt, const auto& h, const auto& c) {
    auto s = dg::nn::lstm_cell(xt, h, c, wf, b);
    return dg::step(dg::carry(s.h, s.c), dg::emit(s.h));
  };
  auto gru = [&](const auto& xt, const auto& h) {
    auto next = dg::nn::gru_cell(xt, h, gw, gr, gbi, gbh);
    return dg::step(dg::carry(next), dg::emit(next));
  };
  using sliced_t = dg::sliced_input<Time, dg::slicing{}, const x_t&>;
  static_assert(decltype(dg::scan<Time, dg::hoist>(lstm))::hoisted_nodes<sliced_t, h_t, h_t>::size >
                0);
  static_assert(decltype(dg::scan<Time, dg::hoist>(gru))::hoisted_nodes<sliced_t, h_t>::size > 0);
  static_assert(
      decltype(dg::scan<Time, dg::hoist>(fused))::hoisted_nodes<sliced_t, h_t, h_t>::size > 0);
  for (std::size_t batch : {std::size_t{1}, std::size_t{32}}) {
    CAPTURE(batch);
    const auto x = sequence(batch, 7, 200 + batch);
    const auto h0 = dg::uniform<float, Batch, Hid>(31, -1.0f, 1.0f, dg::extent<Batch>(batch));
    const auto c0 = dg::uniform<float, Batch, Hid>(32, -1.0f, 1.0f, dg::extent<Batch>(batch));
    const auto [ys, h1, c1] = dg::scan<Time, dg::hoist>(lstm)(dg::sliced<Time>(x), h0, c0);
    const auto [zs, h2, c2] = dg::scan<Time, dg::no_hoist>(lstm)(dg::sliced<Time>(x), h0, c0);
    CHECK(max_relative(ys, zs) <= 1e-5);
    CHECK(max_relative(h1, h2) <= 1e-5);
    CHECK(max_relative(c1, c2) <= 1e-5);
    const auto [fs, f1, e1] = dg::scan<Time, dg::hoist>(fused)(dg::sliced<Time>(x), h0, c0);
    const auto [qs, f2, e2] = dg::scan<Time, dg::no_hoist>(fused)(dg::sliced<Time>(x), h0, c0);
    CHECK(max_relative(fs, qs) <= 1e-5);
    CHECK(max_relative(f1, f2) <= 1e-5);
    CHECK(max_relative(e1, e2) <= 1e-5);
    const auto [gs, g1] = dg::scan<Time, dg::hoist>(gru)(dg::sliced<Time>(x), h0);
    const auto [ks, g2] = dg::scan<Time, dg::no_hoist>(gru)(dg::sliced<Time>(x), h0);
    CHECK(max_relative(gs, ks) <= 1e-5);
    CHECK(max_relative(g1, g2) <= 1e-5);
  }
}

TEST_CASE("scan hoist: a body with nothing worth hoisting runs the naive schedule") {
  const auto x = sequence(2, 4, 5);
  const auto h0 = dg::uniform<float, Batch, Hid>(6, -1.0f, 1.0f, dg::extent<Batch>(2));
  auto body = [](const auto& xt, const auto& h) {
    auto next = dg::eval(h * 0.5f + dg::sum<In>(xt));
    return dg::step(dg::carry(next), dg::emit(next));
  };
  using sliced_t = dg::sliced_input<Time, dg::slicing{}, const x_t&>;
  static_assert(decltype(dg::scan<Time, dg::hoist>(body))::hoisted_nodes<sliced_t, h_t>::size == 0);
  const auto [ys, last] = dg::scan<Time, dg::hoist>(body)(dg::sliced<Time>(x), h0);
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t j = 0; j < 4; ++j) {
      double h = h0(b, j);
      for (std::size_t t = 0; t < 4; ++t) {
        double s = 0;
        for (std::size_t k = 0; k < 5; ++k) s += x(b, t, k);
        h = h * 0.5 + s;
        CHECK(ys(b, t, j) == doctest::Approx(h).epsilon(1e-5));
      }
      CHECK(last(b, j) == doctest::Approx(h).epsilon(1e-5));
    }
}

TEST_CASE("scan hoist: a tensor the body makes itself is read while the body runs") {
  const weights p;
  // w2 is the body's own tensor: the hoisted product that reads it, emitted as it is, is
  // computed by dg::emit, inside the body, in both passes.
  auto body = [&p](const auto& xt, const auto& h) {
    const auto w2 = dg::eval(p.w * 2.0f);
    auto projected = dg::dot<In>(xt, w2);
    auto next = dg::eval(h * 0.5f);
    return dg::step(dg::carry(next), dg::emit(projected));
  };
  using sliced_t = dg::sliced_input<Time, dg::slicing{}, const x_t&>;
  static_assert(decltype(dg::scan<Time, dg::hoist>(body))::hoisted_nodes<sliced_t, h_t>::size == 1);
  const auto x = sequence(3, 4, 9);
  const auto h0 = dg::uniform<float, Batch, Hid>(10, -1.0f, 1.0f, dg::extent<Batch>(3));
  const auto [ys, last] = dg::scan<Time, dg::hoist>(body)(dg::sliced<Time>(x), h0);
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t t = 0; t < 4; ++t)
      for (std::size_t o = 0; o < 4; ++o) {
        double want = 0;
        for (std::size_t k = 0; k < 5; ++k) want += 2.0 * double(p.w(o, k)) * x(b, t, k);
        CHECK(ys.at(dg::at<Batch>(b), dg::at<Time>(t), dg::at<Out>(o)) ==
              doctest::Approx(want).epsilon(1e-5));
      }
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t j = 0; j < 4; ++j)
      CHECK(last(b, j) == doctest::Approx(h0(b, j) * 0.0625).epsilon(1e-6));
}

TEST_CASE("scan hoist: runs that follow each other see their own extents, inputs and weights") {
  // The thread keeps a run's tensors and packed weights for the next run of the same scan: the
  // next runs here change the batch and the length, then the weights in place (same addresses).
  weights p;
  const auto scan = dg::scan<Time, dg::hoist>(rnn_body(p));
  struct run {
    std::size_t batch, time;
  };
  int round = 0;
  for (const run r : {run{3, 6}, run{2, 9}, run{32, 4}, run{3, 6}, run{1, 1}, run{3, 6}}) {
    CAPTURE(round);
    if (round == 3) {
      p.r(std::size_t{0}, std::size_t{1}) += 0.25f;
      p.w(std::size_t{2}, std::size_t{3}) -= 0.5f;
      p.b(std::size_t{1}) = 0.125f;
    }
    const auto x = sequence(r.batch, r.time, 200 + static_cast<std::uint64_t>(round));
    const auto h0 = dg::uniform<float, Batch, Hid>(9, -1.0f, 1.0f, dg::extent<Batch>(r.batch));
    const auto [ys, last] = scan(dg::sliced<Time>(x), h0);
    check_rnn(ys, last, rnn_by_hand(x, h0, p, false));
    ++round;
  }
}
