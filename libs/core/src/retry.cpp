#include "reagent/core/retry.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace reagent {

std::chrono::milliseconds backoffDelay(const RetryPolicy& policy, int retryIndex, double unitRandom) {
    const double base = static_cast<double>(policy.initialDelay.count()) *
                        std::pow(std::max(policy.multiplier, 1.0), std::max(retryIndex, 0));
    const double capped = std::min(base, static_cast<double>(policy.maxDelay.count()));
    const double jitter = std::clamp(policy.jitter, 0.0, 1.0);
    // Spread over [capped * (1 - jitter), capped * (1 + jitter)) so that many clients do not retry in step.
    const double spread = capped * (1.0 - jitter + 2.0 * jitter * std::clamp(unitRandom, 0.0, 1.0));
    return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(spread)));
}

double jitterSample() {
    thread_local std::minstd_rand generator{std::random_device{}()};
    return std::uniform_real_distribution<double>(0.0, 1.0)(generator);
}

}  // namespace reagent
