// Constant weights packed once for a scan's loop (weight_cache), and the gap-free copy of B that
// GEMV reads (gemv_b_layout).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "dimgraph/config.hpp"
#include "dimgraph/eval/gemm.hpp"
#include "dimgraph/tensor/storage.hpp"

namespace dimgraph::detail {

// B [k, n] copied whole with the dim it is contiguous along kept innermost and no gap between
// rows: [n, k] (k_inner) or [k, n]. What GEMV reads fastest for one row of A, made by copying
// rows, where gemm_b_layout is a transpose for a B contiguous along k.
struct gemv_b_layout {
  std::size_t n, k;
  bool k_inner;
  std::size_t total = n * k;
  std::size_t at(std::size_t p, std::size_t j) const { return k_inner ? j * k + p : p * n + j; }
  // The copy's groups of B's dims.
  dim_group k_group() const { return {k, k_inner ? 1 : static_cast<std::ptrdiff_t>(n), true, {}}; }
  dim_group n_group() const { return {n, k_inner ? static_cast<std::ptrdiff_t>(k) : 1, true, {}}; }
};

template <class T>
void gemv_copy_b(T* out, const gemv_b_layout& layout, const matmul_operands<T>& op) {
  if (layout.k_inner)
    for (std::size_t j = 0; j < layout.n; ++j)
      std::memcpy(out + j * layout.k, op.b + op.bn->at(j), layout.k * sizeof(T));
  else
    for (std::size_t p = 0; p < layout.k; ++p)
      std::memcpy(out + p * layout.n, op.b + op.bk->at(p), layout.n * sizeof(T));
}

// Constant weights packed once. While a scan that hoists runs its loop, the tensors its body
// multiplies by a carry and did not compute from one (the weights of an RNN cell) are
// registered here as constant; a product whose B (or A) lies in one is run by the blocked
// kernel over B packed once for the whole loop, instead of packed (or read unpacked, which is
// slower) at every step. Packs are keyed by operand address, strides, sizes, element type and
// instruction set, and checked against the operand at each use on pack_samples elements
// spread over it, bit for bit (a tensor the body makes anew in each iteration from captured
// ones may be another such tensor at the same address): a mismatch packs again.
class weight_cache {
 public:
  // [lo, hi) holds a tensor that stays constant while this cache is active.
  void add_constant(const char* lo, const char* hi) {
    if (lo == hi) return;
    for (const auto& r : constants_)
      if (r.first == lo && r.second == hi) return;
    constants_.emplace_back(lo, hi);
  }
  bool empty() const { return constants_.empty(); }
  // A new run: no constants, and each pack is made again at its first use (its buffer is
  // reused). Packs the run before did not use are freed.
  void renew() {
    constants_.clear();
    std::erase_if(packs_, [](const pack& e) { return e.stale; });
    for (auto& e : packs_) e.stale = true;
  }
  // The bytes of the packs.
  std::size_t bytes() const {
    std::size_t total = 0;
    for (const auto& e : packs_) total += e.bytes;
    return total;
  }
  std::size_t constants() const { return constants_.size(); }
  // How many products each constant takes part in while the cache is active (a scan's trip
  // count): whether copying one for a single row of A pays (copied_b).
  void expect_uses(std::size_t uses) { uses_ = uses; }
  std::size_t expected_uses() const { return uses_; }
  // Whether [lo, hi) lies within a constant.
  bool holds(const char* lo, const char* hi) const {
    for (const auto& r : constants_)
      if (r.first <= lo && hi <= r.second) return true;
    return false;
  }
  // B of op packed for Isa, packed now if it is constant and was not; null if it is not.
  template <class T, class Isa>
  const T* packed_b(const matmul_operands<T>& op, std::size_t n, std::size_t k) {
    return find_or_make(op, n, k, &pack_tag<T, Isa>, gemm_b_layout<T, Isa>(n, k),
                        [&](T* out) { gemm_pack_b<T, Isa>(out, op, n, k); });
  }
  // B of op copied whole (gemv_b_layout), copied now if it is constant and was not; null if it
  // is not, or has no contiguous dim.
  template <class T>
  const T* copied_b(const matmul_operands<T>& op, std::size_t n, std::size_t k) {
    if (!op.bk->unit() && !op.bn->unit()) return nullptr;
    const gemv_b_layout layout{n, k, op.bk->unit()};
    return find_or_make(op, n, k, &copy_tag<T>, layout,
                        [&](T* out) { gemv_copy_b(out, layout, op); });
  }

