// The dims of a multi-head attention block, derived with the dim algebra.
// Every identity below is checked by the compiler; the program prints each dim.
#include <dimgraph.hpp>

#include <iostream>
#include <string>

namespace dg = dimgraph;

struct Time : dg::dim<"time"> {};       // dynamic
struct Heads : dg::dim<"heads", 8> {};  // static
struct HeadDim : dg::dim<"head_dim", 64> {};
struct Key : dg::dim<"key", 512> {};
struct Value : dg::dim<"value", 512> {};
struct KeyTotal : dg::dim<"key_total", 512> {};     // all heads' keys, split per head
struct Beam : dg::dim<"beam", dg::range{1, 8}> {};  // an interval

constexpr Time time_;
constexpr Heads heads;
constexpr HeadDim head_dim;
constexpr Key key;
constexpr Value value;
constexpr KeyTotal key_total;

// The model dim is the heads merged with their features, heads major.
constexpr auto model = heads * head_dim;
// One projection computes queries and keys (2 * key) and values, concatenated.
constexpr auto qkv = dg::c<2> * key + value;
// Two frames of padding on each side of the sequence.
constexpr auto padded = dg::c<2> + time_ + dg::c<2>;
// Each head's share of the key features.
constexpr auto per_head = key_total / heads;

// The algebra's laws, checked where they are used:
static_assert(dg::same_dim_v<decltype(model / head_dim), Heads>);  // (a * b) / b == a
static_assert(
    dg::same_dim_v<decltype(dg::div_left(heads, model)), HeadDim>);  // div_left(a, a * b) == b
static_assert(dg::same_dim_v<decltype(key + key + value), decltype(qkv)>);  // a + a == 2 * a
static_assert(dg::same_dim_v<decltype(qkv - value), decltype(dg::c<2> * key)>);
static_assert(dg::same_dim_v<decltype(dg::sub_left(dg::c<2>, padded) - dg::c<2>), Time>);
static_assert(dg::same_dim_v<decltype(per_head * heads), KeyTotal>);  // (a / b) * b == a
static_assert(!dg::same_dim_v<decltype(dg::c<2> * key), decltype(key * dg::c<2>)>);
static_assert(dg::static_size_v<decltype(model)> == 512);
static_assert(dg::static_size_v<decltype(qkv)> == 1536);
static_assert(dg::static_size_v<decltype(per_head)> == 64);
static_assert(dg::bounds_v<decltype(padded)> == dg::interval{4, dg::unbounded});
static_assert(dg::bounds_v<decltype(Beam{} * heads)> == dg::interval{8, 64});

std::string size_text(dg::interval i) {
  if (i.is_static()) return std::to_string(i.lo);
  return "[" + std::to_string(i.lo) + ", " + (i.is_bounded() ? std::to_string(i.hi) : "inf") + "]";
}

template <class D>
void show(const char* what, D) {
  std::cout << "  " << what << ": " << dg::describe<D>() << "  size " << size_text(dg::bounds_v<D>)
            << '\n';
}

int main() {
  std::cout << "dims of a multi-head attention block\n";
  show("time", time_);
  show("model", model);
  show("qkv", qkv);
  show("padded", padded);
  show("per_head", per_head);
  show("beam x heads", Beam{} * heads);
  // A dynamic extent becomes known at run time: the padded length of 25 frames.
  auto extent = [](auto) { return std::size_t{25}; };
  std::cout << "  padded length for time = 25: " << dg::runtime_size<decltype(padded)>(extent)
            << '\n';
  return dg::runtime_size<decltype(padded)>(extent) == 29 ? 0 : 1;
}
