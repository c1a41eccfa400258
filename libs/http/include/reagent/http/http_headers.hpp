#pragma once
/// \file
/// \brief `HttpHeaders`: an ordered list of header fields with case-insensitive names.

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reagent::http {

/// \brief One header field as it is sent or was received.
struct HttpField {
    std::string name;
    std::string value;
};

/// \brief Header fields in the order they are sent or were received; names compare case-insensitively.
///
/// Repeated names are kept (`add`); `set` replaces every field of a name. Values of received headers are
/// untrusted text from the server.
class HttpHeaders {
  public:
    using const_iterator = std::vector<HttpField>::const_iterator;

    HttpHeaders() = default;
    /// \brief Fields in the given order: `{{"Accept", "text/event-stream"}, {"X-Api-Key", key}}`.
    HttpHeaders(std::initializer_list<HttpField> fields);

    /// \brief Appends a field (a name may repeat).
    void add(std::string name, std::string value);
    /// \brief Replaces the value of every field named `name` with one field at the first one's place,
    /// or appends it.
    void set(std::string name, std::string value);
    /// \brief Makes room for `count` fields.
    void reserve(std::size_t count) { fields_.reserve(count); }
    /// \brief Removes every field named `name`; returns how many were removed.
    std::size_t remove(std::string_view name);

    /// \brief The value of the first field named `name`, if any (valid until the headers change).
    [[nodiscard]] std::optional<std::string_view> find(std::string_view name) const;
    [[nodiscard]] bool contains(std::string_view name) const;

    [[nodiscard]] const_iterator begin() const noexcept { return fields_.begin(); }
    [[nodiscard]] const_iterator end() const noexcept { return fields_.end(); }
    [[nodiscard]] std::size_t size() const noexcept { return fields_.size(); }
    [[nodiscard]] bool empty() const noexcept { return fields_.empty(); }

  private:
    std::vector<HttpField> fields_;
};

/// \brief `text` without the spaces and tabs around it (a header value's optional whitespace, RFC 9110
/// §5.6.3).
[[nodiscard]] std::string_view trimWhitespace(std::string_view text) noexcept;

/// \brief ASCII case-insensitive equality, as header names compare.
[[nodiscard]] bool equalsIgnoreCase(std::string_view a, std::string_view b) noexcept;

}  // namespace reagent::http