 private:
  static constexpr std::size_t pack_samples = 64;
  // Whether the packed copy holds B's elements at pack_samples positions spread over it (the
  // first and the last among them).
  template <class T, class Layout>
  static bool same_samples(const T* packed, const Layout& layout, const matmul_operands<T>& op,
                           std::size_t n, std::size_t k) {
    const std::size_t count = n * k;
    for (std::size_t t = 0; t < pack_samples; ++t) {
      const std::size_t i = std::min(
          count - 1, count <= pack_samples
                         ? t
                         : static_cast<std::size_t>(static_cast<double>(count - 1) *
                                                    static_cast<double>(t) / (pack_samples - 1)));
      const std::size_t p = i / n, j = i % n;
      if (std::memcmp(op.b + op.bk->at(p) + op.bn->at(j), packed + layout.at(p, j), sizeof(T)) != 0)
        return false;
    }
    return true;
  }

 private:
  // The copy of B in Layout (tag: which layout), made by make(out) when there is none or it
  // no longer holds B's elements.
  template <class T, class Layout, class Make>
  const T* find_or_make(const matmul_operands<T>& op, std::size_t n, std::size_t k, const void* tag,
                        const Layout& layout, Make make) {
    const dim_group &bk = *op.bk, &bn = *op.bn;
    if (!bk.affine || !bn.affine || bk.stride < 0 || bn.stride < 0) return nullptr;
    const char* lo = reinterpret_cast<const char*>(op.b);
    const char* hi = reinterpret_cast<const char*>(op.b + bk.at(k - 1) + bn.at(n - 1) + 1);
    if (!holds(lo, hi)) return nullptr;
    for (auto& e : packs_)
      if (e.b == op.b && e.tag == tag && e.k == k && e.n == n && e.ks == bk.stride &&
          e.ns == bn.stride) {
        T* data = static_cast<T*>(e.data);
        if (e.stale || !same_samples(data, layout, op, n, k)) make(data);
        e.stale = false;
        return data;
      }
    // (64-byte aligned, as a tensor's elements: a kernel's vector loads from a copy at 16
    // bytes past a cache line split every other line, and a GEMV over it ran 1.5x slower.)
    auto owner = std::make_shared<heap_storage<T>>(for_overwrite_t{}, layout.total);
    T* data = owner->data();
    make(data);
    packs_.push_back({op.b, tag, k, n, bk.stride, bn.stride, std::move(owner), data,
                      layout.total * sizeof(T), false});
    return data;
  }

  template <class T, class Isa>
  static constexpr char pack_tag = 0;
  template <class T>
  static constexpr char copy_tag = 0;
  struct pack {
    const void* b;
    const void* tag;
    std::size_t k, n;
    std::ptrdiff_t ks, ns;
    std::shared_ptr<void> owner;
    void* data;
    std::size_t bytes;
    bool stale;  // made in a run before this one (packed again at its first use)
  };
  std::vector<std::pair<const char*, const char*>> constants_;
  std::vector<pack> packs_;
  std::size_t uses_ = 0;
};

// The weight cache of the scan loop running on this thread (null outside one).
inline weight_cache*& active_weight_cache() {
  static thread_local weight_cache* active = nullptr;
  return active;
}

// Makes a cache the active one for its lifetime.
class weight_cache_scope {
 public:
  explicit weight_cache_scope(weight_cache& cache) : saved_(active_weight_cache()) {
    active_weight_cache() = &cache;
  }
  ~weight_cache_scope() { active_weight_cache() = saved_; }
  weight_cache_scope(const weight_cache_scope&) = delete;
  weight_cache_scope& operator=(const weight_cache_scope&) = delete;

 private:
  weight_cache* saved_;
};

}  // namespace dimgraph::detail
