// Result types of the nn layers: linear's dims, the cells' gate dims from the dim algebra,
// and lstm_state's members.
#include <dimgraph.hpp>

#include <type_traits>

namespace dg = dimgraph;

namespace {
struct Input : dg::dim<"input", 512> {};
struct Hidden : dg::dim<"hidden", 256> {};
struct Out : dg::dim<"out", 10> {};
struct Time : dg::dim<"time"> {};
using Batch = dg::batch;

using Gate4 = decltype(dg::c<4> * Hidden{});
using Gate3 = decltype(dg::c<3> * Hidden{});
using Both = decltype(Input{} + Hidden{});

template <class X>
X& lvalue();

// The gate dims are four (three) copies of hidden one after the other, of the sizes of the
// opset's example: [1024, 768] fused weights.
static_assert(std::is_same_v<Gate4, decltype(Hidden{} + Hidden{} + Hidden{} + Hidden{})>);
static_assert(std::is_same_v<Gate3, decltype(Hidden{} + Hidden{} + Hidden{})>);
static_assert(dg::static_size_v<Gate4> == 1024 && dg::static_size_v<Both> == 768);
static_assert(dg::static_size_v<Gate3> == 768);

// linear: x's other dims in x's order, then W's output dim.
using X = dg::tensor<float, Batch, Time, Input>;
using W = dg::tensor<float, Out, Input>;
using Bias = dg::tensor<float, Out>;
static_assert(std::is_same_v<decltype(dg::nn::linear(lvalue<X>(), lvalue<W>())),
                             dg::tensor<float, Batch, Time, Out>>);
static_assert(std::is_same_v<decltype(dg::nn::linear(lvalue<X>(), lvalue<W>(), lvalue<Bias>())),
                             dg::tensor<float, Batch, Time, Out>>);
static_assert(std::is_same_v<decltype(dg::nn::linear(lvalue<dg::tensor<float, Input>>(),
                                                     lvalue<dg::tensor<float, Input, Out>>())),
                             dg::tensor<float, Out>>);

// lstm_cell: [Batch, Hidden] states from either weight layout.
using XB = dg::tensor<float, Batch, Input>;
using HB = dg::tensor<float, Batch, Hidden>;
using Separate = decltype(dg::nn::lstm_cell(
    lvalue<XB>(), lvalue<HB>(), lvalue<HB>(), lvalue<dg::tensor<float, Gate4, Input>>(),
    lvalue<dg::tensor<float, Gate4, Hidden>>(), lvalue<dg::tensor<float, Gate4>>()));
using Fused = decltype(dg::nn::lstm_cell(lvalue<XB>(), lvalue<HB>(), lvalue<HB>(),
                                         lvalue<dg::tensor<float, Gate4, Both>>(),
                                         lvalue<dg::tensor<float, Gate4>>()));
static_assert(std::is_same_v<Separate, dg::nn::lstm_state<HB>>);
static_assert(std::is_same_v<Fused, dg::nn::lstm_state<HB, HB>>);
static_assert(std::is_same_v<decltype(Fused::h), HB> && std::is_same_v<decltype(Fused::c), HB>);
// An aggregate of two members: `auto [h, c] = dg::nn::lstm_cell(...)` binds h, then c.
static_assert(std::is_aggregate_v<Fused>);

// Unbatched: one step on [Input] gives [Hidden].
using Unbatched = decltype(dg::nn::lstm_cell(
    lvalue<dg::tensor<float, Input>>(), lvalue<dg::tensor<float, Hidden>>(),
    lvalue<dg::tensor<float, Hidden>>(), lvalue<dg::tensor<float, Gate4, Both>>(),
    lvalue<dg::tensor<float, Gate4>>()));
static_assert(std::is_same_v<Unbatched, dg::nn::lstm_state<dg::tensor<float, Hidden>>>);

// gru_cell: h's type.
static_assert(
    std::is_same_v<decltype(dg::nn::gru_cell(
                       lvalue<XB>(), lvalue<HB>(), lvalue<dg::tensor<float, Gate3, Input>>(),
                       lvalue<dg::tensor<float, Gate3, Hidden>>(),
                       lvalue<dg::tensor<float, Gate3>>(), lvalue<dg::tensor<float, Gate3>>())),
                   HB>);

}  // namespace
