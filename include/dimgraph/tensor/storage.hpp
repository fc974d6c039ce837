// detail::storage: element storage, 64-byte aligned on the heap, inline when the size is static.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <memory>
#include <new>
#include <string>
#include <utility>

#include "dimgraph/config.hpp"
#include "dimgraph/detail/checked_size.hpp"
#include "dimgraph/shape/error.hpp"

namespace dimgraph::detail {

inline constexpr std::size_t storage_alignment = 64;

// Memory from plain ::operator new, freed with plain ::operator delete.
struct raw_free {
  void operator()(void* p) const { ::operator delete(p); }
};

// The error of a heap storage whose bytes do not fit a std::size_t (out of line: the
// allocation stays small enough to inline).
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE inline void throw_too_many_bytes(std::size_t n,
                                                                           std::size_t size) {
  throw shape_error("tensor", std::to_string(n) + " elements of " + std::to_string(size) +
                                  " bytes take more bytes than can be addressed");
}

// Asks a storage for elements left uninitialised: the caller writes every one of them before
// any is read (a tensor constructed from an expression).
struct for_overwrite_t {};

// Heap storage of n value-initialised elements (T is trivially destructible: the
// element types are arithmetic), 64-byte aligned inside a plain allocation of n elements
// plus 64 bytes. (Not the aligned operator new: glibc serves large aligned requests with a
// fresh mmap every time, so a loop that makes one big tensor per iteration would fault
// in every page of it on every call; plain requests of a repeated size reuse the heap.)
// Error: n elements whose bytes (plus the 64) do not fit a std::size_t (shape_error; a
// tensor's shape never gets there, see detail::max_elements); std::bad_alloc when they fit
// but cannot be had.
template <class T>
class heap_storage {
 public:
  heap_storage() = default;
  explicit heap_storage(std::size_t n) : heap_storage(for_overwrite_t{}, n) {
    std::uninitialized_value_construct_n(data_, n);
  }
  // (Default-initialised: nothing is done for arithmetic T.)
  heap_storage(for_overwrite_t, std::size_t n) : size_(n) {
    if (n == 0) return;
    std::size_t space = 0;
    if (mul_overflows(n, sizeof(T), space) || add_overflows(space, storage_alignment, space))
      throw_too_many_bytes(n, sizeof(T));
    raw_.reset(::operator new(space));
    void* p = raw_.get();
    data_ = static_cast<T*>(std::align(storage_alignment, n * sizeof(T), p, space));
    std::uninitialized_default_construct_n(data_, n);
  }
  heap_storage(const heap_storage& o) : heap_storage(for_overwrite_t{}, o.size_) {
    std::uninitialized_copy_n(o.data_, size_, data_);
  }
  // A moved-from storage is empty.
  heap_storage(heap_storage&& o) noexcept
      : raw_(std::move(o.raw_)),
        data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)) {}
  heap_storage& operator=(const heap_storage& o) {
    if (this != &o) {
      heap_storage copy(o);
      *this = std::move(copy);
    }
    return *this;
  }
  heap_storage& operator=(heap_storage&& o) noexcept {
    raw_ = std::move(o.raw_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    return *this;
  }

  // (Aligned as allocated: kernels may fold loads into arithmetic where only an aligned
  // operand can be folded, as SSE's.)
  T* data() { return std::assume_aligned<storage_alignment>(data_); }
  const T* data() const { return std::assume_aligned<storage_alignment>(data_); }
  std::size_t size() const { return size_; }

 private:
  std::unique_ptr<void, raw_free> raw_;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// The alignment of N inline elements of T: storage_alignment, or less for a small tensor
// (its size in bytes rounded up to a power of two, at least alignof(T)), so that an
// all-static tensor is no larger than its elements.
template <class T, std::size_t N>
inline constexpr std::size_t inline_alignment =
    std::clamp(std::bit_ceil(sizeof(T) * (N == 0 ? 1 : N)), alignof(T), storage_alignment);

// Inline storage of N elements (no heap), value-initialised unless made for overwrite.
template <class T, std::size_t N>
class inline_storage {
 public:
  constexpr inline_storage() : data_{} {}
  // (n is N: the signature is heap_storage's.)
  constexpr inline_storage(for_overwrite_t, std::size_t) {}  // NOLINT: left uninitialised
  constexpr T* data() { return std::assume_aligned<inline_alignment<T, N>>(data_); }
  constexpr const T* data() const { return std::assume_aligned<inline_alignment<T, N>>(data_); }
  static constexpr std::size_t size() { return N; }

 private:
  alignas(inline_alignment<T, N>) T data_[N == 0 ? 1 : N];
};

// At least count elements of T, not initialised, kept per thread and per Tag and reused: scratch
// for a kernel that needs the same buffer call after call (a fresh allocation per call is
// fresh pages, whose faults and zeroing cost a tenth of an LSTM's time). 64-byte aligned.
template <class T, class Tag>
T* thread_scratch(std::size_t count) {
  static thread_local heap_storage<T> kept;
  if (kept.size() < count) kept = heap_storage<T>(for_overwrite_t{}, count);
  return kept.data();
}

}  // namespace dimgraph::detail
