#pragma once
/// \file
/// \brief `Meter` and `Histogram`: the measurements an agent records (durations, token counts), aggregated
/// in memory per set of attributes until they are collected for export.

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "reagent/telemetry/metric_data.hpp"

namespace reagent::telemetry {

/// \brief A histogram with explicit bucket bounds, aggregated per set of attributes (cumulatively, as
/// OTLP exporters report by default). Made by a `Meter`.
///
/// \par Thread safety
/// `record` may be called from any thread.
class Histogram {
  public:
    Histogram(std::string name, std::string unit, std::string description, std::vector<double> bounds,
              std::atomic<bool>& changed, const std::function<void()>& onChange);

    /// \brief Adds `value` to the point of `attributes` (in the order given: the instrumentation writes
    /// them in one order). A value that is not a number is ignored, as the specification allows.
    void record(double value, std::vector<Attribute> attributes);

    /// \brief The same, for a hot path: `key` is a text the caller makes that stands for one set of
    /// attributes (one key, always the same attributes), and `make()` builds them the first time the key
    /// is seen. A recording of a known key allocates nothing.
    template <class Make>
    void record(double value, std::string_view key, Make&& make) {
        if (value != value) {  // not a number
            return;
        }
        {
            const std::lock_guard lock(mutex_);
            Cell* cell = findLocked(key);
            if (cell == nullptr) {
                cell = insertLocked(key, make());
            }
            addLocked(*cell, value);
        }
        noteChange();
    }

    [[nodiscard]] const std::string& name() const noexcept { return name_; }
    /// \brief The points recorded so far, stamped `timeUnixNano`; none when nothing was recorded.
    [[nodiscard]] MetricData collect(std::uint64_t timeUnixNano) const;

  private:
    struct Cell;
    // Under `mutex_`.
    Cell* findLocked(std::string_view key);
    Cell* insertLocked(std::string_view key, std::vector<Attribute> attributes);
    void addLocked(Cell& cell, double value);
    void noteChange();

    struct KeyHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view key) const noexcept {
            return std::hash<std::string_view>{}(key);
        }
    };

    struct Cell {
        std::uint64_t start = 0;
        std::uint64_t count = 0;
        double sum = 0;
        double min = 0;
        double max = 0;
        std::vector<std::uint64_t> buckets;
    };

    std::string name_;
    std::string unit_;
    std::string description_;
    std::vector<double> bounds_;
    std::atomic<bool>& changed_;
    const std::function<void()>& onChange_;
    mutable std::mutex mutex_;
    std::map<std::vector<Attribute>, Cell> cells_;
    // The cells of the keyed recordings (nodes of `cells_`, which do not move).
    std::unordered_map<std::string, Cell*, KeyHash, std::equal_to<>> byKey_;
};

/// \brief Owns a program's histograms and collects them. No process-wide meter exists: a `Telemetry` has
/// one.
///
/// \par Thread safety
/// All members may be called from any thread.
class Meter {
  public:
    /// \param onChange Called (on the recording thread, so it must not block) by the first recording after
    /// a collection: a reader starts its wait for the next export then, and nothing waits while nothing is
    /// recorded.
    explicit Meter(std::function<void()> onChange = {});
    Meter(const Meter&) = delete;
    Meter& operator=(const Meter&) = delete;

    /// \brief The histogram named `name`, made with these unit, description and bounds the first time it
    /// is asked for. The reference lives as long as the meter.
    Histogram& histogram(const std::string& name, const std::string& unit, const std::string& description,
                         std::vector<double> bounds);

    /// \brief Every histogram that has points, now.
    [[nodiscard]] std::vector<MetricData> collect() const;
    /// \brief True when something was recorded since the last `takeChanged`, which clears it.
    [[nodiscard]] bool takeChanged() noexcept { return changed_.exchange(false); }
    [[nodiscard]] bool changed() const noexcept { return changed_.load(); }

  private:
    std::atomic<bool> changed_{false};
    std::function<void()> onChange_;
    mutable std::mutex mutex_;
    std::deque<Histogram> histograms_;
};

}  // namespace reagent::telemetry
