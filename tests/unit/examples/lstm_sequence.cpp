// examples/lstm_sequence: the traced LSTM graph, forwards and backwards, against the
// plain-loop LSTM of tests/support/reference_lstm.hpp (within 1e-5).
#include "lstm_sequence.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "reference_lstm.hpp"

using namespace lstm_example;

namespace {

constexpr std::size_t batch = 1, steps = 25, input = 512, hidden = 256;

struct data {
  weights_t w = dg::uniform<float, Gates, Columns>(11, -0.0625f, 0.0625f);
  bias_t b = dg::uniform<float, Gates>(12, -0.0625f, 0.0625f);
  sequence_t x = dg::uniform<float, Batch, Time, Input>(13, -1.0f, 1.0f);
  state_t h0 = dg::uniform<float, Batch, Hidden>(14, -0.5f, 0.5f);
  state_t c0 = dg::uniform<float, Batch, Hidden>(15, -0.5f, 0.5f);
};

template <class Tensor>
void check_close(const Tensor& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0;
  for (std::size_t k = 0; k < want.size(); ++k)
    if (!(std::abs(got.data()[k] - want[k]) <= 1e-5f)) ++bad;
  CHECK(bad == 0);
}

template <dg::slicing S>
void check_against_reference(bool backward) {
  const data d;
  std::vector<float> out(batch * steps * hidden), h(batch * hidden), c(batch * hidden);
  reference::lstm_sequence(d.w.data(), d.b.data(), d.x.data(), d.h0.data(), d.c0.data(), batch,
                           steps, input, hidden, backward, out.data(), h.data(), c.data());

  const auto g = lstm_graph<S>(d.w, d.b);
  const auto [ys, h_last, c_last] = g(d.x, d.h0, d.c0);
  check_close(ys, out);
  check_close(h_last, h);
  check_close(c_last, c);

  // The model run directly on tensors gives the same values as the graph.
  const auto [ys2, h2, c2] = lstm<S>(d.w, d.b)(d.x, d.h0, d.c0);
  CHECK(ys2 == ys);
  CHECK(h2 == h_last);
  CHECK(c2 == c_last);
}

}  // namespace

TEST_CASE("example lstm_sequence: forwards equals the plain-loop LSTM within 1e-5") {
  check_against_reference<forward>(false);
}

TEST_CASE("example lstm_sequence: backwards equals the plain-loop LSTM run from the end") {
  check_against_reference<backward>(true);
}

TEST_CASE("example lstm_sequence: the graph has the opset's shapes and one scan node") {
  const data d;
  const auto g = lstm_graph<backward>(d.w, d.b);
  using G = std::remove_cvref_t<decltype(g)>;
  static_assert(std::is_same_v<G::output_t<0>, outputs_t>);
  static_assert(G::input_count == 3 && G::output_count == 3);
  std::ostringstream os;
  os << g;
  const std::string text = os.str();
  CHECK(text.find("%3 = scan<time>(%0, %1, %2) {sliced 0 [start=-1, end=0, stride=-1, "
                  "part_size=1], carried 1, 2} : (float32 [batch=1, time=25, hidden=256], "
                  "float32 [batch=1, hidden=256], float32 [batch=1, hidden=256])\n") !=
        std::string::npos);
  // dg::hoist: x_t . W_x (W's input columns, a view) before the loop; h . W_h and the bias,
  // split into its gates, in it.
  const auto before = text.find("before the loop:\n"), every = text.find("every iteration:\n");
  REQUIRE(before != std::string::npos);
  REQUIRE(every != std::string::npos);
  const auto x_product = text.find("dot<input>(%4, %7) : float32 [batch=1, 4*hidden=1024]");
  const auto h_product = text.find("dot<hidden>(%5, %14) : float32 [batch=1, 4*hidden=1024]");
  CHECK(text.find("%7 = constant : float32 [4*hidden=1024, input=512]") != std::string::npos);
  CHECK((before < x_product && x_product < every));
  CHECK((every < h_product && h_product != std::string::npos));
  const auto bias = text.find("%19 = constant : float32 [4*hidden=1024]");
  CHECK((every < bias && bias != std::string::npos));
  CHECK(text.find("yield %43, %36, %43 {carry 2, emit 1}") != std::string::npos);
}
