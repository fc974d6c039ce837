// dimgraph: tensors typed by dimension tags. Includes every public header.
#pragma once

#include "dimgraph/config.hpp"
#include "dimgraph/version.hpp"
#include "dimgraph/fwd.hpp"

#include "dimgraph/dim/interval.hpp"
#include "dimgraph/dim/tag.hpp"
#include "dimgraph/dim/forms.hpp"
#include "dimgraph/dim/size.hpp"
#include "dimgraph/dim/describe.hpp"
#include "dimgraph/dim/operators.hpp"
#include "dimgraph/dim/list.hpp"

#include "dimgraph/shape/error.hpp"
#include "dimgraph/shape/extent.hpp"
#include "dimgraph/shape/shape.hpp"

#include "dimgraph/tensor/element.hpp"
#include "dimgraph/tensor/promote.hpp"
#include "dimgraph/tensor/tensor.hpp"
#include "dimgraph/tensor/make.hpp"
#include "dimgraph/tensor/equal.hpp"
#include "dimgraph/tensor/print.hpp"

#include "dimgraph/expr/node.hpp"
#include "dimgraph/expr/map.hpp"
#include "dimgraph/expr/functors.hpp"
#include "dimgraph/expr/ops.hpp"
#include "dimgraph/expr/broadcast.hpp"

#include "dimgraph/eval/plan.hpp"
#include "dimgraph/eval/cursor.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/eval/compound.hpp"
