// Sizes computed from run-time extents never wrap: a shape_error naming the op and the dims
// instead, before anything is allocated or written.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <string>
#include <tuple>
#include <utility>

namespace dg = dimgraph;

namespace {

struct B : dg::dim<"b"> {};
struct K : dg::dim<"k"> {};
struct F : dg::dim<"f", 4> {};
struct V : dg::dim<"v"> {};
struct Row : dg::dim<"row", 3> {};

constexpr std::size_t size_max = std::numeric_limits<std::size_t>::max();
constexpr std::size_t two_to(int k) {
  return std::size_t{1} << k;
}

// The message of the shape_error f throws ("no exception" or "another exception" else).
template <class F>
std::string shape_error_of(F&& f) {
  try {
    f();
  } catch (const dg::shape_error& e) {
    return e.what();
  } catch (...) {
    return "another exception";
  }
  return "no exception";
}

}  // namespace

TEST_CASE("overflow: a tensor whose bytes would wrap is a shape_error, not an 80-byte buffer") {
  const std::string msg = shape_error_of([] {
    dg::tensor<float, B> x(dg::extent<B>(two_to(62) + 4));
    x.at(dg::at<B>(two_to(62))) = 1;
  });
  CHECK(msg.starts_with("dimgraph: tensor: "));
  CHECK(msg.find("b[4611686018427387908]") != std::string::npos);
}

TEST_CASE("overflow: an element count that wraps to 0 is a shape_error naming every dim") {
  const std::string msg = shape_error_of([] {
    dg::tensor<float, B, K> x(dg::extent<B>(two_to(32)), dg::extent<K>(two_to(32)));
    x.at(dg::at<B>(1), dg::at<K>(1)) = 1;
  });
  CHECK(msg.starts_with("dimgraph: tensor: "));
  CHECK(msg.find("b[4294967296], k[4294967296]") != std::string::npos);
  // A zero extent does not hide the others: the strides would still overflow.
  CHECK(shape_error_of([] {
          dg::tensor<float, B, K, V> x(dg::extent<B>(0), dg::extent<K>(two_to(40)),
                                       dg::extent<V>(two_to(40)));
        }).starts_with("dimgraph: tensor: the extents other than 0 of b[0], k["));
}

TEST_CASE("overflow: the largest sizes that fit are accepted, one more is not") {
  const std::size_t most = static_cast<std::size_t>(PTRDIFF_MAX) / 8;
  // Views cost nothing, so the limit can be probed without allocating.
  float one = 0;
  auto fits = dg::view<float, B, K>(&one, dg::extent<B>(most), dg::extent<K>(1));
  CHECK(fits.size() == most);
  CHECK(shape_error_of([&] {
          (void)dg::view<float, B>(&one, dg::extent<B>(most + 1));
        }).starts_with("dimgraph: view: the extents b["));
  auto empty = dg::view<float, B, K>(&one, dg::extent<B>(0), dg::extent<K>(most));
  CHECK(empty.size() == 0);
}

// Sanitizers' allocators abort on a request they cannot serve instead of throwing.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DIMGRAPH_TEST_HUGE_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define DIMGRAPH_TEST_HUGE_ALLOCATIONS 0
#endif
#endif
#ifndef DIMGRAPH_TEST_HUGE_ALLOCATIONS
#define DIMGRAPH_TEST_HUGE_ALLOCATIONS 1
#endif

#if DIMGRAPH_TEST_HUGE_ALLOCATIONS
TEST_CASE("overflow: a size that fits but cannot be allocated is std::bad_alloc") {
  // 2^59 floats: 2^61 bytes, more than any address space serves.
  auto make = [] { return dg::tensor<float, B>(dg::extent<B>(two_to(59))); };
  CHECK_THROWS_AS(make(), std::bad_alloc);
}
#endif

TEST_CASE("overflow: one_hot with a huge depth throws before it allocates or writes") {
  struct Cls : dg::dim<"cls"> {};
  dg::tensor<dg::index<Cls>, Row> idx;
  for (std::size_t r = 0; r < 3; ++r) idx(r) = dg::index<Cls>(static_cast<std::int64_t>(r));
  const std::string msg =
      shape_error_of([&] { (void)dg::one_hot(idx, dg::extent<Cls>(two_to(62))); });
  CHECK(msg.starts_with("dimgraph: one_hot: "));
  CHECK(msg.find("cls[4611686018427387904]") != std::string::npos);
}

TEST_CASE("overflow: split parts whose extents wrap around to the whole are refused") {
  dg::tensor<float, decltype(B{} + K{})> z(dg::extent<decltype(B{} + K{})>(3));
  const std::string msg =
      shape_error_of([&] { (void)dg::split<B, K>(z, dg::extent<B>(size_max), dg::extent<K>(4)); });
  CHECK(
      msg.starts_with("dimgraph: split: dim 'b+k' has extent 3, but its known parts add up "
                      "to more than a std::size_t holds"));
  CHECK(msg.find("b[18446744073709551615] + k[4]") != std::string::npos);
}

TEST_CASE("overflow: split_dims factors whose product wraps around to the whole are refused") {
  using BK = decltype(B{} * K{});
  dg::tensor<float, BK> z(dg::extent<BK>(4));
  // 2^62 * 2^2 wraps to 0 and 2^63 + 1 times 4 wraps to 4.
  const std::string msg = shape_error_of(
      [&] { (void)dg::split_dims<B, K>(z, dg::extent<B>(two_to(63) + 1), dg::extent<K>(4)); });
  CHECK(
      msg.starts_with("dimgraph: split_dims: dim 'b*k' has extent 4, but its factors' extents "
                      "multiply to more than a std::size_t holds"));
}

