#pragma once
/// \file
/// \brief `IdGenerator`: new trace and span ids.

#include <random>

#include "reagent/telemetry/trace_context.hpp"

namespace reagent::telemetry {

/// \brief Makes random, never all-zero trace and span ids (W3C Trace Context Level 2 asks for random trace
/// ids). Each tracer holds its own, seeded from `std::random_device`: there is no process-wide generator.
///
/// \par Thread safety
/// None; one generator belongs to one tracer, used from its executor.
class IdGenerator {
  public:
    IdGenerator();
    /// A generator whose ids follow from `seed` (for tests that compare whole traces).
    explicit IdGenerator(std::uint64_t seed);

    [[nodiscard]] TraceId traceId();
    [[nodiscard]] SpanId spanId();

  private:
    std::mt19937_64 engine_;
};

}  // namespace reagent::telemetry
