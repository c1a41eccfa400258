#pragma once
/// \file
/// \brief `LoopOptions`: the iteration limit and sampling options of a run.

#include <optional>

namespace reagent::agent {

/// \brief What every run of an agent allows and asks of the model. The agent keeps one
/// (`AgentConfig::loop`, set by the builder) and gives each run's `ReactLoop` a copy (`LoopConfig::options`).
struct LoopOptions {
    /// Model calls allowed per run. Invariant: >= 1 (`build()` rejects less; the loop counts less as 1).
    /// Default 10.
    int maxIterations = 10;
    /// Sampling temperature of each model call; unset: the provider's default. Invariant: >= 0.
    std::optional<double> temperature;
    /// Reply token limit of each model call; unset: the provider's default. Invariant: >= 1.
    std::optional<int> maxTokens;
    /// With an output schema: how many times an answer that does not match it goes back to the model with
    /// the validator's messages before the run fails with `output_invalid`. Invariant: >= 0. Default 2.
    int maxOutputRetries = 2;
};

}  // namespace reagent::agent
