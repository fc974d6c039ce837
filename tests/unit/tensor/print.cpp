// operator<< for shapes, tensors and views (expected texts written by hand, NumPy's layout).
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

namespace dg = dimgraph;

namespace {
struct Time : dg::dim<"time"> {};
struct Step : dg::dim<"step"> {};
struct Feature : dg::dim<"feature", 512> {};
struct Feat : dg::dim<"feat", 3> {};
struct Beam : dg::dim<"beam", dg::range{1, 8}> {};
struct Pair : dg::dim<"pair", 2> {};
struct Vocab : dg::dim<"vocab", 10> {};

template <class X>
std::string text(const X& x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

// Sets the elements to 0, 1, 2, ... in memory order.
template <class X>
void count_up(X& x) {
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<int>(i);
}
}  // namespace

TEST_CASE("print: a shape names each dim, with [extent] when dynamic and =size when static") {
  dg::shape<dg::batch, Time, Feature> s(dg::extent<Time>(25), dg::extent<dg::batch>(2));
  CHECK(text(s) == "[batch[2], time[25], feature=512]");
  CHECK(text(dg::shape<Beam, Feat>(dg::extent<Beam>(3))) == "[beam[3], feat=3]");
  CHECK(text(dg::shape<>()) == "[]");
}

TEST_CASE("print: a matrix has a header line and one row per line") {
  dg::tensor<int, Time, Feat> x(dg::extent<Time>(2));
  count_up(x);
  CHECK(text(x) ==
        "tensor<int32> [time[2], feat=3]\n"
        "[[0, 1, 2],\n"
        " [3, 4, 5]]");
}

TEST_CASE("print: a vector, and elements right-aligned to the widest") {
  dg::tensor<long, Time> v(dg::extent<Time>(3));
  v(0) = 7;
  v(1) = 8;
  v(2) = 9;
  CHECK(text(v) == "tensor<int64> [time[3]]\n[7, 8, 9]");

  dg::tensor<int, Pair, Feat> x;
  x(0, 0) = -1;
  x(0, 1) = 20;
  x(0, 2) = 3;
  x(1, 0) = 400;
  x(1, 1) = 5;
  x(1, 2) = 6;
  CHECK(text(x) ==
        "tensor<int32> [pair=2, feat=3]\n"
        "[[ -1,  20,   3],\n"
        " [400,   5,   6]]");
}

TEST_CASE("print: rank 3 separates the blocks by an empty line") {
  dg::tensor<int, Pair, Time, Feat> x(dg::extent<Time>(2));
  count_up(x);
  CHECK(text(x) ==
        "tensor<int32> [pair=2, time[2], feat=3]\n"
        "[[[ 0,  1,  2],\n"
        "  [ 3,  4,  5]],\n"
        "\n"
        " [[ 6,  7,  8],\n"
        "  [ 9, 10, 11]]]");
}

TEST_CASE("print: floating point as %.4g") {
  dg::tensor<float, Feat> f;
  f(0) = 0.5f;
  f(1) = 1.0f / 3.0f;
  f(2) = -2.0f;
  CHECK(text(f) == "tensor<float32> [feat=3]\n[   0.5, 0.3333,     -2]");

  dg::tensor<double, Feat> d;
  d(0) = 1e10;
  d(1) = 1.25e-5;
  d(2) = 123456.0;
  CHECK(text(d) == "tensor<float64> [feat=3]\n[    1e+10,  1.25e-05, 1.235e+05]");

  dg::tensor<double, Feat> special;
  special(0) = std::numeric_limits<double>::infinity();
  special(1) = -std::numeric_limits<double>::infinity();
  special(2) = std::numeric_limits<double>::quiet_NaN();
  CHECK(text(special) == "tensor<float64> [feat=3]\n[ inf, -inf,  nan]");
}

TEST_CASE("print: bool as true/false, int8 and uint8 as numbers, index as integers") {
  dg::tensor<bool, Feat> b;
  b(0) = true;
  b(2) = true;
  CHECK(text(b) == "tensor<bool> [feat=3]\n[ true, false,  true]");

  dg::tensor<std::int8_t, Feat> i8;
  i8(0) = -5;
  i8(1) = 65;
  CHECK(text(i8) == "tensor<int8> [feat=3]\n[-5, 65,  0]");

  dg::tensor<std::uint8_t, Feat> u8;
  u8(0) = 200;
  u8(1) = 7;
  u8(2) = 65;
  CHECK(text(u8) == "tensor<uint8> [feat=3]\n[200,   7,  65]");

  dg::tensor<dg::index<Vocab>, Time> k(dg::extent<Time>(2));
  k(0) = dg::index<Vocab>(3);
  k(1) = dg::index<Vocab>(7);
  CHECK(text(k) == "tensor<index<vocab>> [time[2]]\n[3, 7]");

  dg::tensor<std::uint64_t, Pair> big;
  big(0) = std::numeric_limits<std::uint64_t>::max();
  CHECK(text(big) == "tensor<uint64> [pair=2]\n[18446744073709551615,                    0]");
}

TEST_CASE("print: views, permuted views and rank 0") {
  dg::tensor<int, Time, Feat> x(dg::extent<Time>(2));
  count_up(x);
  CHECK(text(dg::permute<Feat, Time>(x)) ==
        "tensor_view<int32> [feat=3, time[2]]\n"
        "[[0, 3],\n"
        " [1, 4],\n"
        " [2, 5]]");
  CHECK(text(x[dg::at<Feat>(1)]) == "tensor_view<int32> [time[2]]\n[1, 4]");
  CHECK(text(x[dg::at<Time>(1)][dg::at<Feat>(2)]) == "tensor_view<int32> []\n5");
  const auto& cx = x;
  CHECK(text(cx[dg::at<Time>(0)]) == "tensor_view<int32> [feat=3]\n[0, 1, 2]");
  dg::tensor<double> r;
  r() = 2.5;
  CHECK(text(r) == "tensor<float64> []\n2.5");
}

TEST_CASE("print: no elements print as []") {
  dg::tensor<float, Time, Feat> x(dg::extent<Time>(0));
  CHECK(text(x) == "tensor<float32> [time[0], feat=3]\n[]");
}

TEST_CASE("print: up to 1000 elements print in full") {
  dg::tensor<int, Time> x(dg::extent<Time>(1000));
  count_up(x);
  std::string expected = "tensor<int32> [time[1000]]\n[";
  for (int i = 0; i < 1000; ++i) {
    std::string n = std::to_string(i);
    expected += (i ? ", " : "") + std::string(3 - n.size(), ' ') + n;
  }
  expected += "]";
  CHECK(text(x) == expected);
}

TEST_CASE("print: above 1000 elements, long dims show their first and last 3") {
  dg::tensor<int, Time> v(dg::extent<Time>(1001));
  count_up(v);
  CHECK(text(v) == "tensor<int32> [time[1001]]\n[   0,    1,    2, ...,  998,  999, 1000]");

  dg::tensor<int, Pair, Time> rows(dg::extent<Time>(501));  // 2 rows: not cut
  count_up(rows);
  CHECK(text(rows) ==
        "tensor<int32> [pair=2, time[501]]\n"
        "[[   0,    1,    2, ...,  498,  499,  500],\n"
        " [ 501,  502,  503, ...,  999, 1000, 1001]]");

  dg::tensor<int, Time, Step> m(dg::extent<Time>(20), dg::extent<Step>(100));
  count_up(m);
  CHECK(text(m) ==
        "tensor<int32> [time[20], step[100]]\n"
        "[[   0,    1,    2, ...,   97,   98,   99],\n"
        " [ 100,  101,  102, ...,  197,  198,  199],\n"
        " [ 200,  201,  202, ...,  297,  298,  299],\n"
        " ...,\n"
        " [1700, 1701, 1702, ..., 1797, 1798, 1799],\n"
        " [1800, 1801, 1802, ..., 1897, 1898, 1899],\n"
        " [1900, 1901, 1902, ..., 1997, 1998, 1999]]");

  dg::tensor<int, Time, Step, Pair> c(dg::extent<Time>(7), dg::extent<Step>(100));  // 1400
  count_up(c);
  std::string t = text(c);
  // Blocks: time 0, 1, 2, then "...", then 4, 5, 6; each block cut to 6 of its 100 rows.
  CHECK(t.find("tensor<int32> [time[7], step[100], pair=2]\n[[[   0,    1],\n") == 0);
  CHECK(t.find("  [   4,    5],\n  ...,\n  [ 194,  195],\n") != std::string::npos);
  CHECK(t.find("]],\n\n ...,\n\n [[ 800,  801],\n") != std::string::npos);
  CHECK(t.size() - t.rfind("[1398, 1399]]]") == 14);
}
