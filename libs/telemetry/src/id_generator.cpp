#include "reagent/telemetry/id_generator.hpp"

#include <cstring>

namespace reagent::telemetry {

namespace {

std::uint64_t freshSeed() {
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

// Fills `bytes` from `engine`, again while they come out all zero (which an id may not be).
template <class Id>
Id randomId(std::mt19937_64& engine) {
    Id id;
    do {
        for (std::size_t i = 0; i < id.bytes.size(); i += 8) {
            const std::uint64_t word = engine();
            std::memcpy(id.bytes.data() + i, &word, std::min<std::size_t>(8, id.bytes.size() - i));
        }
    } while (!id.valid());
    return id;
}

}  // namespace

IdGenerator::IdGenerator() : engine_(freshSeed()) {}

IdGenerator::IdGenerator(std::uint64_t seed) : engine_(seed) {}

TraceId IdGenerator::traceId() {
    return randomId<TraceId>(engine_);
}

SpanId IdGenerator::spanId() {
    return randomId<SpanId>(engine_);
}

}  // namespace reagent::telemetry
