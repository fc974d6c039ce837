// Constant weights packed once (detail::weight_cache, what a hoisting scan's loop runs its
// carried products with): products through dot while a cache is active equal a triple loop in
// double, with B or A the constant, at sizes around the kernel's blocks; an operand that holds
// other values at the same address is packed again; a product by nothing constant is left alone.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dg = dimgraph;

namespace {
struct Rows : dg::dim<"rows"> {};
struct Depth : dg::dim<"depth"> {};
struct Cols : dg::dim<"cols"> {};

using a_t = dg::tensor<float, Rows, Depth>;
using w_t = dg::tensor<float, Cols, Depth>;  // stored as a weight: its columns n-major
using c_t = dg::tensor<float, Rows, Cols>;

float value(std::size_t i, unsigned seed) {
  return static_cast<float>((i * 2654435761u + seed * 40503u) % 2001u) / 1000.0f - 1.0f;
}

a_t make_a(std::size_t m, std::size_t k, unsigned seed) {
  a_t a(dg::extent<Rows>(m), dg::extent<Depth>(k));
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t p = 0; p < k; ++p) a(i, p) = value(i * k + p, seed);
  return a;
}

void fill_w(w_t& w, unsigned seed) {
  const std::size_t n = w.extent<Cols>(), k = w.extent<Depth>();
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t p = 0; p < k; ++p) w(j, p) = value(j * k + p, seed);
}

// sum_p a(i, p) w(j, p) in double, and the sum of the terms' magnitudes, for every (i, j) (a
// and w are fresh tensors: contiguous rows).
struct product_ref {
  std::size_t n;
  std::vector<double> want, scale;
};
product_ref triple_loop(const a_t& a, const w_t& w) {
  const std::size_t m = a.extent<Rows>(), n = w.extent<Cols>(), k = a.extent<Depth>();
  product_ref r{n, std::vector<double>(m * n), std::vector<double>(m * n)};
  const float* pa = a.data();
  const float* pw = w.data();
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double want = 0, scale = 0;
      for (std::size_t p = 0; p < k; ++p) {
        const double v = static_cast<double>(pa[i * k + p]) * static_cast<double>(pw[j * k + p]);
        want += v;
        scale += std::fabs(v);
      }
      r.want[i * n + j] = want;
      r.scale[i * n + j] = scale;
    }
  return r;
}

// Elements of c off from the reference by more than float rounding allows.
std::size_t mismatches(const product_ref& r, const c_t& c) {
  std::size_t bad = 0;
  for (std::size_t e = 0; e < r.want.size(); ++e) {
    const double got = static_cast<double>(c(e / r.n, e % r.n));
    bad += !(std::fabs(got - r.want[e]) <= 1e-5 * r.scale[e] + 1e-30);
  }
  return bad;
}
std::size_t mismatches(const a_t& a, const w_t& w, const c_t& c) {
  return mismatches(triple_loop(a, w), c);
}

// The cache, active, with w registered as constant.
struct constant_scope {
  dg::detail::weight_cache cache;
  dg::detail::weight_cache_scope scope{cache};
  explicit constant_scope(const w_t& w) {
    const auto [lo, hi] = dg::detail::memory_span(w);
    cache.add_constant(lo, hi);
  }
};
}  // namespace

TEST_CASE("weight_cache: a product by a constant weight equals the triple loop") {
  for (std::size_t m :
       {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{32}, std::size_t{97}})
    for (std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t{64}, std::size_t{1030}})
      for (std::size_t k : {std::size_t{1}, std::size_t{3}, std::size_t{256}, std::size_t{300}}) {
        w_t w(dg::extent<Cols>(n), dg::extent<Depth>(k));
        fill_w(w, 1);
        const a_t a = make_a(m, k, 2);
        const constant_scope constant(w);
        const product_ref want = triple_loop(a, w);
        // x . W (B the weight) and W . x (A the weight), twice each: packed, then reused.
        for (int round = 0; round < 2; ++round) {
          const c_t c = dg::dot<Depth>(a, w);
          CHECK_MESSAGE(mismatches(want, c) == 0, "x . W m=" << m << " n=" << n << " k=" << k);
          const dg::tensor<float, Cols, Rows> ct = dg::dot<Depth>(w, a);
          const c_t back = dg::permute<Rows, Cols>(ct);
          CHECK_MESSAGE(mismatches(want, back) == 0, "W . x m=" << m << " n=" << n << " k=" << k);
        }
      }
}

