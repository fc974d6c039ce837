// Sizes and kinds of tags and derived dims: static where all parts are static,
// interval arithmetic otherwise.
#include <dimgraph.hpp>

namespace dg = dimgraph;

namespace {
struct Heads : dg::dim<"heads", 8> {};
struct HeadDim : dg::dim<"head_dim", 64> {};
struct Beam : dg::dim<"beam", dg::range{1, 8}> {};
struct Time : dg::dim<"time"> {};
struct Len : dg::dim<"len", dg::range{2, dg::unbounded}> {};
struct Pos : dg::dim<"pos", 16, dg::dim_kind::spatial> {};

constexpr Heads heads;
constexpr HeadDim head_dim;
constexpr Beam beam;
constexpr Time time;
constexpr Len len;

// tags
static_assert(Heads::name == "heads");
static_assert(dg::is_static_v<Heads> && dg::static_size_v<Heads> == 8);
static_assert(dg::bounds_v<Beam> == dg::interval{1, 8} && !dg::is_static_v<Beam>);
static_assert(dg::bounds_v<Time>.is_dynamic());
static_assert(dg::bounds_v<Len> == dg::interval{2, dg::unbounded});
static_assert(dg::bounds_v<dg::batch>.is_dynamic());

// derived dims: static when all parts are static
static_assert(dg::static_size_v<decltype(heads * head_dim)> == 512);
static_assert(dg::static_size_v<decltype(dg::c<2> * heads + head_dim)> == 80);
static_assert(dg::static_size_v<decltype((heads * head_dim) / heads)> == 64);
static_assert(dg::static_size_v<decltype(head_dim / heads)> == 8);  // opaque, still sized
static_assert(dg::static_size_v<decltype(dg::ceildiv(head_dim + dg::c<1>, dg::c<2>))> == 33);
static_assert(dg::static_size_v<decltype(dg::floordiv(head_dim + dg::c<1>, dg::c<2>))> == 32);
static_assert(dg::static_size_v<decltype(head_dim - dg::c<4>)> == 60);
static_assert(dg::static_size_v<decltype(dg::sub_left(dg::c<4>, head_dim))> == 60);

// interval otherwise
static_assert(dg::bounds_v<decltype(dg::c<2> + beam + dg::c<2>)> == dg::interval{5, 12});
static_assert(dg::bounds_v<decltype(beam * heads)> == dg::interval{8, 64});
static_assert(dg::bounds_v<decltype(beam + time)> == dg::interval{1, dg::unbounded});
static_assert(dg::bounds_v<decltype(len * beam)> == dg::interval{2, dg::unbounded});
static_assert(dg::bounds_v<decltype(dg::ceildiv(beam, dg::c<3>))> == dg::interval{1, 3});
static_assert(dg::bounds_v<decltype(beam - dg::c<2>)> == dg::interval{0, 6});
static_assert(dg::bounds_v<decltype(heads / beam)> == dg::interval{1, 8});
static_assert(dg::bounds_v<decltype(time / heads)>.is_dynamic());

// kinds: static tags default to feature, others to spatial; derived dims share their tags' kind
static_assert(dg::kind_v<Heads> == dg::dim_kind::feature);
static_assert(dg::kind_v<Time> == dg::dim_kind::spatial);
static_assert(dg::kind_v<Pos> == dg::dim_kind::spatial);
static_assert(dg::kind_v<dg::batch> == dg::dim_kind::batch);
static_assert(dg::kind_v<decltype(heads * head_dim)> == dg::dim_kind::feature);
static_assert(dg::kind_v<decltype(dg::c<2> + time)> == dg::dim_kind::spatial);
static_assert(dg::kind_v<decltype(heads * time)> == dg::dim_kind::spatial);

// a static size needs a static dim; checked softly
template <class D>
concept has_static_size = requires { dg::static_size<D>(); };
}  // namespace
