// dim_list: ordered sets of dims and their set operations.
#include <dimgraph.hpp>

#include <type_traits>

namespace dg = dimgraph;

namespace {
struct A : dg::dim<"a"> {};
struct B : dg::dim<"b", 3> {};
struct C : dg::dim<"c", dg::range{1, 4}> {};
struct D : dg::dim<"d"> {};
using AB = decltype(A{} + B{});

using L = dg::dim_list<A, B, AB>;
static_assert(L::size == 3);
static_assert(dg::list_contains_v<L, AB> && !dg::list_contains_v<L, C>);
static_assert(dg::list_index_of_v<L, A> == 0 && dg::list_index_of_v<L, AB> == 2);

static_assert(
    std::is_same_v<dg::list_concat_t<dg::dim_list<A>, dg::dim_list<B, C>>, dg::dim_list<A, B, C>>);
static_assert(std::is_same_v<dg::list_union_t<dg::dim_list<C, A>, dg::dim_list<B, A, D>>,
                             dg::dim_list<C, A, B, D>>);
static_assert(std::is_same_v<dg::list_difference_t<dg::dim_list<A, B, C, D>, dg::dim_list<D, B>>,
                             dg::dim_list<A, C>>);
static_assert(std::is_same_v<dg::list_intersection_t<dg::dim_list<A, B, C, D>, dg::dim_list<D, B>>,
                             dg::dim_list<B, D>>);
static_assert(dg::list_is_subset_v<dg::dim_list<B, A>, L>);
static_assert(!dg::list_is_subset_v<dg::dim_list<C>, L>);
static_assert(dg::list_is_subset_v<dg::dim_list<>, L>);
static_assert(dg::list_same_set_v<dg::dim_list<A, B, C>, dg::dim_list<C, A, B>>);
static_assert(!dg::list_same_set_v<dg::dim_list<A, B>, dg::dim_list<A, B, C>>);
static_assert(!dg::list_same_set_v<dg::dim_list<A, B>, dg::dim_list<A, C>>);
}  // namespace
