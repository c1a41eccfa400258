#include "reagent/telemetry/meter.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "reagent/telemetry/tracer.hpp"

namespace reagent::telemetry {

Histogram::Histogram(std::string name, std::string unit, std::string description, std::vector<double> bounds,
                     std::atomic<bool>& changed, const std::function<void()>& onChange)
    : name_(std::move(name)),
      unit_(std::move(unit)),
      description_(std::move(description)),
      bounds_(std::move(bounds)),
      changed_(changed),
      onChange_(onChange) {
    std::sort(bounds_.begin(), bounds_.end());
    bounds_.erase(std::unique(bounds_.begin(), bounds_.end()), bounds_.end());
}

void Histogram::record(double value, std::vector<Attribute> attributes) {
    if (std::isnan(value)) {
        return;
    }
    {
        const std::lock_guard lock(mutex_);
        auto [at, inserted] = cells_.try_emplace(std::move(attributes));
        if (inserted) {
            at->second.start = nowUnixNano();
            at->second.buckets.assign(bounds_.size() + 1, 0);
        }
        addLocked(at->second, value);
    }
    noteChange();
}

Histogram::Cell* Histogram::findLocked(std::string_view key) {
    const auto found = byKey_.find(key);
    return found == byKey_.end() ? nullptr : found->second;
}

Histogram::Cell* Histogram::insertLocked(std::string_view key, std::vector<Attribute> attributes) {
    auto [at, inserted] = cells_.try_emplace(std::move(attributes));
    if (inserted) {
        at->second.start = nowUnixNano();
        at->second.buckets.assign(bounds_.size() + 1, 0);
    }
    byKey_.emplace(std::string(key), &at->second);
    return &at->second;
}

void Histogram::addLocked(Cell& cell, double value) {
    if (cell.count == 0) {
        cell.min = value;
        cell.max = value;
    }
    ++cell.count;
    cell.sum += value;
    cell.min = std::min(cell.min, value);
    cell.max = std::max(cell.max, value);
    // Bucket i holds (bounds[i-1], bounds[i]]: the first bound not below the value.
    ++cell.buckets[static_cast<std::size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), value) -
                                            bounds_.begin())];
}

void Histogram::noteChange() {
    // The load first: a recording after the first one since the last collection costs no atomic write.
    if (!changed_.load(std::memory_order_relaxed) && !changed_.exchange(true) && onChange_) {
        onChange_();
    }
}

MetricData Histogram::collect(std::uint64_t timeUnixNano) const {
    MetricData out{name_, description_, unit_, {}};
    const std::lock_guard lock(mutex_);
    out.points.reserve(cells_.size());
    for (const auto& [attributes, cell] : cells_) {
        out.points.push_back(HistogramPoint{attributes, cell.start, timeUnixNano, cell.count, cell.sum,
                                            cell.min, cell.max, cell.buckets, bounds_});
    }
    return out;
}

Meter::Meter(std::function<void()> onChange) : onChange_(std::move(onChange)) {}

Histogram& Meter::histogram(const std::string& name, const std::string& unit, const std::string& description,
                            std::vector<double> bounds) {
    const std::lock_guard lock(mutex_);
    for (Histogram& existing : histograms_) {
        if (existing.name() == name) {
            return existing;
        }
    }
    return histograms_.emplace_back(name, unit, description, std::move(bounds), changed_, onChange_);
}

std::vector<MetricData> Meter::collect() const {
    const auto now = nowUnixNano();
    std::vector<MetricData> out;
    const std::lock_guard lock(mutex_);
    for (const Histogram& histogram : histograms_) {
        MetricData data = histogram.collect(now);
        if (!data.points.empty()) {
            out.push_back(std::move(data));
        }
    }
    return out;
}

}  // namespace reagent::telemetry
