#include <reagent/reagent.hpp>
