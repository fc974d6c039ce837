// The op table: every element-wise op with a fixed arity, one line each.
#pragma once

// DIMGRAPH_ELEMENTWISE_OPS(BINARY, UNARY) expands to BINARY(...) for each op of two operands and
// UNARY(...) for each op of one, with the columns
//   public   the public function: dg::<public>(x, y) or dg::<public>(x) (an operator's name
//            spells the operator: a + b)
//   op       the op's name, an identifier: the functor detail::fn::<op>, the "<op>" of its
//            messages ("dimgraph: <op>: ...") and of a traced graph's listing
//   kind     which operands it takes, the element type it gives, and how operand lanes are
//            converted before `lanes` sees them (detail::fn, expr/functors.hpp):
//              wrapping   arithmetic in the promoted type, integers wrapping (two's complement)
//              promoting  arithmetic in the promoted type, the result in that type
//              floating   arithmetic in the promoted type's floating-point type (integers
//                         compute in float)
//              comparing  compared in the promoted type, bool result
//              logical    on bool operands (lanes are masks), bool result
//   lanes    what computes one vector of lanes from the converted operand lanes, called as
//            lanes(a, b) or lanes(a) (names are those of namespace dimgraph::detail::fn)
// From each line come the functor (expr/functors.hpp) and the public op, which takes tensors,
// views, lazy expressions, C++ scalars (binary ops) and the symbols of a traced function
// (ops/elementwise.hpp; graph/ops.hpp records a node). Adding an element-wise op is one line
// here. (Ops with further operands or attributes, such as where, cast and map, are written out
// in ops/elementwise.hpp.) The macro stays defined: it is the table, which those headers and
// the table's test (tests/unit/expr/op_table.cpp) expand with macros of their own.
// clang-format off
#define DIMGRAPH_ELEMENTWISE_OPS(BINARY, UNARY)                                    \
  /*     public         op             kind       lanes                      */   \
  BINARY(operator+,     add,           wrapping,  std::plus<>{})                  \
  BINARY(operator-,     sub,           wrapping,  std::minus<>{})                 \
  BINARY(operator*,     mul,           wrapping,  std::multiplies<>{})            \
  BINARY(operator/,     div,           floating,  std::divides<>{})               \
  BINARY(pow,           pow,           promoting, lanes::pow)                     \
  BINARY(min,           min,           promoting, lanes::minimum)                 \
  BINARY(max,           max,           promoting, lanes::maximum)                 \
  BINARY(equal,         equal,         comparing, std::equal_to<>{})              \
  BINARY(not_equal,     not_equal,     comparing, std::not_equal_to<>{})          \
  BINARY(less,          less,          comparing, std::less<>{})                  \
  BINARY(less_equal,    less_equal,    comparing, std::less_equal<>{})            \
  BINARY(greater,       greater,       comparing, std::greater<>{})               \
  BINARY(greater_equal, greater_equal, comparing, std::greater_equal<>{})         \
  BINARY(logical_and,   logical_and,   logical,   std::bit_and<>{})               \
  BINARY(logical_or,    logical_or,    logical,   std::bit_or<>{})                \
  BINARY(logical_xor,   logical_xor,   logical,   std::bit_xor<>{})               \
  UNARY(logical_not,    logical_not,   logical,   std::bit_not<>{})               \
  UNARY(operator-,      neg,           wrapping,  std::negate<>{})                \
  UNARY(abs,            abs,           promoting, lanes::abs)                     \
  UNARY(relu,           relu,          promoting, lanes::relu)                    \
  UNARY(floor,          floor,         promoting, lanes::floor)                   \
  UNARY(ceil,           ceil,          promoting, lanes::ceil)                    \
  UNARY(exp,            exp,           floating,  simd::exp)                      \
  UNARY(expm1,          expm1,         floating,  simd::expm1)                    \
  UNARY(log,            log,           floating,  simd::log)                      \
  UNARY(log1p,          log1p,         floating,  simd::log1p)                    \
  UNARY(sqrt,           sqrt,          floating,  simd::sqrt)                     \
  UNARY(rsqrt,          rsqrt,         floating,  simd::rsqrt)                    \
  UNARY(tanh,           tanh,          floating,  simd::tanh)                     \
  UNARY(sigmoid,        sigmoid,       floating,  simd::sigmoid)                  \
  UNARY(erf,            erf,           floating,  simd::erf)                      \
  UNARY(gelu,           gelu,          floating,  simd::gelu)                     \
  UNARY(sin,            sin,           floating,  simd::sin)                      \
  UNARY(cos,            cos,           floating,  simd::cos)
// clang-format on
