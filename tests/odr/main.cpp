// Links odr/a.cpp and odr/b.cpp together and checks that both saw the same library.
int dimgraph_odr_a();
int dimgraph_odr_b();

int main() {
  return dimgraph_odr_a() == dimgraph_odr_b() ? 0 : 1;
}
