// expect: dimgraph: if_: branches return different dims
// errors: 1
// names: A B
// lines: 9
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct A : dg::dim<"a", 2> {};
struct B : dg::dim<"b", 4> {};

int main(int argc, char**) {
  auto input = dg::zeros<float, A, B>();
  auto [d, s] = dg::if_(
      argc > 1,
      [](const auto& x) {
        return std::tuple{x + 1.0f, dg::sum<B>(x)};
      },
#ifdef DIMGRAPH_FAIL
      [](const auto& x) {
        return std::tuple{x * 2.0f, dg::sum<A>(x)};
      })(input);
#else
      [](const auto& x) {
        return std::tuple{x * 2.0f, dg::sum<B>(x)};
      })(input);
#endif
  return static_cast<int>(d.size() + s.size()) - 10;
}
