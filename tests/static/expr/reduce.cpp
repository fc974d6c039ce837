// Result types of the reductions: the kept dims in the operand's order, the element type of
// each op (sum of integers in int64, mean of integers in float, argmax as dg::index<D>).
// (Mistakes are compile errors with a message: tests/fail/reduce_*.cpp.)
#include <dimgraph.hpp>

#include <cstdint>
#include <type_traits>

namespace dg = dimgraph;

namespace {
struct B : dg::dim<"b"> {};
struct T : dg::dim<"t", dg::range{1, 8}> {};
struct F : dg::dim<"f", 4> {};

template <class X>
X& lvalue();
template <class E, class... Ds>
inline constexpr bool has_dims_v = std::is_same_v<dg::dims_t<E>, dg::dim_list<Ds...>>;
template <class E, class V>
inline constexpr bool has_value_v = std::is_same_v<dg::value_t<E>, V>;

using btf = dg::tensor<float, B, T, F>;
using tbf = dg::tensor<float, T, B, F>;
using btf_i32 = dg::tensor<std::int32_t, B, T, F>;
using btf_bool = dg::tensor<bool, B, T, F>;

// the reduced dims leave, the others keep the operand's order
static_assert(has_dims_v<decltype(dg::sum<T>(lvalue<btf>())), B, F>);
static_assert(has_dims_v<decltype(dg::sum<B>(lvalue<btf>())), T, F>);
static_assert(has_dims_v<decltype(dg::sum<F>(lvalue<btf>())), B, T>);
static_assert(has_dims_v<decltype(dg::sum<B>(lvalue<tbf>())), T, F>);
static_assert(has_dims_v<decltype(dg::max<F, B>(lvalue<btf>())), T>);
static_assert(has_dims_v<decltype(dg::max<B, F>(lvalue<btf>())), T>);
static_assert(has_dims_v<decltype(dg::mean<B, T, F>(lvalue<btf>()))>);
static_assert(has_dims_v<decltype(dg::prod<T>(dg::permute<F, T, B>(lvalue<btf>()))), F, B>);
static_assert(has_dims_v<decltype(dg::min<T>(lvalue<btf>() * lvalue<tbf>())), B, F>);
static_assert(has_dims_v<decltype(dg::eval(dg::sum<T>(lvalue<btf>()))), B, F>);
static_assert(
    std::is_same_v<decltype(dg::eval(dg::sum<B, T, F>(lvalue<btf>()))), dg::tensor<float>>);

// element types: sum and prod of integers and bools in int64, mean of them in float, max and
// min keep the type, any and all give bool; floats stay themselves
static_assert(has_value_v<decltype(dg::sum<T>(lvalue<btf>())), float>);
static_assert(has_value_v<decltype(dg::mean<T>(lvalue<btf>())), float>);
static_assert(has_value_v<decltype(dg::sum<T>(lvalue<dg::tensor<double, T>>())), double>);
static_assert(has_value_v<decltype(dg::sum<T>(lvalue<btf_i32>())), std::int64_t>);
static_assert(has_value_v<decltype(dg::prod<T>(lvalue<btf_i32>())), std::int64_t>);
static_assert(has_value_v<decltype(dg::sum<T>(lvalue<btf_bool>())), std::int64_t>);
static_assert(
    has_value_v<decltype(dg::sum<F>(lvalue<dg::tensor<std::uint8_t, F>>())), std::int64_t>);
static_assert(has_value_v<decltype(dg::mean<T>(lvalue<btf_i32>())), float>);
static_assert(has_value_v<decltype(dg::max<T>(lvalue<btf_i32>())), std::int32_t>);
static_assert(has_value_v<decltype(dg::min<T>(lvalue<dg::tensor<std::int8_t, T>>())), std::int8_t>);
static_assert(has_value_v<decltype(dg::any<T>(lvalue<btf_bool>())), bool>);
static_assert(has_value_v<decltype(dg::all<T, F>(lvalue<btf_bool>())), bool>);

// the composite reductions (evaluated eagerly: tensors)
static_assert(std::is_same_v<decltype(dg::logsumexp<T>(lvalue<btf>())), dg::tensor<float, B, F>>);
static_assert(
    std::is_same_v<decltype(dg::logsumexp<F, B>(lvalue<btf_i32>())), dg::tensor<float, T>>);
static_assert(std::is_same_v<decltype(dg::softmax<T>(lvalue<btf>())), btf>);
static_assert(std::is_same_v<decltype(dg::log_softmax<B>(lvalue<tbf>())), tbf>);
static_assert(
    std::is_same_v<decltype(dg::argmax<T>(lvalue<btf>())), dg::tensor<dg::index<T>, B, F>>);
static_assert(
    std::is_same_v<decltype(dg::argmin<B>(lvalue<btf_i32>())), dg::tensor<dg::index<B>, T, F>>);

}  // namespace
