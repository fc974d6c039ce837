// The memory of a hoisting scan's run: the tensors its body materialises (stage_arena), and
// the thread's kept store and arena that the next run of the same scan takes again
// (stage_lease).
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "dimgraph/config.hpp"
#include "dimgraph/eval/assign.hpp"

namespace dimgraph::detail {

template <class T>
inline constexpr char stage_type_tag = 0;

// Tensors made while the body runs (materialised nodes), kept until the step is consumed (or,
// for the hoisted values, until the loop ends). The k-th tensor an iteration materialises
// reuses the k-th of the iteration before when it has the same type (every iteration runs the
// same ops): no allocation per step. (Assigning to a slot of other extents reallocates it.)
struct stage_arena {
  std::vector<std::shared_ptr<const void>> kept;
  std::vector<std::shared_ptr<void>> slots;
  std::vector<const char*> slot_types;
  std::vector<std::size_t> slot_bytes;
  std::size_t next = 0;

  template <class T>
  const T& keep(T&& t) {
    auto p = std::make_shared<const std::remove_cvref_t<T>>(std::forward<T>(t));
    const auto& r = *p;
    kept.push_back(std::move(p));
    return r;
  }
  // e evaluated into a tensor (made in place: a static tensor's elements are inline, never a
  // temporary on the stack), as a view.
  template <class E>
  auto materialise(const E& e) {
    using t = decltype(eval(e));
    constexpr std::size_t element = sizeof(typename t::value_type);
    const std::size_t k = next++;
    if (k < slots.size() && slot_types[k] == &stage_type_tag<t>) {
      t& reused = *static_cast<t*>(slots[k].get());
      reused = e;
      slot_bytes[k] = reused.size() * element;
      return std::as_const(reused).view();
    }
    auto p = std::make_shared<t>(e);
    auto v = std::as_const(*p).view();
    const std::size_t bytes = p->size() * element;
    if (k < slots.size()) {
      slots[k] = std::move(p);
      slot_types[k] = &stage_type_tag<t>;
      slot_bytes[k] = bytes;
    } else {
      slots.push_back(std::move(p));
      slot_types.push_back(&stage_type_tag<t>);
      slot_bytes.push_back(bytes);
    }
    return v;
  }
  // The next iteration (or run): its tensors take the slots again.
  void reset() {
    kept.clear();
    next = 0;
  }
  // The bytes of the elements the slots hold.
  std::size_t bytes() const {
    std::size_t total = 0;
    for (const std::size_t b : slot_bytes) total += b;
    return total;
  }
  // Frees every slot.
  void release() {
    reset();
    slots.clear();
    slot_types.clear();
    slot_bytes.clear();
  }
};

// A store and arena per thread and store type, with whether a run has them now.
template <class Store>
struct kept_stage {
  Store store;
  stage_arena arena;
  bool busy = false;
};
template <class Store>
kept_stage<Store>& thread_kept_stage() {
  static thread_local kept_stage<Store> kept;
  return kept;
}

// The store and arena of one hoisting run (Store: renew() before a run, finish() after it,
// bytes() and release()). They are the thread's kept ones, which the last run of the same scan
// left: its tensors and packed weights are reused (no allocation, no page faults per call), up to
// DIMGRAPH_CONFIG_SCAN_KEEP_BYTES held after the run. A run that starts while another of the
// same scan is active on the thread (a body that runs its own scan) takes new ones.
template <class Store>
class stage_lease {
 public:
  stage_lease() {
    // (With nothing kept, no thread's kept pair is made at all.)
    if constexpr (DIMGRAPH_CONFIG_SCAN_KEEP_BYTES > 0) {
      kept_stage<Store>& kept = thread_kept_stage<Store>();
      if (!kept.busy) {
        kept.busy = true;
        kept_ = &kept;
        store_ = &kept.store;
        arena_ = &kept.arena;
      }
    }
    if (kept_ == nullptr) {
      own_ = std::make_unique<kept_stage<Store>>();
      store_ = &own_->store;
      arena_ = &own_->arena;
    }
    store_->renew();
    arena_->reset();
  }
  ~stage_lease() {
    if (kept_ == nullptr) return;
    store_->finish();
    arena_->reset();
    if (store_->bytes() + arena_->bytes() > std::size_t{DIMGRAPH_CONFIG_SCAN_KEEP_BYTES}) {
      store_->release();
      arena_->release();
    }
    kept_->busy = false;
  }
  stage_lease(const stage_lease&) = delete;
  stage_lease& operator=(const stage_lease&) = delete;

  Store& store() { return *store_; }
  stage_arena& arena() { return *arena_; }

 private:
  kept_stage<Store>* kept_ = nullptr;
  std::unique_ptr<kept_stage<Store>> own_;
  Store* store_ = nullptr;
  stage_arena* arena_ = nullptr;
};

}  // namespace dimgraph::detail
