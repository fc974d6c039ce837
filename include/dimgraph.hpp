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

#include "dimgraph/tensor/tensor.hpp"