TEST_CASE("weight_cache: other values at the same address are packed again") {
  const std::size_t m = 16, n = 96, k = 40;
  w_t w(dg::extent<Cols>(n), dg::extent<Depth>(k));
  fill_w(w, 3);
  const a_t a = make_a(m, k, 4);
  const constant_scope constant(w);
  const c_t first = dg::dot<Depth>(a, w);
  CHECK(mismatches(a, w, first) == 0);
  // One element changed, then all of them: each is seen where a sample falls on it (the
  // first and last elements always are).
  w(std::size_t{0}, std::size_t{0}) = 5.0f;
  const c_t one = dg::dot<Depth>(a, w);
  CHECK(mismatches(a, w, one) == 0);
  fill_w(w, 5);
  const c_t all = dg::dot<Depth>(a, w);
  CHECK(mismatches(a, w, all) == 0);
}

TEST_CASE("weight_cache: products by tensors not registered run as without it") {
  const std::size_t m = 8, n = 33, k = 17;
  w_t w(dg::extent<Cols>(n), dg::extent<Depth>(k)),
      other(dg::extent<Cols>(n), dg::extent<Depth>(k));
  fill_w(w, 6);
  fill_w(other, 7);
  const a_t a = make_a(m, k, 8);
  const constant_scope constant(w);
  const c_t c = dg::dot<Depth>(a, other);
  CHECK(mismatches(a, other, c) == 0);
  CHECK(dg::detail::active_weight_cache() == &constant.cache);
}

TEST_CASE("weight_cache_scope restores the cache active before it") {
  CHECK(dg::detail::active_weight_cache() == nullptr);
  dg::detail::weight_cache outer, inner;
  {
    const dg::detail::weight_cache_scope a(outer);
    {
      const dg::detail::weight_cache_scope b(inner);
      CHECK(dg::detail::active_weight_cache() == &inner);
    }
    CHECK(dg::detail::active_weight_cache() == &outer);
  }
  CHECK(dg::detail::active_weight_cache() == nullptr);
}

TEST_CASE("weight_cache: a new run packs each weight again, even where no sample falls") {
  // B [k, n] = [16, 64]: the samples fall on every sixteenth element of p * n + j, not on
  // (p, j) = (0, 1), which is w(1, 0).
  const std::size_t m = 8, n = 64, k = 16;
  w_t w(dg::extent<Cols>(n), dg::extent<Depth>(k));
  fill_w(w, 9);
  const a_t a = make_a(m, k, 10);
  const auto [lo, hi] = dg::detail::memory_span(w);
  dg::detail::weight_cache cache;
  {
    const dg::detail::weight_cache_scope scope(cache);
    cache.add_constant(lo, hi);
    const c_t c = dg::dot<Depth>(a, w);
    CHECK(mismatches(a, w, c) == 0);
  }
  const std::size_t packed = cache.bytes();
  CHECK(packed >= n * k * sizeof(float));
  w(std::size_t{1}, std::size_t{0}) += 0.75f;
  cache.renew();
  CHECK(cache.empty());
  {
    const dg::detail::weight_cache_scope scope(cache);
    cache.add_constant(lo, hi);
    const c_t c = dg::dot<Depth>(a, w);
    CHECK(mismatches(a, w, c) == 0);
  }
  CHECK(cache.bytes() == packed);  // the same buffer
}

TEST_CASE("weight_cache: a new run frees the packs the run before did not use") {
  const std::size_t m = 4, n = 40, k = 24;
  w_t w(dg::extent<Cols>(n), dg::extent<Depth>(k)), v(dg::extent<Cols>(n), dg::extent<Depth>(k));
  fill_w(w, 11);
  fill_w(v, 12);
  const a_t a = make_a(m, k, 13);
  const auto [wlo, whi] = dg::detail::memory_span(w);
  const auto [vlo, vhi] = dg::detail::memory_span(v);
  dg::detail::weight_cache cache;
  auto run = [&](bool with_v) {
    cache.renew();
    const dg::detail::weight_cache_scope scope(cache);
    cache.add_constant(wlo, whi);
    cache.add_constant(vlo, vhi);
    CHECK(mismatches(a, w, dg::dot<Depth>(a, w)) == 0);
    if (with_v) CHECK(mismatches(a, v, dg::dot<Depth>(a, v)) == 0);
  };
  run(true);
  const std::size_t both = cache.bytes();
  run(false);  // v's pack is now unused: still held (this run may be the odd one)
  CHECK(cache.bytes() == both);
  run(false);  // unused for a whole run: freed
  CHECK(cache.bytes() == both / 2);
}