TEST_CASE("overflow: concat and pad refuse results whose extents do not fit") {
  float one = 0;
  const std::size_t most = static_cast<std::size_t>(PTRDIFF_MAX) / 8;
  const auto huge = dg::view<float, B>(&one, dg::extent<B>(most));
  // A sum that fits a std::size_t but not a tensor: the result's shape refuses it.
  CHECK(shape_error_of([&] {
          (void)dg::concat(dg::along<B>(huge), dg::along<B>(huge), dg::along<B>(huge));
        }).starts_with("dimgraph: concat: the extents 3*b[3458764513820540925] multiply to more"));
  // A sum that wraps: 17 parts of 2^60 - 1.
  CHECK(shape_error_of([&] {
          [&]<std::size_t... Is>(std::index_sequence<Is...>) {
            (void)dg::concat(dg::along<B>((void(Is), huge))...);
          }(std::make_index_sequence<17>{});
        }).starts_with("dimgraph: concat: dim '17*b' would have extent b[1152921504606846975] + "));
  // A padding (at most 2^60 - 1: a larger static one is a compile error) plus the extent.
  CHECK(shape_error_of([&] { (void)dg::pad<B, two_to(59), 0>(huge); })
            .starts_with("dimgraph: pad: the extents 576460752303423488+b[1729382256910270463] "
                         "multiply to more than"));
}

TEST_CASE("overflow: broadcast_to and outer refuse more elements than a tensor can address") {
  // Nothing is stored, but a count over them (a reduction's) would wrap: max over them said
  // "reduces over no elements ()".
  const auto one = dg::full<float>(1.0f);
  CHECK(shape_error_of([&] {
          (void)dg::max<B, K>(
              dg::broadcast_to<B, K>(one, dg::extent<B>(two_to(32)), dg::extent<K>(two_to(32))));
        }) ==
        "dimgraph: broadcast_to: the extents b[4294967296], k[4294967296] multiply to "
        "more than 1152921504606846975, the most elements a tensor can address");
  const auto b = dg::broadcast_to<B>(one, dg::extent<B>(two_to(40)));
  const auto k = dg::broadcast_to<K>(one, dg::extent<K>(two_to(40)));
  CHECK(shape_error_of([&] {
          (void)dg::eval(dg::sum<B, K>(dg::outer(b, k)));
        }).starts_with("dimgraph: outer: the extents b[1099511627776], k[1099511627776]"));
}

TEST_CASE("overflow: runtime_size refuses sums and products that do not fit") {
  auto extent = [](auto t) -> std::size_t {
    using tag = typename decltype(t)::type;
    return std::is_same_v<tag, B> ? size_max : 2;
  };
  CHECK(shape_error_of([&] { (void)dg::runtime_size<decltype(B{} + K{})>(extent); })
            .starts_with("dimgraph: runtime_size: dim 'b+k': the extents of its terms ('b' "
                         "18446744073709551615, 'k' 2) add up to more than a std::size_t holds"));
  CHECK(shape_error_of([&] {
          (void)dg::runtime_size<decltype(B{} * K{})>(extent);
        }).starts_with("dimgraph: runtime_size: dim 'b*k': the extents of its factors"));
}

TEST_CASE("overflow: run-time slices with steps of PTRDIFF_MIN or 2^62 select one position") {
  auto x = dg::iota<int, B>(dg::extent<B>(5));
  const auto back = dg::slice<B>(x, dg::none, dg::none, PTRDIFF_MIN);
  REQUIRE(back.extent<dg::sliced_dim<B>>() == 1);
  CHECK(back(0) == 4);
  const auto forth = dg::slice<B>(x, 1, dg::none, std::ptrdiff_t{1} << 62);
  REQUIRE(forth.extent<dg::sliced_dim<B>>() == 1);
  CHECK(forth(0) == 1);
  // Along a dim of stride 4, step * stride would overflow: with one position it is not taken.
  auto rows = dg::iota<int, B, F>(dg::extent<B>(5));
  const auto row = dg::slice<B>(rows, 1, dg::none, std::ptrdiff_t{1} << 62);
  REQUIRE(row.extent<dg::sliced_dim<B>>() == 1);
  CHECK(row(0, 3) == 7);
  CHECK(dg::slice<B>(x, 3, 1, PTRDIFF_MIN).extent<dg::sliced_dim<B>>() == 1);
  CHECK(dg::slice<B>(x, 1, 3, PTRDIFF_MIN).extent<dg::sliced_dim<B>>() == 0);
  constexpr auto r = dg::slice_positions(5, dg::none, dg::none, PTRDIFF_MIN);
  static_assert(r.first == 4 && r.count == 1);
}

TEST_CASE("overflow: scan slicings with huge strides and bounds walk without overflow") {
  constexpr dg::slicing backward{.start = -1, .end = 0, .stride = PTRDIFF_MIN};
  constexpr dg::slice_walk w = dg::slicing_walk(backward, 5);
  static_assert(w.valid && w.count == 1 && w.first == 4);
  constexpr dg::slicing past{.start = 0, .end = PTRDIFF_MAX};
  static_assert(!dg::slicing_walk(past, 5).valid);
  const auto x = dg::iota<float, B, F>(dg::extent<B>(5));
  auto [ys] = dg::scan<B>([](const auto& x_t) { return dg::step(dg::emit(x_t)); })(
      dg::sliced<B, backward>(x));
  REQUIRE(ys.extent<dg::trip_dim<B, backward>>() == 1);
  CHECK(ys(0, 0) == 16.0f);
}
