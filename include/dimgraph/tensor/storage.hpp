// detail::storage: 64-byte aligned element storage, inline when the size is static.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>

namespace dimgraph::detail {

inline constexpr std::size_t storage_alignment = 64;

struct aligned_free {
  template <class T>
  void operator()(T* p) const {
    ::operator delete[](static_cast<void*>(p), std::align_val_t{storage_alignment});
  }
};

// Heap storage of n value-initialised elements (T is trivially destructible: the
// element types are arithmetic).
template <class T>
class heap_storage {
 public:
  heap_storage() = default;
  explicit heap_storage(std::size_t n)
      : data_(n ? static_cast<T*>(
                      ::operator new[](n * sizeof(T), std::align_val_t{storage_alignment}))
                : nullptr),
        size_(n) {
    std::uninitialized_value_construct_n(data_.get(), n);
  }
  heap_storage(const heap_storage& o) : heap_storage(o.size_) {
    std::copy_n(o.data_.get(), size_, data_.get());
  }
  heap_storage(heap_storage&& o) noexcept = default;
  heap_storage& operator=(const heap_storage& o) {
    if (this != &o) {
      heap_storage copy(o);
      *this = std::move(copy);
    }
    return *this;
  }
  heap_storage& operator=(heap_storage&& o) noexcept = default;

  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return size_; }

 private:
  std::unique_ptr<T, aligned_free> data_;
  std::size_t size_ = 0;
};

// Inline storage of N elements (no heap), value-initialised.
template <class T, std::size_t N>
class inline_storage {
 public:
  constexpr T* data() { return data_; }
  constexpr const T* data() const { return data_; }
  static constexpr std::size_t size() { return N; }

 private:
  alignas(storage_alignment) T data_[N == 0 ? 1 : N]{};
};

}  // namespace dimgraph::detail
