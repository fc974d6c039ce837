// Expressions over temporaries: a node holds an rvalue operand by value, so an expression
// kept in a variable stays valid after the full-expression that made it (DESIGN §5). Run
// under ASan/UBSan in CI, where a dangling operand would be reported.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

namespace dg = dimgraph;

namespace {
struct Time : dg::dim<"time"> {};
struct Feat : dg::dim<"feat", 6> {};

using tf = dg::tensor<float, Time, Feat>;

// Seeded values in [-1, 1] (not the library's own fill).
template <class X>
void fill(X& x, unsigned seed) {
  std::mt19937 gen(seed);
  for (std::size_t i = 0; i < x.size(); ++i)
    x.data()[i] = static_cast<float>(static_cast<double>(gen() % 2001) / 1000.0 - 1.0);
}

tf make_tensor(std::size_t t, unsigned seed) {
  tf x(dg::extent<Time>(t));
  fill(x, seed);
  return x;
}

dg::tensor<float, Feat> make_row(unsigned seed) {
  dg::tensor<float, Feat> r;
  fill(r, seed);
  return r;
}

// Allocates and scribbles over freed memory, so that a dangling read would see garbage
// even without a sanitizer.
void churn() {
  for (int k = 0; k < 8; ++k) {
    std::vector<float> junk(64 * 6 + static_cast<std::size_t>(k), 1e30f);
    CHECK(junk.back() == 1e30f);
  }
}

bool close(float a, float b) {
  return std::fabs(a - b) <= 1e-6f * (1.0f + std::fabs(b));
}
}  // namespace

TEST_CASE("lifetime: an expression over a temporary tensor stays valid after its statement") {
  const tf x = make_tensor(64, 2);
  auto e = dg::exp(make_tensor(64, 1)) + x;
  churn();
  tf r = e;
  churn();
  tf again = e;  // the held operand is still there for a second evaluation

  const tf t = make_tensor(64, 1);  // the same values as the temporary
  REQUIRE(r.extent<Time>() == 64);
  REQUIRE(again.extent<Time>() == 64);
  for (std::size_t i = 0; i < r.size(); ++i) {
    const float want = std::exp(t.data()[i]) + x.data()[i];
    CHECK(close(r.data()[i], want));
    CHECK(close(again.data()[i], want));
  }
}

TEST_CASE("lifetime: temporaries at several depths, static and dynamic, broadcast") {
  const tf x = make_tensor(5, 3);
  auto e = (make_tensor(5, 4) * make_row(5) + 1.0f) * dg::tanh(x - make_row(6));
  churn();
  tf r = e;

  const tf a = make_tensor(5, 4);
  const auto p = make_row(5), q = make_row(6);
  REQUIRE(r.extent<Time>() == 5);
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t f = 0; f < 6; ++f) {
      const std::size_t k = i * 6 + f;
      const float want = (a.data()[k] * p.data()[f] + 1.0f) * std::tanh(x.data()[k] - q.data()[f]);
      CHECK(close(r.data()[k], want));
    }
}

TEST_CASE("lifetime: a reduction over a temporary expression stays valid") {
  const tf x = make_tensor(7, 8);
  auto s = dg::sum<Time>(make_tensor(7, 9) * x);
  churn();
  dg::tensor<float, Feat> r = s;

  const tf a = make_tensor(7, 9);
  for (std::size_t f = 0; f < 6; ++f) {
    float want = 0.0f;
    for (std::size_t i = 0; i < 7; ++i) want += a.data()[i * 6 + f] * x.data()[i * 6 + f];
    CHECK(close(r.data()[f], want));
  }
}

TEST_CASE("lifetime: a view of a tensor reads the tensor it was made from, not a copy") {
  tf x = make_tensor(3, 10);
  auto e = dg::permute<Feat, Time>(x) * 2.0f;
  x.data()[0] = 0.25f;  // the expression holds the view, which sees the change
  dg::tensor<float, Feat, Time> r = e;
  CHECK(r(0, 0) == 0.5f);
  CHECK(r(5, 2) == 2.0f * x(2, 5));
}
