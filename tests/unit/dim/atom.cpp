// atomic_dim: a dim form declared outside the library, with a non-type parameter of any type,
// is sized, kinded, printed and split like the library's own atoms, by its members alone.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <string>
#include <type_traits>

namespace dg = dimgraph;

namespace {
struct Time : dg::dim<"time"> {};
struct Heads : dg::dim<"heads", 8> {};
struct Seq : dg::dim<"seq", dg::range{4, 20}, dg::dim_kind::batch> {};
struct Len : dg::dim<"len", dg::ragged<dg::batch>> {};

// Every Step-th position of A (Step > 0, counting from the front; Step < 0, from the back):
// an int parameter, where part_dim has a std::size_t one.
template <class A, int Step>
struct strided : dg::dim_expr_base {
  static constexpr std::size_t step = static_cast<std::size_t>(Step < 0 ? -Step : Step);
  static constexpr dg::interval bounds = dg::ceildiv(dg::bounds_v<A>, step);
  static constexpr dg::dim_kind kind = dg::kind_v<A>;
  static std::string describe() {
    return "strided(" + dg::describe<A>() + "," + std::to_string(Step) + ")";
  }
};

// A named atom with a parameter of class type.
struct window_size {
  std::size_t size;
};
template <window_size W>
struct window : dg::dim_expr_base {
  static constexpr dg::interval bounds = dg::interval::exactly(W.size);
  static constexpr dg::dim_kind kind = dg::dim_kind::spatial;
  static constexpr std::string_view name = "window";
};

using every_other = strided<Heads, 2>;
using backwards = strided<Seq, -3>;
using win = window<window_size{5}>;

constexpr Time t;
constexpr Heads heads;
constexpr every_other every_other_head;
constexpr win five;

// The protocol: tags and atoms satisfy it, the algebra's forms do not.
static_assert(dg::atomic_dim<Time> && dg::atomic_dim<every_other> && dg::atomic_dim<backwards> &&
              dg::atomic_dim<win>);
static_assert(dg::atomic_dim<dg::part_dim<Heads, 2>> && dg::atomic_dim<dg::reversed_dim<Time>> &&
              dg::atomic_dim<dg::sliced_dim<Time>> && dg::atomic_dim<dg::packed_dim<Len>> &&
              dg::atomic_dim<dg::nn::key_dim<Len>> && dg::atomic_dim<dg::detail::invalid_dim> &&
              dg::atomic_dim<dg::detail::pad_part<Time, 2, true>>);
static_assert(!dg::atomic_dim<dg::const_dim<3>> && !dg::atomic_dim<decltype(t * heads)> &&
              !dg::atomic_dim<decltype(t + heads)> && !dg::atomic_dim<decltype(t / heads)>);
struct no_kind : dg::dim_expr_base {
  static constexpr dg::interval bounds = dg::interval::exactly(2);
  [[maybe_unused]] static constexpr std::string_view name = "no_kind";
};
struct not_printable : dg::dim_expr_base {
  static constexpr dg::interval bounds = dg::interval::exactly(2);
  static constexpr dg::dim_kind kind = dg::dim_kind::feature;
};
static_assert(!dg::atomic_dim<no_kind> && !dg::atomic_dim<not_printable> && !dg::atomic_dim<int>);

// Sizes: ceil(8 / 2) = 4; ceil([4, 20] / 3) = [2, 7]; a merge multiplies them.
static_assert(dg::static_size_v<every_other> == 4);
static_assert(dg::bounds_v<backwards> == dg::interval{2, 7});
static_assert(dg::static_size_v<win> == 5);
static_assert(dg::static_size_v<decltype(every_other_head * five)> == 20);
static_assert(dg::bounds_v<decltype(every_other_head + t)> == dg::interval{4, dg::unbounded});

// Kinds: the atom's own, shared with the dims made from it as a tag's would be.
static_assert(dg::kind_v<every_other> == dg::dim_kind::feature);
static_assert(dg::kind_v<backwards> == dg::dim_kind::batch);
static_assert(dg::kind_v<win> == dg::dim_kind::spatial);
static_assert(dg::kind_v<decltype(every_other_head * heads)> == dg::dim_kind::feature);
static_assert(dg::kind_v<decltype(dg::c<2> * backwards{})> == dg::dim_kind::batch);
static_assert(dg::kind_v<decltype(every_other_head * five)> == dg::dim_kind::spatial);
// An atom made from another dim (D::source) has all of that dim's kinds: a constant has none,
// so reverse(4) * batch is a batch dim, as 4 * batch is; reverse(seq * heads) has two.
static_assert(dg::kind_v<decltype(dg::reversed_dim<dg::const_dim<4>>{} * dg::batch{})> ==
              dg::dim_kind::batch);
static_assert(dg::kind_v<decltype(dg::part_dim<dg::const_dim<4>, 2>{} * dg::batch{})> ==
              dg::dim_kind::batch);
static_assert(dg::kind_v<dg::reversed_dim<decltype(Seq{} * Heads{})>> == dg::dim_kind::spatial);

// The algebra treats it as one unit, as it does part_dim.
static_assert(dg::same_dim_v<decltype((every_other_head * t) / t), every_other>);
static_assert(dg::same_dim_v<decltype(dg::div_left(five, five* every_other_head)), every_other>);
static_assert(dg::same_dim_v<decltype((t + every_other_head) - every_other_head), Time>);
static_assert(!dg::same_dim_v<strided<Heads, 2>, strided<Heads, -2>>);
static_assert(!dg::same_dim_v<dg::part_dim<Heads, 2>, every_other>);
}  // namespace

TEST_CASE("atomic_dim: an atom prints by its describe() or its name, inside derived dims too") {
  CHECK(dg::describe<every_other>() == "strided(heads,2)");
  CHECK(dg::describe<backwards>() == "strided(seq,-3)");
  CHECK(dg::describe<win>() == "window");
  CHECK(dg::describe<decltype(every_other_head * five + t)>() == "strided(heads,2)*window+time");
  CHECK(dg::describe<decltype((t * heads) / every_other_head)>() ==
        "(time*heads)/strided(heads,2)");
  CHECK(dg::describe<strided<decltype(t * heads), 2>>() == "strided(time*heads,2)");
}

TEST_CASE("atomic_dim: a tensor over an atom declared outside the library") {
  dg::tensor<float, Time, every_other> x(dg::extent<Time>(3));
  CHECK(x.size() == 12);
  CHECK(x.extent<every_other>() == 4);
  dg::tensor<float, backwards> y(dg::extent<backwards>(6));
  CHECK(y.size() == 6);
}
