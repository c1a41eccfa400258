#pragma once
// An optional value kept on the heap: the object that holds it carries one pointer, not the value.

#include <memory>
#include <optional>
#include <utility>

namespace reagent {

/// \brief An optional `T` stored on the heap, used as `std::optional<T>` is: `if (box)`, `box->field`,
/// `*box`, `box = value`, `box.reset()`, and converted to `std::optional<T>` where one is wanted.
///
/// For large fields that are rarely set, in types that many objects reserve room for. A run's
/// `RunResult` is one: every coroutine frame that returns or awaits it holds one, set or not, so each
/// byte of it costs as many bytes in every run that waits.
///
/// Copies are deep. A moved-from box is empty.
template <class T>
class Boxed {
  public:
    Boxed() noexcept = default;
    Boxed(std::nullopt_t) noexcept {}  // NOLINT(google-explicit-constructor): as std::optional
    Boxed(T value)                     // NOLINT(google-explicit-constructor): as std::optional
        : value_(std::make_unique<T>(std::move(value))) {}
    Boxed(std::optional<T> value)  // NOLINT(google-explicit-constructor): from an optional
        : value_(value ? std::make_unique<T>(std::move(*value)) : nullptr) {}
    Boxed(const Boxed& other) : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
    Boxed(Boxed&&) noexcept = default;
    Boxed& operator=(const Boxed& other) {
        if (this != &other) {
            value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
        }
        return *this;
    }
    Boxed& operator=(Boxed&&) noexcept = default;
    ~Boxed() = default;

    template <class... Args>
    T& emplace(Args&&... args) {
        value_ = std::make_unique<T>(std::forward<Args>(args)...);
        return *value_;
    }
    void reset() noexcept { value_.reset(); }

    [[nodiscard]] bool has_value() const noexcept { return value_ != nullptr; }  // NOLINT: as std::optional
    explicit operator bool() const noexcept { return value_ != nullptr; }

    /// The value; the box must hold one (as `std::optional`'s `*`).
    [[nodiscard]] T& operator*() noexcept { return *value_; }
    [[nodiscard]] const T& operator*() const noexcept { return *value_; }
    [[nodiscard]] T* operator->() noexcept { return value_.get(); }
    [[nodiscard]] const T* operator->() const noexcept { return value_.get(); }
    /// The value, or `std::bad_optional_access` when the box is empty.
    [[nodiscard]] const T& value() const {
        if (!value_) {
            throw std::bad_optional_access{};
        }
        return *value_;
    }

    operator std::optional<T>() const {  // NOLINT(google-explicit-constructor): where an optional is wanted
        return value_ ? std::optional<T>(*value_) : std::nullopt;
    }

    friend bool operator==(const Boxed& box, std::nullopt_t) noexcept { return !box; }

  private:
    std::unique_ptr<T> value_;
};

}  // namespace reagent
