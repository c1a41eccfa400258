#include "reagent/telemetry/tracer.hpp"

#include <algorithm>

namespace reagent::telemetry {

namespace {

// The 56 low bits of a trace id: the part W3C Trace Context Level 2 asks to be random.
std::uint64_t randomness(const TraceId& traceId) {
    std::uint64_t value = 0;
    for (std::size_t i = 9; i < traceId.bytes.size(); ++i) {
        value = (value << 8) | traceId.bytes[i];
    }
    return value;
}

bool sampledByRatio(double ratio, const TraceId& traceId) {
    if (ratio >= 1.0) {
        return true;
    }
    if (ratio <= 0.0) {
        return false;
    }
    // Sampled when the randomness is at least the rejection threshold (1 - ratio) * 2^56: a trace sampled
    // at one ratio is sampled at every higher one.
    constexpr double kSpan = 72057594037927936.0;  // 2^56
    const auto threshold = static_cast<std::uint64_t>((1.0 - ratio) * kSpan);
    return randomness(traceId) >= threshold;
}

}  // namespace

bool shouldSample(const SamplerConfig& sampler, const SpanContext* parent, const TraceId& traceId) {
    const bool hasParent = parent != nullptr && parent->valid();
    switch (sampler.kind) {
        case SamplerKind::always_on:
            return true;
        case SamplerKind::always_off:
            return false;
        case SamplerKind::traceidratio:
            return sampledByRatio(sampler.ratio, traceId);
        case SamplerKind::parentbased_always_on:
            return hasParent ? parent->sampled() : true;
        case SamplerKind::parentbased_always_off:
            return hasParent ? parent->sampled() : false;
        case SamplerKind::parentbased_traceidratio:
            return hasParent ? parent->sampled() : sampledByRatio(sampler.ratio, traceId);
    }
    return false;
}

std::uint64_t nowUnixNano() noexcept {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
}

void InMemorySpanSink::onEnd(SpanData span) {
    const std::lock_guard lock(mutex_);
    spans_.push_back(std::move(span));
}

std::vector<SpanData> InMemorySpanSink::spans() const {
    const std::lock_guard lock(mutex_);
    return spans_;
}

std::vector<SpanData> InMemorySpanSink::take() {
    const std::lock_guard lock(mutex_);
    return std::exchange(spans_, {});
}

Span& Span::operator=(Span&& other) noexcept {
    if (this != &other) {
        end();
        context_ = std::move(other.context_);
        data_ = std::move(other.data_);
        sink_ = std::move(other.sink_);
    }
    return *this;
}

Span::~Span() {
    end();
}

void Span::setAttribute(std::string key, AttributeValue value) {
    if (!data_) {
        return;
    }
    auto& attributes = data_->attributes;
    const auto same = std::find_if(attributes.begin(), attributes.end(),
                                   [&key](const Attribute& attribute) { return attribute.key == key; });
    if (same != attributes.end()) {
        same->value = std::move(value);
    } else {
        attributes.push_back({std::move(key), std::move(value)});
    }
}

void Span::addEvent(std::string name, std::vector<Attribute> attributes, std::uint64_t timeUnixNano) {
    if (data_) {
        data_->events.push_back(
            {std::move(name), timeUnixNano != 0 ? timeUnixNano : nowUnixNano(), std::move(attributes)});
    }
}

void Span::setStatus(StatusCode status, std::string message) {
    if (!data_ || status == StatusCode::unset || data_->status == StatusCode::ok) {
        return;  // unset sets nothing; ok is final
    }
    data_->status = status;
    data_->statusMessage = status == StatusCode::error ? std::move(message) : std::string();
}

void Span::setStartTime(std::uint64_t startUnixNano) {
    if (data_ && startUnixNano != 0) {
        data_->startTimeUnixNano = startUnixNano;
    }
}

void Span::end(std::uint64_t endUnixNano) {
    if (!data_) {
        return;
    }
    auto data = std::move(data_);
    data->endTimeUnixNano = std::max(endUnixNano != 0 ? endUnixNano : nowUnixNano(), data->startTimeUnixNano);
    if (sink_) {
        sink_->onEnd(std::move(*data));
    }
}

Tracer::Tracer(SamplerConfig sampler, std::shared_ptr<SpanSink> sink, IdGenerator ids)
    : sampler_(sampler), sink_(std::move(sink)), ids_(std::move(ids)) {}

Span Tracer::startSpan(std::string name, SpanKind kind, const SpanContext* parent,
                       std::uint64_t startUnixNano) {
    const bool child = parent != nullptr && parent->valid();
    Span span;
    {
        const std::lock_guard lock(idsMutex_);
        span.context_.traceId = child ? parent->traceId : ids_.traceId();
        span.context_.spanId = ids_.spanId();
    }
    span.context_.traceState = child ? parent->traceState : std::string();
    const bool sampled = shouldSample(sampler_, parent, span.context_.traceId);
    span.context_.flags = static_cast<std::uint8_t>(((child ? parent->flags : 0) & ~kSampledFlag) |
                                                    (sampled ? kSampledFlag : 0));
    if (sampled) {
        span.data_ = std::make_unique<SpanData>();
        span.data_->context = span.context_;
        span.data_->parentSpanId = child ? parent->spanId : SpanId{};
        span.data_->name = std::move(name);
        span.data_->kind = kind;
        span.data_->startTimeUnixNano = startUnixNano != 0 ? startUnixNano : nowUnixNano();
        span.sink_ = sink_;
    }
    return span;
}

}  // namespace reagent::telemetry