TEST_CASE("weight_cache: one row times a constant with gaps runs over a copy, made again per run") {
  // W [cols, extra + depth] and its depth part as the weight: rows k + 3 apart. In a loop of
  // at least gemv_copy_min_uses products, x . W_d for one row x reads a copy without the gaps
  // (the cache then holds exactly n * k floats); W_d . x' likewise (W_d as A, one column).
  struct Extra : dg::dim<"extra"> {};
  using Both = decltype(Extra{} + Depth{});
  const std::size_t n = 70, k = 37, e = 3;
  dg::tensor<float, Cols, Both> big(dg::extent<Cols>(n), dg::extent<Both>(e + k));
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t p = 0; p < e + k; ++p) big(j, p) = value(j * (e + k) + p, 14);
  const auto [w_e, w_d] = dg::split<Extra, Depth>(big, dg::extent<Extra>(e));
  const a_t a = make_a(1, k, 15);
  // x . W_d against sums in double over big's elements.
  const auto check = [&](const auto& c, const char* what) {
    for (std::size_t j = 0; j < n; ++j) {
      double want = 0, scale = 0;
      for (std::size_t p = 0; p < k; ++p) {
        const double v = static_cast<double>(a(std::size_t{0}, p)) * big(j, e + p);
        want += v;
        scale += std::fabs(v);
      }
      CHECK_MESSAGE(std::fabs(static_cast<double>(c(j)) - want) <= 1e-5 * scale + 1e-30,
                    what << " j=" << j);
    }
  };
  const auto [lo, hi] = dg::detail::memory_span(big);
  dg::detail::weight_cache cache;
  for (int run = 0; run < 2; ++run) {
    cache.renew();
    cache.expect_uses(dg::detail::gemv_copy_min_uses);
    const dg::detail::weight_cache_scope scope(cache);
    cache.add_constant(lo, hi);
    const c_t c = dg::dot<Depth>(a, w_d);
    check([&](std::size_t j) { return c(std::size_t{0}, j); }, "x . W");
    const dg::tensor<float, Cols, Rows> ct = dg::dot<Depth>(w_d, a);
    check([&](std::size_t j) { return ct(j, std::size_t{0}); }, "W . x");
    CHECK(cache.bytes() == n * k * sizeof(float));
    // An element no sample falls on, changed between runs: the next run copies again.
    big(std::size_t{1}, e) += 0.5f;
  }
  // Fewer uses than that: GEMV reads W_d where it is, and nothing is copied.
  dg::detail::weight_cache few;
  few.expect_uses(dg::detail::gemv_copy_min_uses - 1);
  const dg::detail::weight_cache_scope scope(few);
  few.add_constant(lo, hi);
  const c_t c = dg::dot<Depth>(a, w_d);
  check([&](std::size_t j) { return c(std::size_t{0}, j); }, "x . W, few uses");
  CHECK(few.bytes() == 0);
}

TEST_CASE(
    "weight_cache: packed and copied weights and the blocked kernel's scratch are 64-byte "
    "aligned") {
  // Sizes whose copies are not whole cache lines, made one after another: an allocator's
  // 16-byte alignment would put some of them off a line (a GEMV over such a copy ran 1.5x
  // slower, every vector load split across two lines).
  namespace d = dg::detail;
  d::weight_cache cache;
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; };
  for (std::size_t n : {std::size_t{3}, std::size_t{17}, std::size_t{100}})
    for (std::size_t k : {std::size_t{5}, std::size_t{33}}) {
      // B [k, n] stored n-major (k contiguous), as a weight; A one row, C one row.
      std::vector<float> a(k, 1.0f), b(n * k, 2.0f), c(n);
      const d::dim_group am{1, 1, true, {}}, ak{k, 1, true, {}};
      const d::dim_group bk{k, 1, true, {}}, bn{n, static_cast<std::ptrdiff_t>(k), true, {}};
      const d::dim_group cm{1, 1, true, {}}, cn{n, 1, true, {}};
      const d::matmul_operands<float> op{a.data(), &am,      &ak, b.data(), &bk,
                                         &bn,      c.data(), &cm, &cn};
      const char* lo = reinterpret_cast<const char*>(b.data());
      cache.add_constant(lo, lo + b.size() * sizeof(float));
      const float* copy = cache.copied_b<float>(op, n, k);
      REQUIRE(copy != nullptr);
      CHECK_MESSAGE(aligned(copy), "copy n=" << n << " k=" << k);
      const float* packed = cache.packed_b<float, d::gemm_target_isa>(op, n, k);
      REQUIRE(packed != nullptr);
      CHECK_MESSAGE(aligned(packed), "pack n=" << n << " k=" << k);
    }
  for (std::size_t count :
       {std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{100003}}) {
    CHECK(aligned(d::thread_scratch<float, d::gemm_b_panel_scratch>(count)));
    CHECK(aligned(d::thread_scratch<double, d::gemm_a_block_scratch>(count)));
  }
}
