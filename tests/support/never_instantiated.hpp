// never_instantiated(x): does not compile for any argument, so a branch that calls it proves,
// by compiling, that it was never instantiated.
#pragma once

#include <type_traits>

namespace support {

template <class T>
struct never : std::false_type {};

template <class X>
auto never_instantiated(const X& x) {
  static_assert(never<X>::value, "this branch must not be instantiated");
  return x;
}

}  // namespace support
