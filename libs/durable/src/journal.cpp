#include "reagent/durable/journal.hpp"

#include <boost/describe/enum_from_string.hpp>

#include "reagent/core/enum_name.hpp"

namespace reagent::durable {

namespace {

template <class E>
std::optional<E> named(std::string_view name) noexcept {
    E value{};
    if (!boost::describe::enum_from_string(std::string(name).c_str(), value)) {
        return std::nullopt;
    }
    return value;
}

}  // namespace

Millis nowMillis() noexcept {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string_view toString(RunStatus status) noexcept {
    return enumName(status);
}

std::optional<RunStatus> runStatusNamed(std::string_view name) noexcept {
    return named<RunStatus>(name);
}

bool isTerminal(RunStatus status) noexcept {
    return status == RunStatus::completed || status == RunStatus::failed || status == RunStatus::cancelled;
}

std::string_view toString(InputKind kind) noexcept {
    return enumName(kind);
}

std::optional<InputKind> inputKindNamed(std::string_view name) noexcept {
    return named<InputKind>(name);
}

}  // namespace reagent::durable
