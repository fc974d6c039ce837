// torch.nn.MultiheadAttention written out in double, independently of dimgraph: the reference of
// the attention and encoder tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace support {

// Row-major [n0][n1][n2] arrays of doubles.
struct array3 {
  std::size_t n1, n2;
  std::vector<double> v;
  array3(std::size_t a, std::size_t b, std::size_t c) : n1(b), n2(c), v(a * b * c) {}
  double& operator()(std::size_t i, std::size_t j, std::size_t k) {
    return v[(i * n1 + j) * n2 + k];
  }
  double operator()(std::size_t i, std::size_t j, std::size_t k) const {
    return v[(i * n1 + j) * n2 + k];
  }
};

// torch.nn.MultiheadAttention in double, from element accessors: q(b, t, m), k(b, s, m),
// v(b, s, m), the projections wq(e, m) .. and biases bq(e) .., wo(o, e), bo(o); masked(b, h, t,
// s) says whether a score is masked out (-inf), add(b, h, t, s) is added to it. Returns the
// output [b][t][o] and the weights averaged over heads [b][t][s].
struct attention_result {
  array3 out, weights;
};
template <class Q, class K, class V, class Wq, class Wk, class Wv, class Bq, class Bk, class Bv,
          class Wo, class Bo, class Masked, class Add>
attention_result attention_reference(std::size_t nb, std::size_t nt, std::size_t ns,
                                     std::size_t heads, std::size_t e, std::size_t mq,
                                     std::size_t mk, std::size_t mv, std::size_t no, Q q, K k, V v,
                                     Wq wq, Wk wk, Wv wv, Bq bq, Bk bk, Bv bv, Wo wo, Bo bo,
                                     Masked masked, Add add) {
  const std::size_t hd = e / heads;
  attention_result r{array3(nb, nt, no), array3(nb, nt, ns)};
  for (std::size_t b = 0; b < nb; ++b) {
    array3 qp(1, nt, e), kp(1, ns, e), vp(1, ns, e);
    for (std::size_t i = 0; i < e; ++i) {
      for (std::size_t t = 0; t < nt; ++t) {
        double acc = bq(i);
        for (std::size_t m = 0; m < mq; ++m) acc += wq(i, m) * q(b, t, m);
        qp(0, t, i) = acc;
      }
      for (std::size_t s = 0; s < ns; ++s) {
        double acc = bk(i), acc_v = bv(i);
        for (std::size_t m = 0; m < mk; ++m) acc += wk(i, m) * k(b, s, m);
        for (std::size_t m = 0; m < mv; ++m) acc_v += wv(i, m) * v(b, s, m);
        kp(0, s, i) = acc;
        vp(0, s, i) = acc_v;
      }
    }
    array3 ctx(1, nt, e);
    for (std::size_t h = 0; h < heads; ++h) {
      for (std::size_t t = 0; t < nt; ++t) {
        std::vector<double> p(ns);
        double top = -std::numeric_limits<double>::infinity();
        for (std::size_t s = 0; s < ns; ++s) {
          double acc = 0;
          for (std::size_t j = 0; j < hd; ++j) acc += qp(0, t, h * hd + j) * kp(0, s, h * hd + j);
          p[s] = masked(b, h, t, s) ? -std::numeric_limits<double>::infinity()
                                    : acc / std::sqrt(double(hd)) + add(b, h, t, s);
          top = std::max(top, p[s]);
        }
        double total = 0;
        for (double& x : p) total += (x = std::exp(x - top));
        for (std::size_t s = 0; s < ns; ++s) {
          p[s] /= total;
          r.weights(b, t, s) += p[s] / double(heads);
          for (std::size_t j = 0; j < hd; ++j) ctx(0, t, h * hd + j) += p[s] * vp(0, s, h * hd + j);
        }
      }
    }
    for (std::size_t t = 0; t < nt; ++t)
      for (std::size_t o = 0; o < no; ++o) {
        double acc = bo(o);
        for (std::size_t i = 0; i < e; ++i) acc += wo(o, i) * ctx(0, t, i);
        r.out(b, t, o) = acc;
      }
  }
  return r;
}

}  // namespace support
