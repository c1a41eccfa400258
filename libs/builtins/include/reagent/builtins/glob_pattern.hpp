#pragma once
/// \file
/// \brief `builtins::GlobPattern`: `reagent::GlobPattern` (reagent/core/glob_pattern.hpp), under the name the
/// file tools' users knew it by.

#include "reagent/core/glob_pattern.hpp"

namespace reagent::builtins {

using reagent::GlobPattern;

}  // namespace reagent::builtins
