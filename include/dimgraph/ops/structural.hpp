// The structural ops, one family: broadcast_to, outer, rename, split, split_dims, merge_dims,
// slice, concat, pad.
#pragma once

#include "dimgraph/ops/broadcast.hpp"
#include "dimgraph/ops/concat.hpp"
#include "dimgraph/ops/reshape.hpp"
#include "dimgraph/ops/slice.hpp"
