// Time arithmetic on client-given values that stops at the type's maximum instead of wrapping:
// command costs, waits and sample lengths come off the wire and reach 2^63 (the fuzz targets'
// kernel findings). Only for non-negative quantities.
#pragma once

#include <limits>

namespace tidemark::kernel {

template <class T, class U>
constexpr T saturating_add(T a, U b) {
  T sum;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<T>::max() : sum;
}

template <class T, class U>
constexpr T saturating_mul(T a, U b) {
  T product;
  return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<T>::max() : product;
}

}  // namespace tidemark::kernel
