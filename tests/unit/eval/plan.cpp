// The loop planner: reordering, coalescing, broadcast strides, as text.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <string>

namespace dg = dimgraph;

namespace {
struct B : dg::dim<"b"> {};
struct T : dg::dim<"t"> {};
struct F : dg::dim<"f"> {};
struct R2 : dg::dim<"r", 2> {};
struct C4 : dg::dim<"c", 4> {};
using btf = dg::tensor<float, B, T, F>;
btf make(std::size_t b, std::size_t t, std::size_t f) {
  return btf(dg::extent<B>(b), dg::extent<T>(t), dg::extent<F>(f));
}
}  // namespace

TEST_CASE("plan: a contiguous same-layout assignment is one loop") {
  // Owning tensors with the same dims step alike: one plan operand for all of them.
  btf out = make(32, 128, 512), x = make(32, 128, 512), y = make(32, 128, 512);
  CHECK(dg::describe_plan(out, x * y + x) == "1 loop: [2097152]; strides out {1}, in1 {1}");
  dg::tensor<float, R2, C4> s, a, b;
  CHECK(dg::describe_plan(s, a + b) == "1 loop: [8]; strides out {1}, in1 {1}");
}

TEST_CASE("plan: each view is an operand of its own") {
  btf out = make(2, 3, 4), x = make(2, 3, 4);
  dg::tensor<float, B, F, T> y(dg::extent<B>(2), dg::extent<T>(3), dg::extent<F>(4));
  const auto yt = dg::permute<B, T, F>(y);
  CHECK(dg::describe_plan(out, x + yt + x) ==
        "3 loops: [2 x 3 x 4]; strides out {12, 4, 1}, in1 {12, 4, 1}, in2 {12, 1, 3}");
}

TEST_CASE("plan: [B,T,F] + [F] is two loops and the broadcast operand has stride 0") {
  btf out = make(32, 128, 512), x = make(32, 128, 512);
  dg::tensor<float, F> bias(dg::extent<F>(512));
  CHECK(dg::describe_plan(out, x + bias) ==
        "2 loops: [4096 x 512]; strides out {512, 1}, in1 {512, 1}, in2 {0, 1}");
  // from the left too: the broadcast operand is never materialised
  CHECK(dg::describe_plan(out, bias + x) ==
        "2 loops: [4096 x 512]; strides out {512, 1}, in1 {0, 1}, in2 {512, 1}");
}

TEST_CASE("plan: [B,T,F] + [T,B,F] keeps F innermost with unit strides") {
  btf out = make(32, 128, 512), x = make(32, 128, 512);
  dg::tensor<float, T, B, F> y(dg::extent<B>(32), dg::extent<T>(128), dg::extent<F>(512));
  CHECK(dg::describe_plan(out, x + y) ==
        "3 loops: [32 x 128 x 512]; strides out {65536, 512, 1}, in1 {65536, 512, 1}, in2 {512, "
        "16384, 1}");
}

TEST_CASE("plan: extent-1 dims are dropped and 0-size assignments do nothing") {
  btf out = make(1, 7, 3), x = make(1, 7, 3);
  dg::tensor<float, T> col(dg::extent<T>(7));
  CHECK(dg::describe_plan(out, x * col) ==
        "2 loops: [7 x 3]; strides out {3, 1}, in1 {3, 1}, in2 {1, 0}");
  btf none = make(0, 7, 3), none_x = make(0, 7, 3);
  CHECK(dg::describe_plan(none, none_x + 1.0f) == "0 loops: []; strides out {}, in1 {}");
}

TEST_CASE("plan: scalars are not memory operands") {
  btf out = make(2, 3, 4), x = make(2, 3, 4);
  CHECK(dg::describe_plan(out, x * 2.0f + 1.0f) == "1 loop: [24]; strides out {1}, in1 {1}");
}
