#include "reagent/telemetry/telemetry_error.hpp"

#include "reagent/core/enum_name.hpp"

namespace reagent::telemetry {

std::string_view toString(TelemetryErrc code) noexcept {
    return enumName(code);
}

}  // namespace reagent::telemetry
